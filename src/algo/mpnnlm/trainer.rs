//! The MPNNLM [`Trainer`]: a step trains on a run of chunks of whole
//! sentences (each chunk with its own random stream), then measures the
//! held-out perplexity and lets the words whose rings filled grow
//! prototypes. With several threads the chunks run Hogwild across the pool
//! (`schedule = hogwild`) or one chunk per lane, in short rounds on replicas
//! of the tables (`schedule = deterministic`, [`super::lanes`]); with one
//! thread both are the same serial loop.

use std::cell::OnceCell;
use std::collections::BTreeMap;
use std::sync::Mutex;

use ndarray::Array2;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;

use super::baselines::Baselines;
use super::creation::{self, History, Outcome, Record};
use super::heldout::{self, Heldout};
use super::lanes::Lanes;
use super::model::{Draws, Layout, Math, Model, Net, Scratch};
use super::proposal::Proposal;
use super::{Rate, Settings};
use crate::corpus::{Batch, Split};
use crate::embedding::Embedding;
use crate::fast::lanes::{self as simd, widest, Kernel, Width};
use crate::fast::replicas::Rows;
use crate::schema::{Choice, Params};
use crate::train::parallel::Schedule;
use crate::train::phase::{self, Unit};
use crate::train::plan::{stream_seed, Plan};
use crate::train::{ScoreView, StepReport, TrainInput, Trainer};
use crate::words::WordIndex;
use crate::{Error, Result};

/// Name of the end token in logs.
pub const END: &str = "</s>";

/// What a run of sentences did.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Tally {
    /// Summed training cross-entropy (nats).
    pub loss: f64,
    /// Predictions made (words and end tokens).
    pub predictions: u64,
}

impl Tally {
    fn add(&mut self, o: Tally) {
        self.loss += o.loss;
        self.predictions += o.predictions;
    }
}

/// The live part of the settings a chunk reads.
#[derive(Debug, Clone, Copy)]
pub struct Rates {
    /// Learning rate.
    pub lr: f32,
    /// Momentum.
    pub momentum: f32,
    /// Other prototypes drawn for the denominator (0 = all).
    pub sample: usize,
    /// What the target word's prototypes learn from.
    pub target: Target,
    /// Whether a prototype drawn several times for the denominator is one
    /// entry.
    pub draws: Draws,
    /// Which `exp` and `tanh` the token calls.
    pub math: Math,
}

/// Which of the target word's prototypes a training token trains towards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// The prototype drawn from the posterior `r` (step 1) is taken as the
    /// correct one: it alone is pulled towards `p̂` and is the network's
    /// target; the word's other prototypes compete like other words' (the
    /// loss is `−ln(q_k* / Z)`).
    Drawn,
    /// Every prototype of the word, weighted by `r` (the exact gradient of
    /// the word's `−ln P(w_t)`); the prototype is drawn after the update.
    Posterior,
}

/// Trains on `sentences`, each from the start prototypes to its end token.
pub(super) fn train_sentences<'s, R: Rows>(
    net: &Net<'_, R>,
    rings: &mut impl Record,
    sentences: impl Iterator<Item = &'s [u32]>,
    end: u32,
    rates: Rates,
    rng: &mut impl RngExt,
    s: &mut Scratch,
) -> Tally {
    let mut tally = Tally::default();
    let mut window: Vec<u32> = Vec::with_capacity(net.shape.context);
    for sentence in sentences {
        window.clear();
        window.extend(net.layout.starts());
        for t in sentence.iter().copied().chain([end]) {
            let (loss, slot) = train_token(net, rings, &window, t, rates, rng, s);
            tally.loss += loss;
            tally.predictions += 1;
            window.rotate_left(1);
            *window.last_mut().unwrap() = slot;
        }
    }
    tally
}

/// A lane's place in its chunk under the deterministic schedule, which
/// trains a chunk in slices of [`ROUND_TOKENS`] predictions: the sentence
/// and token it is at, the input window and the chunk's random stream. A
/// chunk trained slice after slice makes the same calls in the same order
/// as `train_sentences` on it.
pub struct Cursor {
    sentences: std::ops::Range<usize>,
    end: u32,
    token: usize,
    window: Vec<u32>,
    rng: Xoshiro256PlusPlus,
}

