//! The job runner: a trainer on a background thread, talking only through
//! channels. Progress goes out with `try_send` (a slow reader loses progress
//! messages, never blocks training); everything else is delivered.

use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{bounded, unbounded, Receiver, Sender, TryRecvError};

use super::message::{Command, Event, Progress};
use super::perplexity::HeldoutSample;
use super::phase::{self, Meter};
use super::trainer::{Method, TrainInput, Trainer};
use crate::cooc::progress;
use crate::embedding::Embedding;
use crate::schema::{Params, Value};
use crate::{Error, Result};

/// Settings of the runner itself (not of the method).
#[derive(Debug, Clone)]
pub struct JobConfig {
    /// Fraction of training time that held-out perplexity may cost (the
    /// interval between measurements adapts to keep under it).
    pub perplexity_budget: f64,
    /// Held-out (word, context) pairs sampled for perplexity (half fit the temperature).
    pub perplexity_pairs: usize,
    /// Measure perplexity at all.
    pub perplexity: bool,
    /// Hyperparameter changes `(step, name, value)` applied exactly before
    /// the given step, as if sent by `Command::Set` (session replay).
    pub schedule: Vec<(u64, String, String)>,
    /// Stop before this step, as if sent `Command::Stop` (session replay).
    pub stop_at: Option<u64>,
    /// End step `.0` (0-based) once `.1` units of its work are done, as a
    /// stop sent inside it did when it was recorded (session replay).
    pub cut_at: Option<(u64, u64)>,
    /// Fractions of the run (of its total steps, in `(0, 1)`) after which
    /// the job measures held-out perplexity, sends [`Event::Checkpoint`]
    /// and waits for `Resume` or `Stop`: a sweep's pruner decides there
    /// whether the run goes on, at a step that does not depend on timing.
    pub checkpoints: Vec<f64>,
    /// At a checkpoint, also hand out a copy of the word vectors, for a
    /// cheap evaluation there (a sweep pruning on a similarity score).
    pub checkpoint_vectors: bool,
}

impl Default for JobConfig {
    fn default() -> Self {
        JobConfig {
            perplexity_budget: 0.04,
            perplexity_pairs: 400,
            perplexity: true,
            schedule: Vec::new(),
            stop_at: None,
            cut_at: None,
            checkpoints: Vec::new(),
            checkpoint_vectors: false,
        }
    }
}

/// The steps (completed counts, in `1..total`) that `fractions` of a run of
/// `total` steps name, each with the index of its fraction, in step order;
/// two fractions on one step keep the first.
fn checkpoint_steps(fractions: &[f64], total: u64) -> Vec<(u64, usize)> {
    let mut steps: Vec<(u64, usize)> = fractions
        .iter()
        .enumerate()
        .filter(|(_, f)| f.is_finite() && **f > 0.0 && **f < 1.0)
        .map(|(i, f)| ((total as f64 * f).round() as u64, i))
        .filter(|(s, _)| (1..total).contains(s))
        .collect();
    steps.sort_unstable();
    steps.dedup_by_key(|(s, _)| *s);
    steps
}

/// Whether held-out perplexity is measured after `step` (1-based) of
/// `total`: when the time budget allows (`elapsed` has reached `next`), at
/// the last step, and at every tenth of the run while measuring has cost
/// (`spent`) under twice the budget, so even a short run draws a curve of
/// about ten points.
fn perplexity_due(step: u64, total: u64, elapsed: f64, next: f64, spent: f64, budget: f64) -> bool {
    let total = total.max(1);
    let tenth = step * 10 / total > (step - 1) * 10 / total;
    elapsed >= next || step >= total || (tenth && spent <= 2.0 * budget * elapsed)
}

/// A running job.
pub struct Job {
    events: Receiver<Event>,
    commands: Sender<Command>,
    handle: Option<JoinHandle<()>>,
    /// The job's phase meter, so a stop reaches a step under way.
    meter: Arc<Meter>,
}

/// Builds a trainer that needs no corpus (e.g. a projection), on the job's
/// thread inside its pool; the callback receives log lines.
pub type BuildTrainer = Box<dyn FnOnce(&mut dyn FnMut(String)) -> Result<Box<dyn Trainer>> + Send>;

