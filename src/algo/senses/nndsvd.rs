//! NNDSVD (Boutsidis & Gallopoulos 2008) of a sparse non-negative matrix,
//! the `H` factor only: the soft clustering of its columns that ch.5 of
//! Soleimani uses in place of a full NMF.
//!
//! With the rank-`k` SVD `C ≈ Σ σ_j u_j v_jᵀ` (from [`crate::linalg`]):
//! `H_1 = √σ_1 |v_1|ᵀ` (the leading pair of a non-negative matrix has one
//! sign), and for `j ≥ 2` the positive and negative parts `u₊, u₋, v₊, v₋`
//! of `u_j, v_j`, `m₊ = ‖u₊‖ ‖v₊‖`, `m₋ = ‖u₋‖ ‖v₋‖`; the larger pair is kept,
//! normalised to `v'`, and `H_j = √(σ_j · max(m₊, m₋)) v'ᵀ`.

use ndarray::{Array2, ArrayView1};

use crate::linalg::{Csr, EigenConfig, Svd, TruncatedSvd, Which};
use crate::Result;

/// Settings of the per-word SVD.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SplitSolver {
    /// Relative residual of the singular triplets.
    pub tol: f64,
    /// Block size of the Lanczos solver.
    pub block: usize,
    /// Block steps allowed.
    pub max_steps: u64,
}

impl Default for SplitSolver {
    fn default() -> Self {
        SplitSolver {
            tol: 1e-4,
            block: 4,
            max_steps: 2000,
        }
    }
}

/// The `k` leading singular triplets of `c` (`k < rows`).
pub fn svd(c: Csr, k: usize, solver: SplitSolver, seed: u64) -> Result<Svd> {
    let config = EigenConfig {
        tol: solver.tol,
        block: solver.block,
        max_steps: solver.max_steps,
        seed,
        ..EigenConfig::new(k, Which::LargestAlgebraic)
    };
    Ok(TruncatedSvd::new(c, config)?.solve(|_| {}))
}

/// The NNDSVD `H` (`k × n`, non-negative) of a finished SVD.
pub fn h_factor(svd: &Svd) -> Array2<f64> {
    let k = svd.s.len();
    let n = svd.v.nrows();
    let mut h = Array2::<f64>::zeros((k, n));
    for j in 0..k {
        let sigma = svd.s[j].max(0.0);
        let (u, v) = (svd.u.column(j), svd.v.column(j));
        let mut row = h.row_mut(j);
        if j == 0 {
            let scale = sigma.sqrt();
            row.iter_mut()
                .zip(v)
                .for_each(|(h, &x)| *h = scale * x.abs());
            continue;
        }
        let (up, un) = part_norms(u);
        let (vp, vn) = part_norms(v);
        let (mp, mn) = (up * vp, un * vn);
        let (sign, m, norm) = if mp >= mn {
            (1.0, mp, vp)
        } else {
            (-1.0, mn, vn)
        };
        if m <= 0.0 || norm <= 0.0 {
            continue;
        }
        let scale = (sigma * m).sqrt() / norm;
        row.iter_mut()
            .zip(v)
            .for_each(|(h, &x)| *h = scale * (sign * x).max(0.0));
    }
    h
}

/// `(‖x₊‖, ‖x₋‖)`: norms of the positive and negative parts.
fn part_norms(x: ArrayView1<'_, f64>) -> (f64, f64) {
    let (mut p, mut n) = (0.0, 0.0);
    for &v in x {
        if v > 0.0 {
            p += v * v;
        } else {
            n += v * v;
        }
    }
    (p.sqrt(), n.sqrt())
}