impl Cursor {
    /// At the start of `sentences` (a chunk) with the chunk's random
    /// stream; `end` is the end token each sentence ends by predicting.
    pub fn new(sentences: std::ops::Range<usize>, end: u32, rng: Xoshiro256PlusPlus) -> Cursor {
        Cursor {
            sentences,
            end,
            token: 0,
            window: Vec::new(),
            rng,
        }
    }

    /// True once every sentence of the chunk is trained.
    pub fn done(&self) -> bool {
        self.sentences.is_empty()
    }

    /// Trains the chunk's next `budget` predictions (fewer at its end).
    pub fn train<R: Rows>(
        &mut self,
        net: &Net<'_, R>,
        rings: &mut impl Record,
        batch: &Batch,
        rates: Rates,
        budget: usize,
        s: &mut Scratch,
    ) -> Tally {
        let mut tally = Tally::default();
        while tally.predictions < budget as u64 && !self.done() {
            let sentence = batch.sentence(self.sentences.start);
            if self.token == 0 {
                self.window.clear();
                self.window.extend(net.layout.starts());
            }
            let t = sentence.get(self.token).copied().unwrap_or(self.end);
            let (loss, slot) = train_token(net, rings, &self.window, t, rates, &mut self.rng, s);
            tally.loss += loss;
            tally.predictions += 1;
            self.window.rotate_left(1);
            *self.window.last_mut().unwrap() = slot;
            if self.token == sentence.len() {
                self.sentences.start += 1;
                self.token = 0;
            } else {
                self.token += 1;
            }
        }
        tally
    }
}

/// Predictions each lane makes per round of the deterministic schedule:
/// short enough that the lanes' summed changes to the network, which every
/// token writes, stay the small steps Hogwild would sum (a whole chunk of
/// ~20,000 tokens per lane and round let the two copies drift apart and
/// their summed changes diverge on text8-head).
pub const ROUND_TOKENS: usize = 1000;

/// One training token: forward, the distance softmax, the four
/// backpropagation steps; returns the word's loss (with the estimated
/// denominator) and the target's prototype drawn for the next input.
///
/// The token's arithmetic is compiled for the widest instruction set the
/// CPU has ([`widest`]) only so that its element-wise loops run on wider
/// registers: it is written without fused multiply-adds or reordered sums,
/// so every instruction set gives the same bits.
pub fn train_token<R: Rows>(
    net: &Net<'_, R>,
    rings: &mut impl Record,
    window: &[u32],
    t: u32,
    rates: Rates,
    rng: &mut impl RngExt,
    s: &mut Scratch,
) -> (f64, u32) {
    let token = Token {
        net,
        rings,
        window,
        t,
        rates,
        rng,
        s,
    };
    widest(Width::Avx512, token)
}

/// One call of [`train_token`], compiled per instruction set by [`widest`].
struct Token<'m, 'a, R, C, G> {
    net: &'m Net<'a, R>,
    rings: &'m mut C,
    window: &'m [u32],
    t: u32,
    rates: Rates,
    rng: &'m mut G,
    s: &'m mut Scratch,
}

impl<R: Rows, C: Record, G: RngExt> Kernel for Token<'_, '_, R, C, G> {
    type Output = (f64, u32);

    #[inline(always)]
    fn run<L: simd::Lanes>(self, _: L) -> (f64, u32) {
        let Token {
            net,
            rings,
            window,
            t,
            rates,
            rng,
            s,
        } = self;
        net.forward_with(window, rates.math, s);
        if net.full_context(window) {
            rings.record(t, &s.p);
        }
        net.entries(t, rates.sample, rates.draws, rng, s);
        // Distinct slots take their steps as their terms are summed.
        let fused = rates.draws == Draws::Merged;
        let (loss, slot) = match rates.target {
            Target::Posterior => {
                let loss = gradient(net, fused, rates, s);
                (loss, draw(net, t, rng, s))
            }
            Target::Drawn => {
                let own = net.layout.of(t);
                let (slot, ln_r) = if own.len() > 1 {
                    net.target_posterior(s);
                    let k = pick(rng.random::<f64>(), &s.posterior);
                    net.keep_target(k, s);
                    (own.start + k as u32, s.posterior[k].ln())
                } else {
                    (own.start, 0.0)
                };
                net.select(slot);
                // The word's loss is the drawn prototype's plus ln r_k*.
                (gradient(net, fused, rates, s) + ln_r, slot)
            }
        };
        net.backprop(s);
        net.apply(window, rates.lr, rates.momentum, fused, s);
        (loss, slot)
    }
}

