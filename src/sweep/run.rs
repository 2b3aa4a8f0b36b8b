//! Running a sweep: its runs are ordinary engine jobs, trained one after
//! another (or a few at once), each recorded as a session run, evaluated
//! when it ends, and stopped at a rung when the pruner says so.
//!
//! Work is shared between runs: every run reads the co-occurrence counts
//! (and a spectral run its transformed matrix, when only the solve differs,
//! and its factorisation, when only `power` differs) from
//! one [`CountCache`], and a corpus is read once per distinct set of
//! corpus options. When runs train at once, the next one starts only after
//! the one before it has built its trainer, so runs that need the same
//! counts wait for the first count instead of counting again.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

use super::expand::Trial;
use super::prune::{decide, Decision, Rung};
use super::spec::{target, Metric, SweepSpec};
use crate::algo::spectral::matrix::Transformed;
use crate::algo::spectral::shared::SharedSolve;
use crate::cooc::CountCache;
use crate::corpus::options::OPTIONS as CORPUS_OPTIONS;
use crate::corpus::{Corpus, CorpusConfig};
use crate::embedding::Embedding;
use crate::eval::{EvalPlan, Report};
use crate::schema::Params;
use crate::session::{CorpusRef, Recorder, Run};
use crate::train::{Command, Event, Job, JobConfig, Method, Progress, TrainInput};
use crate::{Error, Result};

/// What a sweep runs on.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The declaration.
    pub spec: SweepSpec,
    /// Its method.
    pub method: &'static Method,
    /// The runs, from [`super::expand()`].
    pub trials: Vec<Trial>,
    /// The corpus file.
    pub corpus: PathBuf,
    /// The corpus options every run starts from (a run may change some).
    pub corpus_options: Params,
    /// Where the session will be saved (corpus paths are recorded relative to it).
    pub session_file: PathBuf,
    /// The evaluation each ended run gets (empty: none).
    pub eval: EvalPlan,
}

/// How a run of the sweep ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    /// Trained to its last step.
    Finished,
    /// Stopped at a rung by the pruner, after `step` steps.
    Pruned {
        /// Steps done.
        step: u64,
    },
    /// Failed (bad value for this corpus, divergence): the message.
    Failed(String),
    /// Not started: the sweep's time budget was spent.
    Skipped,
}

impl Status {
    /// One word for tables and CSV.
    pub fn word(&self) -> &'static str {
        match self {
            Status::Finished => "finished",
            Status::Pruned { .. } => "pruned",
            Status::Failed(_) => "failed",
            Status::Skipped => "skipped",
        }
    }
}

/// One ended run.
#[derive(Debug)]
pub struct Outcome {
    /// Its place in the sweep (0-based).
    pub index: usize,
    /// What it set.
    pub trial: Trial,
    /// How it ended.
    pub status: Status,
    /// Its session record (none when skipped or refused before training).
    pub run: Option<Run>,
    /// Its vectors (finished or pruned runs).
    pub embedding: Option<Embedding>,
    /// Wall seconds from start to evaluated.
    pub seconds: f64,
}

impl Outcome {
    /// The run's value of `metric`, if it has one.
    pub fn value(&self, metric: &Metric) -> Option<f64> {
        let run = self.run.as_ref()?;
        value_of(run, metric)
    }
}

/// A run's value of `metric`: the last loss or perplexity recorded, or a
/// score of its evaluation.
pub fn value_of(run: &Run, metric: &Metric) -> Option<f64> {
    let report: Option<&Report> = run.evaluation.as_ref();
    let v = match metric {
        Metric::Loss => run.metrics.last().map(|p| p.loss),
        Metric::Perplexity => run.metrics.iter().rev().find_map(|p| p.perplexity),
        Metric::Similarity(name) => report?
            .similarity
            .iter()
            .find(|s| s.dataset == *name)
            .map(|s| s.spearman),
        Metric::Analogy => report?.analogy.as_ref().map(|a| a.total),
    };
    v.filter(|v| v.is_finite())
}

/// What the caller hears while the sweep runs.
#[derive(Debug)]
pub enum Update {
    /// Run `index` started.
    Started(usize),
    /// Progress of run `index`.
    Progress(usize, Progress),
    /// Run `index` ended (boxed: it holds the vectors).
    Ended(Box<Outcome>),
}

