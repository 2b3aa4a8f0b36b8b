//! Principal component analysis to a few dimensions.
//!
//! Three routes to the same answer, picked by shape ([`PcaSolver::Auto`]):
//!
//! - few dimensions (`d ≤ 500`): the `d × d` covariance and its dense
//!   symmetric eigendecomposition (nalgebra);
//! - few points (`n ≤ 500`): the `n × n` Gram matrix instead;
//! - both large: randomized range finding with power iterations (Halko,
//!   Martinsson & Tropp 2011, as scikit-learn's `randomized` solver), which
//!   costs O(n d (k + 10)) per pass instead of O(n d²).
//!
//! Every route centres the data in `f64`. Signs are fixed so that each
//! component's largest-magnitude coordinate is positive, so results are
//! deterministic and comparable across solvers.

use nalgebra::{DMatrix, SymmetricEigen};
use ndarray::{Array2, ArrayView2, Axis};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use super::random::gaussian;
use crate::{Error, Result};

/// Sizes up to which the dense routes are used.
const DENSE_LIMIT: usize = 500;
/// Oversampling of the randomized range.
const OVERSAMPLE: usize = 10;
/// Power iterations of the randomized solver (scikit-learn's choice for few components).
const POWER_ITERS: usize = 7;

/// Which algorithm computes the components.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PcaSolver {
    /// Dense for small inputs, randomized for large ones.
    Auto,
    /// Dense eigendecomposition (covariance or Gram matrix, whichever is smaller).
    Exact,
    /// Randomized range finder with power iterations.
    Randomized,
}

/// A PCA projection.
#[derive(Debug, Clone, PartialEq)]
pub struct Pca {
    /// `n × k` coordinates (projections on the components).
    pub coords: Array2<f64>,
    /// Share of the total variance along each component.
    pub explained: Vec<f64>,
    /// The solver actually used.
    pub solver: PcaSolver,
}

/// Projects the rows of `x` onto their first `k` principal components.
/// `seed` drives the randomized solver. Fails when `k` exceeds the rank bound
/// `min(n, d)` or there are fewer than two rows.
pub fn pca(x: ArrayView2<'_, f32>, k: usize, solver: PcaSolver, seed: u64) -> Result<Pca> {
    let (n, d) = x.dim();
    if n < 2 {
        return Err(Error::param(
            "words",
            format!("{n} point(s); PCA needs at least 2"),
        ));
    }
    if k == 0 || k > n.min(d) {
        return Err(Error::param(
            "dimensions",
            format!(
                "{k} components from {n} points of dimension {d}; need 1..={}",
                n.min(d)
            ),
        ));
    }
    super::check_finite(x, None)?;
    let xc = centred(x);
    let total: f64 = xc.iter().map(|v| v * v).sum();
    let solver = match solver {
        PcaSolver::Auto if d <= DENSE_LIMIT || n <= DENSE_LIMIT => PcaSolver::Exact,
        PcaSolver::Auto => PcaSolver::Randomized,
        s => s,
    };
    let (mut coords, mut variances) = match solver {
        PcaSolver::Randomized if k + OVERSAMPLE < n.min(d) => randomized(&xc, k, seed),
        _ if d <= n => by_covariance(&xc, k),
        _ => by_gram(&xc, k),
    };
    fix_signs(&mut coords);
    for v in &mut variances {
        *v = if total > 0.0 { *v / total } else { 0.0 };
    }
    Ok(Pca {
        coords,
        explained: variances,
        solver,
    })
}

/// `x` minus its column means, in `f64`.
fn centred(x: ArrayView2<'_, f32>) -> Array2<f64> {
    let mut xc = x.mapv(f64::from);
    if let Some(mean) = xc.mean_axis(Axis(0)) {
        xc -= &mean;
    }
    xc
}

/// The top `k` eigenpairs of a symmetric matrix, largest first.
fn top_eigen(m: DMatrix<f64>, k: usize) -> (Vec<f64>, DMatrix<f64>) {
    let eig = SymmetricEigen::new(m);
    let mut order: Vec<usize> = (0..eig.eigenvalues.len()).collect();
    order.sort_by(|&a, &b| eig.eigenvalues[b].total_cmp(&eig.eigenvalues[a]));
    let values = order[..k]
        .iter()
        .map(|&i| eig.eigenvalues[i].max(0.0))
        .collect();
    let vectors = DMatrix::from_fn(eig.eigenvectors.nrows(), k, |r, c| {
        eig.eigenvectors[(r, order[c])]
    });
    (values, vectors)
}

fn to_nalgebra(a: &Array2<f64>) -> DMatrix<f64> {
    DMatrix::from_fn(a.nrows(), a.ncols(), |r, c| a[[r, c]])
}

fn from_nalgebra(m: &DMatrix<f64>) -> Array2<f64> {
    Array2::from_shape_fn((m.nrows(), m.ncols()), |(r, c)| m[(r, c)])
}

/// Eigenvectors of `XᵀX`; coordinates `X V`; variances are eigenvalues (unscaled sums of squares).
fn by_covariance(xc: &Array2<f64>, k: usize) -> (Array2<f64>, Vec<f64>) {
    let cov = xc.t().dot(xc);
    let (values, vectors) = top_eigen(to_nalgebra(&cov), k);
    (xc.dot(&from_nalgebra(&vectors)), values)
}

