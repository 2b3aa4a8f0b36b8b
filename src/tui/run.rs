//! One trained (or training, or recorded) model of the session, as the
//! screens see it: the engine's [`Recorder`] keeps the record that session
//! files hold; this adds what only the workbench needs (status, vectors in
//! memory, evaluation in progress, exported file, log).

use std::path::PathBuf;
use std::sync::Arc;

use crate::cooc::{CountPhase, CountProgress};
use crate::embedding::Embedding;
use crate::eval::Report;
use crate::schema::Params;
use crate::session::{self, CorpusRef, Recorder, RunEnd, TimelineEvent};
use crate::train::{Event, JobConfig, Method, Phase, Progress, TrainInput, Trainer};

use super::clock::TICKS_PER_SECOND;
use super::form::default_text;

/// Where a run is in its life.
#[derive(Debug, Clone, PartialEq)]
pub enum RunStatus {
    /// Job started, building its trainer (counting, encoding).
    Starting,
    /// Stepping.
    Training,
    /// Paused by the user.
    Paused,
    /// Finished all its steps.
    Finished,
    /// Stopped early at this step (vectors kept).
    Stopped(u64),
    /// Failed with this message.
    Failed(String),
    /// Read from a session file (curves only, unless its vectors were
    /// found), ended as its record says.
    Recorded(RunEnd),
    /// Waiting for the run training now to end.
    Queued,
    /// Pre-trained vectors being read from their file.
    Importing,
}

/// The method entry of imported runs (not in the registry): no
/// hyperparameters, and it never trains, so every screen that shows a run's
/// method shows "imported".
pub static IMPORTED: Method = Method {
    name: session::IMPORTED,
    summary: "pre-trained vectors opened from a file",
    schema: &[],
    dimension: None,
    build: never_trains,
};

fn never_trains(_: &TrainInput, _: &mut dyn FnMut(String)) -> crate::Result<Box<dyn Trainer>> {
    Err(crate::Error::param(
        "method",
        "imported vectors are read from a file, not trained",
    ))
}

/// Why an imported run cannot be replayed.
const NOTHING_TO_REPLAY: &str = "imported vectors are read from a file: nothing to replay";

impl RunStatus {
    /// Whether the job is alive.
    pub fn is_active(&self) -> bool {
        matches!(
            self,
            RunStatus::Starting | RunStatus::Training | RunStatus::Paused
        )
    }
}

/// A run of the session.
#[derive(Debug, Clone)]
pub struct RunEntry {
    /// The method.
    pub method: &'static Method,
    /// Its hyperparameters.
    pub params: Params,
    /// The record saved in session files.
    pub recorder: Recorder,
    /// Life cycle.
    pub status: RunStatus,
    /// The vectors, once trained (or loaded).
    pub embedding: Option<Arc<Embedding>>,
    /// The latest held-out perplexity measured.
    pub perplexity: Option<f64>,
    /// An evaluation is running.
    pub evaluating: bool,
    /// Where its vectors were exported.
    pub exported: Option<PathBuf>,
    /// Log lines of its job.
    pub log: Vec<String>,
    /// Why it cannot be replayed (a setting in its session file that this
    /// build does not accept), if so.
    pub problem: Option<String>,
    /// Discarded at quit: left out of the session file.
    pub discarded: bool,
    /// What starts it, while it is queued.
    pub queued: Option<Box<(TrainInput, JobConfig)>>,
    /// The step it was stopped at (the status changes when the vectors arrive).
    stopped_at: Option<u64>,
    /// The user asked it to stop; it ends after the step under way.
    pub stop_requested: bool,
    /// For an imported run: the word limit to read it with.
    pub pending_limit: Option<usize>,
    /// For an imported run being read: how far the reader has come.
    pub loading: Arc<crate::embedding::LoadProgress>,
    /// The run this one replays (its recorded curves are drawn beneath).
    pub replay_of: Option<usize>,
    /// A replay whose own corpus is being read: the load's request id and
    /// its schedule (it waits, queued, until the corpus is read).
    pub corpus_pending: Option<(u64, JobConfig)>,
    /// A replay's verdict once it ended: how it compares with the run it
    /// replays (the same judgement as `wordbench replay`).
    pub verdict: Option<session::Verdict>,
    /// Co-occurrence counting in progress while the run starts.
    pub counting: Option<CountProgress>,
    /// Whether the session keeps its vectors beside its file (`k` on Runs
    /// turns it off, for runs too large to keep).
    pub keep_vectors: bool,
    /// The phase under way inside the build or the current step (the
    /// engine's [`Event::Phase`]); cleared by the next step's report.
    pub phase: Option<Phase>,
    /// The live clock's last sync: the app's tick and the run's elapsed
    /// seconds then (0 when the job started, the engine's elapsed at each
    /// report), so the shown time moves every frame between reports.
    pub synced: Option<(u64, f64)>,
}

