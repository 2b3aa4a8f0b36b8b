//! Windowed co-occurrence counting into an `n × n` CSR matrix.
//!
//! A [`Counter`] holds one `Accumulator` per thread, each owning a range of
//! target ids chosen from the first batch so that the ranges hold about the
//! same number of tokens. Every thread scans each batch and counts, for the
//! tokens it owns, the pairs they form with the (at most `L`) words before
//! them in their sentence. Weights are accumulated in `f64`:
//! harmonic weights `1/d` are not exact in `f32`, and uniform counts stay exact
//! up to `2^53`. Memory is the dense blocks plus the distinct sparse pairs,
//! independent of the corpus length.

use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sprs::CsMat;

use super::accum::{Accumulator, Plan};
use super::assemble::{fold_tables, CsrBuilder, Parts, RowSink, StreamParts};
use super::progress::{self, CountPhase, CountProgress};
use super::runs::Run;
use super::spill::{Slot, SpillDir};
use crate::corpus::{Batch, Corpus, Split};
use crate::window::{Window, WindowKind};
use crate::{Error, Result};

/// The largest matrix a count can produce (pair keys must fit 56 bits).
pub const MAX_COUNT_VOCAB: usize = 1 << 28;

/// In-vocabulary tokens per batch when streaming a corpus.
const CORPUS_BATCH_TOKENS: usize = 1 << 20;

/// What to count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct CountConfig {
    /// The context window.
    pub window: Window,
    /// Count only the `max_vocab` most frequent words (ids `0..max_vocab`);
    /// other ids are removed from the token stream before windowing, exactly
    /// like out-of-vocabulary words (as GloVe and word2vec do; see
    /// [`Counter::keep_positions`] for the alternative). `None` keeps the
    /// whole vocabulary.
    pub max_vocab: Option<usize>,
}

/// Performance knobs; the defaults suit vocabularies up to a few hundred thousand words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tuning {
    /// Cells (f64) of each thread's dense block for frequent pairs.
    pub dense_cells: usize,
    /// Sparse pair events buffered before sorting, shared among the threads
    /// (8 bytes each, reserved up front but only touched as they fill).
    /// Larger buffers mean fewer sorted runs to merge.
    pub buffer_events: usize,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            dense_cells: 1 << 22,
            buffer_events: 1 << 25,
        }
    }
}

impl Tuning {
    /// The default knobs, shrunk to fit a memory budget of `bytes`: the dense
    /// table (held twice while assembling) takes at most 1/8 of it, the event
    /// buffers at most 1/4. Budgets of 1 GiB and more keep the defaults.
    pub fn for_memory(bytes: u64) -> Tuning {
        let d = Tuning::default();
        Tuning {
            dense_cells: d.dense_cells.min((bytes / 128) as usize),
            buffer_events: d.buffer_events.min((bytes / 32) as usize).max(1),
        }
    }
}

/// Bytes of memory a count may use for its runs under a budget of `bytes`
/// (what [`Tuning::for_memory`] leaves, less a margin for the assembly).
pub fn run_budget(bytes: u64) -> usize {
    (bytes / 2) as usize
}

/// Streaming co-occurrence counter: feed batches, then [`Counter::finish`].
#[derive(Debug)]
pub struct Counter {
    plan: Plan,
    accumulators: Vec<Accumulator>,
    /// Target-major dense table, shared by the threads in row slices.
    table: Vec<f64>,
    /// Target ids owned by each thread, fixed from the first batch.
    owners: Vec<Range<u32>>,
    keep_positions: bool,
    tokens: u64,
    filtered: Batch,
    spill: Option<Arc<SpillDir>>,
}

impl Counter {
    /// A counter for ids `0..vocab_size` (capped by `config.max_vocab`), with
    /// one accumulator per rayon thread.
    pub fn new(vocab_size: usize, config: &CountConfig) -> Result<Counter> {
        Counter::with_tuning(vocab_size, config, Tuning::default())
    }

