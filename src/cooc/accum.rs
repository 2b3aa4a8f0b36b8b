//! One thread's co-occurrence accumulator: a dense block for frequent pairs
//! plus sorted runs for the rest.
//!
//! Ids are frequency-sorted, so by Zipf's law most pair events involve at
//! least one very frequent word. Like GloVe's `cooccur`, pairs with
//! `(i + 1)(j + 1) <= P` live in a dense, row-ragged table (row `i` holds
//! columns `0..P/(i+1)`), updated in place; `P` is the largest product whose
//! table fits a cell budget. The table is *target-major*: a token's `L`
//! updates all land in its own row, and a symmetric window updates only this
//! half, `Y[target][context]`, leaving `X = Y + Yᵀ` to the end (half the
//! random memory traffic, which is what counting costs).
//!
//! Threads own disjoint ranges of *target* ids (balanced by token count) and
//! each scans every token, counting only the windows of its own targets: the
//! dense table is then one table shared in disjoint row slices, with no
//! per-thread copies to sum and each thread's rows in its own cache.
//!
//! Every other pair is appended as a packed `u64` event to the buffer of its
//! *row band* (a power-of-two range of rows). A full band buffer is small
//! enough to radix-sort inside the L2 cache; it becomes a sorted [`Run`] of
//! that band (see [`super::runs`]). Bands are disjoint row ranges, so their
//! runs never need merging with each other.

use std::ops::Range;
use std::sync::Arc;

use super::runs::{bits_for, radix_sort};
use super::spill::{Slot, SpillDir};
use super::stack::RunStack;
use crate::window::{Window, WindowKind};
use crate::{Error, Result};

/// Target number of row bands.
const BANDS: usize = 256;

/// The dense block's shape: rows `0..rows`, row `i` holding columns
/// `0..offsets[i + 1] - offsets[i]`. Membership `(i + 1)(j + 1) <= P` is
/// symmetric, so `(j, i)` is dense whenever `(i, j)` is.
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    product: u64,
    offsets: Vec<usize>,
}

impl Layout {
    /// The largest product bound whose table has at most `budget` cells, for
    /// an `n × n` matrix.
    pub fn new(n: usize, budget: usize) -> Layout {
        let cells = |p: u64| -> u128 {
            let rows = (n as u64).min(p);
            (0..rows).map(|i| (p / (i + 1)).min(n as u64) as u128).sum()
        };
        let (mut lo, mut hi) = (0u64, (n as u64).saturating_mul(n as u64));
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if cells(mid) <= budget as u128 {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        Layout::with_product(n, lo)
    }

    /// The table for product bound `p`.
    pub fn with_product(n: usize, p: u64) -> Layout {
        let rows = (n as u64).min(p) as usize;
        let mut offsets = Vec::with_capacity(rows + 1);
        let mut total = 0usize;
        offsets.push(0);
        for i in 0..rows {
            total += (p / (i as u64 + 1)).min(n as u64) as usize;
            offsets.push(total);
        }
        Layout {
            product: p,
            offsets,
        }
    }

    /// Number of cells.
    pub fn cells(&self) -> usize {
        *self.offsets.last().unwrap_or(&0)
    }

    /// Rows with a dense part.
    pub fn rows(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Where row `i` starts in the table (`i <= rows`).
    #[inline]
    pub fn offset(&self, i: usize) -> usize {
        self.offsets[i]
    }

    /// Dense columns of row `i` (0 for rows without a dense part).
    #[inline]
    pub fn width(&self, i: usize) -> usize {
        if i < self.rows() {
            self.offsets[i + 1] - self.offsets[i]
        } else {
            0
        }
    }

    /// The cells of row `i` (empty for rows without a dense part).
    pub fn row_range(&self, i: usize) -> Range<usize> {
        if i < self.rows() {
            self.offsets[i]..self.offsets[i + 1]
        } else {
            0..0
        }
    }

    /// Where pair `(i, j)` lives in the table, if it is dense.
    #[inline(always)]
    fn index(&self, i: u32, j: u32) -> Option<usize> {
        if (i as u64 + 1) * (j as u64 + 1) <= self.product {
            Some(self.offsets[i as usize] + j as usize)
        } else {
            None
        }
    }
}

/// What every accumulator of one count shares: sizes, weights, key packing.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    /// Matrix size.
    pub n: usize,
    /// Window size `L`.
    pub size: usize,
    /// Symmetric or left-only.
    pub symmetric: bool,
    /// `weights[d]` for `d` in `0..=L`.
    pub weights: Vec<f64>,
    /// Bits of an event that hold `d - 1` (0 when weights are uniform).
    pub dbits: u32,
    /// The dense block.
    pub layout: Layout,
    /// Rows per band are `1 << band_shift`.
    pub band_shift: u32,
    /// Number of bands.
    pub bands: usize,
    /// Bits of an event key within a band.
    pub band_bits: u32,
    /// Events buffered per band before a sort.
    pub band_capacity: usize,
}

impl Plan {
    /// A plan for an `n × n` count; `n` must be at most `2^28` and `window`
    /// valid. `buffer_events` is this thread's sparse buffer, over all bands.
    pub fn new(n: usize, window: &Window, dense_cells: usize, buffer_events: usize) -> Plan {
        let weights = window.weights();
        let uniform = weights[1..].iter().all(|&w| w == weights[1]);
        let dbits = if uniform {
            0
        } else {
            bits_for(window.size as u64)
        };
        let band_rows = n.div_ceil(BANDS).max(1).next_power_of_two();
        let bands = n.div_ceil(band_rows).max(1);
        Plan {
            n,
            size: window.size,
            symmetric: window.kind == WindowKind::Symmetric,
            weights,
            dbits,
            layout: Layout::new(n, dense_cells),
            band_shift: band_rows.trailing_zeros(),
            bands,
            band_bits: bits_for((band_rows as u64 * n as u64).max(1)) + dbits,
            band_capacity: (buffer_events / bands).max(1),
        }
    }