/// [`Net::gradient`], or with `fused` [`Net::gradient_and_step`]. A
/// function, not a closure: a closure is compiled apart from the token,
/// without its instruction set.
#[inline(always)]
fn gradient<R: Rows>(net: &Net<'_, R>, fused: bool, rates: Rates, s: &mut Scratch) -> f64 {
    if fused {
        net.gradient_and_step(rates.lr, rates.momentum, rates.math, s)
    } else {
        net.gradient_with(rates.math, s)
    }
}

/// The index `k` with `Σ_{j<k} r_j ≤ u < Σ_{j≤k} r_j` (the last when
/// rounding leaves `u` past the sum).
#[inline(always)]
fn pick(mut u: f64, r: &[f64]) -> usize {
    for (k, &x) in r.iter().enumerate() {
        if u < x {
            return k;
        }
        u -= x;
    }
    r.len() - 1
}

/// Draws the target's prototype from its posterior `r` (computed before the
/// update, eq. 33) and counts the selection.
#[inline(always)]
fn draw<R: Rows>(net: &Net<'_, R>, t: u32, rng: &mut impl RngExt, s: &Scratch) -> u32 {
    let own = net.layout.of(t);
    let mut slot = own.start;
    if own.len() > 1 {
        slot += pick(rng.random::<f64>(), &s.posterior) as u32;
    }
    net.select(slot);
    slot
}

/// An MPNNLM run in progress.
pub struct MpnnlmTrainer {
    settings: Settings,
    words: WordIndex,
    vocab_len: usize,
    batch: Batch,
    heldout: Heldout,
    plan: Plan,
    model: Model,
    history: History,
    /// The learning rate's halvings so far (`lr_decay`).
    rate: Rate,
    seed: u64,
    scratch: Vec<Mutex<Scratch>>,
    model_perplexity: Option<f64>,
    /// N-gram perplexities on the same held-out predictions.
    baselines: Option<Baselines>,
    note: Option<String>,
    /// Prototypes created per word.
    gained: BTreeMap<u32, usize>,
    scores: OnceCell<Array2<f32>>,
}

impl MpnnlmTrainer {
    /// Encodes both splits and initialises the model.
    pub fn new(input: &TrainInput, log: &mut dyn FnMut(String)) -> Result<Self> {
        let settings = Settings::from_params(&input.params);
        let corpus = &input.corpus;
        let encoding = phase::begin("encoding the corpus", 0, Unit::Count);
        let batch = corpus.encode(Split::Train)?;
        if batch.ids.is_empty() {
            return Err(Error::param(
                "corpus",
                format!(
                    "{}: no in-vocabulary words to train on",
                    corpus.path().display()
                ),
            ));
        }
        let heldout = Heldout::prefix(&corpus.encode(Split::Heldout)?, settings.heldout_tokens);
        drop(encoding);
        let vocab = corpus.vocab();
        let mut caps: Vec<u8> = vocab
            .counts()
            .iter()
            .map(|&n| if settings.multi { prototype_cap(n) } else { 1 })
            .collect();
        caps.push(1); // the end token
        let mut trainer = MpnnlmTrainer::with_model(
            settings,
            vocab.index().clone(),
            batch,
            heldout,
            Layout::new(&caps, settings.shape.context),
            input.seed,
            input.threads,
        )?;
        log(format!(
            "mpnnlm: {} tokens in {} sentences, vocabulary {} + {END}, {} steps of ~{} tokens; prototypes: {} (room for {})",
            trainer.batch.ids.len(),
            trainer.batch.sentences_len(),
            vocab.len(),
            trainer.plan.total_steps(),
            settings.step_tokens,
            trainer.model.layout.active().len(),
            trainer.model.layout.slots() - settings.shape.context,
        ));
        match trainer.model_perplexity {
            Some(p) => log(format!(
                "mpnnlm: model perplexity on {} held-out predictions (full normaliser); at the start {p:.1}",
                trainer.heldout.predictions()
            )),
            None => log("mpnnlm: no held-out tokens: no model perplexity".into()),
        }
        if let Some(power) = settings.proposal {
            let mut counts = vocab.counts().to_vec();
            counts.push(trainer.batch.sentences_len() as u64);
            trainer.model.proposal = Proposal::new(&counts, power);
        }
        let counting = phase::begin("n-gram baselines", 0, Unit::Count);
        trainer.baselines = Baselines::measure(&trainer.batch, vocab.len(), &trainer.heldout);
        drop(counting);
        if let Some(b) = &trainer.baselines {
            log(format!(
                "mpnnlm: baselines on the same held-out predictions: {}",
                b.line()
            ));
        }
        Ok(trainer)
    }

