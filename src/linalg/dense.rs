//! Small dense problems: the projected eigenproblem of the Krylov solver and
//! the `b × b` Cholesky factor of a block's Gram matrix.
//!
//! The projected matrix is at most a few hundred rows, solved once per
//! restart. nalgebra (a mandated crate) does it; faer measured 2-3x faster at
//! these sizes (n = 300: 11 ms vs 23 ms; n = 450: 29 ms vs 80 ms) but the
//! projected solve is under 2% of a solve's time, so the extra dependency is
//! not worth its build time here (see the module docs of [`super`]).

use nalgebra::{DMatrix, SymmetricEigen};

/// Eigendecomposition of a symmetric matrix: values ascending, vectors as
/// the columns of a row-major `n × n` matrix (`vectors[i * n + j]` is
/// component `i` of eigenvector `j`).
#[derive(Debug, Clone, PartialEq)]
pub struct SymEigen {
    /// Eigenvalues, ascending.
    pub values: Vec<f64>,
    /// Eigenvectors as columns, row-major.
    pub vectors: Vec<f64>,
}

/// Eigendecomposition of the symmetric row-major `n × n` matrix `a` (only
/// its lower triangle is read).
pub fn sym_eigen(a: &[f64], n: usize) -> SymEigen {
    assert_eq!(a.len(), n * n, "sym_eigen: n × n values");
    let m = DMatrix::from_fn(
        n,
        n,
        |i, j| if i >= j { a[i * n + j] } else { a[j * n + i] },
    );
    let e = SymmetricEigen::new(m);
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&x, &y| e.eigenvalues[x].total_cmp(&e.eigenvalues[y]));
    let values = order.iter().map(|&k| e.eigenvalues[k]).collect();
    let mut vectors = vec![0.0; n * n];
    for (j, &k) in order.iter().enumerate() {
        for i in 0..n {
            vectors[i * n + j] = e.eigenvectors[(i, k)];
        }
    }
    SymEigen { values, vectors }
}

/// Upper Cholesky factor `R` (row-major, `Rᵀ R = G`) of a symmetric
/// positive definite `b × b` matrix; `None` when a pivot falls below
/// `rel · max diag(G)` (the block is numerically rank deficient).
pub fn cholesky_upper(g: &[f64], b: usize, rel: f64) -> Option<Vec<f64>> {
    let scale = (0..b).map(|i| g[i * b + i]).fold(0.0f64, f64::max);
    if !(scale > 0.0) {
        return None;
    }
    let mut r = vec![0.0; b * b];
    for j in 0..b {
        let mut d = g[j * b + j];
        for k in 0..j {
            d -= r[k * b + j] * r[k * b + j];
        }
        if !(d > rel * scale) {
            return None;
        }
        let d = d.sqrt();
        r[j * b + j] = d;
        for i in j + 1..b {
            let mut s = g[j * b + i];
            for k in 0..j {
                s -= r[k * b + j] * r[k * b + i];
            }
            r[j * b + i] = s / d;
        }
    }
    Some(r)
}

/// What [`cholesky_solve`] does with a pivot that is not positive (a
/// numerically rank-deficient system).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum WeakPivot {
    /// Raise the pivot to this positive value (LLE's regularised Gram).
    Floor(f64),
    /// Drop that direction: its part of the solution becomes 0 (PSDVec's ridge).
    Drop,
}