    /// The band of row `i`.
    #[inline(always)]
    pub fn band(&self, i: usize) -> usize {
        i >> self.band_shift
    }
}

/// The events and runs of one row band.
#[derive(Debug, Default)]
struct Band {
    events: Vec<u64>,
    runs: RunStack,
}

/// One thread's share of a count: the windows of the targets it owns.
///
/// Threads own disjoint ranges of *target* ids and all scan every token, so
/// the target-major dense table is one table shared in disjoint row slices
/// (no per-thread copies to sum, and each thread's rows stay in its cache),
/// while each thread keeps its own sparse bands.
#[derive(Debug)]
pub(crate) struct Accumulator {
    bands: Vec<Band>,
    scratch: Vec<u64>,
    /// Where runs go when the ones in memory pass `run_budget` bytes.
    spill: Option<Arc<SpillDir>>,
    run_budget: usize,
    /// The first spill error: counting stops and [`Accumulator::finish`] returns it.
    error: Option<Error>,
}

impl Accumulator {
    /// An empty accumulator for `plan`.
    pub fn new(plan: &Plan) -> Accumulator {
        Accumulator {
            bands: (0..plan.bands)
                .map(|_| Band {
                    events: Vec::with_capacity(plan.band_capacity),
                    runs: RunStack::default(),
                })
                .collect(),
            scratch: Vec::new(),
            spill: None,
            run_budget: usize::MAX,
            error: None,
        }
    }

    /// Spills runs to `dir` whenever those in memory pass `run_budget` bytes.
    pub fn spill_to(&mut self, dir: Arc<SpillDir>, run_budget: usize) {
        self.spill = Some(dir);
        self.run_budget = run_budget;
    }

    /// Counts the windows of every token of the sentences (sentence `s` is
    /// `ids[bounds[s]..bounds[s + 1]]`) whose id is in `owned`; `cells` is
    /// the dense table's slice for those rows (rows past the dense part have
    /// none).
    /// With `gaps`, ids `>= n` may occur: they take their place in windows
    /// but are never counted.
    pub fn add(
        &mut self,
        plan: &Plan,
        ids: &[u32],
        bounds: &[usize],
        owned: Range<u32>,
        cells: &mut [f64],
        gaps: bool,
    ) {
        if self.error.is_some() {
            return;
        }
        let base = plan
            .layout
            .offset(plan.layout.rows().min(owned.start as usize));
        let owned = &owned;
        for w in bounds.windows(2) {
            let sentence = &ids[w[0]..w[1]];
            match (plan.symmetric, gaps) {
                (true, false) => {
                    self.add_sentence::<true, false>(plan, sentence, owned, cells, base)
                }
                (false, false) => {
                    self.add_sentence::<false, false>(plan, sentence, owned, cells, base)
                }
                (true, true) => self.add_sentence::<true, true>(plan, sentence, owned, cells, base),
                (false, true) => {
                    self.add_sentence::<false, true>(plan, sentence, owned, cells, base)
                }
            }
        }
    }

    fn add_sentence<const SYM: bool, const GAPS: bool>(
        &mut self,
        plan: &Plan,
        sentence: &[u32],
        owned: &Range<u32>,
        cells: &mut [f64],
        base: usize,
    ) {
        let size = plan.size;
        for (t, &j) in sentence.iter().enumerate() {
            if !owned.contains(&j) {
                continue;
            }
            let lo = t.saturating_sub(size);
            for (p, &i) in sentence[lo..t].iter().enumerate() {
                if GAPS && i as usize >= plan.n {
                    continue;
                }
                let d = t - (lo + p);
                // Dense: Y[target][context]; the other half comes at the end.
                match plan.layout.index(j, i) {
                    Some(ix) => cells[ix - base] += plan.weights[d],
                    None => {
                        self.push(plan, i, j, d);
                        if SYM {
                            self.push(plan, j, i, d);
                        }
                    }
                }
            }
        }
    }

