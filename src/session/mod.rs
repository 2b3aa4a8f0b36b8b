//! Session files: what a user did, saved so it can be reopened, shared and
//! replayed (RON, human-readable, versioned).
//!
//! A [`Session`] names the corpus the workbench had open (path, byte size,
//! content hash and the preprocessing settings), the evaluation files the user
//! added, and holds one [`Run`] per training run: method, every
//! hyperparameter, seed, threads, the corpus that run trained on, the timeline
//! of changes, pauses and stops by step, the metric history, how it ended,
//! evaluation results, exported plots and the saved vectors; and the
//! classification studies of the Classify screen (fields and outcome).
//!
//! Paths in a file are relative to the session file's folder (so a session
//! and its data move together); [`Session::anchor`] turns paths usable from
//! the working directory into that form before saving, and
//! [`Session::resolve`] turns them back after loading. [`mod@file`] reads and writes it atomically with located
//! errors, [`guard`] keeps a save from overwriting what another writer put there; [`record`] builds a run from engine events; [`replay()`] re-runs one
//! and compares the curves.

pub mod corpus_ref;
pub mod file;
pub mod finals;
pub mod guard;
pub mod record;
pub mod replay;
pub mod store;
pub mod sweep;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use corpus_ref::{path_for_session, resolve_path, CorpusRef};
pub use file::{load, save};
pub use record::Recorder;
pub use replay::{judge, replay, Judgement, ReplayReport, Verdict};
pub use store::KeptVectors;
pub use sweep::SweepRecord;

use crate::schema::{Params, Value};
use crate::train::{parallel, Method, Progress};
use crate::{algo, Error, Result};

/// The session format version this build writes (and the newest it reads).
/// Version 2 added each run's own corpus and the added evaluation files
/// (version-1 runs take the session's corpus); version 3 each run's kept
/// vectors ([`store`]); version 4 each run's number ([`Run::number`]);
/// version 5 the sweeps ([`Session::sweeps`]).
pub const VERSION: u32 = 5;

/// A whole session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Session {
    /// Format version, [`VERSION`] when written by this build.
    pub version: u32,
    /// The corpus the workbench had open (what it opens again).
    pub corpus: CorpusRef,
    /// Evaluation files the user added to the bundled ones.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub datasets: Vec<PathBuf>,
    /// Training runs, in the order they were started.
    #[serde(default)]
    pub runs: Vec<Run>,
    /// Classification studies of the Classify screen, in the order they ran.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub studies: Vec<StudyRecord>,
    /// The Projection screen's layout and view, so it reopens as it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub projection: Option<Box<ProjectionRecord>>,
    /// Hyperparameter sweeps, each with the numbers of its runs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sweeps: Vec<SweepRecord>,
}

/// The Projection screen as it was saved: the layout shown (its `run`, and
/// a pair's run B, numbered as the session's runs from 0) and the view.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProjectionRecord {
    /// The layout.
    pub layout: crate::project::layout::Layout,
    /// Zoom factor (1 = everything visible).
    pub zoom: f64,
    /// View centre offset, as a fraction of the full extent.
    pub pan: (f64, f64),
    /// How a 3-D layout (a UBE sphere, a cloud) is turned before it is drawn.
    pub turn: [[f64; 3]; 3],
    /// The settings the layout was made with, by name.
    pub settings: BTreeMap<String, String>,
}

/// One classification study: the Classify screen's fields as typed, and
/// what it found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StudyRecord {
    /// Every field of the screen (files, sizes, labels and the options), by name.
    pub fields: BTreeMap<String, String>,
    /// The learning curve, tasks and moved words.
    pub outcome: crate::classify::study::Outcome,
}

impl StudyRecord {
    /// The fields that name files (`marginals` only when it is a file).
    const PATHS: [&'static str; 3] = ["train", "test", "marginals"];

    fn map_paths(&mut self, f: &impl Fn(&Path) -> PathBuf) {
        for name in Self::PATHS {
            if let Some(text) = self.fields.get_mut(name) {
                let keyword = matches!(text.as_str(), "" | "test" | "all" | "corpus");
                if !keyword {
                    *text = f(Path::new(text.as_str())).display().to_string();
                }
            }
        }
    }
}

impl Session {
    /// A session with no run yet.
    pub fn new(corpus: CorpusRef) -> Self {
        Session {
            version: VERSION,
            corpus,
            datasets: Vec::new(),
            runs: Vec::new(),
            studies: Vec::new(),
            projection: None,
            sweeps: Vec::new(),
        }
    }

