//! Sparse linear algebra for the spectral methods: a thick-restart block
//! Lanczos eigensolver and a truncated SVD on top of it.
//!
//! Why hand-written (docs/methods/linalg.md, "Why hand-written"): no ready Rust
//! sparse solver reached a 1e-6 residual on a 30k-word PPMI matrix; scipy's
//! ARPACK does, in tens of seconds. [`lanczos`] works on blocks of vectors so
//! that one pass over the sparse matrix ([`csr`]) and one pass over the Krylov
//! basis ([`block`]) serve several vectors at once.
//!
//! - [`csr`]: compact CSR (`u32` indices) with a parallel sparse × dense-block product;
//! - [`operator`]: the symmetric operators solved for — a symmetric matrix,
//!   the Gram operator `A Aᵀ`, a dense matrix;
//! - [`block`]: tall-and-thin dense products over row ranges, on the
//!   register-blocked [`crate::fast::blocked`] kernels;
//! - [`dense`]: the small projected eigenproblem and `b × b` Cholesky;
//! - [`lanczos`]: the eigensolver (largest algebraic or largest magnitude,
//!   relative-residual convergence, one block per step with a [`Status`]
//!   for progress);
//! - [`svd`]: truncated SVD (eigen route for symmetric matrices, Gram route otherwise);
//! - [`residual`]: exact residuals of a finished solve;
//! - [`params`]: the solver's hyperparameters, declared once for every method that runs it.
//!
//! ```
//! use wordbench::linalg::{Csr, EigenConfig, Lanczos, SymmetricCsr, Which};
//!
//! // A 2x2 matrix is solved densely; large ones by block Lanczos.
//! let a = Csr::new((2, 2), vec![0, 2, 4], vec![0, 1, 0, 1], vec![2.0, 1.0, 1.0, 2.0]).unwrap();
//! let pairs = Lanczos::new(SymmetricCsr::new(a).unwrap(), EigenConfig::new(1, Which::LargestAlgebraic))
//!     .unwrap()
//!     .solve(|_status| {});
//! assert!((pairs.values[0] - 3.0).abs() < 1e-12);
//! ```

pub mod block;
pub mod csr;
pub mod dense;
pub mod lanczos;
pub mod operator;
pub mod params;
pub mod residual;
pub mod svd;

pub use csr::Csr;
pub use lanczos::{EigenConfig, EigenPairs, Lanczos, Status, Which};
pub use operator::{DenseSymmetric, Gram, SymmetricCsr, SymmetricOperator};
pub use residual::{eigen_residuals, svd_residuals};
pub use svd::{Svd, TruncatedSvd};
