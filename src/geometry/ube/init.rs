//! Initial rows: points drawn uniformly on the unit sphere (Gaussian rows
//! normalised), the same draw as KUBWE's initialisation, in `f64`.

use ndarray::Array2;

/// `n` random unit rows of dimension `dim`, from `seed`.
pub fn random_sphere(n: usize, dim: usize, seed: u64) -> Array2<f64> {
    let mut y = crate::geometry::random::random_sphere(n, dim, seed).mapv(f64::from);
    for mut row in y.rows_mut() {
        let norm = row.dot(&row).sqrt();
        row.mapv_inplace(|v| v / norm);
    }
    y
}
