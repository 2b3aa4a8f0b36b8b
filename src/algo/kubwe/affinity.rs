//! The input matrix `A` of KUBWE (Soleimani §3.3.1): symmetric co-occurrence
//! counts with harmonic `1/d` weights over a window `L`, turned into PPMI
//! with context-distribution smoothing (`cds` = 0.75, base 2) by
//! [`crate::cooc`].
//!
//! Symmetry: the counts are symmetric, but smoothing only the context side
//! makes `a_ij ≠ a_ji` (even the positive patterns differ). The thesis updates
//! word `i` from "its entire row" of `A`, and the authors' code reads the
//! matrix row by row as written, so by default `A` is used as is: row `i`
//! alone decides whom word `i` attracts (`P_i`) and whom it may repel
//! (`N_i`). `symmetric = true` uses `(A + Aᵀ)/2` instead (pattern = union),
//! which makes the update the exact gradient of the reported energy.
//!
//! The diagonal is dropped: `a_ii y_i · y_i = a_ii` is constant on the sphere
//! and carries no direction, and the repulsion already skips `j = i`.
//! Stored as CSR with sorted `u32` column ids (the fast search binary-searches
//! them) and `f32` values.

use sprs::CsMat;

use crate::cooc::{count_corpus, pmi, CountConfig, LogBase, Marginals, PmiConfig, Summary};
use crate::cooc::{Weighting, Window};
use crate::corpus::Corpus;
use crate::Result;

/// The positive part of `A` without its diagonal, row-major.
#[derive(Debug, Clone, PartialEq)]
pub struct Affinity {
    indptr: Vec<usize>,
    indices: Vec<u32>,
    values: Vec<f32>,
}

/// How `A` is derived from a corpus.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AffinityConfig {
    /// Window `L` each side; a pair at distance `d` counts `1/d`.
    pub window: usize,
    /// Context-distribution smoothing exponent.
    pub cds: f64,
    /// Use `(A + Aᵀ)/2` instead of `A`.
    pub symmetric: bool,
}

impl AffinityConfig {
    /// The counting `A` starts from: harmonic, symmetric, window `L`.
    pub fn count_config(&self) -> CountConfig {
        CountConfig {
            window: Window::symmetric(self.window, Weighting::Harmonic),
            max_vocab: None,
        }
    }
}

impl Affinity {
    /// Counts the training split of `corpus` and derives `A`; returns it with
    /// a one-line description for the log.
    pub fn from_corpus(corpus: &Corpus, config: &AffinityConfig) -> Result<(Affinity, String)> {
        Affinity::from_counts(&count_corpus(corpus, &config.count_config())?, config)
    }

    /// Derives `A` from counts made with [`AffinityConfig::count_config`].
    pub fn from_counts(counts: &CsMat<f64>, config: &AffinityConfig) -> Result<(Affinity, String)> {
        let marginals = Marginals::of(counts);
        let ppmi = pmi(
            counts,
            &marginals,
            &PmiConfig::ppmi(LogBase::Two).with_cds(config.cds),
        )?;
        let s = Summary::of(&ppmi);
        let a = Affinity::from_matrix(&ppmi, config.symmetric);
        let line = format!(
            "kubwe: A = PPMI (cds {}, bits) of {}x{} harmonic counts (window {}): {} positive cells{}, max {:.2}; {} off-diagonal used ({:.1} per word)",
            config.cds,
            ppmi.rows(),
            ppmi.cols(),
            config.window,
            s.positive,
            if config.symmetric { ", symmetrised (A+Aᵀ)/2" } else { "" },
            s.max,
            a.nnz(),
            a.nnz() as f64 / a.len().max(1) as f64,
        );
        Ok((a, line))
    }