    /// As [`Counter::new`], with explicit performance knobs.
    pub fn with_tuning(vocab_size: usize, config: &CountConfig, tuning: Tuning) -> Result<Counter> {
        config.window.validate()?;
        let n = config.max_vocab.map_or(vocab_size, |m| m.min(vocab_size));
        if n > MAX_COUNT_VOCAB {
            return Err(Error::param(
                "max-vocab",
                format!("{n} words (co-occurrence counting supports at most {MAX_COUNT_VOCAB})"),
            ));
        }
        let threads = rayon::current_num_threads().max(1);
        let per_thread = tuning.buffer_events.div_ceil(threads);
        let plan = Plan::new(n, &config.window, tuning.dense_cells, per_thread);
        let accumulators = (0..threads).map(|_| Accumulator::new(&plan)).collect();
        Ok(Counter {
            table: vec![0.0; plan.layout.cells()],
            owners: Vec::new(),
            keep_positions: false,
            plan,
            accumulators,
            tokens: 0,
            filtered: Batch::default(),
            spill: None,
        })
    }

    /// A counter that keeps within `memory` bytes (see [`Tuning::for_memory`]),
    /// spilling sorted runs to a temporary directory under `temp_parent`
    /// when they would not fit. The result is bit-for-bit that of
    /// [`Counter::with_tuning`] with the same tuning and thread count.
    pub fn with_memory(
        vocab_size: usize,
        config: &CountConfig,
        memory: u64,
        temp_parent: &Path,
    ) -> Result<Counter> {
        Counter::with_tuning(vocab_size, config, Tuning::for_memory(memory))?
            .spill_over(run_budget(memory), temp_parent)
    }

    /// Spills runs to a new directory under `temp_parent` when the runs in
    /// memory pass `run_bytes` (shared among the threads). The directory is
    /// removed when the counter is finished or dropped.
    pub fn spill_over(mut self, run_bytes: usize, temp_parent: &Path) -> Result<Counter> {
        let dir = Arc::new(SpillDir::create(temp_parent)?);
        let share = run_bytes / self.accumulators.len().max(1);
        for acc in &mut self.accumulators {
            acc.spill_to(dir.clone(), share);
        }
        self.spill = Some(dir);
        Ok(self)
    }

    /// Runs written to disk so far (spills and merges of spilled runs).
    pub fn spilled_runs(&self) -> u64 {
        self.spill.as_ref().map_or(0, |d| d.spilled())
    }

    /// Keeps ids `>= max_vocab` as positions that take their place in windows
    /// but are never counted, instead of removing them first. The result is
    /// then the top-left `n × n` block of the full count, which is how the
    /// reference PPMI matrix of docs/methods/linalg.md ("Reference matrix")
    /// was made.
    pub fn keep_positions(mut self, keep: bool) -> Counter {
        self.keep_positions = keep;
        self
    }

    /// The matrix size `n`.
    pub fn dim(&self) -> usize {
        self.plan.n
    }

    /// Tokens counted so far (ids outside `0..n` excluded).
    pub fn tokens(&self) -> u64 {
        self.tokens
    }