impl RunEntry {
    /// A new run about to start on `corpus`.
    pub fn new(
        method: &'static Method,
        params: Params,
        seed: u64,
        threads: usize,
        corpus: CorpusRef,
    ) -> Self {
        RunEntry {
            recorder: Recorder::new(method.name, &params, seed, threads).on_corpus(corpus),
            method,
            params,
            status: RunStatus::Starting,
            embedding: None,
            perplexity: None,
            evaluating: false,
            exported: None,
            log: Vec::new(),
            problem: None,
            discarded: false,
            queued: None,
            stopped_at: None,
            stop_requested: false,
            pending_limit: None,
            loading: Arc::default(),
            replay_of: None,
            corpus_pending: None,
            verdict: None,
            counting: None,
            keep_vectors: true,
            phase: None,
            synced: None,
        }
    }

    /// A run read from a session file (its record kept as read).
    pub fn recorded(method: &'static Method, params: Params, run: session::Run) -> Self {
        let perplexity = run.metrics.iter().rev().find_map(|p| p.perplexity);
        let status = RunStatus::Recorded(run.end());
        let mut recorder = Recorder::new(method.name, &params, run.seed, run.threads);
        *recorder.run_mut() = run;
        RunEntry {
            method,
            params,
            exported: recorder.run().vectors.clone(),
            recorder,
            status,
            embedding: None,
            perplexity,
            evaluating: false,
            log: Vec::new(),
            problem: None,
            discarded: false,
            queued: None,
            stopped_at: None,
            stop_requested: false,
            pending_limit: None,
            loading: Arc::default(),
            replay_of: None,
            corpus_pending: None,
            verdict: None,
            counting: None,
            keep_vectors: true,
            phase: None,
            synced: None,
        }
    }

    /// Pre-trained vectors about to be read from `path` (the first `limit` words).
    pub fn imported(path: PathBuf, limit: Option<usize>) -> Self {
        let mut recorder = Recorder::new(IMPORTED.name, &Params::defaults(&[]), 0, 1);
        let run = recorder.run_mut();
        run.outcome = session::Outcome::Finished;
        run.vectors = Some(path.clone());
        let mut entry = RunEntry::recorded(&IMPORTED, Params::defaults(&[]), recorder.into_run());
        entry.status = RunStatus::Importing;
        entry.exported = Some(path);
        entry.problem = Some(NOTHING_TO_REPLAY.into());
        entry.pending_limit = limit;
        entry
    }

    /// An imported run read from a session file (its vectors are read again).
    pub fn imported_recorded(run: session::Run) -> Self {
        let limit = run.source.as_ref().and_then(|s| s.limit);
        let mut entry = RunEntry::recorded(&IMPORTED, Params::defaults(&[]), run);
        entry.status = RunStatus::Importing;
        entry.problem = Some(NOTHING_TO_REPLAY.into());
        entry.pending_limit = limit;
        entry
    }

    /// Whether the run holds pre-trained vectors rather than trained ones.
    pub fn is_imported(&self) -> bool {
        std::ptr::eq(self.method, &IMPORTED)
    }

    /// The corpus it trained on.
    pub fn corpus(&self) -> Option<&CorpusRef> {
        self.record().corpus.as_ref()
    }

