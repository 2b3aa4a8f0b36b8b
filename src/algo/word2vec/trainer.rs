//! The [`Word2Vec`] trainer: state between steps, and one step as a parallel
//! pass over a slice of chunks.
//!
//! Two parallel schedules (`schedule`, [`crate::train::parallel`]):
//! - Hogwild: the step's chunks go to the pool's threads as they free up and
//!   every thread updates the shared tables without locks, as word2vec.c.
//! - Deterministic: the step is cut into rounds of one run of
//!   [`ROUND_CHUNKS`] chunks per *lane* (one lane per thread of the run);
//!   each lane trains on its own replica of the tables, equal to the tables
//!   at the round's start ([`crate::fast::replicas`]), and after the round
//!   the rows the lanes changed are merged in lane order. Lane `j` always
//!   gets the `j`-th run of a round, whichever thread runs it, so the
//!   vectors and losses depend on the seed, the settings and the number of
//!   lanes only. With one thread both are the serial loop, bit for bit.

use std::ops::Range;
use std::sync::Mutex;

use ndarray::Array2;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;

use super::alias::AliasSampler;
use super::sigmoid::{ExactSigmoid, Sigmoid, TableSigmoid};
use super::source::{self, Sentences, Stream};
use super::worker::{train_chunk, Architecture, Model, Scratch, Tally};
use super::Settings;
use crate::corpus::{Batch, Split};
use crate::embedding::Embedding;
use crate::fast::hogwild::SharedMatrix;
use crate::fast::replicas::{Replicas, Rows};
use crate::schema::Params;
use crate::train::parallel;
use crate::train::plan::{stream_seed, Plan, Schedule};
use crate::train::{ScoreView, StepReport, TrainInput, Trainer};
use crate::words::WordIndex;
use crate::{Error, Result};

/// Words per step for each worker thread (a step of 2 threads is ~200k words).
const STEP_WORDS_PER_THREAD: usize = 100_000;

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
    lanes: Option<Lanes>,
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
        let (syn0, syn1) = (
            SharedMatrix::from_array(init),
            SharedMatrix::zeros(n, settings.dim),
        );
        Ok(Word2Vec {
            arch,
            settings,
            words: vocab.index().clone(),
            sentences,
            plan,
            lanes: (settings.schedule == parallel::Schedule::Deterministic && threads > 1)
                .then(|| Lanes::new(threads, &syn0, &syn1)),
            input: syn0,
            output: syn1,
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
            seed: self.seed,
            epoch,
        };
        let tables = Tables {
            input: &mut self.input,
            output: &mut self.output,
            scratch: &self.scratch,
            lanes: self.lanes.as_mut(),
        };
        macro_rules! setup {
            ($sigmoid:expr) => {
                Setup {
                    arch: self.arch,
                    sampler: &self.sampler,
                    keep: &self.keep,
                    window: self.settings.window,
                    negative: self.settings.negative,
                    window_batch: self.settings.window_batch,
                    sigmoid: $sigmoid,
                }
            };
        }
        Ok(if self.settings.table {
            job.run(&setup!(&self.table), tables, chunks)
        } else {
            job.run(&setup!(&ExactSigmoid), tables, chunks)
        })
    }
}

/// Chunks each lane trains per round of the deterministic schedule: a round
/// is `lanes × ROUND_CHUNKS` consecutive chunks, after which the lanes' rows
/// are merged.
pub const ROUND_CHUNKS: usize = 1;

/// The deterministic schedule's workers: lane 0 trains on the tables, lane
/// `j` on its replicas of them ([`crate::fast::replicas`]).
struct Lanes {
    scratch: Vec<Scratch>,
    input: Replicas,
    output: Replicas,
}

impl Lanes {
    /// `lanes` workers for these tables.
    fn new(lanes: usize, input: &SharedMatrix, output: &SharedMatrix) -> Lanes {
        Lanes {
            scratch: (0..lanes).map(|_| Scratch::new(input.cols())).collect(),
            input: Replicas::new(input.as_slice(), input.cols(), lanes),
            output: Replicas::new(output.as_slice(), output.cols(), lanes),
        }
    }
}

/// The model's tables and the workers' buffers, lent to one step.
struct Tables<'a> {
    input: &'a mut SharedMatrix,
    output: &'a mut SharedMatrix,
    /// Hogwild: one scratch per pool thread.
    scratch: &'a [Mutex<Scratch>],
    /// Deterministic: one lane per thread of the run (none with one thread
    /// or under Hogwild).
    lanes: Option<&'a mut Lanes>,
}

/// The parts of a [`Model`] that are not its rows.
struct Setup<'a, G> {
    arch: Architecture,
    sampler: &'a AliasSampler,
    keep: &'a [u64],
    window: usize,
    negative: usize,
    window_batch: bool,
    sigmoid: &'a G,
}

