//! The training engine: every method runs as a [`Job`] on a background thread
//! and talks to its caller only through [`Event`]s and [`Command`]s; each
//! method declares its hyperparameters once as a schema ([`ParamSpec`]).

pub mod job;
pub mod message;
pub mod parallel;
pub mod perplexity;
pub mod phase;
pub mod plan;
pub mod threads;
pub mod trainer;

pub use crate::schema::{
    parse_float, parse_seconds, Auto, CorpusSize, DefaultValue, Kind, ParamSpec, Params, Resolved,
    Value, AUTO,
};
pub use job::{Job, JobConfig};
pub use message::{Command, Event, Progress};
pub use perplexity::{Baseline, HeldoutSample};
pub use phase::{Phase, Unit};
pub use threads::{cap_threads, cpus};

/// The seed of a run when none is given: the command line's `--seed` and the
/// workbench's form start from it (as both start from every CPU, [`cpus`]),
/// so a run means the same in both.
pub const DEFAULT_SEED: u64 = 1;
pub use trainer::{Method, ScoreView, StepReport, TrainInput, Trainer};