    /// A trainer over `batch` with the prototype `layout` (its words are the
    /// vocabulary `words` and then the end token). Without the corpus counts
    /// it has no proposal and no baselines: the sampled denominator draws
    /// uniformly ([`MpnnlmTrainer::new`] sets both from the corpus).
    pub fn with_model(
        settings: Settings,
        words: WordIndex,
        batch: Batch,
        heldout: Heldout,
        layout: Layout,
        seed: u64,
        threads: usize,
    ) -> Result<Self> {
        if layout.words() != words.len() + 1 {
            return Err(Error::param(
                "layout",
                format!(
                    "{} words for a vocabulary of {}",
                    layout.words(),
                    words.len()
                ),
            ));
        }
        let shape = settings.shape;
        let model = Model::init(shape, layout, stream_seed(seed, u64::MAX, u64::MAX));
        let history = History::new(
            model.layout.words(),
            |w| model.layout.cap(w) > 1,
            settings.history,
            shape.dim,
        );
        let plan = Plan::new(
            batch.sentences().map(|s| s.len() + 1),
            settings.epochs,
            settings.step_tokens,
        );
        let mut t = MpnnlmTrainer {
            settings,
            vocab_len: words.len(),
            words,
            batch,
            heldout,
            plan,
            model,
            history,
            seed,
            scratch: (0..threads.max(1))
                .map(|_| Mutex::new(Scratch::new(shape)))
                .collect(),
            model_perplexity: None,
            baselines: None,
            note: None,
            gained: BTreeMap::new(),
            rate: Rate::default(),
            scores: OnceCell::new(),
        };
        t.model_perplexity = t.measure();
        Ok(t)
    }

    /// The model.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The model, to score with it between steps ([`Model::net`] needs it
    /// mutable).
    pub fn model_mut(&mut self) -> &mut Model {
        &mut self.model
    }

    /// Held-out perplexity (full normaliser), `None` without held-out text.
    pub fn measure(&mut self) -> Option<f64> {
        let end = self.end();
        let net = self.model.net();
        let (ll, n) = heldout::log_likelihood(&net, &self.heldout, end);
        (n > 0).then(|| (-ll / n as f64).exp())
    }

    fn end(&self) -> u32 {
        self.vocab_len as u32
    }

    /// Trains the chunks of step `step`: Hogwild, or in deterministic
    /// rounds when the run has several threads and that schedule.
    fn run_step(&mut self, step: u64) -> Tally {
        let (epoch, chunks) = self.plan.step(step);
        let work = phase::begin("training chunk", chunks.len() as u64, Unit::Count);
        let lanes = self.scratch.len();
        let tallies = if self.settings.schedule == Schedule::Deterministic && lanes > 1 {
            self.rounds(epoch, chunks, &work)
        } else {
            self.hogwild(epoch, chunks, &work)
        };
        let mut total = Tally::default();
        tallies.into_iter().for_each(|t| total.add(t));
        total
    }

    /// The live rates of the next step.
    fn rates(&self) -> Rates {
        Rates {
            lr: self.rate.lr(self.settings.lr) as f32,
            momentum: self.settings.momentum as f32,
            sample: self.settings.sample,
            target: self.settings.target,
            draws: self.settings.draws,
            math: self.settings.math,
        }
    }

    /// The chunks in parallel on the shared tables (rayon balances them
    /// across the pool's threads); with one thread, the serial loop.
    fn hogwild(
        &mut self,
        epoch: u64,
        chunks: std::ops::Range<usize>,
        work: &phase::Tracker,
    ) -> Vec<Tally> {
        let (rates, end) = (self.rates(), self.end());
        let (plan, batch, scratch, seed) = (&self.plan, &self.batch, &self.scratch, self.seed);
        let net = self.model.net();
        let rings = self.history.rings();
        chunks
            .into_par_iter()
            .map(|c| {
                // A stop sent during the step skips the chunks not begun.
                if work.cut() {
                    return Tally::default();
                }
                let _done = Done(work);
                let mut rng = Xoshiro256PlusPlus::seed_from_u64(stream_seed(seed, epoch, c as u64));
                let sentences = plan.chunk(c).map(|i| batch.sentence(i));
                let mut rings = rings;
                let slot = rayon::current_thread_index().unwrap_or(0) % scratch.len();
                match scratch[slot].try_lock() {
                    Ok(mut s) => {
                        train_sentences(&net, &mut rings, sentences, end, rates, &mut rng, &mut s)
                    }
                    Err(_) => {
                        let mut s = Scratch::new(net.shape);
                        train_sentences(&net, &mut rings, sentences, end, rates, &mut rng, &mut s)
                    }
                }
            })
            .collect()
    }

