//! Symmetric linear operators the eigensolver can apply to a block of vectors.
//!
//! The solver only ever needs `Y = S X` for a row-major `n × b` block `X`, so
//! a symmetric sparse matrix, the Gram operator `A Aᵀ` of a rectangular or
//! non-symmetric matrix (for its left singular vectors), and a small dense
//! matrix (for tests) all fit the same trait.

use super::csr::Csr;
use crate::{Error, Result};

/// A symmetric `n × n` operator applied to row-major blocks.
pub trait SymmetricOperator: Send + Sync {
    /// The dimension `n`.
    fn size(&self) -> usize;

    /// `Y = S X` with `X` and `Y` row-major `n × b`.
    fn apply(&self, x: &[f64], y: &mut [f64], b: usize);

    /// Stored non-zeros touched by one application (for work accounting).
    fn nnz(&self) -> usize {
        self.size() * self.size()
    }
}

impl<T: SymmetricOperator + ?Sized> SymmetricOperator for &T {
    fn size(&self) -> usize {
        (**self).size()
    }
    fn apply(&self, x: &[f64], y: &mut [f64], b: usize) {
        (**self).apply(x, y, b)
    }
    fn nnz(&self) -> usize {
        (**self).nnz()
    }
}

impl<T: SymmetricOperator + ?Sized> SymmetricOperator for Box<T> {
    fn size(&self) -> usize {
        (**self).size()
    }
    fn apply(&self, x: &[f64], y: &mut [f64], b: usize) {
        (**self).apply(x, y, b)
    }
    fn nnz(&self) -> usize {
        (**self).nnz()
    }
}

/// A sparse matrix known to be symmetric.
#[derive(Debug, Clone)]
pub struct SymmetricCsr(Csr);

impl SymmetricCsr {
    /// Wraps `a` after checking it is square and symmetric to `1e-12` relative.
    pub fn new(a: Csr) -> Result<Self> {
        if !a.is_symmetric(1e-12) {
            let (r, c) = a.shape();
            return Err(Error::param(
                "matrix",
                format!(
                    "the {r}x{c} matrix is not symmetric (an eigensolve needs a symmetric matrix)"
                ),
            ));
        }
        Ok(SymmetricCsr(a))
    }

    /// The matrix.
    pub fn matrix(&self) -> &Csr {
        &self.0
    }
}

impl SymmetricOperator for SymmetricCsr {
    fn size(&self) -> usize {
        self.0.shape().0
    }
    fn apply(&self, x: &[f64], y: &mut [f64], b: usize) {
        self.0.mul_block(x, y, b)
    }
    fn nnz(&self) -> usize {
        self.0.nnz()
    }
}

/// `A Aᵀ` of an `m × n` matrix, applied as `A (Aᵀ X)` without forming it:
/// its eigenvectors are the left singular vectors of `A`, its eigenvalues
/// the squared singular values.
#[derive(Debug, Clone)]
pub struct Gram {
    a: Csr,
    at: Csr,
}

impl Gram {
    /// The Gram operator of `a` (its transpose is built once).
    pub fn new(a: Csr) -> Self {
        let at = a.transpose();
        Gram { a, at }
    }

    /// The matrix `A`.
    pub fn matrix(&self) -> &Csr {
        &self.a
    }

    /// `Aᵀ X` for a row-major `m × b` block: `n × b`.
    pub fn apply_transpose(&self, x: &[f64], b: usize) -> Vec<f64> {
        let mut y = vec![0.0; self.at.shape().0 * b];
        self.at.mul_block(x, &mut y, b);
        y
    }
}

impl SymmetricOperator for Gram {
    fn size(&self) -> usize {
        self.a.shape().0
    }
    fn apply(&self, x: &[f64], y: &mut [f64], b: usize) {
        let tmp = self.apply_transpose(x, b);
        self.a.mul_block(&tmp, y, b);
    }
    fn nnz(&self) -> usize {
        2 * self.a.nnz()
    }
}

/// A dense symmetric matrix (row-major), for tests and small problems.
#[derive(Debug, Clone, PartialEq)]
pub struct DenseSymmetric {
    n: usize,
    data: Vec<f64>,
}

impl DenseSymmetric {
    /// Wraps a row-major `n × n` matrix; errors unless it is symmetric.
    pub fn new(n: usize, data: Vec<f64>) -> Result<Self> {
        if data.len() != n * n {
            return Err(Error::param(
                "matrix",
                format!("{} values for {n}x{n}", data.len()),
            ));
        }
        for i in 0..n {
            for j in 0..i {
                if data[i * n + j] != data[j * n + i] {
                    return Err(Error::param(
                        "matrix",
                        format!("not symmetric at ({i}, {j})"),
                    ));
                }
            }
        }
        Ok(DenseSymmetric { n, data })
    }

    /// The row-major values.
    pub fn data(&self) -> &[f64] {
        &self.data
    }
}

impl SymmetricOperator for DenseSymmetric {
    fn size(&self) -> usize {
        self.n
    }
    fn apply(&self, x: &[f64], y: &mut [f64], b: usize) {
        let n = self.n;
        for i in 0..n {
            let yr = &mut y[i * b..(i + 1) * b];
            yr.fill(0.0);
            for j in 0..n {
                let a = self.data[i * n + j];
                for (acc, xv) in yr.iter_mut().zip(&x[j * b..(j + 1) * b]) {
                    *acc += a * xv;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gram_applies_a_a_transpose() {
        // A = [[1, 2], [0, 3], [4, 0]] (3x2); A Aᵀ = [[5, 6, 4], [6, 9, 0], [4, 0, 16]]
        let a = Csr::new(
            (3, 2),
            vec![0, 2, 3, 4],
            vec![0, 1, 1, 0],
            vec![1.0, 2.0, 3.0, 4.0],
        )
        .unwrap();
        let g = Gram::new(a);
        assert_eq!(g.size(), 3);
        let mut y = vec![0.0; 3];
        g.apply(&[1.0, 0.0, 1.0], &mut y, 1);
        assert_eq!(y, vec![9.0, 6.0, 20.0]);
    }

    #[test]
    fn symmetry_is_checked() {
        let a = Csr::new((2, 2), vec![0, 1, 1], vec![1], vec![1.0]).unwrap();
        assert!(SymmetricCsr::new(a).is_err());
        assert!(DenseSymmetric::new(2, vec![1.0, 2.0, 3.0, 1.0]).is_err());
        let d = DenseSymmetric::new(2, vec![1.0, 2.0, 2.0, 1.0]).unwrap();
        let mut y = vec![0.0; 4];
        d.apply(&[1.0, 0.0, 0.0, 1.0], &mut y, 2);
        assert_eq!(y, vec![1.0, 2.0, 2.0, 1.0]);
    }
}
