//! The messages into [`update`](super::update::update) and the effects out of it.
//!
//! `update` never blocks and never touches the terminal or a thread: it turns
//! a [`Msg`] into state changes and a list of [`Effect`]s, which the
//! [`Runtime`](super::runtime::Runtime) carries out on background threads,
//! whose answers come back as messages. Requests that can be overtaken
//! (corpus loads, neighbour searches, projections) carry an id so stale
//! answers are dropped.

use std::path::PathBuf;
use std::sync::Arc;

use ratatui::crossterm::event::{KeyEvent, MouseEvent};

use super::action::{Action, Slot};
use super::model::cancel::CancelFlag;
pub use super::model::neighbors::{Found, Query, Ranking};
use super::model::projection::{ProjectionJob, ProjectionResult};
use crate::classify::study::{Outcome, Study};
use crate::corpus::{Corpus, CorpusConfig};
use crate::embedding::{Combine, Embedding, VectorFormat};
use crate::eval::{EvalPlan, Report};
use crate::session::guard::{Blocked, Expect, Fingerprint};
use crate::session::{CorpusRef, KeptVectors, Session};
use crate::train::{Command, Event, JobConfig, Method, TrainInput};

/// A corpus read for the workbench, with what sessions record of it.
#[derive(Debug, Clone)]
pub struct OpenedCorpus {
    /// The corpus.
    pub corpus: Arc<Corpus>,
    /// Its path (as given), size, hash and settings.
    pub reference: CorpusRef,
    /// Seconds the load took.
    pub seconds: f64,
}

/// A session read from disk, with its corpus located (or why not).
#[derive(Debug, Clone)]
pub struct LoadedSession {
    /// The session, its paths resolved for the working directory.
    pub session: Session,
    /// The corpus path, resolved next to the session or in the working directory.
    pub corpus: Result<PathBuf, String>,
    /// Non-fatal findings (changed corpus hash).
    pub warnings: Vec<String>,
    /// The file as read, to notice a change on disk before saving over it.
    pub fingerprint: Option<Fingerprint>,
}

/// Why a session save wrote nothing.
#[derive(Debug, Clone, PartialEq)]
pub enum SaveFailure {
    /// The file is not what this workbench last read or wrote: ask.
    Blocked(Blocked),
    /// An error (a full disk, a file that is not a session).
    Failed(String),
}

/// Why a session file could not be opened.
#[derive(Debug, Clone, PartialEq)]
pub enum SessionLoadError {
    /// No such file: a new session starts there.
    Missing,
    /// The file exists but is not a session wordbench can read; it is never
    /// written over.
    Invalid(String),
}

