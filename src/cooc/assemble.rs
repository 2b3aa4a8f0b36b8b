//! Turns the accumulators' dense tables and sparse runs into one CSR matrix.
//!
//! The threads' target-major dense tables are first folded into the dense
//! part of `X` (adding the transpose for symmetric windows), tile by tile so
//! the transposed reads stay contiguous. Row `i`'s dense part covers columns
//! `0..w_i` and its sparse pairs all have columns `>= w_i`, so a row is its
//! dense non-zeros followed by the k-way merge of the threads' runs for that
//! row (in its band): no sorting. Rows are built in
//! parallel chunks, in two passes (lengths, then values) written straight
//! into the final arrays: the output is the largest allocation of a count,
//! and touching it once instead of through per-chunk copies saves its page
//! faults twice over.

use std::ops::Range;

use rayon::prelude::*;
use sprs::CsMat;

use super::accum::Layout;
use super::runs::Run;
use super::spill::{RunReader, Slot};
use crate::Result;

/// Rows per parallel task when assembling.
const ROWS_PER_TASK: usize = 512;

/// Rows per task when folding the dense tables (their transposed reads then
/// walk contiguous row segments).
const FOLD_ROWS: usize = 64;

/// Folds the threads' target-major tables `Y_t` into the dense part of `X`:
/// `X = Σ_t Y_t + Y_tᵀ` for a symmetric window, `X = Σ_t Y_tᵀ` for a
/// left-only one (whose rows are the earlier word).
pub(crate) fn fold_tables(layout: &Layout, tables: &[Vec<f64>], symmetric: bool) -> Vec<f64> {
    let mut out = vec![0.0f64; layout.cells()];
    let mut rest: &mut [f64] = &mut out;
    let mut tasks = Vec::new();
    for r0 in (0..layout.rows()).step_by(FOLD_ROWS) {
        let r1 = (r0 + FOLD_ROWS).min(layout.rows());
        let (head, tail) = rest.split_at_mut(layout.offset(r1) - layout.offset(r0));
        tasks.push((r0..r1, head));
        rest = tail;
    }
    tasks.into_par_iter().for_each(|(rows, slice)| {
        let base = layout.offset(rows.start);
        // Widths do not increase with the row, so row `rows.start` is the widest.
        for b in 0..layout.width(rows.start) {
            let column = layout.offset(b);
            for a in rows.clone() {
                if b >= layout.width(a) {
                    break;
                }
                let (ab, ba) = (layout.offset(a) + b, column + a);
                let mut v = 0.0;
                for t in tables {
                    if symmetric {
                        v += t[ab];
                    }
                    v += t[ba];
                }
                slice[ab - base] = v;
            }
        }
    });
    out
}

/// The sources of one count: the summed dense table and each thread's run.
pub(crate) struct Parts<'a> {
    /// Matrix size.
    pub n: usize,
    /// Shape of the dense table.
    pub layout: &'a Layout,
    /// The dense part of `X` (see [`fold_tables`]).
    pub table: &'a [f64],
    /// Sorted runs, one per thread and row band.
    pub runs: &'a [Vec<Run>],
    /// Rows per band are `1 << band_shift`.
    pub band_shift: u32,
}

impl Parts<'_> {
    /// Builds the `n × n` CSR matrix.
    pub fn to_csr(&self) -> CsMat<f64> {
        let n = self.n;
        let tasks: Vec<Range<usize>> = (0..n.div_ceil(ROWS_PER_TASK))
            .map(|c| c * ROWS_PER_TASK..((c + 1) * ROWS_PER_TASK).min(n))
            .collect();
        let lens: Vec<Vec<usize>> = tasks
            .par_iter()
            .map(|rows| {
                let mut cursors = Cursors::default();
                rows.clone()
                    .map(|i| self.row(i, &mut cursors, |_, _| {}))
                    .collect()
            })
            .collect();
        let mut indptr = Vec::with_capacity(n + 1);
        indptr.push(0);
        for &len in lens.iter().flatten() {
            indptr.push(indptr.last().expect("starts with 0") + len);
        }
        let nnz = *indptr.last().expect("starts with 0");
        let mut indices = vec![0usize; nnz];
        let mut data = vec![0.0f64; nnz];
        let mut slices = Vec::with_capacity(tasks.len());
        let (mut idx_rest, mut val_rest) = (&mut indices[..], &mut data[..]);
        for rows in &tasks {
            let len = indptr[rows.end] - indptr[rows.start];
            let (idx, i_tail) = idx_rest.split_at_mut(len);
            let (val, v_tail) = val_rest.split_at_mut(len);
            slices.push((rows.clone(), idx, val));
            idx_rest = i_tail;
            val_rest = v_tail;
        }
        slices.into_par_iter().for_each(|(rows, idx, val)| {
            let mut cursors = Cursors::default();
            let mut at = 0;
            for i in rows {
                self.row(i, &mut cursors, |j, v| {
                    idx[at] = j;
                    val[at] = v;
                    at += 1;
                });
            }
        });
        CsMat::try_new((n, n), indptr, indices, data)
            .map_err(|e| e.3)
            .expect("assembled rows are sorted and in range")
    }

    /// Points the cursors at row `i`'s first key in each thread's run of its band.
    fn seek(&self, i: usize, cursors: &mut Cursors) {
        let band = i >> self.band_shift;
        if cursors.band == Some(band) {
            return;
        }
        let key = i as u64 * self.n as u64;
        cursors.band = Some(band);
        cursors.at = self
            .runs
            .iter()
            .map(|r| r[band].keys.partition_point(|&k| k < key))
            .collect();
    }

    /// Emits row `i`'s cells in column order through `emit(col, value)`,
    /// advancing the run cursors past it; returns the number of cells.
    fn row(&self, i: usize, cursors: &mut Cursors, mut emit: impl FnMut(usize, f64)) -> usize {
        let mut count = 0;
        for (j, &x) in self.table[self.layout.row_range(i)].iter().enumerate() {
            if x != 0.0 {
                emit(j, x);
                count += 1;
            }
        }
        self.seek(i, cursors);
        let band = i >> self.band_shift;
        let base = i as u64 * self.n as u64;
        let end = base + self.n as u64;
        loop {
            // The smallest key of this row among the runs' heads, and its total.
            let mut key = end;
            for (r, &c) in self.runs.iter().zip(cursors.at.iter()) {
                let r = &r[band];
                if c < r.keys.len() && r.keys[c] < key {
                    key = r.keys[c];
                }
            }
            if key == end {
                return count;
            }
            let mut sum = 0.0;
            for (r, c) in self.runs.iter().zip(cursors.at.iter_mut()) {
                let r = &r[band];
                if *c < r.keys.len() && r.keys[*c] == key {
                    sum += r.vals[*c];
                    *c += 1;
                }
            }
            emit((key - base) as usize, sum);
            count += 1;
        }
    }
}

