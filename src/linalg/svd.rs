//! Truncated SVD of a sparse matrix on top of the block Lanczos solver.
//!
//! Two routes, chosen by the matrix:
//!
//! - **symmetric** `A` (every count-based matrix without context smoothing):
//!   the `k` eigenpairs of largest magnitude. `σ = |λ|`, `U` the
//!   eigenvectors, `V = U sign(λ)`. One sparse product per vector.
//! - **general** `A` (context-smoothed PMI is not symmetric): the `k`
//!   largest eigenpairs of `A Aᵀ`, applied as `A (Aᵀ X)`. `σ = √λ`, `U` the
//!   eigenvectors, `V = Aᵀ U / σ`. The relative residual of the Gram problem
//!   equals the SVD's: `‖A v − σ u‖ / σ = ‖A Aᵀ u − λ u‖ / λ` (and
//!   `Aᵀ u − σ v = 0` by construction), so one tolerance serves both.
//!   The augmented matrix `[[0, A], [Aᵀ, 0]]` was not used: its spectrum is
//!   `±σ`, so the wanted end is twice as crowded for the same cost per vector.

use ndarray::Array2;

use super::csr::Csr;
use super::lanczos::{EigenConfig, EigenPairs, Lanczos, Status, Which};
use super::operator::{Gram, SymmetricCsr};
use crate::Result;

/// A finished truncated SVD `A ≈ U diag(s) Vᵀ`.
#[derive(Debug, Clone)]
pub struct Svd {
    /// Left singular vectors as columns (`m × k`).
    pub u: Array2<f64>,
    /// Singular values, descending.
    pub s: Vec<f64>,
    /// Right singular vectors as columns (`n × k`).
    pub v: Array2<f64>,
    /// Estimated relative residuals of each triplet.
    pub residuals: Vec<f64>,
    /// Whether every triplet reached the tolerance.
    pub converged: bool,
    /// Final solver status.
    pub status: Status,
}

enum Route {
    Symmetric(Lanczos<SymmetricCsr>),
    Gram(Lanczos<Gram>),
}

/// A truncated SVD in progress, stepped like [`Lanczos`].
pub struct TruncatedSvd {
    route: Route,
}

impl TruncatedSvd {
    /// Prepares the `config.k` leading singular triplets of `a` (`config.which`
    /// is ignored: the route decides it).
    pub fn new(a: Csr, config: EigenConfig) -> Result<Self> {
        let route = if a.is_symmetric(1e-12) {
            let cfg = EigenConfig {
                which: Which::LargestMagnitude,
                ..config
            };
            Route::Symmetric(Lanczos::new(SymmetricCsr::new(a)?, cfg)?)
        } else {
            let cfg = EigenConfig {
                which: Which::LargestAlgebraic,
                ..config
            };
            Route::Gram(Lanczos::new(Gram::new(a), cfg)?)
        };
        Ok(TruncatedSvd { route })
    }

    /// True when the matrix is symmetric (eigen route), false for the Gram route.
    pub fn is_symmetric(&self) -> bool {
        matches!(self.route, Route::Symmetric(_))
    }

    /// One solver step.
    pub fn step(&mut self) -> Status {
        match &mut self.route {
            Route::Symmetric(l) => l.step(),
            Route::Gram(l) => l.step(),
        }
    }

    /// Where the solve stands.
    pub fn status(&self) -> Status {
        match &self.route {
            Route::Symmetric(l) => l.status(),
            Route::Gram(l) => l.status(),
        }
    }

    /// Basis size and kept vectors of the underlying solver.
    pub fn sizes(&self) -> (usize, usize) {
        match &self.route {
            Route::Symmetric(l) => l.sizes(),
            Route::Gram(l) => l.sizes(),
        }
    }

    /// Ritz values `θ` and left singular vectors of the last restart
    /// (turn `θ` into singular values with [`TruncatedSvd::singular_values`]).
    pub fn current(&self) -> Option<(&[f64], ndarray::ArrayView2<'_, f64>)> {
        match &self.route {
            Route::Symmetric(l) => l.current(),
            Route::Gram(l) => l.current(),
        }
    }

    /// Singular values from the route's Ritz values: `|λ|` or `√λ`.
    pub fn singular_values(&self, theta: &[f64]) -> Vec<f64> {
        match &self.route {
            Route::Symmetric(_) => theta.iter().map(|x| x.abs()).collect(),
            Route::Gram(_) => theta.iter().map(|x| x.max(0.0).sqrt()).collect(),
        }
    }

    /// `V` for the left vectors `u` and the Ritz values `theta` of the
    /// current route (see the module docs); zero columns where `σ = 0`.
    pub fn right_vectors(&self, u: ndarray::ArrayView2<'_, f64>, theta: &[f64]) -> Array2<f64> {
        match &self.route {
            Route::Symmetric(_) => signed(u, theta),
            Route::Gram(l) => gram_right(l.operator(), u, theta),
        }
    }

    /// Steps until done, calling `progress` after every step.
    pub fn solve(mut self, mut progress: impl FnMut(&Status)) -> Svd {
        while !self.status().done {
            let s = self.step();
            progress(&s);
        }
        self.finish()
    }

    /// Ends the solve (early if not converged) and assembles `U`, `s`, `V`.
    pub fn finish(self) -> Svd {
        match self.route {
            Route::Symmetric(l) => {
                let pairs = l.finish();
                let v = signed(pairs.vectors.view(), &pairs.values);
                let s = pairs.values.iter().map(|x| x.abs()).collect();
                assemble(pairs, s, v)
            }
            Route::Gram(l) => {
                let (pairs, gram) = l.finish_with_operator();
                let v = gram_right(&gram, pairs.vectors.view(), &pairs.values);
                let s = pairs.values.iter().map(|x| x.max(0.0).sqrt()).collect();
                assemble(pairs, s, v)
            }
        }
    }
}

/// `V = U sign(λ)` for the symmetric route.
fn signed(u: ndarray::ArrayView2<'_, f64>, lambda: &[f64]) -> Array2<f64> {
    let mut v = u.to_owned();
    for (mut col, &l) in v.columns_mut().into_iter().zip(lambda) {
        if l < 0.0 {
            col.mapv_inplace(|x| -x);
        }
    }
    v
}

/// `V = Aᵀ U / σ` with `σ = √λ` for the Gram route.
fn gram_right(gram: &Gram, u: ndarray::ArrayView2<'_, f64>, lambda: &[f64]) -> Array2<f64> {
    let k = u.ncols();
    let u = u.as_standard_layout();
    let at_u = gram.apply_transpose(u.as_slice().expect("standard layout"), k);
    let mut v = Array2::from_shape_vec((at_u.len() / k.max(1), k), at_u).expect("n × k");
    for (mut col, &l) in v.columns_mut().into_iter().zip(lambda) {
        let s = l.max(0.0).sqrt();
        let inv = if s > 0.0 { 1.0 / s } else { 0.0 };
        col.mapv_inplace(|x| x * inv);
    }
    v
}

fn assemble(pairs: EigenPairs, s: Vec<f64>, v: Array2<f64>) -> Svd {
    Svd {
        u: pairs.vectors,
        s,
        v,
        residuals: pairs.residuals,
        converged: pairs.converged,
        status: pairs.status,
    }
}
