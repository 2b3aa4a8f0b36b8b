//! Quality of a low-dimensional layout: trustworthiness (Venna & Kaski;
//! the measure scikit-learn's `trustworthiness` and the shared scorer
//! compute) and the Spearman correlation of a coordinate with a known one.

use ndarray::ArrayView2;
use rayon::prelude::*;

use crate::geometry::knn::knn;
use crate::stats::spearman;

/// Trustworthiness of `y` as a layout of `x` with `k` neighbours:
/// `1 − 2/(n k (2n − 3k − 1)) Σ_i Σ_{j ∈ U_k(i)} (r(i, j) − k)`, where
/// `U_k(i)` are the layout neighbours of `i` that are not among its `k`
/// nearest in `x` and `r(i, j)` is `j`'s rank among `i`'s neighbours in `x`.
/// Exact and `O(n²)` per point set: meant for tests and benchmarks.
pub fn trustworthiness(x: ArrayView2<'_, f32>, y: ArrayView2<'_, f32>, k: usize) -> f64 {
    let n = x.nrows();
    let x = x.as_standard_layout();
    let near_y = knn(y, k);
    let penalty: f64 = (0..n)
        .into_par_iter()
        .map(|i| {
            let xi = x.row(i);
            let d: Vec<f64> = (0..n)
                .map(|j| {
                    xi.iter()
                        .zip(x.row(j).iter())
                        .map(|(&a, &b)| (f64::from(a) - f64::from(b)).powi(2))
                        .sum()
                })
                .collect();
            let mut order: Vec<u32> = (0..n as u32).filter(|&j| j as usize != i).collect();
            order.sort_by(|&a, &b| d[a as usize].total_cmp(&d[b as usize]).then(a.cmp(&b)));
            let mut rank = vec![0usize; n];
            for (r, &j) in order.iter().enumerate() {
                rank[j as usize] = r + 1;
            }
            near_y
                .row(i)
                .0
                .iter()
                .map(|&j| rank[j as usize].saturating_sub(k) as f64)
                .sum::<f64>()
        })
        .sum();
    let (n, k) = (n as f64, k as f64);
    1.0 - 2.0 / (n * k * (2.0 * n - 3.0 * k - 1.0)) * penalty
}

/// The largest absolute Spearman correlation between `truth` and any one
/// column of `y` (an embedding's axes come in any order and sign).
pub fn best_axis_spearman(y: ArrayView2<'_, f64>, truth: &[f64]) -> f64 {
    y.columns()
        .into_iter()
        .map(|c| spearman(&c.to_vec(), truth).abs())
        .fold(0.0, f64::max)
}