/// Everything `update` reacts to.
#[derive(Debug)]
pub enum Msg {
    /// A key press.
    Key(KeyEvent),
    /// Text pasted into the terminal, whole (bracketed paste).
    Paste(String),
    /// A mouse event.
    Mouse(MouseEvent),
    /// The terminal's size in columns and rows (at start and on resize).
    Resize(u16, u16),
    /// The ~50 ms clock (autosave, spinners).
    Tick,
    /// An action from a script or a recording.
    Action(Action),
    /// A corpus finished loading.
    CorpusLoaded {
        /// Request id.
        request: u64,
        /// The corpus, or the error.
        result: Result<OpenedCorpus, String>,
    },
    /// An event of run `run`'s training job.
    Job {
        /// Run index.
        run: usize,
        /// The event.
        event: Event,
    },
    /// Run `run`'s job thread ended (after its last event).
    JobEnded {
        /// Run index.
        run: usize,
    },
    /// A neighbour search answered.
    Neighbors {
        /// Request id.
        request: u64,
        /// Which side.
        slot: Slot,
        /// Neighbours or the error.
        result: Result<Found, String>,
    },
    /// A pruned sweep's run was scored at a rung ([`Effect::ScoreRung`]).
    RungScored {
        /// Run index.
        run: usize,
        /// The rung.
        rung: usize,
        /// Minus the Spearman (lower is better), none when not scorable.
        value: Option<f64>,
    },
    /// An evaluation finished.
    Evaluated {
        /// Run index.
        run: usize,
        /// Report or the error.
        result: Result<Report, String>,
    },
    /// Vectors were written.
    Exported {
        /// Run index.
        run: usize,
        /// Where.
        path: PathBuf,
        /// Success or the error.
        result: Result<(), String>,
    },
    /// The HParams chart was written.
    ChartExported {
        /// Where.
        path: PathBuf,
        /// Success or the error.
        result: Result<(), String>,
    },
    /// A session was written.
    SessionSaved {
        /// Where.
        path: PathBuf,
        /// Whether it was an autosave.
        autosave: bool,
        /// The file as written, or why not.
        result: Result<Fingerprint, SaveFailure>,
        /// The vectors this save kept beside the file for the first time,
        /// each with the run's vectors it holds (none when it failed).
        kept: Vec<(Arc<Embedding>, KeptVectors)>,
    },
    /// A session file was read.
    SessionLoaded {
        /// The file.
        path: PathBuf,
        /// The session or why not (boxed: a session is large).
        result: Box<Result<LoadedSession, SessionLoadError>>,
    },
    /// A run's saved vectors were read back.
    VectorsLoaded {
        /// Run index.
        run: usize,
        /// Vectors or the error.
        result: Result<Arc<Embedding>, String>,
    },
    /// Pre-trained vectors were read for an imported run.
    VectorsImported {
        /// Run index when the import started.
        run: usize,
        /// The run's load handle: it finds the run again when runs before
        /// it were deleted meanwhile (or tells that it was deleted itself).
        progress: Arc<crate::embedding::LoadProgress>,
        /// The vectors, their file and notes, or the error.
        result: Result<Imported, String>,
    },
    /// A projection progressed or finished.
    Projection(ProjectionResult),
    /// A classification study finished.
    Classified {
        /// Request id (a newer request wins).
        request: u64,
        /// The outcome, or why not.
        result: Result<Box<Outcome>, String>,
    },
    /// A background thread panicked (message kept for the status line).
    WorkerPanicked(String),
}