/// Eigenvectors `U` of `XXᵀ = U S² Uᵀ`; coordinates `U S`.
fn by_gram(xc: &Array2<f64>, k: usize) -> (Array2<f64>, Vec<f64>) {
    let gram = xc.dot(&xc.t());
    let (values, vectors) = top_eigen(to_nalgebra(&gram), k);
    let mut coords = from_nalgebra(&vectors);
    for (mut col, &v) in coords.axis_iter_mut(Axis(1)).zip(&values) {
        col.mapv_inplace(|u| u * v.sqrt());
    }
    (coords, values)
}

/// Randomized PCA: an orthonormal basis `Q` of the range of `X Ω`, refined
/// by power iterations, then the exact decomposition of the small `Qᵀ X`.
fn randomized(xc: &Array2<f64>, k: usize, seed: u64) -> (Array2<f64>, Vec<f64>) {
    let l = k + OVERSAMPLE;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let omega = Array2::from_shape_simple_fn((xc.ncols(), l), || gaussian(&mut rng));
    let mut q = orthonormal(xc.dot(&omega));
    for _ in 0..POWER_ITERS {
        let z = orthonormal(xc.t().dot(&q));
        q = orthonormal(xc.dot(&z));
    }
    // B = Qᵀ X (l × d); B Bᵀ = U S² Uᵀ; X ≈ Q U S Vᵀ, coordinates Q U S.
    let b = q.t().dot(xc);
    let (values, u) = top_eigen(to_nalgebra(&b.dot(&b.t())), k);
    let mut coords = q.dot(&from_nalgebra(&u));
    for (mut col, &v) in coords.axis_iter_mut(Axis(1)).zip(&values) {
        col.mapv_inplace(|c| c * v.sqrt());
    }
    (coords, values)
}

/// The thin `Q` of a QR decomposition (columns orthonormal).
fn orthonormal(a: Array2<f64>) -> Array2<f64> {
    let qr = to_nalgebra(&a).qr();
    from_nalgebra(&qr.q())
}

/// Flips each column so that its largest-magnitude entry is positive.
fn fix_signs(coords: &mut Array2<f64>) {
    for mut col in coords.axis_iter_mut(Axis(1)) {
        let big = col
            .iter()
            .copied()
            .fold(0.0f64, |a, v| if v.abs() > a.abs() { v } else { a });
        if big < 0.0 {
            col.mapv_inplace(|v| -v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::testdata::gaussian_blobs;

    /// Reference: SVD of the centred matrix, coordinates `U S`, signs fixed the same way.
    fn reference(x: ArrayView2<'_, f32>, k: usize) -> (Array2<f64>, Vec<f64>) {
        let xc = centred(x);
        let svd = to_nalgebra(&xc).svd(true, false);
        let u = svd.u.unwrap();
        let mut order: Vec<usize> = (0..svd.singular_values.len()).collect();
        order.sort_by(|&a, &b| svd.singular_values[b].total_cmp(&svd.singular_values[a]));
        let mut coords = Array2::from_shape_fn((xc.nrows(), k), |(r, c)| {
            u[(r, order[c])] * svd.singular_values[order[c]]
        });
        fix_signs(&mut coords);
        let total: f64 = xc.iter().map(|v| v * v).sum();
        let explained = order[..k]
            .iter()
            .map(|&i| svd.singular_values[i].powi(2) / total)
            .collect();
        (coords, explained)
    }

    fn assert_close(a: &Array2<f64>, b: &Array2<f64>, tol: f64) {
        let scale = b.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).abs() <= tol * scale, "{x} vs {y}");
        }
    }

    #[test]
    fn exact_routes_match_a_dense_svd() {
        // Covariance route (n > d) and Gram route (n < d).
        for (n, d) in [(200, 12), (15, 40)] {
            let x = gaussian_blobs(n, d, 3, 9);
            let got = pca(x.view(), 3, PcaSolver::Exact, 0).unwrap();
            let (want, explained) = reference(x.view(), 3);
            assert_close(&got.coords, &want, 1e-9);
            for (g, w) in got.explained.iter().zip(&explained) {
                assert!((g - w).abs() < 1e-9);
            }
            assert!(got.explained.windows(2).all(|w| w[0] >= w[1]));
        }
    }

    #[test]
    fn randomized_matches_exact_on_a_decaying_spectrum() {
        let x = gaussian_blobs(600, 60, 5, 4);
        let exact = pca(x.view(), 2, PcaSolver::Exact, 0).unwrap();
        let fast = pca(x.view(), 2, PcaSolver::Randomized, 7).unwrap();
        assert_eq!(fast.solver, PcaSolver::Randomized);
        assert_close(&fast.coords, &exact.coords, 1e-6);
        assert_eq!(
            pca(x.view(), 2, PcaSolver::Auto, 0).unwrap().solver,
            PcaSolver::Exact
        );
    }

    #[test]
    fn bad_shapes_are_errors() {
        let x = gaussian_blobs(5, 3, 1, 1);
        assert!(pca(x.view(), 4, PcaSolver::Auto, 0).is_err());
        assert!(pca(x.view(), 0, PcaSolver::Auto, 0).is_err());
        assert!(pca(x.slice(ndarray::s![..1, ..]), 1, PcaSolver::Auto, 0).is_err());
        let mut bad = x.clone();
        bad[[1, 0]] = f32::NAN;
        let e = pca(bad.view(), 2, PcaSolver::Auto, 0).unwrap_err();
        assert!(e.to_string().contains("row 2, value 1 is NaN"), "{e}");
    }
}