/// The sweep as it ended.
#[derive(Debug)]
pub struct Summary {
    /// Co-occurrence matrices counted (the rest were shared).
    pub counted: usize,
    /// Corpora read (one per distinct set of corpus options).
    pub corpora: usize,
    /// Matrices transformed (spectral runs that differ only in the solve,
    /// such as `dim`, reuse one).
    pub transformed: usize,
    /// Factorisations made and shared (spectral runs that differ only in
    /// how they weight the singular vectors reuse one).
    pub factored: usize,
    /// Wall seconds of the whole sweep.
    pub seconds: f64,
}

/// Runs every trial of `plan`, `spec.parallel` at a time, handing the
/// caller each report in the calling thread. Counts are shared through
/// `counts`.
pub fn run(plan: &Plan, counts: Arc<CountCache>, mut on: impl FnMut(Update)) -> Result<Summary> {
    let start = Instant::now();
    let n = plan.trials.len();
    let rungs = plan.spec.prune.as_ref().map_or(0, |p| p.rungs.len());
    let gate = Gate::new(plan.spec.prune.as_ref().map_or(2, |p| p.eta), n, rungs);
    let corpora = Corpora::default();
    let parallel = plan.spec.parallel.max(1);
    let (tx, rx) = mpsc::channel::<Msg>();
    std::thread::scope(|scope| {
        let (mut next, mut running, mut building) = (0, 0, None::<usize>);
        loop {
            while running < parallel && next < n && building.is_none() {
                let over = plan
                    .spec
                    .time_budget
                    .is_some_and(|b| start.elapsed().as_secs_f64() >= b);
                if over {
                    for index in next..n {
                        gate.ended(index);
                        on(Update::Ended(Box::new(skipped(plan, index))));
                    }
                    next = n;
                    break;
                }
                let (tx, gate, corpora, counts) = (tx.clone(), &gate, &corpora, counts.clone());
                let index = next;
                scope.spawn(move || {
                    let outcome = train_one(plan, index, gate, corpora, counts, &tx);
                    gate.ended(index);
                    let _ = tx.send(Msg::Ended(Box::new(outcome)));
                });
                on(Update::Started(index));
                (running, building, next) = (running + 1, Some(index), next + 1);
            }
            if running == 0 && next >= n {
                break;
            }
            match rx.recv() {
                Ok(Msg::Built(i)) if building == Some(i) => building = None,
                Ok(Msg::Built(_)) => {}
                Ok(Msg::Progress(i, p)) => on(Update::Progress(i, p)),
                Ok(Msg::Ended(outcome)) => {
                    running -= 1;
                    if building == Some(outcome.index) {
                        building = None;
                    }
                    on(Update::Ended(outcome));
                }
                Err(_) => break,
            }
        }
    });
    Ok(Summary {
        counted: counts.counted(),
        corpora: corpora.len(),
        transformed: counts.products_made::<Transformed>(),
        factored: counts.products_made::<SharedSolve>(),
        seconds: start.elapsed().as_secs_f64(),
    })
}

enum Msg {
    /// The run built its trainer (its counts are in the cache).
    Built(usize),
    Progress(usize, Progress),
    Ended(Box<Outcome>),
}

fn skipped(plan: &Plan, index: usize) -> Outcome {
    Outcome {
        index,
        trial: plan.trials[index].clone(),
        status: Status::Skipped,
        run: None,
        embedding: None,
        seconds: 0.0,
    }
}

