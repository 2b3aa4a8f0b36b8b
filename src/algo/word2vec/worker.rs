//! The hot loop: one worker thread trains on one chunk of sentences.
//!
//! Per sentence, as word2vec.c and gensim do: frequent words are dropped by
//! subsampling first (so windows reach over them), then for each centre word a
//! reduced window `b` is drawn uniformly in `[0, window)` and the effective
//! window is `window - b` on each side. SGNS trains every (context, centre)
//! pair with the context word's input vector predicting the centre word's
//! output vector (word2vec.c's direction); CBOW trains the mean of the context
//! input vectors predicting the centre, and adds the input error to every
//! context word unscaled (word2vec.c, gensim `cbow_mean=1`).
//!
//! With `batch=window`, SGNS's contexts of one centre share one draw of
//! negatives, and the window is one small dense product (Ji et al. 2016,
//! pWord2Vec): the `m` context rows and the `1 + k` target rows are copied
//! out, the `m × (1 + k)` scores and gradients are computed from those
//! copies, and only then is each row written, once ([`window_gradient`]).
//! Each target row is loaded once per window instead of once per pair, and
//! a window draws `k` negatives instead of `m·k`. CBOW has one example per
//! centre, so its `batch=window` shares nothing: the centre's `1 + k`
//! targets are drawn one centre ahead (rows prefetched at the draw) and all
//! scored before any is stepped, where word2vec.c's order (`batch=example`)
//! draws them just before use and scores, steps, then scores the next.
//!
//! Nothing is allocated per word: the subsampled sentence and the `neu1` /
//! `neu1e` vectors live in a per-thread [`Scratch`]. The loop is compiled
//! for the baseline instruction set, for AVX2+FMA and for AVX-512F (the
//! latter used for SGNS's `batch=window` only), and the widest the CPU
//! supports is chosen at run time.

use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;

use super::alias::AliasSampler;
use super::kernel::{ns_update_row, ns_update_rows, window_gradient, Lanes};
use super::sigmoid::Sigmoid;
use crate::fast::hogwild::Hogwild;
use crate::fast::lanes::{widest, Kernel, Width};
use crate::fast::replicas::Rows;

/// SGNS or CBOW.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Architecture {
    /// Skip-gram with negative sampling: each context word predicts the centre.
    SkipGram,
    /// Continuous bag of words: the mean of the context predicts the centre.
    Cbow,
}

/// Everything a worker reads (and, through the row handles, writes): the
/// shared tables ([`Hogwild`]) or one lane's views of them
/// ([`crate::fast::replicas::Tracked`]).
pub struct Model<'a, G, R = Hogwild<'a>> {
    /// SGNS or CBOW.
    pub arch: Architecture,
    /// Input (word) vectors, `syn0` in word2vec.c.
    pub input: R,
    /// Output (context) vectors, `syn1neg`.
    pub output: R,
    /// Negative-sampling distribution.
    pub sampler: &'a AliasSampler,
    /// Per word, keep an occurrence when 32 random bits fall below this
    /// (`2^32` = always keep).
    pub keep: &'a [u64],
    /// Maximal window (words on each side).
    pub window: usize,
    /// Negatives per example.
    pub negative: usize,
    /// `batch=window`: SGNS's one update per window with shared negatives,
    /// CBOW's targets drawn ahead and scored in one pass.
    pub window_batch: bool,
    /// σ by table or exactly.
    pub sigmoid: &'a G,
}

/// Per-thread buffers, reused across chunks.
#[derive(Debug, Clone, Default)]
pub struct Scratch {
    sentence: Vec<u32>,
    targets: Vec<u32>,
    neu1: Vec<f32>,
    neu1e: Vec<f32>,
    /// `batch=window`: the next centre's targets, the window's context
    /// words, their rows and the target rows (SGNS), and the gradient
    /// coefficients (and their transpose, SGNS).
    next_targets: Vec<u32>,
    contexts: Vec<u32>,
    ctx_rows: Vec<f32>,
    target_rows: Vec<f32>,
    g: Vec<f32>,
    gt: Vec<f32>,
}

impl Scratch {
    /// Buffers for vectors of dimension `dim`.
    pub fn new(dim: usize) -> Self {
        Scratch {
            sentence: Vec::with_capacity(10_000),
            targets: Vec::with_capacity(64),
            neu1: vec![0.0; dim],
            neu1e: vec![0.0; dim],
            ..Scratch::default()
        }
    }
}

