//! The Train screen's state: the method list from the registry and one
//! schema-generated form per method (plus the run's seed and threads).

use crate::algo;
use crate::schema::ParamSpec;
use crate::train::{Method, DEFAULT_SEED};
use crate::tui::form::Form;
use crate::tui::model::curves::XAxis;

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
    /// Weight of the curves' exponential smoothing, as TensorBoard's slider
    /// (0: raw curves only; otherwise the smoothed curve over the raw one).
    pub smoothing: f64,
    /// The run whose charts are shown.
    pub shown: Option<usize>,
    /// What the charts' x axis counts.
    pub axis: XAxis,
    /// Draw every listed run's curves together, not only the shown run's.
    pub overlay: bool,
}

/// The smoothing weights `z` steps through.
pub const SMOOTHING_STEPS: [f64; 3] = [0.0, 0.6, 0.9];

/// The run options every method's form ends with.
fn run_options(cores: usize) -> [ParamSpec; 2] {
    [
        ParamSpec::int(
            "seed",
            0,
            i64::MAX,
            DEFAULT_SEED as i64,
            "seed of every random choice",
        ),
        ParamSpec::int(
            "threads",
            1,
            cores.max(1) as i64,
            cores.max(1) as i64,
            "worker threads (every core by default, as on the command line; 1 is bit-for-bit reproducible)",
        ),
    ]
}

impl TrainView {
    /// The next smoothing weight after the current one.
    pub fn next_smoothing(&self) -> f64 {
        let at = SMOOTHING_STEPS
            .iter()
            .position(|&w| w == self.smoothing)
            .unwrap_or(0);
        SMOOTHING_STEPS[(at + 1) % SMOOTHING_STEPS.len()]
    }

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
            smoothing: 0.0,
            shown: None,
            axis: XAxis::Steps,
            overlay: false,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smoothing_steps_through_tensorboard_like_weights_and_back_to_raw() {
        let mut v = TrainView::new(2);
        let mut seen = Vec::new();
        for _ in 0..3 {
            v.smoothing = v.next_smoothing();
            seen.push(v.smoothing);
        }
        assert_eq!(seen, [0.6, 0.9, 0.0]);
    }
}
