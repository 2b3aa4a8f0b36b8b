//! The [`Trainer`] trait every method implements, and the method registry types.

use std::sync::Arc;

use ndarray::ArrayView2;

use crate::cooc::CountCache;
use crate::corpus::Corpus;
use crate::embedding::Embedding;
use crate::schema::{ParamSpec, Params, Value};
use crate::{Error, Result};

/// What one step reports.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct StepReport {
    /// The method's loss (objective) for this step.
    pub loss: f64,
    /// Items processed in this step (words, pairs, rows...), for items/s.
    pub items: u64,
    /// Epoch or outer iteration this step belonged to.
    pub epoch: u32,
    /// Learning rate used (0 for closed-form methods).
    pub lr: f64,
}

/// Read-only views of the current vectors, for held-out perplexity:
/// the model's score is `s(w, c) = words[w] · contexts[c]`.
#[derive(Debug, Clone, Copy)]
pub struct ScoreView<'a> {
    /// Word vectors, one row per vocabulary id.
    pub words: ArrayView2<'a, f32>,
    /// Context vectors (the word vectors again where a method has none).
    pub contexts: ArrayView2<'a, f32>,
}

/// A training method in progress. Steps are small (tens to hundreds of
/// milliseconds) so that commands and progress stay responsive; the job
/// runner calls them from its own thread inside a rayon pool of the requested size.
pub trait Trainer: Send {
    /// Steps in the whole run.
    fn total_steps(&self) -> u64;

    /// Runs step number `step` (0-based).
    fn step(&mut self, step: u64) -> Result<StepReport>;

    /// Applies a live change: `params` are the run's values with one live
    /// value changed (validated against the schema by the job, which calls
    /// this only for a parameter the schema marks live). A trainer reads its
    /// typed settings from them and takes over its live fields, so no
    /// parameter is named here. A method whose schema marks a parameter
    /// live must override this: the default refuses, so the registry test
    /// that changes every live parameter of every method catches one that
    /// does not.
    fn set(&mut self, _params: &Params) -> Result<()> {
        Err(Error::param(
            "live change",
            "this method takes no change during a run",
        ))
    }

    /// True once the run has nothing left to do before `total_steps` (an
    /// iterative solver that converged); the job then ends after this step
    /// and reports it as the last one.
    fn finished(&self) -> bool {
        false
    }

    /// A line for the log, if the last step has one (e.g. a method's own
    /// diagnostics once per sweep); the job forwards it as [`Event::Log`].
    ///
    /// [`Event::Log`]: crate::train::Event::Log
    fn take_note(&mut self) -> Option<String> {
        None
    }

    /// The model's own held-out perplexity after the last step, for methods
    /// that define one (a normalised distribution of their own, no fitted
    /// temperature); the job reports it beside the engine's calibrated one
    /// as [`Progress::model_perplexity`]. Kept out of [`StepReport`] so that
    /// methods without one need no change.
    ///
    /// [`Progress::model_perplexity`]: crate::train::Progress::model_perplexity
    fn model_perplexity(&self) -> Option<f64> {
        None
    }

    /// Current vectors for perplexity, if the method has them between steps.
    fn scores(&self) -> Option<ScoreView<'_>>;

    /// The final embedding (also called after an early stop).
    fn into_embedding(self: Box<Self>) -> Result<Embedding>;
}

/// Everything a method needs to build its trainer.
#[derive(Debug, Clone)]
pub struct TrainInput {
    /// The opened corpus (vocabulary built on the training split).
    pub corpus: Arc<Corpus>,
    /// Validated hyperparameters.
    pub params: Params,
    /// Seed of every random choice.
    pub seed: u64,
    /// Worker threads.
    pub threads: usize,
    /// Co-occurrence counts shared with the other runs of a session (a
    /// fresh cache, `Default`, counts for this run alone).
    pub counts: Arc<CountCache>,
}

fn live_list(names: &[&str]) -> String {
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

/// How a method builds its trainer from the input; the callback receives log lines.
pub type BuildFn = fn(&TrainInput, &mut dyn FnMut(String)) -> Result<Box<dyn Trainer>>;

/// A method's entry in the registry.
#[derive(Debug, Clone, Copy)]
pub struct Method {
    /// `--algo` name.
    pub name: &'static str,
    /// One-line description.
    pub summary: &'static str,
    /// Declared hyperparameters.
    pub schema: &'static [ParamSpec],
    /// The hyperparameter (an `Int` of `schema`) that sets how many numbers
    /// each vector has, when the method makes vectors of a chosen size. The
    /// engine checks it against the vocabulary before training, since no
    /// method can place more dimensions than there are words.
    pub dimension: Option<&'static str>,
    /// Builds the trainer (may take time: counting, encoding). `log` receives progress lines.
    pub build: BuildFn,
}

impl Method {
    /// Checks a change to make during a run (`--change STEP:NAME=VALUE`, a
    /// session's timeline) before the run starts: the name must be one of
    /// the method's live hyperparameters and the value in its range.
    pub fn check_change(&self, name: &str, text: &str) -> Result<Value> {
        let live: Vec<&str> = self
            .schema
            .iter()
            .filter(|s| s.live)
            .map(|s| s.name)
            .collect();
        let Some(spec) = self.schema.iter().find(|s| s.name == name) else {
            return Err(Error::param(
                name,
                format!(
                    "{} has no such hyperparameter (live ones: {})",
                    self.name,
                    live_list(&live)
                ),
            ));
        };
        if !spec.live {
            return Err(Error::param(
                name,
                format!(
                    "cannot change during a {} run (live ones: {})",
                    self.name,
                    live_list(&live)
                ),
            ));
        }
        spec.parse(text)
    }

    /// Parses `name=value` assignments against this method's schema.
    pub fn params<'a>(
        &self,
        assignments: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Params> {
        Params::parse(self.schema, self.name, assignments)
    }
}