/// Solves `A x = b` in place for a symmetric positive definite `n × n` `A`
/// given by its lower triangle (row-major, overwritten by its Cholesky
/// factor `L`, `L Lᵀ = A`); `b` becomes `x`. Never fails: a weak pivot is
/// handled as `weak` says.
pub fn cholesky_solve(a: &mut [f64], n: usize, b: &mut [f64], weak: WeakPivot) {
    for j in 0..n {
        let mut d = a[j * n + j];
        for k in 0..j {
            d -= a[j * n + k] * a[j * n + k];
        }
        let d = match weak {
            WeakPivot::Floor(floor) => d.max(floor).sqrt(),
            WeakPivot::Drop if d > 0.0 => d.sqrt(),
            WeakPivot::Drop => f64::INFINITY,
        };
        a[j * n + j] = d;
        for i in j + 1..n {
            let mut s = a[i * n + j];
            for k in 0..j {
                s -= a[i * n + k] * a[j * n + k];
            }
            a[i * n + j] = s / d;
        }
    }
    // L y = b, then Lᵀ x = y.
    for i in 0..n {
        let mut s = b[i];
        for k in 0..i {
            s -= a[i * n + k] * b[k];
        }
        b[i] = s / a[i * n + i];
    }
    for i in (0..n).rev() {
        let mut s = b[i];
        for k in i + 1..n {
            s -= a[k * n + i] * b[k];
        }
        b[i] = s / a[i * n + i];
    }
}

/// `A B` for row-major `A` (`m × k`) and `B` (`k × n`).
pub fn matmul(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for l in 0..k {
            let x = a[i * k + l];
            if x != 0.0 {
                for j in 0..n {
                    c[i * n + j] += x * b[l * n + j];
                }
            }
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eigen_of_the_psdvec_appendix_matrices() {
        // docs/methods/spectral.md, "A test case: the PSDVec appendix matrices":
        // M2 has eigenvalues (-3, 1, 2).
        let m2 = [0.2, -1.6, 0.0, -1.6, -2.2, 0.0, 0.0, 0.0, 2.0];
        let e = sym_eigen(&m2, 3);
        for (v, x) in e.values.iter().zip([-3.0, 1.0, 2.0]) {
            assert!((v - x).abs() < 1e-12, "{:?}", e.values);
        }
        // A v = λ v for every column.
        for j in 0..3 {
            for i in 0..3 {
                let av: f64 = (0..3).map(|k| m2[i * 3 + k] * e.vectors[k * 3 + j]).sum();
                assert!((av - e.values[j] * e.vectors[i * 3 + j]).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn cholesky_by_hand() {
        // G = [[4, 2], [2, 5]] = Rᵀ R with R = [[2, 1], [0, 2]].
        let r = cholesky_upper(&[4.0, 2.0, 2.0, 5.0], 2, 1e-14).unwrap();
        assert_eq!(r, vec![2.0, 1.0, 0.0, 2.0]);
        assert!(cholesky_upper(&[1.0, 1.0, 1.0, 1.0], 2, 1e-12).is_none());
        assert_eq!(matmul(&[1.0, 2.0], &[3.0, 4.0], 1, 2, 1), vec![11.0]);
    }

    #[test]
    fn cholesky_solve_solves_and_handles_weak_pivots() {
        // A = [[4, 2], [2, 3]], b = [2, 5] -> x = [-0.5, 2].
        let mut a = vec![4.0, 0.0, 2.0, 3.0];
        let mut b = vec![2.0, 5.0];
        cholesky_solve(&mut a, 2, &mut b, WeakPivot::Drop);
        assert!(
            (b[0] + 0.5).abs() < 1e-12 && (b[1] - 2.0).abs() < 1e-12,
            "{b:?}"
        );
        // Rank one: [[1, 1], [1, 1]]; the second direction is dropped or floored.
        let mut a = vec![1.0, 0.0, 1.0, 1.0];
        let mut b = vec![1.0, 1.0];
        cholesky_solve(&mut a, 2, &mut b, WeakPivot::Drop);
        assert_eq!(b, vec![1.0, 0.0]);
        let mut a = vec![1.0, 0.0, 1.0, 1.0];
        let mut b = vec![1.0, 1.0];
        cholesky_solve(&mut a, 2, &mut b, WeakPivot::Floor(1e-12));
        assert!(b.iter().all(|x| x.is_finite()), "{b:?}");
    }
}
