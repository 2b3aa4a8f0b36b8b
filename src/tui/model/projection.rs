//! The Projection screen's state: which words (the most frequent, a list, or
//! a word's neighbourhood), the method and its options, the layout once
//! computed, and the view (zoom, pan, and the turn of a UBE sphere) of the
//! braille scatter. The computation and exports
//! run on workers ([`crate::tui::project_worker`]); t-SNE reports its KL as it goes.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::embedding::Embedding;
use crate::geometry::ube::sphere::{self, Matrix3};
pub use crate::project::layout::{Layout, PairLayout, B_MARK};
use crate::project::options::{applies, OPTIONS};
use crate::schema::Params;
use crate::tui::form::Form;
use crate::tui::input::LineInput;
pub use crate::tui::model::cancel::CancelFlag;

/// Which words to project.
pub use crate::project::pipeline::Focus as Selection;

/// Run B of a pair projection.
#[derive(Debug, Clone)]
pub struct PairSource {
    /// Run index.
    pub run: usize,
    /// The run's label.
    pub label: String,
    /// Its vectors.
    pub embedding: Arc<Embedding>,
}

/// What a cancelled layout answers.
pub use crate::project::registry::CANCELLED;

/// Work for the projection worker.
#[derive(Debug, Clone)]
pub enum ProjectionJob {
    /// Compute a layout.
    Compute {
        /// Request id (later requests win).
        request: u64,
        /// Run index.
        run: usize,
        /// The run's label (`#1 sgns dim=50`).
        label: String,
        /// The vectors.
        embedding: Arc<Embedding>,
        /// Which words.
        selection: Selection,
        /// The projection's registry name ([`crate::project::registry`]).
        method: String,
        /// The projection's own options (validated against its schema).
        params: Params,
        /// Words labelled.
        labels: usize,
        /// Seed.
        seed: u64,
        /// Output dimensions (3: a cloud the view turns).
        dims: usize,
        /// Run B, rotated onto A and laid out with it on shared axes.
        pair: Option<Box<PairSource>>,
        /// Set when the answer is no longer wanted.
        cancel: CancelFlag,
    },
    /// Write a layout to a file (PNG, SVG or CSV by extension).
    Export {
        /// The layout.
        layout: Layout,
        /// Where.
        path: String,
    },
}

/// What the projection worker reports.
#[derive(Debug, Clone, PartialEq)]
pub enum ProjectionResult {
    /// t-SNE progress.
    Progress {
        /// Request id.
        request: u64,
        /// Iterations done.
        step: u64,
        /// Iterations in all.
        total: u64,
        /// Current KL divergence.
        kl: f64,
    },
    /// The layout so far of a t-SNE still running (the scatter animates).
    Preview {
        /// Request id.
        request: u64,
        /// The layout so far.
        layout: Box<Layout>,
    },
    /// A layout, or why not.
    Done {
        /// Request id.
        request: u64,
        /// The layout.
        result: Result<Box<Layout>, String>,
    },
    /// An export finished.
    Exported {
        /// Where.
        path: String,
        /// Success or the error.
        result: Result<(), String>,
    },
}

/// The Projection screen.
#[derive(Debug, Clone)]
pub struct ProjectionView {
    /// The focus words (empty: the most frequent).
    pub focus: LineInput,
    /// Options.
    pub options: Form,
    /// Selected row: 0 is the focus words, then the options.
    pub selected: usize,
    /// The focus words are being typed.
    pub editing_focus: bool,
    /// The request in flight.
    pub pending: Option<u64>,
    /// The last run (by index) the request in flight names, A or B, and
    /// how to stop it: deleting that run or an earlier one shifts the
    /// numbers its layout would carry.
    pub running: Option<(usize, CancelFlag)>,
    /// KL divergence against step of the running t-SNE.
    pub kl: Vec<(f64, f64)>,
    /// Steps of the running t-SNE.
    pub progress: Option<(u64, u64)>,
    /// The layout shown.
    pub layout: Option<Layout>,
    /// Zoom factor (1 = everything visible).
    pub zoom: f64,
    /// View centre offset, as a fraction of the full extent.
    pub pan: (f64, f64),
    /// The last file written.
    pub exported: Option<String>,
    /// The settings of the request in flight, then of the layout shown
    /// (recorded with exported plots in the session).
    pub settings: BTreeMap<String, String>,
    /// The settings of the request in flight, until its layout arrives.
    pub(crate) pending_settings: BTreeMap<String, String>,
    /// The word to find, while it is typed.
    pub find: LineInput,
    /// The find field is being typed.
    pub finding: bool,
    /// The selected word (index into the layout), highlighted.
    pub picked: Option<usize>,
    /// Its nearest words in run A's vectors, with cosines.
    pub near: Vec<(String, f32)>,
    /// The request whose layout is shown while it still forms.
    pub previewing: Option<u64>,
    /// How a 3-D layout is turned before it is drawn (the identity: a UBE
    /// sphere centred on the points' mean direction, a cloud seen down its
    /// third axis).
    pub turn: Matrix3,
}

