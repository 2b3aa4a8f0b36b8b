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
    /// NMF multiplicative updates after NNDSVD (0: NNDSVD alone, the thesis).
    pub nmf_iterations: usize,
}

impl Default for SplitSolver {
    fn default() -> Self {
        SplitSolver {
            tol: 1e-4,
            block: 4,
            max_steps: 2000,
            nmf_iterations: 0,
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
    factors(svd).1
}

/// Both NNDSVD factors: `W` (`m × k`, column `j` = `√(σ_j m) u'`) and `H`
/// (`k × n`), so that `W H` approximates `C`.
pub fn factors(svd: &Svd) -> (Array2<f64>, Array2<f64>) {
    let k = svd.s.len();
    let (m, n) = (svd.u.nrows(), svd.v.nrows());
    let mut w = Array2::<f64>::zeros((m, k));
    let mut h = Array2::<f64>::zeros((k, n));
    for j in 0..k {
        let sigma = svd.s[j].max(0.0);
        let (u, v) = (svd.u.column(j), svd.v.column(j));
        if j == 0 {
            let scale = sigma.sqrt();
            h.row_mut(j)
                .iter_mut()
                .zip(v)
                .for_each(|(h, &x)| *h = scale * x.abs());
            w.column_mut(j)
                .iter_mut()
                .zip(u)
                .for_each(|(w, &x)| *w = scale * x.abs());
            continue;
        }
        let (up, un) = part_norms(u);
        let (vp, vn) = part_norms(v);
        let (mp, mn) = (up * vp, un * vn);
        let (sign, mass, unorm, vnorm) = if mp >= mn {
            (1.0, mp, up, vp)
        } else {
            (-1.0, mn, un, vn)
        };
        if mass <= 0.0 {
            continue;
        }
        let scale = (sigma * mass).sqrt();
        h.row_mut(j)
            .iter_mut()
            .zip(v)
            .for_each(|(h, &x)| *h = scale / vnorm * (sign * x).max(0.0));
        w.column_mut(j)
            .iter_mut()
            .zip(u)
            .for_each(|(w, &x)| *w = scale / unorm * (sign * x).max(0.0));
    }
    (w, h)
}

/// `iterations` multiplicative updates (Lee & Seung, Frobenius loss) of
/// `C ≈ W H` from the given factors: the optional NMF refinement of the
/// NNDSVD start (the thesis uses none; 0 iterations is its method).
pub fn refine(c: &Csr, w: &mut Array2<f64>, h: &mut Array2<f64>, iterations: usize) {
    const EPS: f64 = 1e-12;
    let k = h.nrows();
    let rows = c.shape().0;
    let entries = |r: usize| {
        let (a, b) = (c.indptr()[r], c.indptr()[r + 1]);
        c.indices()[a..b].iter().zip(&c.data()[a..b])
    };
    for _ in 0..iterations {
        // H <- H * (W^T C) / (W^T W H)
        let mut wtc = Array2::<f64>::zeros(h.dim());
        for r in 0..rows {
            for (&col, &val) in entries(r) {
                for j in 0..k {
                    wtc[[j, col as usize]] += w[[r, j]] * val;
                }
            }
        }
        let wtwh = w.t().dot(w).dot(h);
        h.zip_mut_with(&wtc, |x, &num| *x *= num);
        h.zip_mut_with(&wtwh, |x, &den| *x /= den + EPS);
        // W <- W * (C H^T) / (W H H^T)
        let mut cht = Array2::<f64>::zeros(w.dim());
        for r in 0..rows {
            for (&col, &val) in entries(r) {
                for j in 0..k {
                    cht[[r, j]] += val * h[[j, col as usize]];
                }
            }
        }
        let whht = w.dot(&h.dot(&h.t()));
        w.zip_mut_with(&cht, |x, &num| *x *= num);
        w.zip_mut_with(&whht, |x, &den| *x /= den + EPS);
    }
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