/// Where a job's trainer comes from.
enum Source {
    /// `method.build` on a corpus (with held-out perplexity).
    Corpus(TrainInput),
    /// A closure, run with this many threads (no perplexity).
    Built(usize, Params, BuildTrainer),
}

impl Job {
    /// Starts `method` on `input` in a background thread.
    pub fn spawn(method: &'static Method, input: TrainInput, config: JobConfig) -> Job {
        Job::start(method, Source::Corpus(input), config)
    }

    /// Starts a trainer built by `build` (one that reads no corpus, such as a
    /// t-SNE projection) with `threads` threads. `method` names the job and
    /// holds the schema that `Command::Set` is checked against; its `build`
    /// is not called; `params` are the values the trainer was built with,
    /// which live changes update. Held-out perplexity is not measured.
    pub fn spawn_with(
        method: &'static Method,
        threads: usize,
        params: Params,
        config: JobConfig,
        build: BuildTrainer,
    ) -> Job {
        Job::start(method, Source::Built(threads, params, build), config)
    }

    fn start(method: &'static Method, source: Source, config: JobConfig) -> Job {
        let (etx, erx) = bounded(4096);
        let (ctx, crx) = unbounded();
        let meter = Arc::new(Meter::default());
        meter.limit_cut(config.cut_at);
        let shared = meter.clone();
        let handle = std::thread::Builder::new()
            .name(format!("train-{}", method.name))
            .spawn(move || run(method, source, config, etx, crx, shared))
            .expect("spawn training thread");
        Job {
            events: erx,
            commands: ctx,
            handle: Some(handle),
            meter,
        }
    }

    /// The event stream (for `select!` in a UI loop).
    pub fn events(&self) -> &Receiver<Event> {
        &self.events
    }

    /// Sends a command; ignored if the job already ended. A stop also
    /// reaches the step under way: a trainer whose steps are long ends it at
    /// its next unit of work ([`phase::Tracker::cut`]).
    pub fn send(&self, command: Command) {
        if command == Command::Stop {
            self.meter.request_cut();
        }
        let _ = self.commands.send(command);
    }

    /// Blocks until the job ends, handing every event to `on_event`; returns
    /// the embedding, or the failure as an error.
    pub fn wait(mut self, mut on_event: impl FnMut(&Event)) -> Result<Embedding> {
        let mut result = Err(Error::param("job", "ended without a result"));
        for event in self.events.iter() {
            on_event(&event);
            match event {
                Event::Finished(e) => result = Ok(*e),
                Event::Failed { message, .. } => result = Err(Error::Training(message)),
                _ => {}
            }
        }
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
        result
    }
}

impl Drop for Job {
    fn drop(&mut self) {
        self.send(Command::Stop);
    }
}

fn run(
    method: &'static Method,
    source: Source,
    config: JobConfig,
    events: Sender<Event>,
    commands: Receiver<Command>,
    meter: Arc<Meter>,
) {
    let asked = match &source {
        Source::Corpus(input) => input.threads,
        Source::Built(threads, ..) => *threads,
    };
    // Callers cap and warn already; this guards library users and runs
    // relaunched from a session written on a larger machine.
    let (threads, warning) = super::cap_threads(asked, "threads");
    if let Some(warning) = warning {
        let _ = events.send(Event::Log(format!("warning: {warning}")));
    }
    let pool = match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(p) => p,
        Err(e) => {
            let _ = events.send(Event::Failed {
                message: format!("cannot start {threads} worker threads: {e}"),
                last: None,
            });
            return;
        }
    };
    let watcher = Watcher::start(meter.clone(), events.clone());
    pool.install(|| {
        let outcome = phase::report_to(meter.clone(), || {
            Runner::new(method, source, config, &events, &commands)
                .and_then(|runner| runner.run(&meter))
        });
        // No phase arrives after the run's last event.
        watcher.stop();
        let event = match outcome {
            Ok(embedding) => Event::Finished(Box::new(embedding)),
            Err((message, last)) => Event::Failed { message, last },
        };
        let _ = events.send(event);
    });
}

/// How often the watcher looks at the phase under way (at most this many
/// [`Event::Phase`] a second: ten).
const PHASE_EVERY: Duration = Duration::from_millis(100);

/// A thread that sends the job's phase when it changed, every
/// [`PHASE_EVERY`], while the training thread is busy inside a build or step.
struct Watcher {
    stop: Sender<()>,
    handle: Option<JoinHandle<()>>,
}