    /// Why the run has no vectors, and what to do about it.
    pub fn no_vectors(&self) -> String {
        let n = self.number();
        match &self.status {
            RunStatus::Starting | RunStatus::Training | RunStatus::Paused => {
                format!("run #{n} is still training: its vectors come when it ends")
            }
            RunStatus::Failed(_) | RunStatus::Recorded(RunEnd::Failed(_)) => {
                format!("run #{n} failed: it has no vectors")
            }
            RunStatus::Recorded(_) if self.record().kept.is_some() => {
                format!("run #{n}'s vectors are being read from the session's folder")
            }
            RunStatus::Recorded(_) => {
                format!("run #{n} came from the session without vectors: R on 3 Runs replays it")
            }
            RunStatus::Queued if self.corpus_pending.is_some() => {
                format!("run #{n} is reading its corpus: it starts once it is read")
            }
            RunStatus::Queued => {
                format!("run #{n} is queued: it starts when the run training now ends")
            }
            RunStatus::Finished | RunStatus::Stopped(_) => {
                format!("run #{n} has no vectors yet (they are being collected)")
            }
            RunStatus::Importing => format!("run #{n} is still being read from its file"),
        }
    }

    /// Where its vectors are, for the Runs table: the file they were
    /// exported to, or kept in the session (with the size), or in memory.
    pub fn vectors_text(&self) -> String {
        let kept = self.record().kept.as_ref();
        match (&self.exported, &self.embedding, kept) {
            (Some(p), Some(_), _) => p.display().to_string(),
            (_, None, Some(k)) => format!("kept {} (reading)", session::store::size_text(k.bytes)),
            (_, Some(_), Some(k)) => format!("kept {}", session::store::size_text(k.bytes)),
            (Some(p), None, None) => format!("{} (not read)", p.display()),
            (None, Some(_), None) if !self.keep_vectors => "in memory, not kept".into(),
            (None, Some(_), None) => "in memory".into(),
            (None, None, None) => "-".into(),
        }
    }

    /// The session record.
    pub fn record(&self) -> &session::Run {
        self.recorder.run()
    }

    /// The run's number in the session (`#3`): it keeps it when runs before
    /// it are deleted. 0 until the run is added ([`App::push_run`](crate::tui::app::App::push_run)).
    pub fn number(&self) -> u32 {
        self.record().number
    }

    /// Gives the run its number in the session (the app does, as it adds
    /// the run; tests that build screens by hand too).
    pub fn set_number(&mut self, number: u32) {
        self.recorder.run_mut().number = number;
    }

    /// Progress reports so far.
    pub fn metrics(&self) -> &[Progress] {
        &self.recorder.run().metrics
    }

    /// The latest progress report.
    pub fn last(&self) -> Option<&Progress> {
        self.metrics().last()
    }

    /// The evaluation of its vectors.
    pub fn evaluation(&self) -> Option<&Report> {
        self.recorder.run().evaluation.as_ref()
    }

    /// Hyperparameters that differ from the method's defaults, `name=value`
    /// (a corpus-sized default counts by its paper value, so a value it
    /// resolved to on a small corpus shows).
    pub fn settings(&self) -> String {
        if self.is_imported() {
            return self.source_text();
        }
        let changed: Vec<String> = self
            .method
            .schema
            .iter()
            .filter_map(|spec| {
                let v = self.params.get(spec.name).to_string();
                let default = match spec.auto {
                    Some(_) => spec.default.value().to_string(),
                    None => default_text(spec),
                };
                (v != default).then(|| format!("{}={v}", spec.name))
            })
            .collect();
        if changed.is_empty() {
            "defaults".into()
        } else {
            changed.join(" ")
        }
    }

    /// An imported run's file name, with its limit and shape once read.
    fn source_text(&self) -> String {
        let record = self.record();
        let path = record
            .source
            .as_ref()
            .map(|s| &s.path)
            .or(record.vectors.as_ref());
        let mut text = path
            .and_then(|p| p.file_name())
            .map_or_else(|| "-".to_string(), |n| n.to_string_lossy().into_owned());
        if let Some(e) = &self.embedding {
            text.push_str(&format!(" {}x{}", e.len(), e.dim()));
        }
        if let Some(limit) = self.pending_limit {
            text.push_str(&format!(" limit={limit}"));
        }
        text
    }

    /// The run's name without its number: `glove dim=50`, or
    /// `small-glove (glove)` once the user named it.
    pub fn title(&self) -> String {
        match &self.record().label {
            Some(name) => format!("{name} ({})", self.method.name),
            None => format!("{} {}", self.method.name, self.settings()),
        }
    }