impl<'a, G> Setup<'a, G> {
    fn model<R>(&self, input: R, output: R) -> Model<'a, G, R> {
        Model {
            arch: self.arch,
            input,
            output,
            sampler: self.sampler,
            keep: self.keep,
            window: self.window,
            negative: self.negative,
            window_batch: self.window_batch,
            sigmoid: self.sigmoid,
        }
    }
}

/// The read-only part of one step.
struct StepJob<'a> {
    plan: &'a Plan,
    /// The step's sentences: sentence `s` is `batch.sentence(s - first)`.
    batch: &'a Batch,
    first: usize,
    schedule: &'a Schedule,
    seed: u64,
    epoch: u64,
}

impl StepJob<'_> {
    /// Trains chunk `c` at its own learning rate with its own random stream.
    fn chunk<G: Sigmoid, R: Rows>(
        &self,
        model: &Model<'_, G, R>,
        c: usize,
        scratch: &mut Scratch,
    ) -> Tally {
        let lr = self.schedule.at(self.plan.progress(self.epoch, c)) as f32;
        let mut rng =
            Xoshiro256PlusPlus::seed_from_u64(stream_seed(self.seed, self.epoch, c as u64));
        let sentences = self
            .plan
            .chunk(c)
            .map(|s| self.batch.sentence(s - self.first));
        train_chunk(model, sentences, lr, &mut rng, scratch)
    }

    /// Trains the chunks, on the lanes when there are any, else Hogwild;
    /// returns the chunks' tallies summed in chunk order.
    fn run<G: Sigmoid>(
        &self,
        setup: &Setup<'_, G>,
        tables: Tables<'_>,
        chunks: Range<usize>,
    ) -> Tally {
        let Tables {
            input,
            output,
            scratch,
            lanes,
        } = tables;
        let tallies = match lanes {
            None => {
                let model = setup.model(input.hogwild(), output.hogwild());
                self.hogwild(&model, scratch, chunks)
            }
            Some(lanes) => self.rounds(setup, input, output, lanes, chunks),
        };
        let mut total = Tally::default();
        tallies.into_iter().for_each(|t| total.add(t));
        total
    }

    /// Hogwild: the chunks in parallel on shared rows (rayon balances them
    /// across the pool's threads).
    fn hogwild<G: Sigmoid>(
        &self,
        model: &Model<'_, G>,
        scratch: &[Mutex<Scratch>],
        chunks: Range<usize>,
    ) -> Vec<Tally> {
        chunks
            .into_par_iter()
            .map(|c| {
                let slot = rayon::current_thread_index().unwrap_or(0) % scratch.len();
                match scratch[slot].try_lock() {
                    Ok(mut buffers) => self.chunk(model, c, &mut buffers),
                    Err(_) => self.chunk(model, c, &mut Scratch::new(model.input.cols())),
                }
            })
            .collect()
    }

    /// The deterministic schedule: rounds of [`ROUND_CHUNKS`] consecutive
    /// chunks per lane, lane `j` taking the `j`-th run of the round, each on
    /// its own tables; their rows are merged in lane order after every round.
    fn rounds<G: Sigmoid>(
        &self,
        setup: &Setup<'_, G>,
        input: &mut SharedMatrix,
        output: &mut SharedMatrix,
        lanes: &mut Lanes,
        chunks: Range<usize>,
    ) -> Vec<Tally> {
        let per_round = lanes.scratch.len() * ROUND_CHUNKS;
        let mut tallies = Vec::with_capacity(chunks.len());
        let mut start = chunks.start;
        while start < chunks.end {
            let end = (start + per_round).min(chunks.end);
            let run = |j: usize| {
                let from = (start + j * ROUND_CHUNKS).min(end);
                from..(from + ROUND_CHUNKS).min(end)
            };
            let ins = lanes.input.handles(input.as_mut_slice());
            let outs = lanes.output.handles(output.as_mut_slice());
            let round: Vec<Vec<Tally>> = ins
                .into_par_iter()
                .zip(outs)
                .zip(lanes.scratch.par_iter_mut())
                .enumerate()
                .map(|(j, ((ins, outs), scratch))| {
                    let model = setup.model(ins, outs);
                    run(j).map(|c| self.chunk(&model, c, scratch)).collect()
                })
                .collect();
            tallies.extend(round.into_iter().flatten());
            lanes.input.merge(input.as_mut_slice());
            lanes.output.merge(output.as_mut_slice());
            start = end;
        }
        tallies
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

    fn set(&mut self, params: &Params) -> Result<()> {
        // `lr` is the one live value: set mid-run, it becomes the current rate.
        let lr = Settings::from_params(params).lr;
        let p = self.plan.step_progress(self.next_step);
        self.schedule.set(lr, p);
        Ok(())
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