/// Work for the runtime.
pub enum Effect {
    /// Read a corpus.
    LoadCorpus {
        /// Request id (later requests win).
        request: u64,
        /// The file.
        path: PathBuf,
        /// Preprocessing.
        config: CorpusConfig,
        /// Stops the read when its answer is no longer wanted.
        stop: CancelFlag,
    },
    /// Start a training job.
    StartJob {
        /// Run index.
        run: usize,
        /// Method.
        method: &'static Method,
        /// Corpus, validated params, seed, threads.
        input: TrainInput,
        /// Perplexity settings, scheduled changes (replay).
        config: JobConfig,
    },
    /// Pause, resume, stop or set a live parameter of a running job.
    JobCommand {
        /// Run index.
        run: usize,
        /// The command.
        command: Command,
    },
    /// Search neighbours.
    Neighbors {
        /// Request id (later requests win).
        request: u64,
        /// Which side.
        slot: Slot,
        /// The vectors.
        embedding: Arc<Embedding>,
        /// What to search.
        query: Query,
        /// How several words combine.
        combine: Combine,
        /// How a single word's neighbours are ranked.
        ranking: Ranking,
        /// How many.
        k: usize,
    },
    /// Run the benchmarks on a run's vectors.
    Evaluate {
        /// Run index.
        run: usize,
        /// The vectors.
        embedding: Arc<Embedding>,
        /// Datasets.
        plan: EvalPlan,
    },
    /// Score a pruned sweep's run at a rung on the similarity set it is
    /// pruned on.
    ScoreRung {
        /// Run index.
        run: usize,
        /// The rung.
        rung: usize,
        /// The run's word vectors there, one row per vocabulary id.
        words: Arc<ndarray::Array2<f32>>,
        /// The vocabulary they are of.
        index: crate::words::WordIndex,
        /// The similarity set.
        set: PathBuf,
    },
    /// Write the HParams chart as an image.
    ExportChart {
        /// What it shows.
        chart: Box<crate::sweep::chart::ChartData>,
        /// Where.
        path: PathBuf,
        /// PNG or SVG.
        format: crate::project::plot::ImageFormat,
    },
    /// Write vectors.
    ExportVectors {
        /// Run index.
        run: usize,
        /// The vectors.
        embedding: Arc<Embedding>,
        /// Where.
        path: PathBuf,
        /// File format.
        format: VectorFormat,
    },
    /// Write the session (atomically), its paths made relative to the file.
    SaveSession {
        /// Where.
        path: PathBuf,
        /// What, with paths as the workbench uses them.
        session: Box<Session>,
        /// Runs whose vectors the save keeps beside the file for the first
        /// time: index in `session.runs`, and the vectors.
        keep: Vec<(usize, Arc<Embedding>)>,
        /// Whether it is an autosave (quieter status).
        autosave: bool,
        /// What the file should be now; anything else is not overwritten.
        expect: Expect,
    },
    /// Read a session file.
    LoadSession {
        /// The file.
        path: PathBuf,
    },
    /// Read the vectors a session keeps for a run.
    LoadKept {
        /// Run index.
        run: usize,
        /// The kept file.
        kept: KeptVectors,
    },
    /// Read a run's saved vectors.
    LoadVectors {
        /// Run index.
        run: usize,
        /// The file.
        path: PathBuf,
    },
    /// Read pre-trained vectors for an imported run (hashing the file).
    ImportVectors {
        /// Run index.
        run: usize,
        /// The file.
        path: PathBuf,
        /// Read only the first words.
        limit: Option<usize>,
        /// What a session recorded about the file, to notice a change.
        recorded: Option<crate::session::VectorSource>,
        /// Counts the reading, for the run's status.
        progress: Arc<crate::embedding::LoadProgress>,
    },
    /// Project vectors to 2-D, or export a projection.
    Projection(Box<ProjectionJob>),
    /// Run a classification study.
    Classify {
        /// Request id.
        request: u64,
        /// What to run.
        study: Box<Study>,
        /// Worker threads.
        threads: usize,
    },
    /// Leave the program.
    Quit,
}

/// Pre-trained vectors read from a file.
#[derive(Debug, Clone)]
pub struct Imported {
    /// The vectors.
    pub embedding: Arc<Embedding>,
    /// The file (path, size, hash, format, limit).
    pub source: crate::session::VectorSource,
    /// What the reader noticed (the Stanford `<unk>` line, a changed file...).
    pub notes: Vec<String>,
}

impl Effect {
    /// The variant's name, for logs and test messages.
    pub fn name(&self) -> &'static str {
        match self {
            Effect::LoadCorpus { .. } => "LoadCorpus",
            Effect::StartJob { .. } => "StartJob",
            Effect::JobCommand { .. } => "JobCommand",
            Effect::Neighbors { .. } => "Neighbors",
            Effect::Evaluate { .. } => "Evaluate",
            Effect::ScoreRung { .. } => "ScoreRung",
            Effect::ExportVectors { .. } => "ExportVectors",
            Effect::ExportChart { .. } => "ExportChart",
            Effect::SaveSession { .. } => "SaveSession",
            Effect::LoadSession { .. } => "LoadSession",
            Effect::LoadVectors { .. } => "LoadVectors",
            Effect::LoadKept { .. } => "LoadKept",
            Effect::ImportVectors { .. } => "ImportVectors",
            Effect::Projection(_) => "Projection",
            Effect::Classify { .. } => "Classify",
            Effect::Quit => "Quit",
        }
    }
}

impl std::fmt::Debug for Effect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Effect::JobCommand { run, command } => write!(f, "JobCommand({run}, {command:?})"),
            other => f.write_str(other.name()),
        }
    }
}