/// Trains, records and evaluates run `index`.
fn train_one(
    plan: &Plan,
    index: usize,
    gate: &Gate,
    corpora: &Corpora,
    counts: Arc<CountCache>,
    tx: &mpsc::Sender<Msg>,
) -> Outcome {
    let start = Instant::now();
    let trial = plan.trials[index].clone();
    // What every ending shares; its status and record are set below.
    let outcome = Outcome {
        index,
        trial: trial.clone(),
        status: Status::Finished,
        run: None,
        embedding: None,
        seconds: 0.0,
    };
    let prepared = prepare(plan, &trial, corpora);
    let (params, corpus, reference) = match prepared {
        Ok(p) => p,
        Err(e) => {
            let _ = tx.send(Msg::Built(index));
            return Outcome {
                status: Status::Failed(e.to_string()),
                ..outcome
            };
        }
    };
    let mut recorder = Recorder::new(plan.method.name, &params, plan.spec.seed, plan.spec.threads)
        .on_corpus(reference);
    recorder.run_mut().label = Some(trial.label());
    let words = corpus.vocab().index().clone();
    let input = TrainInput {
        corpus,
        params,
        seed: plan.spec.seed,
        threads: plan.spec.threads,
        counts,
    };
    let config = JobConfig {
        checkpoints: plan
            .spec
            .prune
            .as_ref()
            .map_or_else(Vec::new, |p| p.rungs.clone()),
        checkpoint_vectors: prune_set(&plan.spec, &plan.eval.similarity).is_some(),
        ..JobConfig::default()
    };
    let job = Job::spawn(plan.method, input, config);
    let mut built = false;
    let mut pruned_at = None;
    let mut result = Err(Error::Training("ended without a result".into()));
    while let Ok(event) = job.events().recv() {
        recorder.observe(&event);
        match event {
            Event::Progress(p) => {
                if !built {
                    built = true;
                    let _ = tx.send(Msg::Built(index));
                }
                let _ = tx.send(Msg::Progress(index, p));
            }
            Event::Checkpoint {
                step,
                index: rung,
                perplexity,
                words: vectors,
            } => {
                let value = match prune_set(&plan.spec, &plan.eval.similarity) {
                    Some(set) => vectors.and_then(|v| early_score(&words, &v, set)),
                    None => perplexity,
                };
                if gate.reached(index, rung, value) {
                    job.send(Command::Resume);
                } else {
                    pruned_at = Some(step);
                    job.send(Command::Stop);
                }
            }
            Event::Finished(e) => result = Ok(*e),
            Event::Failed { message, .. } => result = Err(Error::Training(message)),
            _ => {}
        }
    }
    if !built {
        let _ = tx.send(Msg::Built(index));
    }
    drop(job);
    let (status, embedding) = match result {
        Ok(embedding) => {
            let evaluated = evaluate(plan, &embedding).map(|r| recorder.run_mut().evaluation = r);
            let status = match (evaluated, pruned_at) {
                (Err(e), _) => Status::Failed(e.to_string()),
                (Ok(()), Some(step)) => Status::Pruned { step },
                (Ok(()), None) => Status::Finished,
            };
            (status, Some(embedding))
        }
        Err(e) => (Status::Failed(e.to_string()), None),
    };
    Outcome {
        status,
        run: Some(recorder.into_run()),
        embedding,
        seconds: start.elapsed().as_secs_f64(),
        ..outcome
    }
}

/// The similarity set (of `sets`) a pruned sweep compares runs by at a
/// rung, when it prunes on one rather than on perplexity.
pub fn prune_set<'a>(spec: &SweepSpec, sets: &'a [PathBuf]) -> Option<&'a Path> {
    let Some(Metric::Similarity(name)) = spec.prune.as_ref()?.on.as_ref() else {
        return None;
    };
    sets.iter()
        .find(|p| p.file_stem().is_some_and(|s| s.to_string_lossy() == *name))
        .map(PathBuf::as_path)
}

/// The value a rung compares for vectors `words` (one row per vocabulary
/// id): minus their Spearman on the similarity `set`, so lower is better
/// as for perplexity; none when they cannot be scored.
pub fn early_score(
    index: &crate::words::WordIndex,
    words: &ndarray::Array2<f32>,
    set: &Path,
) -> Option<f64> {
    let n = index.len().min(words.nrows());
    let mut index = index.clone();
    index.truncate(n);
    let embedding = Embedding::new(index, words.slice(ndarray::s![..n, ..]).to_owned()).ok()?;
    let plan = EvalPlan {
        similarity: vec![set.to_path_buf()],
        analogy: None,
        ..EvalPlan::default()
    };
    let report = plan.run(&embedding).ok()?;
    let rho = report.similarity.first()?.spearman;
    rho.is_finite().then_some(-rho)
}

/// The plan's evaluation of `embedding`, if the plan has datasets.
fn evaluate(plan: &Plan, embedding: &Embedding) -> Result<Option<Report>> {
    if plan.eval.similarity.is_empty() && plan.eval.analogy.is_none() {
        return Ok(None);
    }
    plan.eval.run(embedding).map(Some)
}

