//! Algorithm 1 on the core block: block coordinate descent for the weighted
//! rank-`N` PSD approximation `min Σ f_ij (G*_ij − X_ij)²`.
//!
//! Each iteration builds `G_t = W∘G* + (1 − W)∘X_{t−1}`, symmetrises it and
//! replaces `X` by its nearest rank-`N` PSD matrix in Frobenius norm
//! (Higham): the top `N` eigenpairs, negative eigenvalues dropped. With
//! `W ∈ [0, 1]` the weighted loss is majorised by `‖G_t − X‖²` up to a
//! constant, touching at `X_{t−1}`, so at a fixed rank the loss never rises
//! (with the code's rank annealing it may, by the last dropped direction).

use crate::fast::mixed::dot64 as dot;
use ndarray::Array2;
use rayon::prelude::*;
use sprs::CsMat;

use super::input::Cells;
use super::operator::{Middle, SparsePlusLowRank};
use crate::linalg::{Csr, EigenConfig, Lanczos, SymmetricOperator, Which};
use crate::{Error, Result};

/// Rows per parallel task of the loss (fixed: sums are added in task order).
const ROWS_PER_TASK: usize = 256;

/// The current iterate `X`.
#[derive(Debug, Clone, PartialEq)]
pub enum Iterate {
    /// `X_0 = G*/2`.
    Start,
    /// `X = V Vᵀ`, `V` row-major `n × r` (`r` = positive eigenvalues kept).
    Factor {
        /// `Q diag(√λ)`.
        v: Vec<f64>,
        /// Columns of `v`.
        r: usize,
    },
}

/// The top eigenpairs kept by one PSD step.
#[derive(Debug, Clone, PartialEq)]
pub struct PsdStep {
    /// `V = Q diag(√λ)` of the positive eigenvalues among the top `k`, row-major `n × r`.
    pub v: Vec<f64>,
    /// Columns of `v`.
    pub r: usize,
    /// The top `k` eigenvalues (descending), negative ones included.
    pub values: Vec<f64>,
    /// Operator applications (per vector) of the eigensolve.
    pub matvecs: u64,
    /// Largest relative residual of the eigenpairs.
    pub residual: f64,
}

/// The nearest PSD matrix of rank at most `k` to the symmetric operator
/// `op` (Frobenius norm): its `k` algebraically largest eigenpairs, the
/// non-positive ones dropped, from the block Lanczos solver.
pub fn nearest_psd<Op: SymmetricOperator>(
    op: Op,
    k: usize,
    tol: f64,
    seed: u64,
) -> Result<PsdStep> {
    let n = op.size();
    let mut config = EigenConfig::new(k, Which::LargestAlgebraic);
    config.tol = tol;
    config.seed = seed;
    let pairs = Lanczos::new(op, config)?.solve(|_| {});
    let kept: Vec<usize> = (0..pairs.values.len())
        .filter(|&c| pairs.values[c] > 0.0)
        .collect();
    let r = kept.len();
    let mut v = vec![0.0; n * r];
    for (c_out, &c) in kept.iter().enumerate() {
        let s = pairs.values[c].sqrt();
        for i in 0..n {
            v[i * r + c_out] = pairs.vectors[[i, c]] * s;
        }
    }
    let residual = pairs.residuals.iter().copied().fold(0.0, f64::max);
    Ok(PsdStep {
        v,
        r,
        values: pairs.values,
        matvecs: pairs.status.matvecs,
        residual,
    })
}

/// What one BCD iteration reports.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Iteration {
    /// Weighted residual `Σ f_ij (G*_ij − X_ij)²` of the new iterate.
    pub loss: f64,
    /// Rank asked for.
    pub rank: usize,
    /// Positive eigenvalues kept.
    pub kept: usize,
    /// Smallest kept eigenvalue (0 when none).
    pub smallest: f64,
    /// Eigensolver work and accuracy.
    pub matvecs: u64,
    /// Largest relative eigen-residual.
    pub residual: f64,
}

/// The core solve in progress.
#[derive(Debug, Clone)]
pub struct CoreSolver {
    cells: Cells,
    background: Vec<f64>,
    iterate: Iterate,
}

impl CoreSolver {
    /// A solve of the core cells (`n × n` pattern with `f` and `G*`), `G*`
    /// of the absent cells of row `i` being `background[i]`; starts at
    /// `X_0 = G*/2`.
    pub fn new(cells: Cells, background: Vec<f64>) -> Self {
        debug_assert_eq!(cells.rows(), background.len());
        CoreSolver {
            cells,
            background,
            iterate: Iterate::Start,
        }
    }

    /// Core words.
    pub fn n(&self) -> usize {
        self.background.len()
    }

    /// The current iterate.
    pub fn iterate(&self) -> &Iterate {
        &self.iterate
    }

    /// `X_ij` of the current iterate on a cell of the pattern (`g` = `G*_ij`).
    fn x_at(&self, i: usize, j: usize, g: f64) -> f64 {
        match &self.iterate {
            Iterate::Start => g / 2.0,
            Iterate::Factor { v, r } => dot(&v[i * r..(i + 1) * r], &v[j * r..(j + 1) * r]),
        }
    }