/// What a chunk did.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Tally {
    /// Sum of the examples' negative-sampling losses.
    pub loss: f64,
    /// Examples: (context, centre) pairs for SGNS, centre words for CBOW.
    pub examples: u64,
    /// Words read (in-vocabulary, before subsampling).
    pub words: u64,
}

impl Tally {
    /// Adds another tally.
    pub fn add(&mut self, other: Tally) {
        self.loss += other.loss;
        self.examples += other.examples;
        self.words += other.words;
    }
}

/// Trains on `sentences` at learning rate `lr`.
pub fn train_chunk<'s, G: Sigmoid, R: Rows>(
    model: &Model<'_, G, R>,
    sentences: impl Iterator<Item = &'s [u32]>,
    lr: f32,
    rng: &mut Xoshiro256PlusPlus,
    scratch: &mut Scratch,
) -> Tally {
    // AVX-512 only where it was measured faster: SGNS's window products
    // (about 7% less CPU time on text8-head), not the pair loop's dot/axpy
    // (no gain) nor CBOW's rows (5-10% more CPU time than AVX2).
    let limit = if model.window_batch && model.arch == Architecture::SkipGram {
        Width::Avx512
    } else {
        Width::Avx2
    };
    let chunk = Chunk {
        model,
        sentences,
        lr,
        rng,
        scratch,
    };
    widest(limit, chunk)
}

/// One call of [`train_chunk`], compiled per instruction set by [`widest`].
struct Chunk<'m, 'a, G, R, I> {
    model: &'m Model<'a, G, R>,
    sentences: I,
    lr: f32,
    rng: &'m mut Xoshiro256PlusPlus,
    scratch: &'m mut Scratch,
}

impl<'s, G: Sigmoid, R: Rows, I: Iterator<Item = &'s [u32]>> Kernel for Chunk<'_, '_, G, R, I> {
    type Output = Tally;

    #[inline(always)]
    fn run<L: Lanes>(self, lanes: L) -> Tally {
        train_chunk_inline(
            lanes,
            self.model,
            self.sentences,
            self.lr,
            self.rng,
            self.scratch,
        )
    }
}

#[inline(always)]
fn train_chunk_inline<'s, L: Lanes, G: Sigmoid, R: Rows>(
    lanes: L,
    model: &Model<'_, G, R>,
    sentences: impl Iterator<Item = &'s [u32]>,
    lr: f32,
    rng: &mut Xoshiro256PlusPlus,
    scratch: &mut Scratch,
) -> Tally {
    let mut tally = Tally::default();
    for sentence in sentences {
        tally.words += sentence.len() as u64;
        subsample(sentence, model.keep, rng, &mut scratch.sentence);
        let t = match model.arch {
            Architecture::SkipGram if model.window_batch => {
                sgns_window_sentence(lanes, model, lr, rng, scratch)
            }
            Architecture::SkipGram => sgns_sentence(lanes, model, lr, rng, scratch),
            Architecture::Cbow if model.window_batch => {
                cbow_window_sentence(lanes, model, lr, rng, scratch)
            }
            Architecture::Cbow => cbow_sentence(lanes, model, lr, rng, scratch),
        };
        tally.loss += t.loss;
        tally.examples += t.examples;
    }
    tally
}

/// Copies the kept words of `sentence` into `out`.
#[inline(always)]
fn subsample(sentence: &[u32], keep: &[u64], rng: &mut Xoshiro256PlusPlus, out: &mut Vec<u32>) {
    out.clear();
    for &w in sentence {
        let k = keep[w as usize];
        if k > u32::MAX as u64 || (rng.next_u64() >> 32) < k {
            out.push(w);
        }
    }
}

/// The effective window of one centre word: `window - b`, `b` uniform in `[0, window)`.
#[inline(always)]
fn reach(window: usize, rng: &mut Xoshiro256PlusPlus) -> usize {
    let b = ((rng.next_u64() >> 32) * window as u64) >> 32;
    window - b as usize
}

/// One example against the centre word and `negative` draws (a draw equal to
/// the centre is skipped, as in word2vec.c). Accumulates into `neu1e`.
///
/// The negatives are drawn first and their rows prefetched, so that the
/// (mostly cache-missing) loads of the random rows overlap instead of
/// stalling one after the other.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn example<L: Lanes, G: Sigmoid, R: Rows>(
    lanes: L,
    model: &Model<'_, G, R>,
    h: &[f32],
    centre: u32,
    lr: f32,
    rng: &mut Xoshiro256PlusPlus,
    targets: &mut Vec<u32>,
    neu1e: &mut [f32],
) -> f32 {
    targets.clear();
    for _ in 0..model.negative {
        let target = model.sampler.sample(rng.next_u64());
        if target != centre {
            model.output.prefetch(target as usize);
            targets.push(target);
        }
    }
    let (output, sigmoid) = (&model.output, model.sigmoid);
    let mut loss = ns_update_row(lanes, output, centre as usize, h, 1.0, lr, sigmoid, neu1e);
    for &target in targets.iter() {
        loss += ns_update_row(lanes, output, target as usize, h, 0.0, lr, sigmoid, neu1e);
    }
    loss
}