/// The run's parameters (resolved for its corpus), its corpus and the
/// corpus's reference for the session.
fn prepare(
    plan: &Plan,
    trial: &Trial,
    corpora: &Corpora,
) -> Result<(Params, Arc<Corpus>, CorpusRef)> {
    let mut method_values: Vec<(&str, &str)> = plan
        .spec
        .fixed
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let mut options = plan.corpus_options.clone();
    for (name, value) in &trial.values {
        match target(plan.method, name)? {
            super::spec::Target::Method(_) => method_values.push((name, value)),
            super::spec::Target::Corpus(spec) => {
                options.set_text(crate::corpus::options::OWNER, spec.name, value)?;
            }
        }
    }
    let mut params = plan.method.params(method_values)?;
    let (corpus, reference) = corpora.open(&plan.corpus, &options, &plan.session_file)?;
    params.resolve(corpus.size());
    Ok((params, corpus, reference))
}

/// The corpora read so far, by their options: a sweep over trainer
/// settings reads its corpus once.
#[derive(Default)]
struct Corpora {
    open: Mutex<BTreeMap<String, (Arc<Corpus>, CorpusRef)>>,
}

impl Corpora {
    /// The corpus read with `options`, read now if it was not (under the
    /// lock, so two runs never read the same corpus twice).
    fn open(
        &self,
        path: &Path,
        options: &Params,
        session_file: &Path,
    ) -> Result<(Arc<Corpus>, CorpusRef)> {
        debug_assert!(std::ptr::eq(options.schema(), CORPUS_OPTIONS));
        let key: Vec<String> = options.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let key = key.join(" ");
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((c, r)) = open.get(&key) {
            return Ok((c.clone(), r.clone()));
        }
        let config = CorpusConfig::from_params(options);
        let corpus = Arc::new(crate::counts::open_for_training(path, config)?);
        let reference = CorpusRef::describe(path, *corpus.config(), session_file)?;
        open.insert(key, (corpus.clone(), reference.clone()));
        Ok((corpus, reference))
    }

    fn len(&self) -> usize {
        self.open.lock().unwrap_or_else(|p| p.into_inner()).len()
    }
}

/// Where every run stands at every rung, shared by the runs' threads.
struct Gate {
    eta: u32,
    state: Mutex<Vec<Vec<Rung>>>,
    changed: Condvar,
}

impl Gate {
    fn new(eta: u32, runs: usize, rungs: usize) -> Gate {
        Gate {
            eta,
            state: Mutex::new(vec![vec![Rung::Pending; rungs]; runs]),
            changed: Condvar::new(),
        }
    }

    /// Run `i` reached `rung` with `value`: whether it goes on (waits for
    /// earlier runs still on their way there).
    fn reached(&self, i: usize, rung: usize, value: Option<f64>) -> bool {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if rung >= state[i].len() {
            return true;
        }
        state[i][rung] = value.map_or(Rung::NoValue, Rung::Reached);
        self.changed.notify_all();
        loop {
            let earlier: Vec<Rung> = state[..i].iter().map(|r| r[rung]).collect();
            match decide(self.eta, value, &earlier) {
                Decision::Continue => return true,
                Decision::Prune => return false,
                Decision::Wait => {
                    state = self.changed.wait(state).unwrap_or_else(|p| p.into_inner());
                }
            }
        }
    }

    /// Run `i` ended: the rungs it did not reach will not be reached.
    fn ended(&self, i: usize) {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        for r in state[i].iter_mut().filter(|r| **r == Rung::Pending) {
            *r = Rung::Ended;
        }
        self.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::words::WordIndex;

    #[test]
    fn an_early_score_is_minus_the_spearman_of_the_vectors_it_is_given() {
        let set = Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/eval/similarity.tsv"
        ));
        let words: Vec<String> = [
            "love", "sex", "tiger", "cat", "computer", "keyboard", "money",
        ]
        .iter()
        .map(|w| w.to_string())
        .collect();
        let n = words.len();
        let index = WordIndex::from_words(words);
        // Rows beyond the vocabulary (a padded score matrix) are dropped.
        let vectors = ndarray::Array2::from_shape_fn((n + 2, 3), |(i, j)| {
            ((i * 7 + j * 3) % 5) as f32 + 0.5 * j as f32
        });
        let score = early_score(&index, &vectors, set).unwrap();
        let own = Embedding::new(index, vectors.slice(ndarray::s![..n, ..]).to_owned()).unwrap();
        let plan = EvalPlan {
            similarity: vec![set.to_path_buf()],
            ..EvalPlan::default()
        };
        let rho = plan.run(&own).unwrap().similarity[0].spearman;
        assert!(rho.is_finite());
        assert_eq!(score, -rho);
    }
}