impl Watcher {
    fn start(meter: Arc<Meter>, events: Sender<Event>) -> Watcher {
        let (stop, stopped) = bounded::<()>(0);
        let handle = std::thread::Builder::new()
            .name("train-phase".into())
            .spawn(move || {
                let mut sent = None;
                while let Err(crossbeam_channel::RecvTimeoutError::Timeout) =
                    stopped.recv_timeout(PHASE_EVERY)
                {
                    let now = meter.snapshot();
                    if let Some(p) = now.filter(|_| now != sent) {
                        let _ = events.try_send(Event::Phase(p));
                    }
                    sent = now;
                }
            })
            .ok();
        Watcher { stop, handle }
    }

    /// Stops the thread and waits for it.
    fn stop(mut self) {
        drop(self.stop);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

type Failure = (String, Option<Progress>);

/// No method can place more dimensions than there are words.
fn check_dim(method: &Method, input: &TrainInput) -> Result<()> {
    let Some(name) = method.dimension else {
        return Ok(());
    };
    let (dim, n) = (input.params.usize(name), input.corpus.vocab().len());
    if dim > n {
        return Err(Error::param(
            name,
            format!("{dim} is larger than the vocabulary ({n} words); lower {name} or min-count"),
        ));
    }
    Ok(())
}

/// How far above its best a loss may climb before the run counts as blown
/// up: training noise and restarts move a loss by a few times, never by
/// this much.
const BLOW_UP: f64 = 1e4;

/// Losses below this are never called a blow-up: eigen residuals and other
/// tiny losses may jump by orders of magnitude near convergence.
const BLOW_UP_FLOOR: f64 = 1e3;

/// Why a run with this loss has diverged, if it has: a loss that is not a
/// number, or one that grew [`BLOW_UP`] times past the best seen so far
/// (SGNS with lr = 0.5 reaches 1e18 with finite vectors of norm 1e9).
/// Updates `best`.
fn divergence(loss: f64, best: &mut f64) -> Option<String> {
    if !loss.is_finite() {
        return Some(format!("loss is {loss}"));
    }
    if loss > BLOW_UP_FLOOR && *best > 0.0 && loss > BLOW_UP * *best {
        return Some(format!("loss grew from {:.3e} to {loss:.3e}", *best));
    }
    if loss > 0.0 {
        *best = best.min(loss);
    }
    None
}

struct Runner<'a> {
    method: &'static Method,
    trainer: Box<dyn Trainer>,
    /// The run's values, with the live changes applied so far.
    params: Params,
    sample: Option<HeldoutSample>,
    config: JobConfig,
    events: &'a Sender<Event>,
    commands: &'a Receiver<Command>,
    last: Option<Progress>,
}

impl<'a> Runner<'a> {
    fn new(
        method: &'static Method,
        source: Source,
        config: JobConfig,
        events: &'a Sender<Event>,
        commands: &'a Receiver<Command>,
    ) -> Result<Self, Failure> {
        let mut log = |line: String| {
            let _ = events.send(Event::Log(line));
        };
        let input = match source {
            Source::Corpus(input) => input,
            Source::Built(_, params, build) => {
                let trainer = build(&mut log).map_err(|e| (e.to_string(), None))?;
                return Ok(Runner {
                    method,
                    trainer,
                    params,
                    sample: None,
                    config,
                    events,
                    commands,
                    last: None,
                });
            }
        };
        let mut input = input;
        // Callers resolve corpus-sized defaults before they record the
        // run; this guards library users who did not.
        for note in input.params.resolve(input.corpus.size()) {
            log(note.to_string());
        }
        let input = &input;
        check_dim(method, input).map_err(|e| (e.to_string(), None))?;
        let counting = events.clone();
        let trainer = progress::report_to(
            Box::new(move |p| {
                let _ = counting.send(Event::Counting(p));
            }),
            || (method.build)(input, &mut log),
        )
        .map_err(|e| (e.to_string(), None))?;
        let sample = if config.perplexity {
            HeldoutSample::from_corpus(&input.corpus, config.perplexity_pairs, input.seed)
                .map_err(|e| (e.to_string(), None))?
        } else {
            None
        };
        if sample.is_none() && config.perplexity {
            log("perplexity: no held-out pairs (the held-out split is empty)".into());
        }
        if let Some(s) = &sample {
            let baseline = s.baseline(input.corpus.vocab().counts());
            log(format!(
                "perplexity: over the vocabulary of {} words (uniform guess: {}; unigram guess: {})",
                baseline.words,
                baseline.words,
                baseline.unigram.map_or("-".into(), |u| format!("{u:.1}"))
            ));
            let _ = events.send(Event::Baseline(baseline));
        }
        Ok(Runner {
            method,
            trainer,
            params: input.params.clone(),
            sample,
            config,
            events,
            commands,
            last: None,
        })
    }