    /// The next number a sweep added to this session gets.
    pub fn next_sweep(&self) -> u32 {
        self.sweeps.iter().map(|s| s.number).max().unwrap_or(0) + 1
    }

    /// Gives every run without a number (or with one an earlier run
    /// already has) the next free one, in file order: a file written before
    /// runs had numbers reads as numbered by position.
    pub fn number_runs(&mut self) {
        let mut seen = std::collections::BTreeSet::new();
        let mut next = self.next_number();
        for run in &mut self.runs {
            if run.number == 0 || !seen.insert(run.number) {
                run.number = next;
                seen.insert(next);
                next += 1;
            }
        }
    }

    /// The next number a run added to this session gets.
    pub fn next_number(&self) -> u32 {
        self.runs.iter().map(|r| r.number).max().unwrap_or(0) + 1
    }

    /// Adds `run` with the next number, which it returns.
    pub fn push_run(&mut self, mut run: Run) -> u32 {
        let number = self.next_number();
        run.number = number;
        self.runs.push(run);
        number
    }

    /// The place in [`runs`](Self::runs) of the run numbered `number`.
    pub fn run_index(&self, number: u32) -> Option<usize> {
        self.runs.iter().position(|r| r.number == number)
    }

    /// The runs' numbers, as a user reads them in an error ("runs 1, 2, 4").
    pub fn run_numbers(&self) -> String {
        let numbers: Vec<String> = self.runs.iter().map(|r| r.number.to_string()).collect();
        numbers.join(", ")
    }

    /// The session with every path (corpora, vectors, datasets, plots) made
    /// relative to `session_file`'s folder, as files store them. Paths are
    /// taken as usable from the working directory.
    pub fn anchor(self, session_file: &Path) -> Session {
        self.map_paths(|p| path_for_session(p, session_file))
    }

    /// The reverse of [`anchor`](Self::anchor): every path made usable from
    /// the working directory (a file is looked for next to the session
    /// first, then where the path points from the working directory).
    pub fn resolve(self, session_file: &Path) -> Session {
        self.map_paths(|p| resolve_path(p, session_file))
    }

    /// Every path the session holds, mapped by `f`.
    fn map_paths(mut self, f: impl Fn(&Path) -> PathBuf) -> Session {
        self.corpus.path = f(&self.corpus.path);
        self.datasets = self.datasets.iter().map(|p| f(p)).collect();
        for run in &mut self.runs {
            if let Some(c) = &mut run.corpus {
                c.path = f(&c.path);
            }
            run.vectors = run.vectors.as_deref().map(&f);
            if let Some(kept) = &mut run.kept {
                kept.file = f(&kept.file);
            }
            if let Some(source) = &mut run.source {
                source.path = f(&source.path);
            }
            for plot in &mut run.plots {
                plot.path = f(&plot.path);
            }
        }
        for study in &mut self.studies {
            study.map_paths(&f);
        }
        self
    }
}

/// One training run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Run {
    /// The run's number in its session (`#3`, `work.ron#3`): given when the
    /// run is added and never reused, so deleting a run renumbers none of
    /// the others. 0 in a file (or absent: files before version 4) means
    /// not given yet; [`Session::number_runs`] numbers those on load.
    #[serde(default)]
    pub number: u32,
    /// Method name (`--algo`).
    pub method: String,
    /// A name the user gave the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Tags the user gave the run (the Runs screen filters on them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// Every hyperparameter of the method's schema, by name.
    pub params: BTreeMap<String, Value>,
    /// Seed of every random choice.
    pub seed: u64,
    /// Worker threads (1 makes a run bit-for-bit reproducible).
    pub threads: usize,
    /// The corpus this run trained on. Always set once a session is loaded
    /// (version-1 files did not store it: their runs take the session's).
    #[serde(default)]
    pub corpus: Option<CorpusRef>,
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
    /// Where the user exported the vectors.
    #[serde(default)]
    pub vectors: Option<PathBuf>,
    /// The vectors the session keeps for this run beside its file, read
    /// back when the session is opened (absent when not kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept: Option<KeptVectors>,
    /// For a run of kind [`IMPORTED`]: the pre-trained file it opened
    /// (absent from the file for trained runs, so older files read as before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<VectorSource>,
    /// What its held-out perplexity compares with (uniform and unigram
    /// guesses), so a reopened run shows it as the training did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<crate::train::perplexity::Baseline>,
}

