//! The attractive half of the t-SNE gradient, `α Σ_j p_ij w_ij (y_i − y_j)`
//! with `w_ij = 1/(1 + ‖y_i − y_j‖²)`, over the non-zeros of `P`.
//!
//! It was a third of an iteration's CPU at 10,000 points (docs/benchmarks.md,
//! "Where t-SNE's CPU goes"): per entry a random read of `y_j` and an `f64`
//! division, which the scalar loop ran one at a time. A row's entries are
//! now taken 8 at a time into 8 independent partial sums (entry `e` adds
//! into lane `e mod 8`; the lanes are added in order at the end), which an
//! AVX-512 CPU runs as one gather and one division per 8 entries.
//! [`groups`] is the definition in plain Rust; the AVX-512 copy
//! ([`cauchy::force_lanes`]) performs the same operations in the same order
//! without fused multiply-adds, so every CPU gives the same bits (test
//! `lane_sums_match_the_plain_loop_and_every_instruction_set`).

use rayon::prelude::*;

use super::affinity::SparseP;
use super::points::{one_plus_d2, CHUNK};
use crate::fast::cauchy::{self, RowLanes, LANES};

/// Writes `α Σ_j p_ij w_ij (y_i − y_j)` into `out`; returns `Σ p_ij ln w_ij`
/// (unexaggerated) when `want_log`, else 0. Rows run in fixed chunks whose
/// log sums are added in order, so the result does not depend on the number
/// of threads.
pub fn attraction<const D: usize>(
    p: &SparseP,
    y: &[[f64; D]],
    exaggeration: f64,
    want_log: bool,
    out: &mut [[f64; D]],
) -> f64 {
    let parts: Vec<f64> = out
        .par_chunks_mut(CHUNK)
        .enumerate()
        .map(|(c, chunk)| {
            let first = c * CHUNK;
            rows(p, y, first, exaggeration, chunk);
            match want_log {
                true => log_weights(p, y, first..first + chunk.len()),
                false => 0.0,
            }
        })
        .collect();
    parts.iter().sum()
}

/// The attraction on rows `first..first + out.len()`: each row's whole
/// groups of [`LANES`] entries by the vector kernel when the CPU has one,
/// else by [`groups`]; then its last entries by [`tail`].
fn rows<const D: usize>(
    p: &SparseP,
    y: &[[f64; D]],
    first: usize,
    exaggeration: f64,
    out: &mut [[f64; D]],
) {
    for (o, i) in out.iter_mut().zip(first..) {
        let (cols, vals) = p.row(i);
        let full = cols.len() / LANES * LANES;
        let (cols, rest) = cols.split_at(full);
        let (vals, rest_vals) = vals.split_at(full);
        let mut acc = cauchy::force_lanes(&y[i], cols, vals, y)
            .unwrap_or_else(|| groups(&y[i], cols, vals, y));
        tail(&mut acc, &y[i], rest, rest_vals, y);
        *o = finish(acc, exaggeration);
    }
}

/// [`rows`] in plain Rust only (the reference the tests hold the vector
/// kernel to).
#[cfg(test)]
fn portable_rows<const D: usize>(
    p: &SparseP,
    y: &[[f64; D]],
    first: usize,
    exaggeration: f64,
    out: &mut [[f64; D]],
) {
    for (o, i) in out.iter_mut().zip(first..) {
        let (cols, vals) = p.row(i);
        let full = cols.len() / LANES * LANES;
        let mut acc = groups(&y[i], &cols[..full], &vals[..full], y);
        tail(&mut acc, &y[i], &cols[full..], &vals[full..], y);
        *o = finish(acc, exaggeration);
    }
}

/// The definition of a row's lane sums over whole groups of [`LANES`]
/// entries (`cols.len()` a multiple of it), which
/// [`cauchy::force_lanes`] follows operation for operation.
fn groups<const D: usize>(
    yi: &[f64; D],
    cols: &[u32],
    vals: &[f32],
    y: &[[f64; D]],
) -> RowLanes<D> {
    let mut acc = [[0.0f64; LANES]; D];
    for (c, v) in cols.chunks_exact(LANES).zip(vals.chunks_exact(LANES)) {
        for l in 0..LANES {
            let (one_plus, d) = one_plus_d2(yi, &y[c[l] as usize]);
            let pw = f64::from(v[l]) / one_plus;
            for k in 0..D {
                acc[k][l] += pw * d[k];
            }
        }
    }
    acc
}