    fn run(mut self, meter: &Meter) -> Result<Embedding, Failure> {
        let mut total = self.trainer.total_steps();
        let mut clock = Clock::start();
        let mut next_ppl = Duration::ZERO;
        let mut ppl_spent = 0.0;
        let mut step = 0;
        let mut best_loss = f64::INFINITY;
        let checkpoints = checkpoint_steps(&self.config.checkpoints, total);
        while step < total {
            if self.handle_commands(step, &mut clock) || self.config.stop_at == Some(step) {
                let _ = self.events.send(Event::Stopped { step });
                break;
            }
            self.apply_schedule(step);
            meter.at_step(step);
            let t0 = Instant::now();
            let report = self
                .trainer
                .step(step)
                .map_err(|e| (e.to_string(), self.last))?;
            let dt = t0.elapsed().as_secs_f64();
            // A stop that reached the step under way ended it early.
            let cut = meter.take_cut();
            step += 1;
            if let Some(why) = divergence(report.loss, &mut best_loss) {
                let message = format!(
                    "{} diverged at step {step}: {why}; the learning rate (lr = {}) is probably too high",
                    self.method.name, report.lr
                );
                return Err((message, self.last));
            }
            if self.trainer.finished() {
                total = step;
            }
            if let Some(line) = self.trainer.take_note() {
                let _ = self.events.send(Event::Log(line));
            }
            let mut perplexity = None;
            let due = perplexity_due(
                step,
                total,
                clock.elapsed().as_secs_f64(),
                next_ppl.as_secs_f64(),
                ppl_spent,
                self.config.perplexity_budget,
            );
            let checkpoint = checkpoints
                .iter()
                .find(|(at, _)| *at == step && step < total)
                .map(|&(_, index)| index);
            if self.sample.is_some() && (due || cut.is_some() || checkpoint.is_some()) {
                let t = Instant::now();
                perplexity = self.measure_perplexity();
                let cost = t.elapsed().as_secs_f64();
                ppl_spent += cost;
                if next_ppl.is_zero() {
                    let pairs = self.sample.as_ref().map_or(0, |s| s.len());
                    let line = format!(
                        "perplexity: {pairs} held-out pairs, {:.0} ms per measurement",
                        cost * 1e3
                    );
                    let _ = self.events.send(Event::Log(line));
                }
                let wait = cost / self.config.perplexity_budget;
                next_ppl = clock.elapsed()
                    + Duration::try_from_secs_f64(wait).unwrap_or(Duration::from_secs(3600));
            }
            let progress = Progress {
                step,
                total_steps: total,
                epoch: report.epoch,
                loss: report.loss,
                perplexity,
                model_perplexity: self.trainer.model_perplexity(),
                lr: report.lr,
                items_per_sec: if dt > 0.0 {
                    report.items as f64 / dt
                } else {
                    0.0
                },
                elapsed: clock.elapsed().as_secs_f64(),
            };
            self.last = Some(progress);
            let _ = self.events.try_send(Event::Progress(progress));
            if let Some(units) = cut {
                let _ = self.events.send(Event::Cut {
                    step: step - 1,
                    units,
                });
                let _ = self.events.send(Event::Stopped { step });
                break;
            }
            let held = checkpoint.map(|index| self.hold(step, index, perplexity, &mut clock));
            if held == Some(false) {
                let _ = self.events.send(Event::Stopped { step });
                break;
            }
        }
        self.trainer
            .into_embedding()
            .map_err(|e| (e.to_string(), self.last))
    }

    fn apply_schedule(&mut self, step: u64) {
        let due: Vec<(String, String)> = self
            .config
            .schedule
            .iter()
            .filter(|(at, _, _)| *at == step)
            .map(|(_, name, value)| (name.clone(), value.clone()))
            .collect();
        for (name, value) in due {
            self.apply(step, &name, &value);
        }
    }

