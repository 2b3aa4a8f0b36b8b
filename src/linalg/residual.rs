//! Exact residuals of a finished solve, computed with fresh products (the
//! solver's own residuals are estimates from the projected problem).

use ndarray::{Array2, ArrayView2};

use super::csr::Csr;
use super::operator::SymmetricOperator;

/// `‖S x_j − θ_j x_j‖ / |θ_j|` for each column `x_j` of `vectors`.
pub fn eigen_residuals(
    op: &impl SymmetricOperator,
    values: &[f64],
    vectors: ArrayView2<'_, f64>,
) -> Vec<f64> {
    let k = vectors.ncols();
    let x = vectors.as_standard_layout();
    let mut y = vec![0.0; op.size() * k];
    op.apply(x.as_slice().expect("standard layout"), &mut y, k);
    let y = Array2::from_shape_vec((op.size(), k), y).expect("n × k");
    (0..k)
        .map(|j| {
            let r: f64 = y
                .column(j)
                .iter()
                .zip(x.column(j))
                .map(|(a, v)| (a - values[j] * v).powi(2))
                .sum();
            r.sqrt() / values[j].abs().max(f64::MIN_POSITIVE)
        })
        .collect()
}

/// `max(‖A v − σ u‖, ‖Aᵀ u − σ v‖) / σ` for each singular triplet.
pub fn svd_residuals(
    a: &Csr,
    u: ArrayView2<'_, f64>,
    s: &[f64],
    v: ArrayView2<'_, f64>,
) -> Vec<f64> {
    let k = s.len();
    let (m, n) = a.shape();
    let (u, v) = (u.as_standard_layout(), v.as_standard_layout());
    let mut av = vec![0.0; m * k];
    a.mul_block(v.as_slice().expect("standard layout"), &mut av, k);
    let mut atu = vec![0.0; n * k];
    a.transpose()
        .mul_block(u.as_slice().expect("standard layout"), &mut atu, k);
    (0..k)
        .map(|j| {
            let left: f64 = (0..m)
                .map(|i| (av[i * k + j] - s[j] * u[[i, j]]).powi(2))
                .sum();
            let right: f64 = (0..n)
                .map(|i| (atu[i * k + j] - s[j] * v[[i, j]]).powi(2))
                .sum();
            left.max(right).sqrt() / s[j].max(f64::MIN_POSITIVE)
        })
        .collect()
}
