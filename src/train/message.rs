//! The messages a training job exchanges with its caller (TUI, CLI, replay).

use serde::{Deserialize, Serialize};

use super::perplexity::Baseline;
use super::phase::Phase;
use crate::cooc::CountProgress;
use crate::embedding::Embedding;
use crate::schema::Value;

/// A snapshot of a run's progress.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Progress {
    /// Steps done.
    pub step: u64,
    /// Steps in the whole run.
    pub total_steps: u64,
    /// Current epoch (0-based) or outer iteration.
    pub epoch: u32,
    /// The method's loss over the last reporting interval.
    pub loss: f64,
    /// Held-out perplexity, when measured at this step (the interval adapts so
    /// that measuring costs a bounded share of training time; the last step is
    /// always measured).
    pub perplexity: Option<f64>,
    /// The model's own held-out perplexity (methods that define one, see
    /// [`Trainer::model_perplexity`]); absent from session files otherwise.
    ///
    /// [`Trainer::model_perplexity`]: crate::train::Trainer::model_perplexity
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_perplexity: Option<f64>,
    /// Current learning rate (or step size); 0 where the method has none.
    pub lr: f64,
    /// Items (words, pairs, rows...) per second over the last interval.
    pub items_per_sec: f64,
    /// Seconds since training started (paused time excluded).
    pub elapsed: f64,
}

/// Commands into a running job; applied at the next step boundary.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// Stop stepping until `Resume`.
    Pause,
    /// Continue after `Pause`.
    Resume,
    /// End the run early; the job still returns the embedding trained so far.
    Stop,
    /// Change a live hyperparameter.
    Set(String, String),
}

/// Events out of a running job.
#[derive(Debug)]
pub enum Event {
    /// Periodic progress.
    Progress(Progress),
    /// A line for the log pane.
    Log(String),
    /// Co-occurrence counting while the method is built (tokens read, runs
    /// spilled, merging); not recorded in sessions.
    Counting(CountProgress),
    /// Progress inside a long build or step (at most ~10 a second, only
    /// when it changed); not recorded in sessions.
    Phase(Phase),
    /// What the held-out perplexity compares with (sent once, before the
    /// first step, when perplexity is measured); not recorded in sessions.
    Baseline(Baseline),
    /// A `Set` command took effect before step `step`.
    ParamApplied {
        /// Hyperparameter name.
        name: String,
        /// Validated value.
        value: Value,
        /// The step at which it applies.
        step: u64,
    },
    /// A `Set` command was refused (unknown name, bad value, not live).
    ParamRejected {
        /// Hyperparameter name as sent.
        name: String,
        /// Why.
        reason: String,
    },
    /// The job paused at `step`.
    Paused {
        /// Step at which it paused.
        step: u64,
    },
    /// The job resumed at `step`.
    Resumed {
        /// Step at which it resumed.
        step: u64,
    },
    /// Step `step` (0-based) was cut short by a stop sent while it ran:
    /// it did `units` units of its work (MPNNLM: training chunks). Sent
    /// just before [`Event::Stopped`].
    Cut {
        /// The step cut.
        step: u64,
        /// Units of work it did.
        units: u64,
    },
    /// The job reached one of its [`JobConfig::checkpoints`] after `step`
    /// steps and waits for `Resume` (go on) or `Stop`; not recorded in
    /// sessions (a stop that follows is).
    ///
    /// [`JobConfig::checkpoints`]: crate::train::JobConfig::checkpoints
    Checkpoint {
        /// Steps completed.
        step: u64,
        /// Which of the configured checkpoints (its place in the list).
        index: usize,
        /// Held-out perplexity measured there (none without a held-out split).
        perplexity: Option<f64>,
        /// The word vectors there, one row per vocabulary id, when
        /// [`JobConfig::checkpoint_vectors`](crate::train::JobConfig::checkpoint_vectors)
        /// asks (and the method has them mid-run).
        words: Option<std::sync::Arc<ndarray::Array2<f32>>>,
    },
    /// The job was stopped before `step` (by `Command::Stop` or a scheduled stop).
    Stopped {
        /// Steps completed.
        step: u64,
    },
    /// The run ended with an embedding (early if stopped).
    Finished(Box<Embedding>),
    /// The run failed; the last good progress is kept.
    Failed {
        /// One-line message.
        message: String,
        /// Progress before the failure.
        last: Option<Progress>,
    },
}