    fn measure_perplexity(&mut self) -> Option<f64> {
        let view = self.trainer.scores()?;
        self.sample.as_mut()?.perplexity(view)
    }

    /// At a checkpoint: reports it and waits for the caller's word. Returns
    /// false to stop (also when the caller went away); changes sent
    /// meanwhile apply before the next step.
    fn hold(
        &mut self,
        step: u64,
        index: usize,
        perplexity: Option<f64>,
        clock: &mut Clock,
    ) -> bool {
        let words = if self.config.checkpoint_vectors {
            self.trainer
                .scores()
                .map(|v| std::sync::Arc::new(v.words.to_owned()))
        } else {
            None
        };
        let _ = self.events.send(Event::Checkpoint {
            step,
            index,
            perplexity,
            words,
        });
        clock.pause();
        let go_on = loop {
            match self.commands.recv() {
                Ok(Command::Resume) => break true,
                Ok(Command::Stop) | Err(_) => break false,
                Ok(Command::Set(name, text)) => self.apply(step, &name, &text),
                Ok(Command::Pause) => {}
            }
        };
        clock.resume();
        go_on
    }

    /// Applies pending commands; blocks while paused. Returns true to stop.
    fn handle_commands(&mut self, step: u64, clock: &mut Clock) -> bool {
        let mut paused = false;
        loop {
            let cmd = if paused {
                match self.commands.recv() {
                    Ok(c) => c,
                    Err(_) => return true,
                }
            } else {
                match self.commands.try_recv() {
                    Ok(c) => c,
                    Err(TryRecvError::Empty) => return false,
                    Err(TryRecvError::Disconnected) => return false,
                }
            };
            match cmd {
                Command::Stop => return true,
                Command::Pause if !paused => {
                    paused = true;
                    clock.pause();
                    let _ = self.events.send(Event::Paused { step });
                }
                Command::Resume if paused => {
                    paused = false;
                    clock.resume();
                    let _ = self.events.send(Event::Resumed { step });
                }
                Command::Pause | Command::Resume => {}
                Command::Set(name, text) => self.apply(step, &name, &text),
            }
        }
    }

    /// Sets the live value `name` in the run's values and hands them to the
    /// trainer; the values change only if the trainer takes them.
    fn set_live(&mut self, name: &str, value: Value) -> Result<Value> {
        let mut next = self.params.clone();
        let value = next.set(self.method.name, name, &value)?;
        self.trainer.set(&next)?;
        self.params = next;
        Ok(value)
    }

    fn apply(&mut self, step: u64, name: &str, text: &str) {
        let spec = self.method.schema.iter().find(|s| s.name == name);
        let result = match spec {
            None => {
                let valid: Vec<&str> = self
                    .method
                    .schema
                    .iter()
                    .filter(|s| s.live)
                    .map(|s| s.name)
                    .collect();
                Err(format!(
                    "unknown hyperparameter for {} (live ones: {})",
                    self.method.name,
                    valid.join(", ")
                ))
            }
            Some(s) if !s.live => Err("cannot be changed during a run".to_string()),
            Some(s) => s
                .parse(text)
                .and_then(|v| self.set_live(name, v))
                .map_err(|e| e.to_string()),
        };
        let event = match result {
            Ok(value) => Event::ParamApplied {
                name: name.to_string(),
                value,
                step,
            },
            Err(reason) => Event::ParamRejected {
                name: name.to_string(),
                reason,
            },
        };
        let _ = self.events.send(event);
    }
}

/// Wall time with pauses excluded.
struct Clock {
    start: Instant,
    excluded: Duration,
    paused_at: Option<Instant>,
}

impl Clock {
    fn start() -> Self {
        Clock {
            start: Instant::now(),
            excluded: Duration::ZERO,
            paused_at: None,
        }
    }

    fn elapsed(&self) -> Duration {
        let now = self.paused_at.unwrap_or_else(Instant::now);
        now.duration_since(self.start).saturating_sub(self.excluded)
    }

    fn pause(&mut self) {
        self.paused_at = Some(Instant::now());
    }