/// The last `cols.len() < LANES` entries of a row, entry `t` into lane `t`.
#[inline(always)]
fn tail<const D: usize>(
    acc: &mut RowLanes<D>,
    yi: &[f64; D],
    cols: &[u32],
    vals: &[f32],
    y: &[[f64; D]],
) {
    for (l, (&j, &v)) in cols.iter().zip(vals).enumerate() {
        let (one_plus, d) = one_plus_d2(yi, &y[j as usize]);
        let pw = f64::from(v) / one_plus;
        for k in 0..D {
            acc[k][l] += pw * d[k];
        }
    }
}

/// A row's force from its lanes, added in lane order, times `α`.
#[inline(always)]
fn finish<const D: usize>(acc: RowLanes<D>, exaggeration: f64) -> [f64; D] {
    acc.map(|lanes| exaggeration * lanes.iter().sum::<f64>())
}

/// `−Σ p_ij ln(1 + d_ij²)` over the rows `rows`, entry by entry in order (the
/// KL's `Σ p ln w`, wanted every 25 iterations only).
fn log_weights<const D: usize>(p: &SparseP, y: &[[f64; D]], rows: std::ops::Range<usize>) -> f64 {
    let mut log_sum = 0.0;
    for i in rows {
        let (cols, vals) = p.row(i);
        for (&j, &v) in cols.iter().zip(vals) {
            log_sum -= f64::from(v) * one_plus_d2(&y[i], &y[j as usize]).0.ln();
        }
    }
    log_sum
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::testdata::{small_problem, spread_layout};

    /// The lane sums against the plain entry-by-entry loop they replaced,
    /// on rows of every tail length; the same bits from the plain Rust and
    /// from the widest code this CPU runs; the log sum in its old order.
    #[test]
    fn lane_sums_match_the_plain_loop_and_every_instruction_set() {
        let n = 300;
        let p = small_problem(n, 9.0, 5);
        let tails: std::collections::BTreeSet<usize> =
            (0..n).map(|i| p.row(i).0.len() % LANES).collect();
        assert!(tails.len() > 4, "tail lengths covered: {tails:?}");
        let y = spread_layout(n, 6.0, 3);
        let mut fast = vec![[0.0; 2]; n];
        let log = attraction(&p, &y, 4.0, true, &mut fast);
        let mut chunk_logs = vec![0.0; n.div_ceil(CHUNK)];
        for (i, f) in fast.iter().enumerate() {
            let (cols, vals) = p.row(i);
            let mut want = [0.0; 2];
            for (&j, &v) in cols.iter().zip(vals) {
                let (one_plus, d) = one_plus_d2(&y[i], &y[j as usize]);
                for k in 0..2 {
                    want[k] += f64::from(v) / one_plus * d[k];
                }
                chunk_logs[i / CHUNK] -= f64::from(v) * one_plus.ln();
            }
            for k in 0..2 {
                assert!((f[k] - 4.0 * want[k]).abs() <= 1e-13 * (1.0 + want[k].abs()));
            }
        }
        let plain_log: f64 = chunk_logs.iter().sum();
        assert_eq!(log.to_bits(), plain_log.to_bits());
        let mut portable = vec![[0.0; 2]; n];
        for (c, chunk) in portable.chunks_mut(CHUNK).enumerate() {
            portable_rows(&p, &y, c * CHUNK, 4.0, chunk);
        }
        for (a, b) in fast.iter().zip(&portable) {
            assert_eq!(a.map(f64::to_bits), b.map(f64::to_bits));
        }
    }

    /// In 3-D too (the Barnes–Hut layouts), the vector code gives the plain
    /// code's bits.
    #[test]
    fn three_dimensional_rows_match_the_plain_rows() {
        let n = 120;
        let p = small_problem(n, 7.0, 2);
        let (a, b) = (spread_layout(n, 4.0, 7), spread_layout(n, 4.0, 9));
        let y: Vec<[f64; 3]> = a.iter().zip(&b).map(|(a, b)| [a[0], a[1], b[0]]).collect();
        let (mut fast, mut plain) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
        rows(&p, &y, 0, 1.0, &mut fast);
        portable_rows(&p, &y, 0, 1.0, &mut plain);
        for (a, b) in fast.iter().zip(&plain) {
            assert_eq!(a.map(f64::to_bits), b.map(f64::to_bits));
        }
    }
}