/// Prefetches the rows the next centre word will need first: its output row
/// and the input row of the word entering the window.
#[inline(always)]
fn prefetch_ahead<G, R: Rows>(model: &Model<'_, G, R>, sen: &[u32], i: usize) {
    if let Some(&next) = sen.get(i + 1) {
        model.output.prefetch(next as usize);
    }
    if let Some(&entering) = sen.get(i + 1 + model.window) {
        model.input.prefetch(entering as usize);
    }
}

#[inline(always)]
fn sgns_sentence<L: Lanes, G: Sigmoid, R: Rows>(
    lanes: L,
    model: &Model<'_, G, R>,
    lr: f32,
    rng: &mut Xoshiro256PlusPlus,
    scratch: &mut Scratch,
) -> Tally {
    let (sen, targets) = (&scratch.sentence, &mut scratch.targets);
    // `h` is a copy of the context's input row: the same values the row
    // holds during the example (only output rows change meanwhile).
    let (h, neu1e) = (&mut scratch.neu1[..], &mut scratch.neu1e[..]);
    let mut tally = Tally::default();
    for (i, &centre) in sen.iter().enumerate() {
        prefetch_ahead(model, sen, i);
        let r = reach(model.window, rng);
        let (lo, hi) = (i.saturating_sub(r), (i + r + 1).min(sen.len()));
        for (j, &context) in sen.iter().enumerate().take(hi).skip(lo) {
            if j == i {
                continue;
            }
            model.input.read_row(context as usize, h);
            neu1e.fill(0.0);
            tally.loss += example(lanes, model, h, centre, lr, rng, targets, neu1e) as f64;
            model.input.add_to_row(lanes, context as usize, 1.0, neu1e);
            tally.examples += 1;
        }
    }
    tally
}

/// Copies rows `ids` of `rows` one after the other into `buf`.
#[inline(always)]
fn gather<R: Rows>(rows: &R, ids: &[u32], d: usize, buf: &mut Vec<f32>) {
    buf.resize(ids.len() * d, 0.0);
    for (dst, &id) in buf.chunks_exact_mut(d).zip(ids) {
        rows.read_row(id as usize, dst);
    }
}

/// SGNS with `batch=window`: per centre, its contexts against the centre and
/// one shared draw of negatives, as one small dense product.
#[inline(always)]
fn sgns_window_sentence<L: Lanes, G: Sigmoid, R: Rows>(
    lanes: L,
    model: &Model<'_, G, R>,
    lr: f32,
    rng: &mut Xoshiro256PlusPlus,
    scratch: &mut Scratch,
) -> Tally {
    let Scratch {
        sentence: sen,
        targets,
        next_targets,
        contexts,
        ctx_rows,
        target_rows,
        g,
        gt,
        neu1,
        ..
    } = scratch;
    let d = neu1.len();
    let mut tally = Tally::default();
    // A centre's negatives are drawn one centre ahead, so that their rows,
    // prefetched at the draw, are in cache when the window copies them.
    if let Some(&first) = sen.first() {
        draw_targets(model, first, rng, targets);
    }
    for i in 0..sen.len() {
        prefetch_ahead(model, sen, i);
        let r = reach(model.window, rng);
        let (lo, hi) = (i.saturating_sub(r), (i + r + 1).min(sen.len()));
        if let Some(&next) = sen.get(i + 1) {
            draw_targets(model, next, rng, next_targets);
        }
        if hi - lo > 1 {
            contexts.clear();
            contexts.extend(sen[lo..i].iter().chain(&sen[i + 1..hi]));
            gather(&model.input, contexts, d, ctx_rows);
            gather(&model.output, targets, d, target_rows);
            let loss = window_gradient(lanes, ctx_rows, target_rows, d, lr, model.sigmoid, g, gt);
            let (m, n) = (contexts.len(), targets.len());
            for (&c, coef) in contexts.iter().zip(g.chunks_exact(n)) {
                model
                    .input
                    .combine_into_row(lanes, c as usize, coef, target_rows);
            }
            for (&t, coef) in targets.iter().zip(gt.chunks_exact(m)) {
                model
                    .output
                    .combine_into_row(lanes, t as usize, coef, ctx_rows);
            }
            tally.loss += loss as f64;
            tally.examples += m as u64;
        }
        std::mem::swap(targets, next_targets);
    }
    tally
}