    /// Buffers the sparse event `X[i][j] += w(d)` in the band of row `i`.
    #[inline(always)]
    fn push(&mut self, plan: &Plan, i: u32, j: u32, d: usize) {
        let band = plan.band(i as usize);
        let local_row = i as u64 & ((1u64 << plan.band_shift) - 1);
        let dmask = (1u64 << plan.dbits) - 1;
        let event =
            ((local_row * plan.n as u64 + j as u64) << plan.dbits) | ((d as u64 - 1) & dmask);
        let b = &mut self.bands[band];
        b.events.push(event);
        if b.events.len() >= plan.band_capacity {
            self.flush(plan, band);
        }
    }

    /// Sorts band `band`'s pending events into a run.
    fn flush(&mut self, plan: &Plan, band: usize) {
        if let Err(e) = self.try_flush(plan, band) {
            self.error.get_or_insert(e);
        }
    }

    fn try_flush(&mut self, plan: &Plan, band: usize) -> Result<()> {
        let b = &mut self.bands[band];
        if b.events.is_empty() || self.error.is_some() {
            b.events.clear();
            return Ok(());
        }
        radix_sort(&mut b.events, &mut self.scratch, plan.band_bits);
        let mut run = b.runs.take_spare();
        let base = ((band as u64) << plan.band_shift) * plan.n as u64;
        run.fill_from_sorted_events(&b.events, base, plan.dbits, &plan.weights);
        b.events.clear();
        b.runs.push(run, self.spill.as_deref())?;
        self.spill_if_over_budget()
    }

    /// Writes the largest runs in memory to disk until those left hold at
    /// most half the budget (so spills come in batches, not at every flush).
    fn spill_if_over_budget(&mut self) -> Result<()> {
        let Some(dir) = self.spill.clone() else {
            return Ok(());
        };
        let mut held: usize = self.bands.iter().map(|b| b.runs.heap_bytes()).sum();
        if held <= self.run_budget {
            return Ok(());
        }
        let mut runs: Vec<(usize, usize, usize)> = self
            .bands
            .iter()
            .enumerate()
            .flat_map(|(band, b)| b.runs.in_memory().map(move |(i, bytes)| (bytes, band, i)))
            .collect();
        runs.sort_unstable_by(|a, b| b.cmp(a));
        for (_, band, i) in runs {
            if held <= self.run_budget / 2 {
                break;
            }
            let before = self.bands[band].runs.heap_bytes();
            self.bands[band].runs.spill(i, &dir)?;
            held -= before - self.bands[band].runs.heap_bytes();
        }
        Ok(())
    }

    /// Each band's sparse pairs as one run (on disk when spilled), or the
    /// first spill error.
    pub fn finish(mut self, plan: &Plan) -> Result<Vec<Slot>> {
        for band in 0..self.bands.len() {
            self.flush(plan, band);
        }
        if let Some(e) = self.error {
            return Err(e);
        }
        let spill = self.spill.as_deref();
        self.bands
            .into_iter()
            .map(|b| b.runs.into_slot(spill))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::window::Weighting;

    #[test]
    fn layout_is_product_bounded() {
        let l = Layout::with_product(5, 6);
        // Row widths: min(5, 6/1)=5, 6/2=3, 6/3=2, 6/4=1, 6/5=1.
        assert_eq!(l.offsets, vec![0, 5, 8, 10, 11, 12]);
        assert_eq!(l.index(1, 2), Some(7));
        assert_eq!(l.index(1, 3), None);
        assert_eq!(l.index(4, 0), Some(11));
        assert_eq!(l.index(4, 1), None);
        assert_eq!((l.width(1), l.width(5)), (3, 0));
        assert_eq!(Layout::with_product(5, 0).cells(), 0);
    }

    #[test]
    fn layout_fits_the_budget() {
        for budget in [0, 1, 7, 12, 25, 1000] {
            let l = Layout::new(5, budget);
            assert!(l.cells() <= budget);
            let next = Layout::with_product(5, l.product + 1);
            assert!(next.cells() > budget || l.cells() == 25);
        }
        assert_eq!(Layout::new(5, 1000).cells(), 25);
    }

    #[test]
    fn bands_cover_the_rows() {
        let w = Window::symmetric(10, Weighting::Harmonic);
        let p = Plan::new(1000, &w, 0, 1 << 16);
        assert_eq!(1 << p.band_shift, 4);
        assert_eq!(p.bands, 250);
        assert_eq!(p.band(999), 249);
        // 4 rows × 1000 columns < 2^12, plus 4 bits of distance.
        assert_eq!(p.band_bits, 12 + 4);
        let p = Plan::new(3, &w, 0, 5);
        assert_eq!((p.bands, p.band_capacity), (3, 1));
    }
}
