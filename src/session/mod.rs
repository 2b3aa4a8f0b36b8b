//! Session files: what a user did, saved so it can be reopened, shared and
//! replayed (RON, human-readable, versioned).
//!
//! A [`Session`] names its corpus (path, byte size, content hash and the
//! preprocessing settings) and holds one [`Run`] per training run: method,
//! every hyperparameter, seed, threads, the timeline of changes, pauses and
//! stops by step, the metric history, evaluation results, exported plots and
//! the saved vectors. [`file`] reads and writes it atomically with located
//! errors; [`record`] builds a run from engine events; [`replay`] re-runs one
//! and compares the curves.

pub mod corpus_ref;
pub mod file;
pub mod record;
pub mod replay;

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub use corpus_ref::{path_for_session, CorpusRef};
pub use file::{load, save};
pub use record::Recorder;
pub use replay::{replay, ReplayReport};

use crate::train::{Progress, Value};

/// The session format version this build writes (and the newest it reads).
pub const VERSION: u32 = 1;

/// A whole session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Session {
    /// Format version, [`VERSION`] when written by this build.
    pub version: u32,
    /// The corpus every run of the session trained on.
    pub corpus: CorpusRef,
    /// Training runs, in the order they were started.
    #[serde(default)]
    pub runs: Vec<Run>,
}

impl Session {
    /// A session with no run yet.
    pub fn new(corpus: CorpusRef) -> Self {
        Session {
            version: VERSION,
            corpus,
            runs: Vec::new(),
        }
    }
}

/// One training run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Run {
    /// Method name (`--algo`).
    pub method: String,
    /// Every hyperparameter of the method's schema, by name.
    pub params: BTreeMap<String, Value>,
    /// Seed of every random choice.
    pub seed: u64,
    /// Worker threads (1 makes a run bit-for-bit reproducible).
    pub threads: usize,
    /// Changes, pauses and stops, by step.
    #[serde(default)]
    pub timeline: Vec<TimelineEntry>,
    /// Progress reports as received.
    #[serde(default)]
    pub metrics: Vec<Progress>,
    /// How the run ended (or `Running` while it goes).
    #[serde(default)]
    pub outcome: Outcome,
    /// Evaluation of the final vectors.
    #[serde(default)]
    pub evaluation: Option<Evaluation>,
    /// Plots exported from this run.
    #[serde(default)]
    pub plots: Vec<PlotRecord>,
    /// Where the vectors were saved.
    #[serde(default)]
    pub vectors: Option<PathBuf>,
}

/// Something that happened to a run at a step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimelineEntry {
    /// The step before which it took effect.
    pub step: u64,
    /// What happened.
    pub event: TimelineEvent,
}

/// The kinds of timeline entries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum TimelineEvent {
    /// A hyperparameter changed.
    Set {
        /// Name.
        name: String,
        /// New value.
        value: Value,
    },
    /// Paused (does not change results).
    Pause,
    /// Resumed.
    Resume,
    /// Stopped early.
    Stop,
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub enum Outcome {
    /// Still training (or the program ended before it finished).
    #[default]
    Running,
    /// Finished, possibly after an early stop.
    Finished,
    /// Failed with this message.
    Failed(String),
}

/// Evaluation results of a run's final vectors (the CLI's `eval --json` object).
pub type Evaluation = crate::eval::Report;

/// The settings of an exported plot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlotRecord {
    /// Output file.
    pub path: PathBuf,
    /// Projection method (`pca`, `tsne`).
    pub method: String,
    /// Its settings, by name.
    pub settings: BTreeMap<String, String>,
}