    /// The deterministic schedule ([`super::lanes`]): the chunks in groups
    /// of one per lane, lane `j` taking the group's `j`-th chunk and
    /// training it in rounds of [`ROUND_TOKENS`] predictions. A stop is
    /// checked before each group, so a step is cut after whole chunks and
    /// the count of chunks done (which a replay cuts at) is exact.
    fn rounds(
        &mut self,
        epoch: u64,
        chunks: std::ops::Range<usize>,
        work: &phase::Tracker,
    ) -> Vec<Tally> {
        let (rates, end, seed) = (self.rates(), self.end(), self.seed);
        let mut lanes = Lanes::new(&mut self.model, self.scratch.len());
        let (plan, batch) = (&self.plan, &self.batch);
        let rings = self.history.rings();
        let mut tallies = Vec::new();
        let mut start = chunks.start;
        while start < chunks.end && !work.cut() {
            let last = (start + lanes.lanes()).min(chunks.end);
            let mut cursors: Vec<Cursor> = (0..lanes.lanes())
                .map(|j| {
                    let c = (start + j).min(last);
                    let sentences = if c < last { plan.chunk(c) } else { 0..0 };
                    let rng = Xoshiro256PlusPlus::seed_from_u64(stream_seed(seed, epoch, c as u64));
                    Cursor::new(sentences, end, rng)
                })
                .collect();
            while !cursors.iter().all(Cursor::done) {
                let round = lanes.round(
                    &mut self.model,
                    &rings,
                    &mut cursors,
                    |net, pending, s, cursor| {
                        if cursor.done() {
                            return None;
                        }
                        let t = cursor.train(net, pending, batch, rates, ROUND_TOKENS, s);
                        if cursor.done() {
                            work.add(1);
                        }
                        Some(t)
                    },
                );
                tallies.extend(round.into_iter().flatten());
            }
            start = last;
        }
        tallies
    }

    /// Lets every word whose ring filled since its last check grow; returns
    /// the words that did.
    fn grow(&mut self) -> Vec<u32> {
        if !self.settings.multi {
            return Vec::new();
        }
        let mut grown = Vec::new();
        let words: Vec<u32> = self.history.words().to_vec();
        for w in words {
            if !self.history.fresh(w) {
                continue;
            }
            let outcome = creation::consider(
                &mut self.model,
                &self.history,
                w,
                self.model_perplexity,
                &self.settings.criteria,
            );
            self.history.checked(w);
            if let Outcome::Created(_) = outcome {
                *self.gained.entry(w).or_default() += 1;
                grown.push(w);
            }
        }
        grown
    }

    fn word_name(&self, w: u32) -> &str {
        if w as usize == self.vocab_len {
            END
        } else {
            self.words.word(w)
        }
    }

    /// The words that gained prototypes, most first (at most `limit`).
    pub fn gained_summary(&self, limit: usize) -> String {
        let mut list: Vec<(u32, usize)> = self.gained.iter().map(|(&w, &n)| (w, n)).collect();
        list.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let shown: Vec<String> = list
            .iter()
            .take(limit)
            .map(|&(w, n)| format!("{} (+{n})", self.word_name(w)))
            .collect();
        let more = list.len().saturating_sub(limit);
        let mut s = shown.join(", ");
        if more > 0 {
            s.push_str(&format!(", and {more} more"));
        }
        s
    }

    /// The n-gram perplexities of the held-out predictions (`None` without
    /// held-out text, or when built by [`MpnnlmTrainer::with_model`]).
    pub fn baselines(&self) -> Option<Baselines> {
        self.baselines
    }

    /// Words that gained prototypes, with how many.
    pub fn gained(&self) -> &BTreeMap<u32, usize> {
        &self.gained
    }
}

/// Counts one unit of `work` when dropped (at the end of a chunk).
struct Done<'a>(&'a phase::Tracker);

impl Drop for Done<'_> {
    fn drop(&mut self) {
        self.0.add(1);
    }
}

