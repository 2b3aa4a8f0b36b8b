//! The [`Word2Vec`] trainer: state between steps, and one step as a parallel
//! pass over a slice of chunks.

use std::ops::Range;
use std::sync::Mutex;

use ndarray::Array2;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;

use super::alias::AliasSampler;
use super::plan::{Plan, Schedule};
use super::sigmoid::{ExactSigmoid, Sigmoid, TableSigmoid};
use super::source::{self, Sentences, Stream};
use super::worker::{train_chunk, Architecture, Model, Scratch, Tally};
use crate::corpus::{Batch, Split};
use crate::embedding::Embedding;
use crate::fast::hogwild::SharedMatrix;
use crate::train::{Params, ScoreView, StepReport, TrainInput, Trainer, Value};
use crate::words::WordIndex;
use crate::{Error, Result};

/// Words per step for each worker thread (a step of 2 threads is ~200k words).
const STEP_WORDS_PER_THREAD: usize = 100_000;

/// Hyperparameters, read once from the validated [`Params`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// Vector dimension.
    pub dim: usize,
    /// Maximal window on each side.
    pub window: usize,
    /// Negatives per example.
    pub negative: usize,
    /// Subsampling threshold `t` (0 = off).
    pub sample: f64,
    /// Passes over the corpus.
    pub epochs: usize,
    /// Initial learning rate.
    pub lr: f64,
    /// Floor of the decayed rate, as a fraction of `lr`.
    pub min_lr: f64,
    /// σ by word2vec's table (`true`) or exactly.
    pub table: bool,
}

impl Settings {
    /// Reads the settings from parameters that follow the word2vec schema.
    pub fn from_params(p: &Params) -> Self {
        Settings {
            dim: p.usize("dim"),
            window: p.usize("window"),
            negative: p.usize("negative"),
            sample: p.f64("sample"),
            epochs: p.usize("epochs"),
            lr: p.f64("lr"),
            min_lr: p.f64("min_lr"),
            table: p.choice("sigmoid") == "table",
        }
    }
}

/// SGNS or CBOW in training.
pub struct Word2Vec {
    arch: Architecture,
    settings: Settings,
    words: WordIndex,
    sentences: Sentences,
    plan: Plan,
    input: SharedMatrix,
    output: SharedMatrix,
    sampler: AliasSampler,
    keep: Vec<u64>,
    table: TableSigmoid,
    schedule: Schedule,
    seed: u64,
    next_step: u64,
    scratch: Vec<Mutex<Scratch>>,
}

impl Word2Vec {
    /// Encodes the training split (or plans to re-read it each epoch when
    /// its ids do not fit the corpus's memory budget, see [`super::source`])
    /// and initialises the model: input vectors uniform in
    /// `(-0.5/d, 0.5/d)`, output vectors zero (word2vec.c).
    pub fn new(
        arch: Architecture,
        input: &TrainInput,
        log: &mut dyn FnMut(String),
    ) -> Result<Self> {
        let memory = input.corpus.config().read.memory_bytes();
        let step_words = STEP_WORDS_PER_THREAD * input.threads.max(1);
        Word2Vec::with_limits(arch, input, log, memory, step_words)
    }

    /// [`Word2Vec::new`] with the token ids held in memory only when they
    /// take at most `memory` bytes, and steps of about `step_words` words.
    pub fn with_limits(
        arch: Architecture,
        input: &TrainInput,
        log: &mut dyn FnMut(String),
        memory: u64,
        step_words: usize,
    ) -> Result<Self> {
        let settings = Settings::from_params(&input.params);
        let corpus = &input.corpus;
        let needed = source::encoded_bytes(corpus);
        let (sentences, plan) = if needed > memory {
            log(format!(
                "token ids need {}, more than the memory budget of {}: the corpus is re-read from disk each epoch",
                crate::memory::human(needed),
                crate::memory::human(memory)
            ));
            let plan = Stream::plan(corpus, settings.epochs, step_words)?;
            (Sentences::Stream(Stream::new(corpus.clone())), plan)
        } else {
            let batch = corpus.encode(Split::Train)?;
            let plan = Plan::new(
                batch.sentences().map(|s| s.len()),
                settings.epochs,
                step_words,
            );
            (Sentences::Memory(batch), plan)
        };
        if plan.epoch_words() == 0 {
            return Err(Error::param(
                "corpus",
                format!(
                    "{}: no in-vocabulary words to train on",
                    corpus.path().display()
                ),
            ));
        }
        let vocab = corpus.vocab();
        let sampler = AliasSampler::new(&vocab.unigram_power(0.75))
            .ok_or_else(|| Error::param("corpus", "empty vocabulary"))?;
        let keep = vocab
            .keep_probabilities(settings.sample)
            .iter()
            .map(|&p| (p as f64 * 4_294_967_296.0).ceil() as u64)
            .collect();
        let threads = input.threads.max(1);
        log(format!(
            "{}: {} words in {} sentences, vocabulary {}, {} steps of ~{} words",
            match arch {
                Architecture::SkipGram => "sgns",
                Architecture::Cbow => "cbow",
            },
            plan.epoch_words(),
            plan.sentences(),
            vocab.len(),
            plan.total_steps(),
            step_words
        ));
        let n = vocab.len();
        let mut rng =
            Xoshiro256PlusPlus::seed_from_u64(stream_seed(input.seed, u64::MAX, u64::MAX));
        let d = settings.dim as f32;
        let init =
            Array2::from_shape_simple_fn((n, settings.dim), || (rng.random::<f32>() - 0.5) / d);
        Ok(Word2Vec {
            arch,
            settings,
            words: vocab.index().clone(),
            sentences,
            plan,
            input: SharedMatrix::from_array(init),
            output: SharedMatrix::zeros(n, settings.dim),
            sampler,
            keep,
            table: TableSigmoid::new(),
            schedule: Schedule::new(settings.lr, settings.min_lr),
            seed: input.seed,
            next_step: 0,
            scratch: (0..threads)
                .map(|_| Mutex::new(Scratch::new(settings.dim)))
                .collect(),
        })
    }