/// Receives a matrix row by row, in order (see [`crate::cooc::Counter::finish_into`]).
pub trait RowSink {
    /// Row `i`'s non-zero cells: columns in increasing order and their values.
    fn row(&mut self, cols: &[u32], vals: &[f64]) -> Result<()>;
}

/// Builds a CSR matrix from rows.
#[derive(Debug)]
pub(crate) struct CsrBuilder {
    n: usize,
    indptr: Vec<usize>,
    indices: Vec<usize>,
    data: Vec<f64>,
}

impl CsrBuilder {
    /// An empty `n × n` matrix to fill.
    pub fn new(n: usize) -> CsrBuilder {
        CsrBuilder {
            n,
            indptr: vec![0],
            indices: Vec::new(),
            data: Vec::new(),
        }
    }

    /// The matrix (every row must have been given).
    pub fn build(self) -> CsMat<f64> {
        CsMat::try_new((self.n, self.n), self.indptr, self.indices, self.data)
            .map_err(|e| e.3)
            .expect("streamed rows are sorted and in range")
    }
}

impl RowSink for CsrBuilder {
    fn row(&mut self, cols: &[u32], vals: &[f64]) -> Result<()> {
        self.indices.extend(cols.iter().map(|&c| c as usize));
        self.data.extend_from_slice(vals);
        self.indptr.push(self.indices.len());
        Ok(())
    }
}

/// The sources of a count whose runs may be on disk: rows are assembled in
/// order, one band at a time, reading each thread's run of the band
/// sequentially. Every cell is summed exactly as [`Parts::to_csr`] sums it
/// (dense cells as they are; sparse ones from `0.0`, thread after thread).
pub(crate) struct StreamParts<'a> {
    /// Matrix size.
    pub n: usize,
    /// Shape of the dense table.
    pub layout: &'a Layout,
    /// The dense part of `X` (see [`fold_tables`]).
    pub table: &'a [f64],
    /// Sorted runs, one per thread and row band.
    pub runs: &'a [Vec<Slot>],
    /// Rows per band are `1 << band_shift`.
    pub band_shift: u32,
}

impl StreamParts<'_> {
    /// Hands every row to `sink`, in order.
    pub fn stream(&self, sink: &mut impl RowSink) -> Result<()> {
        let n = self.n;
        let (mut cols, mut vals) = (Vec::new(), Vec::new());
        let mut readers: Vec<RunReader<'_>> = Vec::new();
        let mut heads: Vec<Option<(u64, f64)>> = Vec::new();
        let mut band = None;
        for i in 0..n {
            let b = i >> self.band_shift;
            if band != Some(b) {
                band = Some(b);
                readers = self
                    .runs
                    .iter()
                    .map(|t| t[b].reader())
                    .collect::<Result<_>>()?;
                heads = readers
                    .iter_mut()
                    .map(|r| r.next())
                    .collect::<Result<_>>()?;
            }
            cols.clear();
            vals.clear();
            for (j, &x) in self.table[self.layout.row_range(i)].iter().enumerate() {
                if x != 0.0 {
                    cols.push(j as u32);
                    vals.push(x);
                }
            }
            let base = i as u64 * n as u64;
            let end = base + n as u64;
            loop {
                let key = heads
                    .iter()
                    .flatten()
                    .map(|&(k, _)| k)
                    .filter(|&k| k < end)
                    .min();
                let Some(key) = key else { break };
                let mut sum = 0.0;
                for (head, reader) in heads.iter_mut().zip(readers.iter_mut()) {
                    if let Some((k, v)) = *head {
                        if k == key {
                            sum += v;
                            *head = reader.next()?;
                        }
                    }
                }
                cols.push((key - base) as u32);
                vals.push(sum);
            }
            sink.row(&cols, &vals)?;
        }
        Ok(())
    }
}

/// Per-thread positions in the runs of the current band.
#[derive(Default)]
struct Cursors {
    band: Option<usize>,
    at: Vec<usize>,
}