    /// Keeps the positive off-diagonal cells of a square matrix (averaged with
    /// its transpose if `symmetric`).
    pub fn from_matrix(m: &CsMat<f64>, symmetric: bool) -> Affinity {
        // Negative cells are dropped before averaging, so a cell positive on
        // one side only still contributes half its value.
        let m = if m.is_csr() { m.clone() } else { m.to_csr() };
        let m = m.map(|&v| v.max(0.0));
        let m = if symmetric {
            let t = m.transpose_view().to_csr();
            (&m + &t).map(|v| 0.5 * v)
        } else {
            m
        };
        let n = m.rows();
        let mut indptr = Vec::with_capacity(n + 1);
        let (mut indices, mut values) = (Vec::new(), Vec::new());
        indptr.push(0);
        for (i, row) in m.outer_iterator().enumerate() {
            for (j, &v) in row.iter() {
                if j != i && v > 0.0 {
                    indices.push(j as u32);
                    values.push(v as f32);
                }
            }
            indptr.push(indices.len());
        }
        Affinity {
            indptr,
            indices,
            values,
        }
    }

    /// From explicit rows of `(column, value)` (tests and toy problems);
    /// non-positive and diagonal entries are dropped, columns sorted.
    pub fn from_rows(rows: &[Vec<(u32, f32)>]) -> Affinity {
        let mut indptr = vec![0];
        let (mut indices, mut values) = (Vec::new(), Vec::new());
        for (i, row) in rows.iter().enumerate() {
            let mut row: Vec<(u32, f32)> = row
                .iter()
                .copied()
                .filter(|&(j, v)| j as usize != i && v > 0.0)
                .collect();
            row.sort_unstable_by_key(|&(j, _)| j);
            row.dedup_by_key(|&mut (j, _)| j);
            indices.extend(row.iter().map(|&(j, _)| j));
            values.extend(row.iter().map(|&(_, v)| v));
            indptr.push(indices.len());
        }
        Affinity {
            indptr,
            indices,
            values,
        }
    }

    /// Number of words (rows).
    pub fn len(&self) -> usize {
        self.indptr.len() - 1
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Stored (positive, off-diagonal) cells.
    pub fn nnz(&self) -> usize {
        self.indices.len()
    }

    /// Row `i`: the sorted positive contexts `P_i` and their values `a_ij`.
    #[inline]
    pub fn row(&self, i: usize) -> (&[u32], &[f32]) {
        let r = self.indptr[i]..self.indptr[i + 1];
        (&self.indices[r.clone()], &self.values[r])
    }

    /// `a_ij` (0 when absent).
    pub fn get(&self, i: usize, j: usize) -> f32 {
        let (cols, vals) = self.row(i);
        cols.binary_search(&(j as u32)).map_or(0.0, |k| vals[k])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_positive_off_diagonal_cells() {
        // [[2, 1, 0], [0.5, 0, -1], [0, 3, 4]] (a -1 cannot come from PPMI but must be dropped)
        let m = CsMat::new(
            (3, 3),
            vec![0, 2, 4, 6],
            vec![0, 1, 0, 2, 1, 2],
            vec![2.0, 1.0, 0.5, -1.0, 3.0, 4.0],
        );
        let a = Affinity::from_matrix(&m, false);
        assert_eq!(a.row(0), (&[1u32][..], &[1.0f32][..]));
        assert_eq!(a.row(1), (&[0u32][..], &[0.5f32][..]));
        assert_eq!(a.row(2), (&[1u32][..], &[3.0f32][..]));
        let s = Affinity::from_matrix(&m, true);
        assert_eq!(s.row(0), (&[1u32][..], &[0.75f32][..]));
        assert_eq!(s.row(1), (&[0u32, 2][..], &[0.75f32, 1.5][..]));
        assert_eq!(s.get(2, 1), 1.5);
        assert_eq!(s.get(2, 0), 0.0);
    }

    #[test]
    fn rows_are_sorted_and_filtered() {
        let a = Affinity::from_rows(&[vec![(2, 1.0), (1, 2.0), (0, 5.0)], vec![(0, 0.0)], vec![]]);
        assert_eq!(a.row(0), (&[1u32, 2][..], &[2.0f32, 1.0][..]));
        assert_eq!(a.row(1).0.len(), 0);
        assert_eq!((a.len(), a.nnz()), (3, 2));
    }
}