    fn resume(&mut self) {
        if let Some(p) = self.paused_at.take() {
            self.excluded += p.elapsed();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use ndarray::Array2;

    use super::*;
    use crate::corpus::{Corpus, CorpusConfig, HeldoutConfig, VocabConfig};

    #[test]
    fn perplexity_is_due_each_tenth_while_it_is_cheap() {
        // The budget's clock is far off: only tenths and the last step.
        let due = |step, spent| perplexity_due(step, 100, 10.0, 1e9, spent, 0.05);
        let steps: Vec<u64> = (1..=100).filter(|&s| due(s, 0.0)).collect();
        assert_eq!(steps, [10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
        // Measuring already cost more than twice the budget: the last only.
        let steps: Vec<u64> = (1..=100).filter(|&s| due(s, 1.5)).collect();
        assert_eq!(steps, [100]);
        // Runs shorter than ten steps are measured at every step.
        assert!((1..=4).all(|s| perplexity_due(s, 4, 0.0, 1e9, 0.0, 0.05)));
        // The budget's clock alone.
        assert!(perplexity_due(3, 100, 5.0, 4.0, 99.0, 0.05));
    }
    use crate::schema::{bind_params, ParamSpec};
    use crate::train::trainer::{ScoreView, StepReport};

    /// Gradient descent on `½‖x − target‖²` per word: a trainer whose every
    /// number is predictable.
    struct Toy {
        x: Array2<f32>,
        lr: f64,
        total: u64,
        words: crate::words::WordIndex,
        tol: f64,
        slow_ms: u64,
    }

    impl Trainer for Toy {
        fn total_steps(&self) -> u64 {
            self.total
        }
        fn step(&mut self, _step: u64) -> Result<StepReport> {
            if self.slow_ms > 0 {
                let work = phase::begin("toy work", 4, phase::Unit::Count);
                for _ in 0..4 {
                    std::thread::sleep(Duration::from_millis(self.slow_ms / 4));
                    work.add(1);
                }
            }
            let lr = self.lr as f32;
            self.x.mapv_inplace(|v| v - lr * (v - 1.0));
            let loss = self
                .x
                .iter()
                .map(|&v| 0.5 * ((v - 1.0) as f64).powi(2))
                .sum();
            Ok(StepReport {
                loss,
                items: self.x.len() as u64,
                epoch: 0,
                lr: self.lr,
            })
        }
        fn set(&mut self, params: &Params) -> Result<()> {
            self.lr = Values::from_params(params).lr;
            Ok(())
        }
        fn finished(&self) -> bool {
            self.x.iter().all(|&v| f64::from(v - 1.0).abs() < self.tol)
        }
        fn scores(&self) -> Option<ScoreView<'_>> {
            Some(ScoreView {
                words: self.x.view(),
                contexts: self.x.view(),
            })
        }
        fn into_embedding(self: Box<Self>) -> Result<Embedding> {
            Embedding::new(self.words, self.x)
        }
    }

    static SCHEMA: &[ParamSpec] = &[
        ParamSpec::float("lr", 0.0, 10.0, 0.1, "step size").live(),
        ParamSpec::int("steps", 1, i64::MAX, 20, "steps"),
        ParamSpec::float(
            "tol",
            0.0,
            10.0,
            0.0,
            "finish once every |x - 1| is below this",
        ),
        ParamSpec::int("slow_ms", 0, 10_000, 0, "milliseconds a step takes"),
    ];

    bind_params! {
        struct Values for SCHEMA {
            lr: f64,
            steps: u64,
            tol: f64,
            slow_ms: u64,
        }
    }

    fn build(input: &TrainInput, log: &mut dyn FnMut(String)) -> Result<Box<dyn Trainer>> {
        log("toy: ready".into());
        let n = input.corpus.vocab().len();
        let v = Values::from_params(&input.params);
        Ok(Box::new(Toy {
            x: Array2::from_elem((n, 3), 3.0),
            lr: v.lr,
            total: v.steps,
            tol: v.tol,
            slow_ms: v.slow_ms,
            words: input.corpus.vocab().index().clone(),
        }))
    }

    static TOY: Method = Method {
        name: "toy",
        summary: "test trainer",
        schema: SCHEMA,
        dimension: None,
        build,
    };

    fn input(assignments: &[(&str, &str)]) -> TrainInput {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/corpus/paragraphs.txt"
        );
        let config = CorpusConfig {
            vocab: VocabConfig {
                min_count: 1,
                max_size: None,
            },
            read: crate::corpus::ReadConfig {
                heldout: HeldoutConfig {
                    fraction: 0.5,
                    max_unit_tokens: 6,
                },
                ..Default::default()
            },
        };
        TrainInput {
            corpus: Arc::new(Corpus::open(path, config).unwrap()),
            params: TOY.params(assignments.iter().copied()).unwrap(),
            seed: 1,
            threads: 1,
            counts: Default::default(),
        }
    }

    #[test]
    fn runs_to_the_end_with_decreasing_loss() {
        let job = Job::spawn(&TOY, input(&[]), JobConfig::default());
        let mut losses = Vec::new();
        let mut logs = Vec::new();
        let emb = job
            .wait(|e| match e {
                Event::Progress(p) => losses.push((p.step, p.loss, p.perplexity)),
                Event::Log(l) => logs.push(l.clone()),
                _ => {}
            })
            .unwrap();
        assert_eq!(logs.first().map(String::as_str), Some("toy: ready"));
        assert!(losses.windows(2).all(|w| w[1].1 < w[0].1));
        // x = 1 + 2·0.9^20 after 20 steps.
        let expect = 1.0 + 2.0 * 0.9f32.powi(20);
        assert!((emb.vectors()[[0, 0]] - expect).abs() < 1e-5);
        // All words have equal vectors: the softmax is uniform, perplexity = |V|.
        let last = losses.last().unwrap();
        assert_eq!(last.0, 20);
        let n = emb.len() as f64;
        assert!((last.2.unwrap() - n).abs() < 1e-6 * n, "{:?}", last.2);
    }

    #[test]
    fn a_long_step_reports_its_phase_while_it_runs() {
        let job = Job::spawn(
            &TOY,
            input(&[("steps", "2"), ("slow_ms", "1200")]),
            JobConfig::default(),
        );
        let (mut steps_seen, mut phases, mut after_end) = (0, Vec::new(), 0);
        let mut ended = false;
        job.wait(|e| match e {
            Event::Progress(p) => steps_seen = p.step,
            Event::Phase(p) => {
                after_end += usize::from(ended);
                assert!(p.step <= steps_seen, "{p:?} after step {steps_seen}");
                phases.push(*p);
            }
            Event::Finished(_) => ended = true,
            _ => {}
        })
        .unwrap();
        assert_eq!(after_end, 0, "no phase after the last event");
        // Each step takes 1.2 s in four parts; the watcher looks every 0.1 s.
        assert!(!phases.is_empty());
        assert!(phases
            .iter()
            .all(|p| p.name == "toy work" && p.total == 4 && p.done <= 4 && p.step <= 1));
        assert!(
            phases.windows(2).all(|w| w[0] != w[1]),
            "only changes are sent"
        );
    }

    #[test]
    fn checkpoint_fractions_name_steps_inside_the_run() {
        assert_eq!(
            checkpoint_steps(&[1.0 / 9.0, 1.0 / 3.0], 27),
            [(3, 0), (9, 1)]
        );
        // Too short for the first rung; two fractions on one step keep the first.
        assert_eq!(checkpoint_steps(&[1.0 / 9.0, 1.0 / 3.0], 3), [(1, 1)]);
        assert_eq!(checkpoint_steps(&[0.3, 0.34], 3), [(1, 0)]);
        assert!(checkpoint_steps(&[0.0, 1.0, f64::NAN], 10).is_empty());
    }

    #[test]
    fn a_job_holds_at_a_checkpoint_with_its_perplexity_until_told() {
        for go_on in [true, false] {
            let config = JobConfig {
                checkpoints: vec![0.25, 0.5],
                checkpoint_vectors: go_on,
                ..JobConfig::default()
            };
            let job = Job::spawn(&TOY, input(&[("steps", "20")]), config);
            let (mut held, mut last, mut stopped) = (Vec::new(), 0, None);
            for e in job.events().iter() {
                match e {
                    Event::Checkpoint {
                        step,
                        index,
                        perplexity,
                        words,
                    } => {
                        assert!(perplexity.is_some(), "measured at the checkpoint");
                        assert_eq!(words.is_some(), go_on, "vectors only when asked");
                        held.push((step, index));
                        job.send(if go_on {
                            Command::Resume
                        } else {
                            Command::Stop
                        });
                    }
                    Event::Progress(p) => last = p.step,
                    Event::Stopped { step } => stopped = Some(step),
                    Event::Finished(_) | Event::Failed { .. } => break,
                    _ => {}
                }
            }
            if go_on {
                assert_eq!((held, last, stopped), (vec![(5, 0), (10, 1)], 20, None));
            } else {
                assert_eq!((held, last, stopped), (vec![(5, 0)], 5, Some(5)));
            }
        }
    }

    #[test]
    fn a_converged_trainer_ends_the_run_early() {
        let job = Job::spawn(&TOY, input(&[("tol", "0.5")]), JobConfig::default());
        let mut last = None;
        job.wait(|e| {
            if let Event::Progress(p) = e {
                last = Some(*p);
            }
        })
        .unwrap();
        // 1 + 2·0.9^n < 1.5 first at n = 14 (0.9^13 = 0.254, 0.9^14 = 0.229).
        let last = last.unwrap();
        assert_eq!((last.step, last.total_steps), (14, 14));
        assert!(last.perplexity.is_some(), "the last step is measured");
    }

    #[test]
    fn pause_set_resume_stop_through_commands() {
        let job = Job::spawn(
            &TOY,
            input(&[("steps", "100000000"), ("lr", "0.0001")]),
            JobConfig::default(),
        );
        job.send(Command::Pause);
        job.send(Command::Set("lr".into(), "0.5".into()));
        job.send(Command::Set("steps".into(), "5".into()));
        job.send(Command::Set("nope".into(), "5".into()));
        job.send(Command::Set("lr".into(), "99".into()));
        job.send(Command::Resume);
        job.send(Command::Stop);
        let mut seen = Vec::new();
        let emb = job
            .wait(|e| match e {
                Event::Paused { step } => seen.push(format!("paused@{step}")),
                Event::Resumed { step } => seen.push(format!("resumed@{step}")),
                Event::ParamApplied { name, value, step } => {
                    seen.push(format!("{name}={value}@{step}"))
                }
                Event::ParamRejected { name, .. } => seen.push(format!("rejected {name}")),
                _ => {}
            })
            .unwrap();
        let step: String = seen[0].trim_start_matches("paused@").to_string();
        assert_eq!(
            seen,
            vec![
                format!("paused@{step}"),
                format!("lr=0.5@{step}"),
                "rejected steps".to_string(),
                "rejected nope".to_string(),
                "rejected lr".to_string(),
                format!("resumed@{step}"),
            ]
        );
        // Stopped early: the embedding is what was trained so far.
        assert!(emb.vectors()[[0, 0]] > 1.0);
    }

    #[test]
    fn a_loss_that_blows_up_fails_before_it_is_infinite() {
        // lr = 2.5: the error grows 1.5x a step, the loss 2.25x; finite for
        // ~200 steps, stopped once it is 10^4 times its best.
        let job = Job::spawn(
            &TOY,
            input(&[("lr", "2.5"), ("steps", "1000")]),
            JobConfig::default(),
        );
        let mut last = None;
        let err = job
            .wait(|e| {
                if let Event::Failed { last: l, .. } = e {
                    last = *l;
                }
            })
            .unwrap_err()
            .to_string();
        assert!(err.contains("loss grew from"), "{err}");
        let step = last.map_or(0, |p| p.step);
        assert!(step > 5 && step < 30, "stopped at step {step}: {err}");
        let mut best = f64::INFINITY;
        assert!(divergence(1e-12, &mut best).is_none());
        assert!(
            divergence(1e-6, &mut best).is_none(),
            "tiny losses may jump"
        );
        assert!(divergence(5e3, &mut best).is_some());
        assert!(divergence(f64::NAN, &mut best).is_some());
    }

    #[test]
    fn nan_loss_fails_with_a_learning_rate_hint() {
        let job = Job::spawn(
            &TOY,
            input(&[("lr", "10"), ("steps", "1000")]),
            JobConfig::default(),
        );
        let mut last = None;
        let err = job
            .wait(|e| {
                if let Event::Failed { last: l, .. } = e {
                    last = *l;
                }
            })
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("toy diverged at step") && err.contains("learning rate (lr = 10)"),
            "{err}"
        );
        assert!(last.is_some_and(|p| p.loss.is_finite() && p.step > 0));
    }
}