    /// Runs every chunk of step `step` on the rayon pool; returns the summed tally.
    fn run_step(&mut self, step: u64) -> Result<Tally> {
        let (epoch, chunks) = self.plan.step(step);
        let sentences = self.plan.chunk(chunks.start).start..self.plan.chunk(chunks.end - 1).end;
        let epoch_start = step.is_multiple_of(self.plan.steps_per_epoch().max(1));
        self.sentences.load(sentences, epoch_start)?;
        let (batch, first) = self.sentences.window();
        let job = StepJob {
            plan: &self.plan,
            batch,
            first,
            schedule: &self.schedule,
            scratch: &self.scratch,
            seed: self.seed,
            dim: self.settings.dim,
            epoch,
        };
        let (input, output) = (self.input.hogwild(), self.output.hogwild());
        macro_rules! model {
            ($sigmoid:expr) => {
                Model {
                    arch: self.arch,
                    input,
                    output,
                    sampler: &self.sampler,
                    keep: &self.keep,
                    window: self.settings.window,
                    negative: self.settings.negative,
                    sigmoid: $sigmoid,
                }
            };
        }
        Ok(if self.settings.table {
            job.run(&model!(&self.table), chunks)
        } else {
            job.run(&model!(&ExactSigmoid), chunks)
        })
    }
}

/// The read-only part of one step.
struct StepJob<'a> {
    plan: &'a Plan,
    /// The step's sentences: sentence `s` is `batch.sentence(s - first)`.
    batch: &'a Batch,
    first: usize,
    schedule: &'a Schedule,
    scratch: &'a [Mutex<Scratch>],
    seed: u64,
    dim: usize,
    epoch: u64,
}

impl StepJob<'_> {
    /// Trains the chunks in parallel (rayon balances them across the pool's
    /// threads); each chunk has its own learning rate and random stream.
    fn run<G: Sigmoid>(&self, model: &Model<'_, G>, chunks: Range<usize>) -> Tally {
        let tallies: Vec<Tally> = chunks
            .into_par_iter()
            .map(|c| {
                let lr = self.schedule.at(self.plan.progress(self.epoch, c)) as f32;
                let mut rng =
                    Xoshiro256PlusPlus::seed_from_u64(stream_seed(self.seed, self.epoch, c as u64));
                let sentences = self
                    .plan
                    .chunk(c)
                    .map(|s| self.batch.sentence(s - self.first));
                let slot = rayon::current_thread_index().unwrap_or(0) % self.scratch.len();
                match self.scratch[slot].try_lock() {
                    Ok(mut buffers) => train_chunk(model, sentences, lr, &mut rng, &mut buffers),
                    Err(_) => {
                        train_chunk(model, sentences, lr, &mut rng, &mut Scratch::new(self.dim))
                    }
                }
            })
            .collect();
        let mut total = Tally::default();
        tallies.into_iter().for_each(|t| total.add(t));
        total
    }
}

impl Trainer for Word2Vec {
    fn total_steps(&self) -> u64 {
        self.plan.total_steps()
    }

    fn step(&mut self, step: u64) -> Result<StepReport> {
        if step >= self.total_steps() {
            return Err(Error::param(
                "step",
                format!("{step} (the run has {} steps)", self.total_steps()),
            ));
        }
        let lr = self.schedule.at(self.plan.step_progress(step));
        let tally = self.run_step(step)?;
        self.next_step = step + 1;
        Ok(StepReport {
            loss: if tally.examples > 0 {
                tally.loss / tally.examples as f64
            } else {
                0.0
            },
            items: tally.words,
            epoch: self.plan.step(step).0 as u32,
            lr,
        })
    }

    fn set(&mut self, name: &str, value: &Value) -> Result<()> {
        match (name, value) {
            ("lr", Value::Float(x)) => {
                let p = self.plan.step_progress(self.next_step);
                self.schedule.set(*x, p);
                Ok(())
            }
            _ => Err(Error::param(name, "cannot be changed during a run")),
        }
    }

    fn scores(&self) -> Option<ScoreView<'_>> {
        Some(ScoreView {
            words: self.input.view(),
            contexts: self.output.view(),
        })
    }

    fn into_embedding(self: Box<Self>) -> Result<Embedding> {
        let this = *self;
        Embedding::new(this.words, this.input.into_array())?.with_context(this.output.into_array())
    }
}

/// A seed for the random stream of (`seed`, `a`, `b`): SplitMix64 finalisers
/// chained, so nearby inputs give unrelated streams.
pub fn stream_seed(seed: u64, a: u64, b: u64) -> u64 {
    let mix = |mut z: u64| {
        z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    mix(mix(mix(seed) ^ a) ^ b)
}
