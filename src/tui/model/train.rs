//! The Train screen's state: the method list from the registry and one
//! schema-generated form per method (plus the run's seed and threads).

use crate::algo;
use crate::train::{Method, ParamSpec};
use crate::tui::form::Form;

/// Share of training time that held-out perplexity may cost in the
/// workbench, where the curve is watched: at the design limit of 5% (the
/// headless default is 4%). On text8-head one measurement of 400 pairs takes
/// ~0.13 s, so a point comes every ~2.6 s. It changes when perplexity is
/// measured, never what is trained.
pub const PERPLEXITY_BUDGET: f64 = 0.05;

/// Which pane has the keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrainFocus {
    /// The method list.
    Methods,
    /// The hyperparameter form.
    Form,
}

/// The Train screen.
#[derive(Debug, Clone)]
pub struct TrainView {
    /// Index of the chosen method in the registry.
    pub method: usize,
    /// One form per method: its schema, then `seed` and `threads`.
    pub forms: Vec<Form>,
    /// Focused pane.
    pub focus: TrainFocus,
    /// Log-scale charts.
    pub log_scale: bool,
    /// The run whose charts are shown.
    pub shown: Option<usize>,
}

/// The run options every method's form ends with.
fn run_options(cores: usize) -> [ParamSpec; 2] {
    [
        ParamSpec::int("seed", 0, i64::MAX, 1, "seed of every random choice"),
        ParamSpec::int(
            "threads",
            1,
            cores.max(1) as i64,
            cores.saturating_sub(1).max(1) as i64,
            "worker threads (one core is left to the interface; 1 is bit-for-bit reproducible)",
        ),
    ]
}

impl TrainView {
    /// Forms at their defaults for every registered method.
    pub fn new(cores: usize) -> Self {
        let forms = algo::methods()
            .iter()
            .map(|m| {
                let mut specs = m.schema.to_vec();
                specs.extend(run_options(cores));
                Form::new(specs)
            })
            .collect();
        TrainView {
            method: 0,
            forms,
            focus: TrainFocus::Form,
            log_scale: false,
            shown: None,
        }
    }

    /// The chosen method.
    pub fn method(&self) -> &'static Method {
        algo::methods()[self.method]
    }

    /// The chosen method's form.
    pub fn form(&self) -> &Form {
        &self.forms[self.method]
    }

    /// Whether a field is being typed.
    pub fn typing(&self) -> bool {
        self.form().editing().is_some()
    }
}