    /// Counts one batch. Ids `>= n` are dropped first (the window closes over
    /// them), or kept as uncounted positions (see `keep_positions` in [`CountConfig`]).
    pub fn add(&mut self, batch: &Batch) {
        let n = self.plan.n;
        let all_in = batch.ids.iter().all(|&id| (id as usize) < n);
        let batch = if all_in || self.keep_positions {
            batch
        } else {
            filter_ids(batch, n, &mut self.filtered);
            &self.filtered
        };
        let gaps = !all_in && self.keep_positions;
        self.tokens += if gaps {
            batch.ids.iter().filter(|&&id| (id as usize) < n).count() as u64
        } else {
            batch.ids.len() as u64
        };
        if self.owners.is_empty() {
            self.owners = split_by_load(&batch.ids, n, self.accumulators.len());
        }
        let plan = &self.plan;
        let layout = &plan.layout;
        let mut rest: &mut [f64] = &mut self.table;
        let mut slices = Vec::with_capacity(self.owners.len());
        for owned in &self.owners {
            let (r0, r1) = (owned.start as usize, owned.end as usize);
            let len = layout.offset(r1.min(layout.rows())) - layout.offset(r0.min(layout.rows()));
            let (head, tail) = rest.split_at_mut(len);
            slices.push(head);
            rest = tail;
        }
        self.accumulators
            .par_iter_mut()
            .zip(slices)
            .zip(&self.owners)
            .for_each(|((acc, cells), owned)| {
                acc.add(plan, &batch.ids, &batch.bounds, owned.clone(), cells, gaps);
            });
    }

    /// Merges the threads' counts into an `n × n` CSR matrix.
    ///
    /// Panics if the counter spills ([`Counter::spill_over`]) and a spill
    /// file cannot be written or read: use [`Counter::try_finish`] then.
    pub fn finish(self) -> CsMat<f64> {
        self.try_finish().expect("an in-memory count cannot fail")
    }

    /// Merges the threads' counts into an `n × n` CSR matrix, or returns the
    /// first error writing or reading a spill file.
    pub fn try_finish(self) -> Result<CsMat<f64>> {
        let (plan, table, slots, _dir) = self.finish_parts()?;
        if slots.iter().flatten().all(|s| matches!(s, Slot::Mem(_))) {
            let runs: Vec<Vec<Run>> = slots
                .into_iter()
                .map(|t| t.into_iter().filter_map(Slot::release).collect())
                .collect();
            return Ok(Parts {
                n: plan.n,
                layout: &plan.layout,
                table: &table,
                runs: &runs,
                band_shift: plan.band_shift,
            }
            .to_csr());
        }
        let mut csr = CsrBuilder::new(plan.n);
        stream(&plan, &table, &slots, &mut csr)?;
        Ok(csr.build())
    }

    /// Hands the matrix to `sink` row by row without building it in memory
    /// (the values are those of [`Counter::try_finish`]).
    pub fn finish_into(self, sink: &mut impl RowSink) -> Result<()> {
        let (plan, table, slots, _dir) = self.finish_parts()?;
        stream(&plan, &table, &slots, sink)
    }

    /// The plan, the folded dense table, each thread's run of each band,
    /// and the spill directory (kept until the runs are read).
    #[allow(clippy::type_complexity)]
    fn finish_parts(self) -> Result<(Plan, Vec<f64>, Vec<Vec<Slot>>, Option<Arc<SpillDir>>)> {
        let plan = self.plan;
        let slots: Vec<Vec<Slot>> = self
            .accumulators
            .into_par_iter()
            .map(|acc| acc.finish(&plan))
            .collect::<Result<_>>()?;
        let table = fold_tables(&plan.layout, &[self.table], plan.symmetric);
        Ok((plan, table, slots, self.spill))
    }
}

/// Streams the rows of a finished count.
fn stream(plan: &Plan, table: &[f64], slots: &[Vec<Slot>], sink: &mut impl RowSink) -> Result<()> {
    StreamParts {
        n: plan.n,
        layout: &plan.layout,
        table,
        runs: slots,
        band_shift: plan.band_shift,
    }
    .stream(sink)
}

