//! Jelinek–Mercer smoothed PMI, PSDVec's target matrix (\[P\] eqs 6–7, 11–12).
//!
//! From directional bigram counts `x_ij` (word `i` within the window before
//! word `j`) and unigram probabilities `u`, the smoothed conditional is
//! `P̃(j|i) = (1 − κ) x_ij / x_i* + κ u_j` and the target is
//! `G*_ij = log P̃(j|i) − log u_j`. Unlike PMI it is dense: every absent cell
//! of a row with counts equals `log κ` exactly. So the result is stored as
//! the non-zero cells of `x` plus one *background* value per row, which a
//! caller expands (for the dense core block PSDVec factorises) with
//! [`JmPmi::dense_block`]. A row without any count has no conditional to
//! smooth and falls back to the unigram: `P̃(j|i) = u_j`, so `G*_ij = 0`.

use std::ops::Range;

use ndarray::{Array2, Axis};
use rayon::prelude::*;
use sprs::CsMat;

use super::cells::{as_csr, map_cells, Pattern};
use super::marginals::Marginals;
use super::pmi::{check_counts, LogBase};
use crate::{Error, Result};

/// PSDVec's default smoothing weight (≥ 0.04 degrades embeddings, \[P\] §3.1.3).
pub const DEFAULT_KAPPA: f64 = 0.02;

/// `G*` in sparse form: values on the pattern of the counts, and the value
/// of every other cell of row `i` in `background[i]`.
#[derive(Debug, Clone, PartialEq)]
pub struct JmPmi {
    /// `G*_ij` on the non-zero cells of the counts.
    pub matrix: CsMat<f64>,
    /// `G*_ij` for the absent cells of row `i`: `log κ`, or 0 for empty rows.
    pub background: Vec<f64>,
}

impl JmPmi {
    /// `G*_ij` for any cell.
    pub fn get(&self, i: usize, j: usize) -> f64 {
        self.matrix.get(i, j).copied().unwrap_or(self.background[i])
    }

    /// The dense block `rows × cols` as `f32` (PSDVec's core is the top-left
    /// `k × k` block of the frequency-sorted vocabulary).
    pub fn dense_block(&self, rows: Range<usize>, cols: Range<usize>) -> Array2<f32> {
        let mut out = Array2::<f32>::zeros((rows.len(), cols.len()));
        out.axis_iter_mut(Axis(0))
            .into_par_iter()
            .enumerate()
            .for_each(|(r, mut line)| {
                let i = rows.start + r;
                line.fill(self.background[i] as f32);
                if let Some(row) = self.matrix.outer_view(i) {
                    for (j, &v) in row.iter() {
                        if cols.contains(&j) {
                            line[j - cols.start] = v as f32;
                        }
                    }
                }
            });
        out
    }
}

/// Unigram probabilities of the first `n` ids from their counts,
/// renormalised over those `n` words (as PSDVec does for a truncated vocabulary).
pub fn unigram_probabilities(counts: &[u64], n: usize) -> Vec<f64> {
    let kept = &counts[..n.min(counts.len())];
    let total: f64 = kept.iter().map(|&c| c as f64).sum();
    kept.iter().map(|&c| c as f64 / total).collect()
}

/// Computes `G*` from the directional counts `x` (rows = earlier word), their
/// marginals, the unigram probabilities `unigram` (one per column, all `> 0`)
/// and `kappa` in `(0, 1)`.
pub fn jelinek_mercer(
    x: &CsMat<f64>,
    marginals: &Marginals,
    unigram: &[f64],
    kappa: f64,
    log_base: LogBase,
) -> Result<JmPmi> {
    if !(kappa > 0.0 && kappa < 1.0) {
        return Err(Error::param(
            "kappa",
            format!("{kappa} (expected a weight in (0, 1), e.g. {DEFAULT_KAPPA})"),
        ));
    }
    marginals.check_shape(x.shape())?;
    if unigram.len() != x.cols() {
        return Err(Error::param(
            "unigram",
            format!("{} probabilities for {} columns", unigram.len(), x.cols()),
        ));
    }
    if let Some(p) = unigram.iter().find(|&&p| !(p > 0.0 && p.is_finite())) {
        return Err(Error::param(
            "unigram",
            format!("probability {p} (every word needs a positive probability)"),
        ));
    }
    let x = as_csr(x);
    check_counts(&x)?;
    let scale = log_base.from_ln();
    let rows = &marginals.rows;
    let matrix = map_cells(&x, Pattern::Keep, |i, j, v| {
        let u = unigram[j];
        let p = if rows[i] > 0.0 {
            (1.0 - kappa) * v / rows[i] + kappa * u
        } else {
            u
        };
        (p.ln() - u.ln()) * scale
    });
    let background = rows
        .iter()
        .map(|&r| if r > 0.0 { kappa.ln() * scale } else { 0.0 })
        .collect();
    Ok(JmPmi { matrix, background })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_computed_two_by_two() {
        // x = [[3, 1], [0, 0]]; u = [0.25, 0.75]; kappa = 0.1.
        let x = CsMat::new((2, 2), vec![0, 2, 2], vec![0, 1], vec![3.0, 1.0]);
        let m = Marginals::of(&x);
        let u = [0.25, 0.75];
        let g = jelinek_mercer(&x, &m, &u, 0.1, LogBase::E).unwrap();
        // Row 0: P~(0|0) = 0.9*3/4 + 0.1*0.25 = 0.7; P~(1|0) = 0.9/4 + 0.075 = 0.3.
        assert!((g.get(0, 0) - (0.7f64 / 0.25).ln()).abs() < 1e-12);
        assert!((g.get(0, 1) - (0.3f64 / 0.75).ln()).abs() < 1e-12);
        // Row 1 has no counts: unigram fallback, G* = 0.
        assert_eq!(g.get(1, 0), 0.0);
        let block = g.dense_block(0..2, 1..2);
        assert_eq!(block.shape(), &[2, 1]);
        assert!((block[[0, 0]] as f64 - (0.4f64).ln()).abs() < 1e-6);
        assert_eq!(block[[1, 0]], 0.0);
    }

    #[test]
    fn absent_cells_are_log_kappa() {
        let x = CsMat::new((2, 2), vec![0, 1, 2], vec![1, 0], vec![2.0, 5.0]);
        let m = Marginals::of(&x);
        let g = jelinek_mercer(&x, &m, &[0.5, 0.5], 0.02, LogBase::Two).unwrap();
        assert!((g.get(0, 0) - 0.02f64.log2()).abs() < 1e-12);
        assert!((g.dense_block(0..1, 0..1)[[0, 0]] as f64 - 0.02f64.log2()).abs() < 1e-6);
        // Present cell: P~ = 0.98 + 0.01 = 0.99, over u = 0.5.
        assert!((g.get(0, 1) - (0.99f64 / 0.5).log2()).abs() < 1e-12);
    }

    #[test]
    fn rejects_bad_inputs() {
        let x = CsMat::new((1, 1), vec![0, 1], vec![0], vec![1.0]);
        let m = Marginals::of(&x);
        assert!(jelinek_mercer(&x, &m, &[1.0], 0.0, LogBase::E).is_err());
        assert!(jelinek_mercer(&x, &m, &[0.0], 0.02, LogBase::E).is_err());
        assert!(jelinek_mercer(&x, &m, &[1.0, 0.0], 0.02, LogBase::E).is_err());
    }

    #[test]
    fn unigram_from_counts_renormalises() {
        assert_eq!(unigram_probabilities(&[6, 2, 2], 2), vec![0.75, 0.25]);
    }
}