/// The method name of runs that hold pre-trained vectors opened from a file
/// rather than trained: they have no hyperparameters, corpus or curves.
pub const IMPORTED: &str = "imported";

/// The file an imported run's vectors came from: path, size and content
/// hash (to notice a changed file when the session is opened again), the
/// format read and the word limit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VectorSource {
    /// Path, relative to the session file's folder once saved.
    pub path: PathBuf,
    /// Size in bytes of the file as stored (compressed if it is).
    pub bytes: u64,
    /// FNV-1a 64-bit hash of the file's bytes, in hex (as for corpora).
    pub hash: String,
    /// The format read.
    pub format: crate::embedding::VectorFormat,
    /// Only the first `limit` words were read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
}

impl VectorSource {
    /// Describes `path` (hashing it) as read in `format` with `limit`.
    pub fn of(
        path: &Path,
        format: crate::embedding::VectorFormat,
        limit: Option<usize>,
    ) -> Result<VectorSource> {
        let (bytes, hash) = corpus_ref::hash_file(path)?;
        Ok(VectorSource {
            path: path.to_path_buf(),
            bytes,
            hash,
            format,
            limit,
        })
    }

    /// A warning when this file (as read now) is not the one `recorded`.
    pub fn changed_from(&self, recorded: &VectorSource) -> Option<String> {
        (self.bytes != recorded.bytes || self.hash != recorded.hash).then(|| {
            format!(
                "{} changed since the session was saved (hash {}, recorded {})",
                self.path.display(),
                self.hash,
                recorded.hash
            )
        })
    }
}

/// A recorded run's method and hyperparameters, read against this build's
/// schemas: the one path from a session's values to parameters, for the
/// headless replay and the workbench alike.
#[derive(Debug)]
pub struct RunSettings {
    /// The method.
    pub method: &'static Method,
    /// Its hyperparameters; defaults (or [`crate::schema::Absent`] values)
    /// stand in for values missing, defaults for values refused.
    pub params: Params,
    /// Hyperparameters the file does not name: their defaults are used, or
    /// the value a session without them meant ([`crate::schema::Absent`]).
    pub missing: Vec<&'static str>,
    /// Values this build refuses, as the error that names file and run.
    refused: Option<Error>,
}

impl RunSettings {
    /// The values this build refuses, as one error naming the session file
    /// and the run; such a run cannot be replayed.
    pub fn refused(&self) -> Option<&Error> {
        self.refused.as_ref()
    }

    /// The parameters, or the refusal.
    pub fn into_params(self) -> Result<Params> {
        match self.refused {
            None => Ok(self.params),
            Some(e) => Err(e),
        }
    }
}

impl Run {
    /// A run of kind [`IMPORTED`]: the vectors of `source`, nothing trained.
    pub fn imported(source: VectorSource) -> Run {
        Run {
            number: 0,
            method: IMPORTED.to_string(),
            label: None,
            tags: Vec::new(),
            params: BTreeMap::new(),
            seed: 0,
            threads: 1,
            corpus: None,
            timeline: Vec::new(),
            metrics: Vec::new(),
            outcome: Outcome::Finished,
            evaluation: None,
            plots: Vec::new(),
            vectors: Some(source.path.clone()),
            kept: None,
            source: Some(source),
            baseline: None,
        }
    }