/// `centre` and `negative` draws (a draw equal to the centre skipped), each
/// drawn row prefetched.
#[inline(always)]
fn draw_targets<G, R: Rows>(
    model: &Model<'_, G, R>,
    centre: u32,
    rng: &mut Xoshiro256PlusPlus,
    out: &mut Vec<u32>,
) {
    out.clear();
    out.push(centre);
    for _ in 0..model.negative {
        let target = model.sampler.sample(rng.next_u64());
        if target != centre {
            model.output.prefetch(target as usize);
            out.push(target);
        }
    }
}

#[inline(always)]
fn cbow_sentence<L: Lanes, G: Sigmoid, R: Rows>(
    lanes: L,
    model: &Model<'_, G, R>,
    lr: f32,
    rng: &mut Xoshiro256PlusPlus,
    scratch: &mut Scratch,
) -> Tally {
    let (sen, targets) = (&scratch.sentence, &mut scratch.targets);
    let (neu1, neu1e) = (&mut scratch.neu1[..], &mut scratch.neu1e[..]);
    let mut tally = Tally::default();
    for (i, &centre) in sen.iter().enumerate() {
        prefetch_ahead(model, sen, i);
        let r = reach(model.window, rng);
        let (lo, hi) = (i.saturating_sub(r), (i + r + 1).min(sen.len()));
        let count = hi - lo - 1;
        if count == 0 {
            continue;
        }
        neu1.fill(0.0);
        for (j, &context) in sen.iter().enumerate().take(hi).skip(lo) {
            if j != i {
                model.input.add_row_to(lanes, context as usize, 1.0, neu1);
            }
        }
        let inv = 1.0 / count as f32;
        neu1.iter_mut().for_each(|x| *x *= inv);
        neu1e.fill(0.0);
        tally.loss += example(lanes, model, neu1, centre, lr, rng, targets, neu1e) as f64;
        for (j, &context) in sen.iter().enumerate().take(hi).skip(lo) {
            if j != i {
                model.input.add_to_row(lanes, context as usize, 1.0, neu1e);
            }
        }
        tally.examples += 1;
    }
    tally
}

/// CBOW with `batch=window`: per centre, the mean of its contexts against
/// the centre's `1 + k` target rows, drawn one centre ahead (their rows
/// prefetched at the draw), all scored before any is stepped
/// ([`ns_update_rows`]); then the context rows receive the error.
#[inline(always)]
fn cbow_window_sentence<L: Lanes, G: Sigmoid, R: Rows>(
    lanes: L,
    model: &Model<'_, G, R>,
    lr: f32,
    rng: &mut Xoshiro256PlusPlus,
    scratch: &mut Scratch,
) -> Tally {
    let Scratch {
        sentence: sen,
        targets,
        next_targets,
        g,
        neu1,
        neu1e,
        ..
    } = scratch;
    let mut tally = Tally::default();
    if let Some(&first) = sen.first() {
        draw_targets(model, first, rng, targets);
    }
    for i in 0..sen.len() {
        prefetch_ahead(model, sen, i);
        let r = reach(model.window, rng);
        let (lo, hi) = (i.saturating_sub(r), (i + r + 1).min(sen.len()));
        if let Some(&next) = sen.get(i + 1) {
            draw_targets(model, next, rng, next_targets);
        }
        let count = hi - lo - 1;
        if count > 0 {
            let contexts = sen[lo..i].iter().chain(&sen[i + 1..hi]);
            neu1.fill(0.0);
            for &c in contexts.clone() {
                model.input.add_row_to(lanes, c as usize, 1.0, neu1);
            }
            let inv = 1.0 / count as f32;
            neu1.iter_mut().for_each(|x| *x *= inv);
            neu1e.fill(0.0);
            let (output, sigmoid) = (&model.output, model.sigmoid);
            let loss = ns_update_rows(lanes, output, targets, neu1, lr, sigmoid, g, neu1e);
            for &c in contexts {
                model.input.add_to_row(lanes, c as usize, 1.0, neu1e);
            }
            tally.loss += loss as f64;
            tally.examples += 1;
        }
        std::mem::swap(targets, next_targets);
    }
    tally
}