    /// A short label: `#2 glove dim=50`, or `#2 small-glove (glove)` once
    /// the user named it.
    pub fn label(&self) -> String {
        format!("#{} {}", self.number(), self.title())
    }

    /// Mid-run hyperparameter changes: `(step, "name=value")`.
    pub fn changes(&self) -> Vec<(u64, String)> {
        self.record()
            .timeline
            .iter()
            .filter_map(|e| match &e.event {
                TimelineEvent::Set { name, value } => Some((e.step, format!("{name}={value}"))),
                _ => None,
            })
            .collect()
    }

    /// Records an engine event and updates the status; returns the
    /// embedding when the run finished.
    pub fn observe(&mut self, event: Event) -> Option<Arc<Embedding>> {
        self.recorder.observe(&event);
        match event {
            Event::Progress(p) => {
                self.phase = None;
                self.perplexity = p.perplexity.or(self.perplexity);
                if self.status == RunStatus::Starting {
                    self.status = RunStatus::Training;
                }
            }
            Event::Log(line) => self.log.push(line),
            Event::Counting(p) => self.counting = Some(p),
            // A late phase of a step already reported is dropped.
            Event::Phase(p) if p.step >= self.last().map_or(0, |l| l.step) => self.phase = Some(p),
            // The recorder keeps it.
            Event::Phase(_) | Event::Baseline(_) | Event::Cut { .. } | Event::Checkpoint { .. } => {
            }
            Event::Paused { .. } => self.status = RunStatus::Paused,
            Event::Resumed { .. } => self.status = RunStatus::Training,
            Event::Stopped { step } => self.stopped_at = Some(step),
            Event::Finished(e) => {
                self.phase = None;
                self.status = match self.stopped_at {
                    Some(step) => RunStatus::Stopped(step),
                    None => RunStatus::Finished,
                };
                let e: Arc<Embedding> = Arc::from(e);
                self.embedding = Some(e.clone());
                return Some(e);
            }
            Event::Failed { message, .. } => {
                self.phase = None;
                self.status = RunStatus::Failed(message)
            }
            Event::ParamApplied { .. } | Event::ParamRejected { .. } => {}
        }
        None
    }

    /// Whether its method has a learning rate (an `lr` in its schema);
    /// closed-form and eigen methods report 0, which means nothing.
    pub fn has_learning_rate(&self) -> bool {
        self.method.schema.iter().any(|s| s.name == "lr")
    }

    /// Syncs the live clock at the app's `tick`: at the job's start (0 s)
    /// and at each report or resume (the engine's elapsed time then).
    pub fn sync_clock(&mut self, tick: u64) {
        let elapsed = self.last().map_or(0.0, |p| p.elapsed);
        self.synced = Some((tick, elapsed));
    }

    /// Seconds the run has been going at the app's `tick`: while it trains,
    /// the engine's last elapsed time plus the ticks since (before the first
    /// report, the time since the job started, i.e. its preparation), so the
    /// clock moves every frame even inside a long step; frozen while paused
    /// and once ended.
    pub fn elapsed_at(&self, tick: u64) -> f64 {
        let reported = self.last().map_or(0.0, |p| p.elapsed);
        match (self.synced, &self.status) {
            (Some((at, base)), RunStatus::Starting | RunStatus::Training) => {
                base + tick.saturating_sub(at) as f64 / TICKS_PER_SECOND as f64
            }
            _ => reported,
        }
    }

    /// Steps done, with the share of the step under way that its phase
    /// reports (a phase of the build counts nothing).
    pub fn steps_done(&self) -> f64 {
        let Some(last) = self.last() else {
            return 0.0;
        };
        let within = self
            .phase
            .filter(|p| p.step == last.step && last.step < last.total_steps)
            .and_then(|p| p.fraction())
            .unwrap_or(0.0);
        last.step as f64 + within
    }

    /// Seconds left at the measured rate (steps done, with the fraction of
    /// the current step, over the time so far); `None` until a step was
    /// reported.
    pub fn eta_at(&self, tick: u64) -> Option<f64> {
        let last = self.last().filter(|p| p.step > 0)?;
        let (done, elapsed) = (self.steps_done(), self.elapsed_at(tick));
        let left = (last.total_steps as f64 - done).max(0.0);
        Some(elapsed * left / done)
    }