    /// The weighted residual `Σ f_ij (G*_ij − X_ij)²` of the current iterate
    /// (cells with `f = 0`, off the pattern or on the diagonal, add nothing).
    pub fn loss(&self) -> f64 {
        let n = self.n();
        let parts: Vec<f64> = (0..n.div_ceil(ROWS_PER_TASK))
            .into_par_iter()
            .map(|t| {
                let mut sum = 0.0;
                for i in t * ROWS_PER_TASK..((t + 1) * ROWS_PER_TASK).min(n) {
                    let (cols, w, g) = self.cells.row(i);
                    for ((&j, &w), &g) in cols.iter().zip(w).zip(g) {
                        if w > 0.0 {
                            let e = g - self.x_at(i, j as usize, g);
                            sum += w * e * e;
                        }
                    }
                }
                sum
            })
            .collect();
        parts.iter().sum()
    }

    /// `(G_t + G_tᵀ)/2` of the current iterate as a sparse + low-rank operator.
    pub fn target_operator(&self) -> Result<SparsePlusLowRank> {
        let n = self.n();
        let start = matches!(self.iterate, Iterate::Start);
        // Correction on the pattern: W∘(G* − X), plus for X_0 its own
        // pattern part (G* − b 1ᵀ)/2.
        let parts: Vec<Vec<f64>> = (0..n.div_ceil(ROWS_PER_TASK))
            .into_par_iter()
            .map(|t| {
                let rows = t * ROWS_PER_TASK..((t + 1) * ROWS_PER_TASK).min(n);
                let cells = self.cells.indptr[rows.start]..self.cells.indptr[rows.end];
                let mut out = Vec::with_capacity(cells.len());
                for i in rows {
                    let (cols, w, g) = self.cells.row(i);
                    for ((&j, &w), &g) in cols.iter().zip(w).zip(g) {
                        let mut d = w * (g - self.x_at(i, j as usize, g));
                        if start {
                            d += (g - self.background[i]) / 2.0;
                        }
                        out.push(d);
                    }
                }
                out
            })
            .collect();
        let data = parts.concat();
        let indices: Vec<usize> = self.cells.indices.iter().map(|&j| j as usize).collect();
        let d = CsMat::try_new((n, n), self.cells.indptr.clone(), indices, data)
            .map_err(|e| Error::param("core", format!("bad core pattern: {}", e.3)))?;
        let dt: CsMat<f64> = d.transpose_view().to_csr();
        let mut sym = &d + &dt;
        sym.data_mut().iter_mut().for_each(|x| *x *= 0.5);
        let s = Csr::from_sprs(&sym)?;
        Ok(match &self.iterate {
            // b 1ᵀ/2 symmetrised: [b 1] [[0, 1/4], [1/4, 0]] [b 1]ᵀ.
            Iterate::Start => {
                let mut p = vec![0.0; n * 2];
                for (i, &b) in self.background.iter().enumerate() {
                    p[2 * i] = b;
                    p[2 * i + 1] = 1.0;
                }
                SparsePlusLowRank::new(s, p, 2, Middle::Dense(vec![0.0, 0.25, 0.25, 0.0]))
            }
            Iterate::Factor { v, r } => SparsePlusLowRank::new(s, v.clone(), *r, Middle::Identity),
        })
    }

    /// One BCD iteration at rank `rank`; the eigensolver starts from `seed`.
    pub fn iterate_once(&mut self, rank: usize, tol: f64, seed: u64) -> Result<Iteration> {
        let op = self.target_operator()?;
        let step = nearest_psd(op, rank, tol, seed)?;
        let smallest = step.values[..step.r].last().copied().unwrap_or(0.0);
        self.iterate = Iterate::Factor {
            v: step.v,
            r: step.r,
        };
        Ok(Iteration {
            loss: self.loss(),
            rank,
            kept: step.r,
            smallest,
            matvecs: step.matvecs,
            residual: step.residual,
        })
    }

    /// The core vectors `n × dim` (`V = Q diag(√λ)`, zero columns where
    /// fewer than `dim` eigenvalues were positive).
    pub fn vectors(&self, dim: usize) -> Array2<f64> {
        let n = self.n();
        let mut out = Array2::<f64>::zeros((n, dim));
        if let Iterate::Factor { v, r } = &self.iterate {
            let c = (*r).min(dim);
            for i in 0..n {
                for k in 0..c {
                    out[[i, k]] = v[i * r + k];
                }
            }
        }
        out
    }

    /// Bytes the core solve holds at rank `rank`: the pattern (cells, the
    /// symmetrised copy), the factor and the eigensolver's basis.
    pub fn memory_bytes(n: usize, nnz: usize, rank: usize) -> u64 {
        let config = EigenConfig::new(rank.max(1), Which::LargestAlgebraic);
        let basis = config.auto_basis() + 3 * config.block;
        let cells = nnz as u64 * (4 + 8 + 8) + 2 * nnz as u64 * (4 + 8 + 8);
        let dense = n as u64 * (basis + 2 * rank) as u64 * 8;
        cells + dense
    }
}
