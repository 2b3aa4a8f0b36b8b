//! The model's own held-out perplexity: row `i` of `Ŝ`, divided by its sum
//! `Σ_j Ŝ_ij = Σ_k W_ik` (exactly 1 on the simplex), is a distribution
//! P(word `j` | word `i`) over the `N` words, so the held-out window counts
//! `T` of the same words score it directly:
//! `exp(−Σ T_ij ln P(j | i) / Σ T_ij)`. No temperature is fitted (unlike the
//! engine's calibrated perplexity); the mass `Ŝ` puts on `j = i`, which `T`
//! never has, is part of the model and counts against it.

use rayon::prelude::*;

use super::model::{kernel, Model, EPS, ROWS_PER_TASK};
use crate::linalg::Csr;

/// Held-out co-occurrence perplexity of `model` on the counts `test`
/// (`n × n`), given the column sums' reciprocals `inv_s`; `None` when `test`
/// is empty.
pub fn perplexity(model: &Model, test: &Csr, inv_s: &[f64]) -> Option<f64> {
    let n = model.n();
    assert_eq!(test.shape(), (n, n), "held-out counts must be n x n");
    let partials: Vec<(f64, f64)> = (0..n.div_ceil(ROWS_PER_TASK))
        .into_par_iter()
        .map(|b| {
            let rows = b * ROWS_PER_TASK..((b + 1) * ROWS_PER_TASK).min(n);
            block_log_likelihood(model, test, inv_s, rows)
        })
        .collect();
    let (mut ll, mut mass) = (0.0, 0.0);
    for (l, m) in partials {
        ll += l;
        mass += m;
    }
    (mass > 0.0).then(|| (-ll / mass).exp())
}

/// `(Σ T_ij ln P(j | i), Σ T_ij)` over `rows`.
fn block_log_likelihood(
    model: &Model,
    test: &Csr,
    inv_s: &[f64],
    rows: std::ops::Range<usize>,
) -> (f64, f64) {
    let (indptr, indices, data) = (test.indptr(), test.indices(), test.data());
    let mut u = vec![0f64; model.r()];
    let (mut ll, mut mass) = (0.0, 0.0);
    for i in rows {
        if indptr[i] == indptr[i + 1] {
            continue;
        }
        let wi = model.row(i);
        let norm: f64 = wi.iter().map(|&x| x as f64).sum();
        // An all-zero row predicts nothing: every cell then scores ln EPS.
        let inv_norm = if norm > 0.0 { 1.0 / norm } else { 0.0 };
        for ((u, &x), &q) in u.iter_mut().zip(wi).zip(inv_s) {
            *u = x as f64 * q * inv_norm;
        }
        for k in indptr[i]..indptr[i + 1] {
            let t = data[k];
            let p = kernel::dot(&u, model.row(indices[k] as usize)) + EPS;
            ll += t * p.ln();
            mass += t;
        }
    }
    (ll, mass)
}