    /// What stopping the run will do, said when `x` is pressed: the engine
    /// stops between steps, after the one under way.
    pub fn stop_note(&self) -> String {
        let name = format!("run #{} {}", self.number(), self.method.name);
        let done = self.last().map_or(0, |p| p.step);
        match self.status {
            RunStatus::Paused => format!("{name} stopping at step {done} (it was paused)"),
            RunStatus::Training if crate::train::phase::CUT_SHORT.contains(&self.method.name) => {
                format!(
                    "{name} stopping inside step {} (at its next unit of work; its vectors are kept)",
                    done + 1
                )
            }
            RunStatus::Training => format!(
                "{name} stopping after step {} (the step under way ends first; its vectors are kept)",
                done + 1
            ),
            _ => format!("{name} stopping before its first step (once it is built)"),
        }
    }

    /// Status as a short word for tables.
    pub fn status_text(&self) -> String {
        match &self.status {
            RunStatus::Starting | RunStatus::Training if self.stop_requested => "stopping".into(),
            RunStatus::Starting => match self.counting.filter(|c| c.phase != CountPhase::Done) {
                Some(c) if c.phase == CountPhase::Merging => "merging counts".into(),
                Some(c) => format!("counting {:.0}%", 100.0 * c.fraction()),
                None => match self.phase {
                    Some(p) => p.describe(),
                    None => "starting".into(),
                },
            },
            RunStatus::Training => {
                let pct = self
                    .last()
                    .map_or(0.0, |p| 100.0 * p.step as f64 / p.total_steps.max(1) as f64);
                format!("training {pct:.0}%")
            }
            RunStatus::Paused => "paused".into(),
            RunStatus::Queued if self.corpus_pending.is_some() => "reading corpus".into(),
            RunStatus::Queued => "queued".into(),
            RunStatus::Importing => match self.loading.fraction() {
                Some(f) => format!("reading {:.0}%", 100.0 * f),
                None => "reading".into(),
            },
            RunStatus::Finished => "finished".into(),
            RunStatus::Stopped(s) => format!("stopped@{s}"),
            RunStatus::Failed(_) => "failed".into(),
            RunStatus::Recorded(end) => match end {
                RunEnd::Finished => "finished".into(),
                RunEnd::Stopped(s) => format!("stopped@{s}"),
                RunEnd::Interrupted(s) => format!("interrupted@{s}"),
                RunEnd::Failed(_) => "failed".into(),
            },
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::algo;
    use crate::schema::Value;

    #[test]
    fn an_importing_run_shows_how_far_its_file_was_read() {
        let entry = RunEntry::imported("v.txt".into(), None);
        assert_eq!(entry.status_text(), "reading");
        entry.loading.start(Some(4));
        entry.loading.add(1);
        assert_eq!(entry.status_text(), "reading 25%");
    }

    pub(crate) fn corpus_ref() -> CorpusRef {
        CorpusRef {
            path: "c.txt".into(),
            bytes: 1,
            hash: "0".into(),
            config: Default::default(),
        }
    }

    fn sgns() -> RunEntry {
        let m = algo::find("sgns").unwrap();
        let params = m.params([("dim", "50"), ("epochs", "1")]).unwrap();
        RunEntry::new(m, params, 1, 1, corpus_ref())
    }

    fn progress(step: u64, ppl: Option<f64>) -> Progress {
        Progress {
            step,
            total_steps: 10,
            loss: 1.0 / step as f64,
            perplexity: ppl,
            ..Progress::default()
        }
    }

    /// The perplexity's baselines come from the engine once, at the start:
    /// the record keeps them, so a reopened run shows them too.
    #[test]
    fn a_reopened_run_keeps_its_perplexity_baselines() {
        let b = crate::train::Baseline {
            words: 21_837,
            unigram: Some(1_020.0),
        };
        let mut r = sgns();
        r.observe(Event::Baseline(b));
        let text = ron::to_string(r.record()).unwrap();
        let back: session::Run = ron::from_str(&text).unwrap();
        let reopened = RunEntry::recorded(r.method, r.params.clone(), back);
        assert_eq!(reopened.record().baseline, Some(b));
    }

    #[test]
    fn settings_list_only_changed_parameters() {
        let mut r = sgns();
        r.set_number(2);
        assert_eq!(r.settings(), "dim=50 epochs=1");
        assert_eq!(r.label(), "#2 sgns dim=50 epochs=1");
    }

    #[test]
    fn counting_progress_shows_while_the_run_starts() {
        let mut r = sgns();
        assert_eq!(r.status_text(), "starting");
        let at = |phase, tokens| CountProgress {
            phase,
            tokens,
            total: 200,
            spilled_runs: 2,
        };
        r.observe(Event::Counting(at(CountPhase::Reading, 50)));
        assert_eq!(r.status_text(), "counting 25%");
        r.observe(Event::Counting(at(CountPhase::Merging, 200)));
        assert_eq!(r.status_text(), "merging counts");
        r.observe(Event::Counting(at(CountPhase::Done, 200)));
        assert_eq!(r.status_text(), "starting");
        let record = r.recorder.run();
        assert!(
            record.metrics.is_empty() && record.timeline.is_empty(),
            "counting is not recorded"
        );
        r.observe(Event::Progress(progress(1, None)));
        assert_eq!(r.status_text(), "training 10%");
    }

    fn phase(name: &'static str, done: u64, total: u64, step: u64) -> Phase {
        Phase {
            name,
            done,
            total,
            unit: crate::train::Unit::Count,
            step,
        }
    }

    #[test]
    fn the_clock_moves_every_tick_and_the_eta_counts_the_step_under_way() {
        let mut r = sgns();
        r.sync_clock(100);
        // Preparing: the time since the job started, no rate yet.
        assert_eq!(r.elapsed_at(140), 2.0);
        assert_eq!(r.eta_at(140), None);
        r.observe(Event::Phase(phase("encoding the corpus", 0, 0, 0)));
        assert_eq!(r.status_text(), "encoding the corpus");
        // Step 1 of 10 reported at 4 s (tick 180); 1 s later, half of step 2.
        let mut p = progress(1, None);
        p.elapsed = 4.0;
        r.observe(Event::Progress(p));
        r.sync_clock(180);
        assert_eq!(r.phase, None, "a report ends the phase");
        assert_eq!(r.elapsed_at(200), 5.0);
        assert_eq!(r.eta_at(180), Some(4.0 * 9.0));
        r.observe(Event::Phase(phase("training chunk", 1, 2, 1)));
        assert_eq!(r.steps_done(), 1.5);
        let eta = r.eta_at(200).unwrap();
        assert!((eta - 5.0 * 8.5 / 1.5).abs() < 1e-9, "{eta}");
        // A late phase of step 0 is dropped.
        r.observe(Event::Phase(phase("held-out perplexity", 3, 4, 0)));
        assert_eq!(r.phase.map(|p| p.name), Some("training chunk"));
        // Paused: the clock stands at the engine's time.
        r.observe(Event::Paused { step: 1 });
        assert_eq!(r.elapsed_at(400), 4.0);
    }

    #[test]
    fn events_drive_the_status_and_keep_the_last_perplexity() {
        let mut r = sgns();
        assert!(r.status.is_active());
        r.observe(Event::Progress(progress(1, Some(300.0))));
        r.observe(Event::Progress(progress(2, None)));
        assert_eq!(r.status, RunStatus::Training);
        assert_eq!(r.perplexity, Some(300.0));
        assert_eq!(r.status_text(), "training 20%");
        r.observe(Event::ParamApplied {
            name: "lr".into(),
            value: Value::Float(0.01),
            step: 2,
        });
        assert_eq!(r.changes(), vec![(2, "lr=0.01".to_string())]);
        r.observe(Event::Stopped { step: 2 });
        assert!(r.status.is_active(), "active until the vectors arrive");
        let words = crate::words::WordIndex::from_words(vec!["a".into()]);
        let e = Embedding::new(words, ndarray::Array2::zeros((1, 2))).unwrap();
        assert!(r.observe(Event::Finished(Box::new(e))).is_some());
        assert_eq!(r.status, RunStatus::Stopped(2));
        assert!(!r.status.is_active());
        assert!(r.embedding.is_some());
        assert_eq!(r.metrics().len(), 2);
    }
}
