//! What a projection is, as the registry lists it and each method's entry
//! declares it: the [`Projection`] descriptor, what a layout is computed
//! from ([`Input`]) and gives back ([`Laid`]), and the [`Progress`] sink it
//! reports to and asks whether to stop. Kept apart from the list in
//! [`super::registry`], so an entry imports these types and the registry
//! imports the entries, with no circle between them.

use ndarray::Array2;

use crate::geometry::manifold::Phase;
use crate::schema::{ParamSpec, Params};
use crate::{Error, Result};

/// What a stopped layout answers.
pub const CANCELLED: &str = "projection cancelled";

/// The error a stopped layout ends with.
pub fn cancelled() -> Error {
    Error::Training(CANCELLED.into())
}

/// Whether `e` says the layout was stopped (not that it failed).
pub fn is_cancelled(e: &Error) -> bool {
    matches!(e, Error::Training(m) if m == CANCELLED)
}

/// The name of the loss a projection reports as it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Loss {
    /// Short series name (`KL`).
    pub short: &'static str,
    /// Chart title (`t-SNE KL divergence`).
    pub title: &'static str,
}

/// One way to lay words out.
#[derive(Debug, Clone, Copy)]
pub struct Projection {
    /// The `--method` name, also the form's choice and the session's record.
    pub name: &'static str,
    /// One line for help texts.
    pub help: &'static str,
    /// Its own options (`--set name=value`; the form shows those it has).
    pub schema: &'static [ParamSpec],
    /// The loss reported with each step, if any.
    pub loss: Option<Loss>,
    /// What a step is called in progress lines (`t-SNE iteration`).
    pub step: &'static str,
    /// Whether the layout is worth showing while it forms ([`Progress::preview`]).
    pub animates: bool,
    /// Output dimensions unless asked otherwise.
    pub default_dims: usize,
    /// The most output dimensions it lays out in.
    pub max_dims: usize,
    /// Lays `input` out with the options `params` (from [`Projection::schema`]).
    pub run: RunFn,
}

/// The signature of [`Projection::run`].
pub type RunFn = fn(Input<'_>, &Params, &mut dyn Progress) -> Result<Laid>;

/// What a layout is computed from.
#[derive(Debug)]
pub struct Input<'a> {
    /// One row per word.
    pub vectors: Array2<f32>,
    /// The words, in row order.
    pub words: &'a [String],
    /// Output dimensions (within the projection's `max_dims`).
    pub dims: usize,
    /// Seed of every random choice.
    pub seed: u64,
}

/// A computed layout.
#[derive(Debug, Clone, PartialEq)]
pub struct Laid {
    /// One row per word, `dims` columns.
    pub coords: Array2<f64>,
    /// One line saying how it was made (plot titles).
    pub description: String,
    /// Axis names (PCA's components).
    pub axes: Option<(String, String)>,
    /// The rows are points on the unit sphere, shown through [`Laid::flat`].
    pub sphere: bool,
}

impl Laid {
    /// The 2-D picture: a sphere's equal-area map, else the first two columns.
    pub fn flat(&self) -> Array2<f64> {
        if self.sphere && self.coords.ncols() == 3 {
            crate::geometry::ube::sphere::hammer_map(self.coords.view())
        } else {
            self.coords.slice(ndarray::s![.., ..2]).to_owned()
        }
    }
}

/// One step of a running layout.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tick {
    /// Steps (t-SNE: iterations) done.
    pub step: u64,
    /// Steps planned (the graph methods: an upper bound).
    pub total: u64,
    /// The loss after it (t-SNE's KL, UBE's J, the eigen residual).
    pub loss: f64,
    /// Where a graph method stands.
    pub phase: Option<Phase>,
}

/// Where a running layout reports, and says whether to go on.
pub trait Progress {
    /// After every step.
    fn tick(&mut self, _tick: Tick) {}
    /// The layout so far of an animating projection (not after its last step).
    fn preview(&mut self, _coords: &[[f64; 2]], _description: &str) {}
    /// Whether a [`preview`](Progress::preview) now would be shown: a
    /// projection whose layout costs a copy to preview asks first.
    fn wants_preview(&self) -> bool {
        false
    }
    /// A log line.
    fn note(&mut self, _line: String) {}
    /// Whether to stop: asked before the layout starts and after each step.
    fn stopped(&self) -> bool {
        false
    }
}

/// A sink that shows nothing and never stops.
#[derive(Debug, Default, Clone, Copy)]
pub struct Silent;

impl Progress for Silent {}

/// Fails with [`cancelled`] once `progress` says to stop.
pub fn go_on(progress: &dyn Progress) -> Result<()> {
    match progress.stopped() {
        true => Err(cancelled()),
        false => Ok(()),
    }
}