/// Splits ids `0..n` into `parts` contiguous ranges with about the same
/// number of occurrences in `ids` (the work of a target is proportional to
/// its frequency). Ranges may be empty; together they cover `0..n`.
fn split_by_load(ids: &[u32], n: usize, parts: usize) -> Vec<Range<u32>> {
    let mut hist = vec![0u64; n];
    for &id in ids {
        if let Some(h) = hist.get_mut(id as usize) {
            *h += 1;
        }
    }
    let total: u64 = hist.iter().sum::<u64>().max(1);
    let mut bounds = Vec::with_capacity(parts + 1);
    bounds.push(0u32);
    let mut seen = 0u64;
    for (id, &c) in hist.iter().enumerate() {
        let k = bounds.len() as u64;
        if k < parts as u64 && seen * parts as u64 >= k * total {
            bounds.push(id as u32);
        }
        seen += c;
    }
    while bounds.len() < parts {
        bounds.push(n as u32);
    }
    bounds.push(n as u32);
    bounds.windows(2).map(|w| w[0]..w[1]).collect()
}

/// Copies `batch` into `out` without the ids `>= n`, keeping sentence bounds.
fn filter_ids(batch: &Batch, n: usize, out: &mut Batch) {
    out.ids.clear();
    out.bounds.clear();
    out.bounds.push(0);
    out.raw_tokens = batch.raw_tokens;
    for sentence in batch.sentences() {
        out.ids
            .extend(sentence.iter().copied().filter(|&id| (id as usize) < n));
        if *out.bounds.last().expect("starts with 0") != out.ids.len() {
            out.bounds.push(out.ids.len());
        }
    }
}

/// Counts an in-memory batch of ids `0..vocab_size`.
pub fn count_batch(batch: &Batch, vocab_size: usize, config: &CountConfig) -> Result<CsMat<f64>> {
    let mut counter = Counter::new(vocab_size, config)?;
    counter.add(batch);
    Ok(counter.finish())
}

/// Streams the training split of `corpus` and counts it; `n` is the
/// vocabulary size, capped by `config.max_vocab`.
///
/// A counts file opened as the corpus gives its matrix (a copy; see
/// [`counted_matrix`]).
pub fn count_corpus(corpus: &Corpus, config: &CountConfig) -> Result<CsMat<f64>> {
    if let Some(m) = counted_matrix(corpus, config)? {
        return Ok((*m).clone());
    }
    let memory = corpus.config().read.memory_bytes();
    let counter =
        Counter::with_memory(corpus.vocab().len(), config, memory, &std::env::temp_dir())?;
    count_corpus_with(corpus, counter)
}

/// The matrix of a counts file opened as `corpus` (`None` for a text
/// corpus), or an error when the file was counted with another window or
/// fewer words than `config` asks for. Imported counts record no window
/// and are taken as they are.
pub fn counted_matrix(corpus: &Corpus, config: &CountConfig) -> Result<Option<Arc<CsMat<f64>>>> {
    let Some(counted) = corpus.counted() else {
        return Ok(None);
    };
    let path = corpus.path();
    if let Some(w) = counted.meta.window {
        if w != config.window {
            return Err(Error::format(
                path,
                format!(
                    "counts file was counted with a {} window of {} ({:?} weights), this run asks for a {} window of {} ({:?} weights): count again with `wordbench counts`",
                    kind_name(w.kind), w.size, w.weighting,
                    kind_name(config.window.kind), config.window.size, config.window.weighting,
                ),
            ));
        }
    }
    let n = counted.matrix.rows();
    if let Some(m) = config.max_vocab.filter(|&m| m < n) {
        return Err(Error::format(
            path,
            format!("counts file holds {n} words, this run asks for the {m} most frequent: count again with --max-vocab {m}"),
        ));
    }
    Ok(Some(counted.matrix.clone()))
}

fn kind_name(kind: WindowKind) -> &'static str {
    match kind {
        WindowKind::Symmetric => "symmetric",
        WindowKind::LeftOnly => "left-only",
    }
}

/// Streams the training split of `corpus` into `counter` (made for
/// `corpus.vocab().len()` ids) and returns the matrix.
///
/// Reports progress to the current thread's hook ([`super::progress`]):
/// after every batch, when merging starts and when the matrix is ready.
pub fn count_corpus_with(corpus: &Corpus, mut counter: Counter) -> Result<CsMat<f64>> {
    let done = feed_corpus(corpus, &mut counter, &mut progress::report)?;
    let matrix = counter.try_finish()?;
    progress::report(done);
    Ok(matrix)
}