impl Default for ProjectionView {
    fn default() -> Self {
        ProjectionView {
            focus: LineInput::default(),
            options: Form::new(OPTIONS.to_vec()),
            selected: 0,
            editing_focus: false,
            pending: None,
            running: None,
            kl: Vec::new(),
            progress: None,
            layout: None,
            zoom: 1.0,
            pan: (0.0, 0.0),
            exported: None,
            settings: BTreeMap::new(),
            pending_settings: BTreeMap::new(),
            previewing: None,
            find: LineInput::default(),
            finding: false,
            picked: None,
            near: Vec::new(),
            turn: sphere::IDENTITY,
        }
    }
}

impl ProjectionView {
    /// Cancels the layout in flight (its answer is dropped): a new one was
    /// asked for, or its run is going.
    pub fn cancel_running(&mut self) {
        if let Some((_, cancel)) = self.running.take() {
            cancel.cancel();
        }
        self.pending = None;
        self.previewing = None;
        self.progress = None;
    }

    /// The option fields the chosen method reads (indices into `options`),
    /// in form order: the rows shown after the focus row.
    pub fn visible_options(&self) -> Vec<usize> {
        let method = self.options.text("method");
        (0..self.options.len())
            .filter(|&i| applies(self.options.specs()[i].name, method))
            .collect()
    }

    /// The rows shown: the focus (0), then the options the method reads
    /// (`1 +` their index in `options`).
    pub fn rows(&self) -> Vec<usize> {
        std::iter::once(0)
            .chain(self.visible_options().into_iter().map(|i| i + 1))
            .collect()
    }

    /// When the selected field is one the method does not read (the method
    /// changed under it), selects the row shown above it; its position
    /// among [`Self::rows`].
    pub(crate) fn snap_selection(&mut self) -> usize {
        let rows = self.rows();
        let at = rows.iter().rposition(|&r| r <= self.selected).unwrap_or(0);
        self.selected = rows[at];
        at
    }

    /// Turns a 3-D layout (a UBE sphere or a cloud) by `right` and `up`
    /// degrees (as seen on the screen) and draws it again; false when the
    /// layout shown is in 2-D.
    pub fn turn_view(&mut self, right: f64, up: f64) -> bool {
        if self.layout.as_ref().is_none_or(|l| !l.turns()) {
            return false;
        }
        self.turn = sphere::compose(&sphere::turn(right, up), &self.turn);
        self.remap();
        true
    }

    /// Draws a 3-D layout again under the current turn.
    pub(crate) fn remap(&mut self) {
        if let Some(layout) = &mut self.layout {
            layout.turn_to(&self.turn);
        }
    }

    /// Whether a line is being typed.
    pub fn typing(&self) -> bool {
        self.editing_focus || self.finding || self.options.editing().is_some()
    }

    /// Zoom and pan back to the whole layout, nothing selected.
    pub fn reset_view(&mut self) {
        self.zoom = 1.0;
        self.pan = (0.0, 0.0);
        self.turn = crate::geometry::ube::sphere::IDENTITY;
        self.picked = None;
        self.near.clear();
    }

    /// The visible `[x, y]` bounds of the layout under zoom and pan.
    pub fn bounds(&self) -> Option<([f64; 2], [f64; 2])> {
        let l = self.layout.as_ref()?;
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for [x, y] in &l.coords {
            x0 = x0.min(*x);
            x1 = x1.max(*x);
            y0 = y0.min(*y);
            y1 = y1.max(*y);
        }
        if x0 > x1 {
            return None;
        }
        let (w, h) = ((x1 - x0).max(1e-9) * 1.05, (y1 - y0).max(1e-9) * 1.05);
        let (cx, cy) = (
            (x0 + x1) / 2.0 + self.pan.0 * w,
            (y0 + y1) / 2.0 + self.pan.1 * h,
        );
        let (hw, hh) = (w / 2.0 / self.zoom, h / 2.0 / self.zoom);
        Some(([cx - hw, cx + hw], [cy - hh, cy + hh]))
    }
}

impl ProjectionView {
    /// The point drawn nearest to cell `(col, row)` of a plot `cols` x
    /// `rows` cells wide (0-based, from the top left), if one is within two
    /// cells of it (distances in cells, so a click means the same at any zoom).
    pub fn point_at(&self, cols: u16, rows: u16, col: u16, row: u16) -> Option<usize> {
        let layout = self.layout.as_ref()?;
        let ([x0, x1], [y0, y1]) = self.bounds()?;
        let (cw, ch) = (
            (x1 - x0) / f64::from(cols.max(1)),
            (y1 - y0) / f64::from(rows.max(1)),
        );
        let (cx, cy) = (
            x0 + (f64::from(col) + 0.5) * cw,
            y1 - (f64::from(row) + 0.5) * ch,
        );
        layout
            .coords
            .iter()
            .enumerate()
            .map(|(i, [x, y])| (i, ((x - cx) / cw).hypot((y - cy) / ch)))
            .filter(|&(_, d)| d <= 2.0)
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(i, _)| i)
    }

    /// Pans so that `(x, y)` is at the centre of the view (when zoomed).
    pub(crate) fn center_on(&mut self, x: f64, y: f64) {
        if self.zoom <= 1.0 {
            return;
        }
        let (Some(([x0, x1], [y0, y1])), (px, py)) = (self.bounds(), self.pan) else {
            return;
        };
        let (w, h) = ((x1 - x0) * self.zoom, (y1 - y0) * self.zoom);
        self.pan = (
            px + (x - (x0 + x1) / 2.0) / w,
            py + (y - (y0 + y1) / 2.0) / h,
        );
    }
}