    /// Whether a replay of this run must give the same bits
    /// ([`parallel::recorded_bit_for_bit`]); an unknown method is judged
    /// as a racing one, by its final values.
    pub fn bit_for_bit(&self) -> bool {
        let Ok(method) = algo::find(&self.method) else {
            return self.threads <= 1;
        };
        let schedule = match self.params.get(parallel::NAME) {
            Some(Value::Choice(c)) => Some(c.as_str()),
            _ => None,
        };
        parallel::recorded_bit_for_bit(method.schema, schedule, self.threads)
    }

    /// Whether the run holds imported (pre-trained) vectors.
    pub fn is_imported(&self) -> bool {
        self.source.is_some()
    }

    /// The run's method and hyperparameters; `file` and the run's number
    /// locate errors. An unknown method (a session from a newer build) is
    /// an error; refused values are reported by [`RunSettings::refused`].
    pub fn settings(&self, file: &Path) -> Result<RunSettings> {
        let at = format!("run {} ({})", self.number, self.method);
        let method =
            algo::find(&self.method).map_err(|e| Error::format(file, format!("{at}: {e}")))?;
        let mut params = Params::defaults(method.schema);
        let mut refused = Vec::new();
        // A parameter added after the session was written, whose default is
        // a new behaviour, reads as the value the run behaved as.
        let absent = method.schema.iter().filter(|spec| spec.absent.is_some());
        for spec in absent.filter(|spec| !self.params.contains_key(spec.name)) {
            if let Err(e) = params.set(method.name, spec.name, &spec.when_absent()) {
                refused.push(e.to_string());
            }
        }
        for (name, value) in &self.params {
            if let Err(e) = params.set(method.name, name, value) {
                refused.push(e.to_string());
            }
        }
        // The recorded mid-run changes are checked like `--change` flags: a
        // replay that skipped one would silently be another run.
        for (k, entry) in self.timeline.iter().enumerate() {
            if let TimelineEvent::Set { name, value } = &entry.event {
                if let Err(e) = method.check_change(name, &value.to_string()) {
                    refused.push(format!(
                        "timeline entry {} (step {}): {e}",
                        k + 1,
                        entry.step
                    ));
                }
            }
        }
        let missing = method
            .schema
            .iter()
            .map(|spec| spec.name)
            .filter(|name| !self.params.contains_key(*name))
            .collect();
        Ok(RunSettings {
            method,
            params,
            missing,
            refused: (!refused.is_empty())
                .then(|| Error::format(file, format!("{at}: {}", refused.join("; ")))),
        })
    }

    /// The step at which the run was stopped early, if it was.
    pub fn stop_step(&self) -> Option<u64> {
        self.timeline.iter().find_map(|e| match e.event {
            TimelineEvent::Stop => Some(e.step),
            _ => None,
        })
    }

    /// Steps done, as the last progress report says.
    pub fn last_step(&self) -> u64 {
        self.metrics.last().map_or(0, |p| p.step)
    }

    /// How the run ended, in the terms the user sees.
    pub fn end(&self) -> RunEnd {
        match (&self.outcome, self.stop_step()) {
            (Outcome::Failed(m), _) => RunEnd::Failed(m.clone()),
            (Outcome::Finished, Some(step)) => RunEnd::Stopped(step),
            (Outcome::Finished, None) => RunEnd::Finished,
            (Outcome::Running, _) => RunEnd::Interrupted(self.last_step()),
        }
    }
}

/// How a run ended, derived from its outcome and timeline.
#[derive(Debug, Clone, PartialEq)]
pub enum RunEnd {
    /// Ran all its steps (or its solver converged).
    Finished,
    /// Stopped by the user before this step.
    Stopped(u64),
    /// The program ended (or the record was saved) while it trained, after
    /// this many steps.
    Interrupted(u64),
    /// Failed with this message.
    Failed(String),
}

impl std::fmt::Display for RunEnd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunEnd::Finished => f.write_str("finished"),
            RunEnd::Stopped(s) => write!(f, "stopped at step {s}"),
            RunEnd::Interrupted(s) => write!(f, "interrupted after step {s}"),
            RunEnd::Failed(m) => write!(f, "failed: {m}"),
        }
    }
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
    /// A stop reached this step while it ran: it did `units` units of its
    /// work (MPNNLM's training chunks), so a replay cuts it there too.
    Cut {
        /// Units of work the step did.
        units: u64,
    },
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