/// Streams the training split of `corpus` into `counter`, calling
/// `progress` after every batch and when merging starts; returns the
/// report to send once the counts are written out.
pub fn feed_corpus(
    corpus: &Corpus,
    counter: &mut Counter,
    progress: &mut dyn FnMut(CountProgress),
) -> Result<CountProgress> {
    let total = corpus.stats().train_tokens_in_vocab;
    let at = |phase, counter: &Counter| CountProgress {
        phase,
        tokens: counter.tokens(),
        total,
        spilled_runs: counter.spilled_runs(),
    };
    for batch in corpus.batches(Split::Train, CORPUS_BATCH_TOKENS) {
        counter.add(&batch?);
        progress(at(CountPhase::Reading, counter));
    }
    progress(at(CountPhase::Merging, counter));
    Ok(at(CountPhase::Done, counter))
}

/// A plain sequential counter with a map: the reference the fast counter is
/// tested against. Same semantics as [`count_batch`], or as a counter with
/// [`Counter::keep_positions`] when `keep_positions` is set.
pub fn count_naive(
    batch: &Batch,
    vocab_size: usize,
    config: &CountConfig,
    keep_positions: bool,
) -> Result<CsMat<f64>> {
    config.window.validate()?;
    let n = config.max_vocab.map_or(vocab_size, |m| m.min(vocab_size));
    let weights = config.window.weights();
    let mut cells = std::collections::BTreeMap::<(usize, usize), f64>::new();
    for sentence in batch.sentences() {
        let kept: Vec<usize> = sentence
            .iter()
            .map(|&id| id as usize)
            .filter(|&id| keep_positions || id < n)
            .collect();
        for t in 0..kept.len() {
            for d in 1..=config.window.size.min(t) {
                let (i, j) = (kept[t - d], kept[t]);
                if i >= n || j >= n {
                    continue;
                }
                *cells.entry((i, j)).or_default() += weights[d];
                if config.window.kind == WindowKind::Symmetric {
                    *cells.entry((j, i)).or_default() += weights[d];
                }
            }
        }
    }
    let mut tri = sprs::TriMat::new((n, n));
    for ((i, j), v) in cells {
        tri.add_triplet(i, j, v);
    }
    Ok(tri.to_csr())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::window::Weighting;

    fn batch(sentences: &[&[u32]]) -> Batch {
        Batch::of_sentences(sentences)
    }

    fn dense(m: &CsMat<f64>) -> Vec<Vec<f64>> {
        let mut out = vec![vec![0.0; m.cols()]; m.rows()];
        for (v, (i, j)) in m.iter() {
            out[i][j] = *v;
        }
        out
    }

    #[test]
    fn load_split_balances_token_counts() {
        let ids = [0, 0, 0, 0, 1, 1, 2, 3];
        assert_eq!(split_by_load(&ids, 5, 1), vec![0..5]);
        assert_eq!(split_by_load(&ids, 5, 2), vec![0..1, 1..5]);
        assert_eq!(split_by_load(&ids, 5, 4), vec![0..1, 1..2, 2..3, 3..5]);
        assert_eq!(split_by_load(&[], 2, 3), vec![0..2, 2..2, 2..2]);
    }

    #[test]
    fn filtering_drops_ids_and_empty_sentences() {
        let b = batch(&[&[0, 5, 1], &[7, 8], &[2]]);
        let mut out = Batch::default();
        filter_ids(&b, 3, &mut out);
        assert_eq!(out.ids, vec![0, 1, 2]);
        assert_eq!(out.bounds, vec![0, 2, 3]);
    }

    #[test]
    fn max_vocab_closes_the_window_over_dropped_ids() {
        // 0 9 1 with max_vocab 2: the 9 is removed, so 0 and 1 become adjacent.
        let b = batch(&[&[0, 9, 1]]);
        let mut config = CountConfig {
            window: Window::left_only(1, Weighting::Uniform),
            max_vocab: Some(2),
        };
        let m = count_batch(&b, 10, &config).unwrap();
        assert_eq!(m.shape(), (2, 2));
        assert_eq!(dense(&m), vec![vec![0.0, 1.0], vec![0.0, 0.0]]);
        assert_eq!(m, count_naive(&b, 10, &config, false).unwrap());
        // Keeping positions, 0 and 1 are two apart: nothing within L = 1.
        let kept = |config: &CountConfig| {
            let mut c = Counter::new(10, config).unwrap().keep_positions(true);
            c.add(&b);
            assert_eq!(c.tokens(), 2);
            c.finish()
        };
        assert_eq!(kept(&config).nnz(), 0);
        config.window.size = 2;
        assert_eq!(dense(&kept(&config)), vec![vec![0.0, 1.0], vec![0.0, 0.0]]);
    }

    fn splitmix(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Zipf-ish ids (`floor(v^3 · n)` of a uniform `v`) in sentences of 0..40 words.
    fn random_batch(seed: u64, sentences: usize, n: usize) -> Batch {
        let mut s = seed;
        let mut b = Batch::default();
        for _ in 0..sentences {
            let len = (splitmix(&mut s) % 40) as usize;
            for _ in 0..len {
                let v = (splitmix(&mut s) >> 11) as f64 / (1u64 << 53) as f64;
                b.ids.push(((v * v * v) * n as f64) as u32);
            }
            if len > 0 {
                b.bounds.push(b.ids.len());
            }
        }
        b
    }

    fn assert_close(a: &CsMat<f64>, b: &CsMat<f64>, exact: bool) {
        assert_eq!(a.shape(), b.shape());
        assert_eq!(a.indptr(), b.indptr());
        assert_eq!(a.indices(), b.indices());
        for (x, y) in a.data().iter().zip(b.data()) {
            if exact {
                assert_eq!(x, y);
            } else {
                assert!((x - y).abs() <= 1e-12 * y.abs(), "{x} vs {y}");
            }
        }
    }

    #[test]
    fn parallel_counts_equal_the_naive_reference() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let n = 60;
        for seed in 0..6u64 {
            let b = random_batch(seed, 80, n);
            for (kind, weighting) in [
                (WindowKind::Symmetric, Weighting::Uniform),
                (WindowKind::Symmetric, Weighting::Harmonic),
                (WindowKind::LeftOnly, Weighting::Uniform),
                (WindowKind::LeftOnly, Weighting::Harmonic),
            ] {
                let size = 1 + (seed as usize * 3) % 9;
                let config = CountConfig {
                    window: Window {
                        size,
                        kind,
                        weighting,
                    },
                    max_vocab: (seed % 2 == 1).then_some(45),
                };
                let keep = seed % 4 == 3;
                let expect = count_naive(&b, n, &config, keep).unwrap();
                // Small dense blocks and buffers exercise every path:
                // all-sparse, mixed, all-dense; many flushes and merges.
                for (dense_cells, buffer_events) in [(0, 7), (300, 64), (1 << 20, 1 << 10)] {
                    let tuning = Tuning {
                        dense_cells,
                        buffer_events,
                    };
                    let got = pool.install(|| {
                        let mut c = Counter::with_tuning(n, &config, tuning)
                            .unwrap()
                            .keep_positions(keep);
                        // Stream in three batches to check accumulation across batches.
                        for part in split_batch(&b, 3) {
                            c.add(&part);
                        }
                        c.finish()
                    });
                    assert_close(&got, &expect, weighting == Weighting::Uniform);
                }
            }
        }
    }

    /// Cuts a batch into `k` batches at sentence boundaries.
    fn split_batch(b: &Batch, k: usize) -> Vec<Batch> {
        let sentences: Vec<&[u32]> = b.sentences().collect();
        sentences
            .chunks(sentences.len().div_ceil(k).max(1))
            .map(batch)
            .collect()
    }

    #[test]
    fn spilled_counts_are_bit_for_bit_the_in_memory_counts() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let parent = tempfile::tempdir().unwrap();
        let n = 70;
        for seed in 0..2u64 {
            let b = random_batch(seed + 10, 60, n);
            for (kind, weighting) in [
                (WindowKind::Symmetric, Weighting::Harmonic),
                (WindowKind::LeftOnly, Weighting::Uniform),
                (WindowKind::Symmetric, Weighting::Uniform),
            ] {
                let config = CountConfig {
                    window: Window {
                        size: 2 + seed as usize * 2,
                        kind,
                        weighting,
                    },
                    max_vocab: (seed == 1).then_some(50),
                };
                for (dense_cells, buffer_events) in [(0, 20), (300, 64)] {
                    let tuning = Tuning {
                        dense_cells,
                        buffer_events,
                    };
                    let count = |run_bytes: Option<usize>| {
                        pool.install(|| {
                            let mut c = Counter::with_tuning(n, &config, tuning).unwrap();
                            if let Some(bytes) = run_bytes {
                                c = c.spill_over(bytes, parent.path()).unwrap();
                            }
                            for part in split_batch(&b, 4) {
                                c.add(&part);
                            }
                            let spilled = c.spilled_runs();
                            (c.try_finish().unwrap(), spilled)
                        })
                    };
                    let (memory, _) = count(None);
                    // A budget of nothing spills every run; a small one some.
                    for bytes in [0, 2048] {
                        let (spilled, runs) = count(Some(bytes));
                        assert!(bytes > 0 || runs > 10, "{runs} runs spilled");
                        assert_eq!(spilled, memory, "budget {bytes}");
                        let bits = |m: &CsMat<f64>| -> Vec<u64> {
                            m.data().iter().map(|x| x.to_bits()).collect()
                        };
                        assert_eq!(bits(&spilled), bits(&memory));
                    }
                }
            }
        }
        // Every spill directory is gone.
        assert_eq!(std::fs::read_dir(parent.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_streamed_finish_gives_the_same_rows() {
        struct Rows(Vec<(Vec<u32>, Vec<f64>)>);
        impl RowSink for Rows {
            fn row(&mut self, cols: &[u32], vals: &[f64]) -> Result<()> {
                self.0.push((cols.to_vec(), vals.to_vec()));
                Ok(())
            }
        }
        let b = random_batch(3, 100, 40);
        let config = CountConfig {
            window: Window::symmetric(4, Weighting::Harmonic),
            max_vocab: None,
        };
        let tuning = Tuning {
            dense_cells: 100,
            buffer_events: 50,
        };
        let mut c = Counter::with_tuning(40, &config, tuning).unwrap();
        c.add(&b);
        let mut rows = Rows(Vec::new());
        c.finish_into(&mut rows).unwrap();
        let mut c = Counter::with_tuning(40, &config, tuning).unwrap();
        c.add(&b);
        let m = c.finish();
        assert_eq!(rows.0.len(), 40);
        for (i, (cols, vals)) in rows.0.iter().enumerate() {
            let row = m.outer_view(i).unwrap();
            let want: Vec<u32> = row.indices().iter().map(|&j| j as u32).collect();
            assert_eq!(cols, &want);
            assert_eq!(vals.as_slice(), row.data());
        }
    }

    #[test]
    fn rejects_bad_windows() {
        let config = CountConfig {
            window: Window::symmetric(0, Weighting::Uniform),
            max_vocab: None,
        };
        assert!(Counter::new(3, &config).is_err());
    }
}