/// `max(1, ⌊log₁₀ n⌋)` (criterion 3), at most 255.
pub fn prototype_cap(n: u64) -> u8 {
    let mut cap = 0u8;
    let mut x = n;
    while x >= 10 && cap < 255 {
        x /= 10;
        cap += 1;
    }
    cap.max(1)
}

impl Trainer for MpnnlmTrainer {
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
        let tally = self.run_step(step);
        let lr = self.rate.lr(self.settings.lr);
        self.model_perplexity = self.measure();
        let epoch = self.plan.step(step).0;
        let halvings = self.rate.halvings();
        if step + 1 == self.total_steps() || self.plan.step(step + 1).0 != epoch {
            self.rate
                .end_epoch(self.settings.lr_decay, self.model_perplexity);
        }
        let halved = self.rate.halvings() > halvings;
        let grown = self.grow();
        self.scores = OnceCell::new();
        let protos = self.model.layout.active().len();
        let mut note = format!(
            "mpnnlm: step {}: {protos} prototypes (+{}), held-out ppl {}",
            step + 1,
            grown.len(),
            self.model_perplexity
                .map_or("-".to_string(), |p| format!("{p:.1}"))
        );
        if halved {
            note.push_str(&format!(
                "; lr {:.3e} from the next epoch ({})",
                self.rate.lr(self.settings.lr),
                self.settings.lr_decay.name()
            ));
        }
        if !grown.is_empty() {
            let names: Vec<&str> = grown.iter().take(8).map(|&w| self.word_name(w)).collect();
            note.push_str(&format!(
                "; new: {}{}",
                names.join(", "),
                if grown.len() > 8 { ", ..." } else { "" }
            ));
        }
        if step + 1 == self.total_steps() {
            if let Some(b) = &self.baselines {
                note.push_str(&format!(" (baselines: {})", b.line()));
            }
            note.push_str(&format!(
                "; words that gained prototypes: {}",
                if self.gained.is_empty() {
                    "none".to_string()
                } else {
                    self.gained_summary(30)
                }
            ));
        }
        self.note = Some(note);
        Ok(StepReport {
            loss: if tally.predictions > 0 {
                tally.loss / tally.predictions as f64
            } else {
                0.0
            },
            items: tally.predictions,
            epoch: epoch as u32,
            lr,
        })
    }

    fn set(&mut self, params: &Params) -> Result<()> {
        let live = Settings::from_params(params);
        let s = &mut self.settings;
        (s.lr, s.momentum, s.sample, s.target) = (live.lr, live.momentum, live.sample, live.target);
        s.draws = live.draws;
        s.math = live.math;
        s.criteria = live.criteria;
        Ok(())
    }

    fn take_note(&mut self) -> Option<String> {
        self.note.take()
    }

    fn model_perplexity(&self) -> Option<f64> {
        self.model_perplexity
    }

    /// Each word's first prototype, as both word and context vectors.
    fn scores(&self) -> Option<ScoreView<'_>> {
        let m = self.scores.get_or_init(|| {
            let d = self.model.shape.dim;
            let mut out = Array2::<f32>::zeros((self.vocab_len, d));
            for (w, mut row) in out.rows_mut().into_iter().enumerate() {
                let slot = self.model.layout.of(w as u32).start;
                row.iter_mut()
                    .zip(self.model.proto(slot))
                    .for_each(|(o, &x)| *o = x);
            }
            out
        });
        Some(ScoreView {
            words: m.view(),
            contexts: m.view(),
        })
    }

    /// Every prototype of every word: the first under the word's name, the
    /// `k`-th (k ≥ 2) as `word#k`. The end and start tokens are left out.
    fn into_embedding(self: Box<Self>) -> Result<Embedding> {
        let (names, vectors) = export(&self.model, &self.words);
        Embedding::new(WordIndex::from_words(names), vectors)
    }
}

/// Names and vectors of every prototype of the vocabulary's words.
pub fn export(model: &Model, words: &WordIndex) -> (Vec<String>, Array2<f32>) {
    let d = model.shape.dim;
    let mut names = Vec::new();
    let mut data = Vec::new();
    for w in 0..words.len() as u32 {
        for (k, slot) in model.layout.of(w).enumerate() {
            names.push(if k == 0 {
                words.word(w).to_string()
            } else {
                format!("{}#{}", words.word(w), k + 1)
            });
            data.extend_from_slice(model.proto(slot));
        }
    }
    let n = names.len();
    (
        names,
        Array2::from_shape_vec((n, d), data).expect("one row per prototype"),
    )
}
