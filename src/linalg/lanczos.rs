//! Thick-restart block Lanczos for a few extreme eigenpairs of a large
//! symmetric operator.
//!
//! Why this design (measured on the 30k-word PPMI matrix, see
//! docs/methods/linalg.md, "Why hand-written"): plain subspace iteration and
//! randomized SVD stall near 1e-3 residuals, and ARPACK spends most of its time
//! in one-vector products (a sparse product and two to four BLAS-2 passes over
//! the basis per vector). A *block* of `b` vectors turns both into block
//! operations: one pass over the sparse matrix serves `b` vectors, and the full
//! re-orthogonalisation reads the basis three times per block instead of per
//! vector.
//!
//! The iteration keeps the Krylov–Schur relation
//! `A V = V H + Q R Eᵀ` (V orthonormal `n × p`, `H = Vᵀ A V`, `Q` the next
//! orthonormal block, `R` its `b × b` coupling to the last block of V):
//!
//! 1. **Expand** (one [`Lanczos::step`]): `W = A Q`; `C = [V Q]ᵀ W`;
//!    `W ← W − [V Q] C` (classical Gram–Schmidt), with the re-projection
//!    `C₂ = [V Q]ᵀ W` computed in the same pass over the basis; the second
//!    subtraction `W ← W − [V Q] C₂` runs only when `C₂` is above rounding
//!    level (DGKS-style test; on the 30k PMI matrices it never was, which
//!    saves one of three passes over the basis). A test on the norm drop
//!    alone (ARPACK's `η = 1/√2`) would need no projection in that pass, but
//!    it asked for the second pass on 114 of 139 blocks of the EigenWord
//!    solve (CPU +30%), and a looser norm threshold (2%) stalled LLE.
//!    `C` becomes the new columns of `H`; `W = Q' R'` by Cholesky QR twice
//!    (the second solve computes the next Gram matrix in the same pass), with
//!    a column-wise fallback that replaces a deflated direction by a random
//!    one.
//! 2. **Check and restart** when the basis is full: `H = Y Θ Yᵀ`; the
//!    residual of Ritz pair `(θ, V y)` is `‖R y_last‖` with no product by `A`;
//!    pairs are ranked largest algebraic or largest magnitude; when the `k`
//!    wanted ones all have `‖A x − θ x‖ ≤ tol · |θ|` the solve ends, otherwise
//!    the leading `keep` Ritz vectors become the new basis (thick restart,
//!    `H = diag(θ)`) and `Q` carries on.
//!
//! Measured (text8-head, 30,000 words, M^τ with 5.4M non-zeros, top 100
//! algebraic, tol 1e-6, the shared 2-core machine at load 3-4): 4.4 CPU s
//! at 1 thread (4.6-5.0 at 2) and 1,112 products against 11.6-11.9 CPU s
//! for scipy's `eigsh` (ARPACK, 728 products) with one BLAS thread, at
//! equal residual (3.7e-7 vs 2-5e-7): 0.37-0.43 of its CPU. The table is in
//! docs/benchmarks.md ("Eigensolver speed"), the script
//! `benches/compare/spectral_compare.sh`.
//! Block 8 beat 4, 6, 12 and 16; basis `2k + 4b` with `k + (m − k)/3` kept beat
//! the neighbouring choices (products within 1,048-1,224 for all of them).
//!
//! Every random choice comes from the seed, and every parallel sum is added
//! in a fixed order, so a solve is reproducible whatever the thread count.
//! Problems too small for a restarted Krylov space (`basis + block > n`) are
//! solved densely.

use crate::fast::mixed::{axpy64 as axpy, dot64 as dot};
use ndarray::{Array2, ShapeBuilder};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;

use super::block;
use super::dense::{cholesky_upper, matmul, sym_eigen};
use super::operator::SymmetricOperator;
use crate::{Error, Result};

/// A block whose second projection is below this fraction of its norm
/// skips the second subtraction (its direction is already orthogonal to
/// rounding level).
const ORTH_SKIP: f64 = 1e-13;

/// Which end of the spectrum is wanted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    /// The `k` algebraically largest eigenvalues (EigenWord).
    LargestAlgebraic,
    /// The `k` eigenvalues of largest magnitude (SVD of a symmetric matrix).
    LargestMagnitude,
}

impl Which {
    /// Sort key: larger is more wanted.
    fn key(self, theta: f64) -> f64 {
        match self {
            Which::LargestAlgebraic => theta,
            Which::LargestMagnitude => theta.abs(),
        }
    }
}

/// Settings of one eigensolve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EigenConfig {
    /// Eigenpairs wanted.
    pub k: usize,
    /// Which end of the spectrum.
    pub which: Which,
    /// Relative residual `‖A x − θ x‖ / |θ|` every wanted pair must reach.
    pub tol: f64,
    /// Vectors per block.
    pub block: usize,
    /// Largest basis before a restart; `None` chooses [`EigenConfig::auto_basis`].
    pub basis: Option<usize>,
    /// Ritz vectors kept at a restart; `None` chooses [`EigenConfig::auto_keep`].
    pub keep: Option<usize>,
    /// Block steps allowed before giving up.
    pub max_steps: u64,
    /// Seed of the random starting block.
    pub seed: u64,
}

impl EigenConfig {
    /// `k` pairs from the `which` end with the defaults: tolerance 1e-6,
    /// block 8, automatic basis, 100,000 steps, seed 0.
    pub fn new(k: usize, which: Which) -> Self {
        EigenConfig {
            k,
            which,
            tol: 1e-6,
            block: 8,
            basis: None,
            keep: None,
            max_steps: 100_000,
            seed: 0,
        }
    }

    /// Default basis size: `2k + 4b`, at least `k + 3b`.
    pub fn auto_basis(&self) -> usize {
        (2 * self.k + 4 * self.block).max(self.k + 3 * self.block)
    }

    /// Default kept vectors: `k` plus a third of the rest of the basis.
    pub fn auto_keep(&self, basis: usize) -> usize {
        self.k + (basis - self.k) / 3
    }

    fn validate(&self, n: usize) -> Result<()> {
        if self.k == 0 || self.k >= n {
            return Err(Error::param(
                "k",
                format!(
                    "{} eigenpairs of a {n}x{n} matrix (expected 1 to {})",
                    self.k,
                    n.saturating_sub(1)
                ),
            ));
        }
        if self.block == 0 || self.block > 64 {
            return Err(Error::param(
                "block",
                format!("{} (expected 1 to 64)", self.block),
            ));
        }
        if !(self.tol > 0.0 && self.tol < 1.0) {
            return Err(Error::param(
                "tol",
                format!("{} (expected 0 < tol < 1)", self.tol),
            ));
        }
        if let Some(m) = self.basis {
            if m < self.k + self.block {
                return Err(Error::param(
                    "basis",
                    format!(
                        "{m} (expected at least k + block = {})",
                        self.k + self.block
                    ),
                ));
            }
        }
        if let (Some(keep), m) = (self.keep, self.basis.unwrap_or_else(|| self.auto_basis())) {
            if keep < self.k || keep + self.block > m {
                return Err(Error::param(
                    "keep",
                    format!(
                        "{keep} (expected k <= keep <= basis - block, here {} to {})",
                        self.k,
                        m.saturating_sub(self.block)
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// Where a solve stands after a step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Status {
    /// Block steps done.
    pub steps: u64,
    /// Restarts done.
    pub restarts: u32,
    /// Operator applications, counted per vector.
    pub matvecs: u64,
    /// Blocks that needed the second Gram–Schmidt subtraction.
    pub second_passes: u64,
    /// Wanted pairs within tolerance at the last check.
    pub converged: usize,
    /// Largest relative residual of the wanted pairs at the last check
    /// (1 before the first check, at the first full basis).
    pub worst_residual: f64,
    /// The solve has ended (converged, or out of steps).
    pub done: bool,
}

/// The result of a solve.
#[derive(Debug, Clone)]
pub struct EigenPairs {
    /// Eigenvalues, most wanted first.
    pub values: Vec<f64>,
    /// Unit eigenvectors as columns (`n × k`), in the order of `values`.
    pub vectors: Array2<f64>,
    /// Estimated relative residuals `‖A x − θ x‖ / |θ|` of each pair.
    pub residuals: Vec<f64>,
    /// Whether every pair reached the tolerance.
    pub converged: bool,
    /// Final status.
    pub status: Status,
}

/// A thick-restart block Lanczos solve in progress (see the module docs).
pub struct Lanczos<Op> {
    op: Op,
    config: EigenConfig,
    n: usize,
    b: usize,
    /// Largest basis size `m`.
    basis: usize,
    keep: usize,
    /// Row stride of `v` (`m + b`).
    ld: usize,
    /// Basis `V` (columns `0..p`) and next block `Q` (columns `p..p+b`), row-major.
    v: Vec<f64>,
    /// Projected matrix `H`, `m × m` row-major (leading `p × p` in use).
    h: Vec<f64>,
    /// Coupling of `Q` to the last block of `V`, `b × b` row-major.
    r: Vec<f64>,
    p: usize,
    /// Scratch blocks `n × b`.
    x: Vec<f64>,
    w: Vec<f64>,
    rng: Xoshiro256PlusPlus,
    /// Ritz values of the wanted pairs (most wanted first) and their residuals,
    /// from the last check.
    ritz: Vec<f64>,
    residuals: Vec<f64>,
    status: Status,
    /// Set once `V[:, 0..k]` holds the Ritz vectors of `ritz`.
    rotated: bool,
}

impl<Op: SymmetricOperator> Lanczos<Op> {
    /// Prepares a solve of `op` with a random starting block from `config.seed`.
    pub fn new(op: Op, config: EigenConfig) -> Result<Self> {
        let n = op.size();
        config.validate(n)?;
        let b = config.block;
        let basis = config.basis.unwrap_or_else(|| config.auto_basis());
        let keep = config.keep.unwrap_or_else(|| config.auto_keep(basis));
        let ld = basis + b;
        let mut s = Lanczos {
            op,
            config,
            n,
            b,
            basis,
            keep,
            ld,
            v: Vec::new(),
            h: Vec::new(),
            r: vec![0.0; b * b],
            p: 0,
            x: Vec::new(),
            w: Vec::new(),
            rng: Xoshiro256PlusPlus::seed_from_u64(config.seed),
            ritz: Vec::new(),
            residuals: Vec::new(),
            status: Status {
                steps: 0,
                restarts: 0,
                matvecs: 0,
                second_passes: 0,
                converged: 0,
                worst_residual: 1.0,
                done: false,
            },
            rotated: false,
        };
        if ld > n {
            s.solve_dense();
            return Ok(s);
        }
        s.v = vec![0.0; n * ld];
        s.h = vec![0.0; basis * basis];
        s.x = vec![0.0; n * b];
        s.w = vec![0.0; n * b];
        let mut start = vec![0.0; n * b];
        start
            .iter_mut()
            .for_each(|x| *x = s.rng.random::<f64>() * 2.0 - 1.0);
        s.w = start;
        let g = block::gram(&s.w, b);
        let norms: Vec<f64> = (0..b).map(|j| g[j * b + j].max(0.0).sqrt()).collect();
        s.orthonormalize(&norms, g);
        s.store_next_block();
        Ok(s)
    }

    /// The settings.
    pub fn config(&self) -> &EigenConfig {
        &self.config
    }

    /// The operator.
    pub fn operator(&self) -> &Op {
        &self.op
    }

    /// The basis size before a restart and the vectors kept at one.
    pub fn sizes(&self) -> (usize, usize) {
        (self.basis, self.keep)
    }

    /// Where the solve stands.
    pub fn status(&self) -> Status {
        self.status
    }

    /// Whether the solve has ended.
    pub fn is_done(&self) -> bool {
        self.status.done
    }

    /// Runs one block step (and the check/restart that follows a full basis);
    /// a no-op once done.
    pub fn step(&mut self) -> Status {
        if self.status.done {
            return self.status;
        }
        self.expand();
        self.status.steps += 1;
        if self.p + self.b > self.basis {
            let out_of_steps = self.status.steps >= self.config.max_steps;
            self.check_and_restart(out_of_steps);
        } else if self.status.steps >= self.config.max_steps {
            self.check_and_restart(true);
        }
        self.status
    }

    /// Steps until done, calling `progress` after every step.
    pub fn solve(mut self, mut progress: impl FnMut(&Status)) -> EigenPairs {
        while !self.status.done {
            let s = self.step();
            progress(&s);
        }
        self.finish()
    }

    /// The wanted Ritz values and vectors of the last restart (`n × k`,
    /// most wanted first), once a restart has happened.
    pub fn current(&self) -> Option<(&[f64], ndarray::ArrayView2<'_, f64>)> {
        if !self.rotated {
            return None;
        }
        let k = self.ritz.len();
        let view = ndarray::ArrayView2::from_shape(
            (self.n, k).strides((self.ld, 1)),
            &self.v[..(self.n - 1) * self.ld + k],
        )
        .expect("basis view");
        Some((&self.ritz, view))
    }

    /// Ends the solve: the wanted pairs of the current basis (checked and
    /// rotated first if the solve was stopped early). Columns beyond the
    /// basis size (a solve stopped in its first steps) are zero.
    pub fn finish(self) -> EigenPairs {
        self.finish_with_operator().0
    }

    /// [`Lanczos::finish`], handing the operator back too.
    pub fn finish_with_operator(mut self) -> (EigenPairs, Op) {
        if !self.status.done && self.p > 0 {
            self.check_and_restart(true);
        }
        let k = self.config.k;
        let mut vectors = Array2::<f64>::zeros((self.n, k));
        let have = self.ritz.len().min(k);
        if self.rotated {
            for (i, mut row) in vectors.rows_mut().into_iter().enumerate() {
                for j in 0..have {
                    row[j] = self.v[i * self.ld + j];
                }
            }
        }
        let mut values = self.ritz.clone();
        values.resize(k, 0.0);
        let mut residuals = self.residuals.clone();
        residuals.resize(k, 1.0);
        let converged = have == k && residuals.iter().all(|&r| r <= self.config.tol);
        let pairs = EigenPairs {
            values,
            vectors,
            residuals,
            converged,
            status: self.status,
        };
        (pairs, self.op)
    }

    /// One block: `W = A Q`, orthogonalised against `[V Q]`, into `H`; the
    /// next block from `W`. `X` holds `Q` (left there by the previous step).
    fn expand(&mut self) {
        let (b, ld, p) = (self.b, self.ld, self.p);
        self.op.apply(&self.x, &mut self.w, b);
        self.status.matvecs += b as u64;
        let before = block::column_norms(&self.w, b);
        let pb = p + b;
        let c1 = block::project(&self.v, ld, pb, &self.w, b);
        let (mut c2, norms) = block::subtract_and_project(&self.v, ld, pb, &mut self.w, b, &c1);
        // The second subtraction matters only where it changes the
        // direction of W by more than rounding (DGKS-style test).
        let needed = (0..b).any(|j| {
            let off: f64 = (0..pb).map(|i| c2[i * b + j] * c2[i * b + j]).sum();
            off > ORTH_SKIP * ORTH_SKIP * norms[j]
        });
        if needed {
            block::subtract(&self.v, ld, pb, &mut self.w, b, &c2);
            self.status.second_passes += 1;
        } else {
            c2.iter_mut().for_each(|x| *x = 0.0);
        }
        let g = block::gram(&self.w, b);
        let m = self.basis;
        for i in 0..pb {
            for j in 0..b {
                let c = c1[i * b + j] + c2[i * b + j];
                if i < p {
                    self.h[i * m + p + j] = c;
                    self.h[(p + j) * m + i] = c;
                } else {
                    let t = c1[(p + j) * b + (i - p)] + c2[(p + j) * b + (i - p)];
                    self.h[i * m + p + j] = 0.5 * (c + t);
                }
            }
        }
        self.p = pb;
        self.orthonormalize(&before, g);
        self.store_next_block();
    }

    /// Copies the orthonormal `W` into `V[:, p..p+b]` and keeps it in `X`
    /// for the next product.
    fn store_next_block(&mut self) {
        let (b, ld, p) = (self.b, self.ld, self.p);
        let w = &self.w;
        self.v
            .par_chunks_mut(ld * 512)
            .enumerate()
            .for_each(|(c, vs)| {
                for (r, vr) in vs.chunks_exact_mut(ld).enumerate() {
                    let row = c * 512 + r;
                    vr[p..p + b].copy_from_slice(&w[row * b..row * b + b]);
                }
            });
        std::mem::swap(&mut self.x, &mut self.w);
    }

    /// `W = Q R` in place (R into `self.r`), `W` already orthogonal to
    /// `V[:, 0..p]` and `g = Wᵀ W`. `before` holds the column norms of `W`
    /// before its orthogonalisation: a column that lost all but 1e-10 of its
    /// norm is a deflated direction, replaced by a random one.
    fn orthonormalize(&mut self, before: &[f64], g: Vec<f64>) {
        let b = self.b;
        let deflated =
            (0..b).any(|j| !(g[j * b + j].sqrt() > 1e-10 * before[j].max(f64::MIN_POSITIVE)));
        if !deflated {
            if let Some(r1) = cholesky_upper(&g, b, 1e-13) {
                let g2 = block::solve_upper_right_gram(&mut self.w, b, &r1);
                if let Some(r2) = cholesky_upper(&g2, b, 1e-13) {
                    block::solve_upper_right(&mut self.w, b, &r2);
                    self.r = upper_product(&r2, &r1, b);
                    return;
                }
            }
        }
        self.orthonormalize_columns(before);
    }

    /// Column-wise modified Gram–Schmidt with re-orthogonalisation against
    /// `[V, earlier columns]`; deflated columns are replaced by random unit
    /// vectors orthogonal to everything (their row of `R` is zero).
    fn orthonormalize_columns(&mut self, before: &[f64]) {
        let (n, b) = (self.n, self.b);
        let mut cols: Vec<Vec<f64>> = (0..b)
            .map(|j| (0..n).map(|i| self.w[i * b + j]).collect())
            .collect();
        let mut r = vec![0.0; b * b];
        for j in 0..b {
            let mut coef = vec![0.0; j];
            for _ in 0..2 {
                self.orthogonalize_against_basis(&mut cols[j]);
                for (i, c) in coef.iter_mut().enumerate() {
                    let d = dot(&cols[i], &cols[j]);
                    *c += d;
                    let (done, rest) = cols.split_at_mut(j);
                    axpy(-d, &done[i], &mut rest[0]);
                }
            }
            let norm = dot(&cols[j], &cols[j]).sqrt();
            if norm > 1e-10 * before[j].max(f64::MIN_POSITIVE) {
                cols[j].iter_mut().for_each(|x| *x /= norm);
                r[j * b + j] = norm;
                for (i, c) in coef.iter().enumerate() {
                    r[i * b + j] = *c;
                }
            } else {
                self.random_orthogonal(&mut cols, j);
            }
        }
        for (j, col) in cols.iter().enumerate() {
            for i in 0..n {
                self.w[i * b + j] = col[i];
            }
        }
        self.r = r;
    }

    /// Replaces `cols[j]` by a random unit vector orthogonal to `V[:, 0..p]`
    /// and to `cols[..j]`.
    fn random_orthogonal(&mut self, cols: &mut [Vec<f64>], j: usize) {
        loop {
            let mut c: Vec<f64> = (0..self.n)
                .map(|_| self.rng.random::<f64>() * 2.0 - 1.0)
                .collect();
            let start = dot(&c, &c).sqrt();
            for _ in 0..2 {
                self.orthogonalize_against_basis(&mut c);
                for prev in cols[..j].iter() {
                    let d = dot(prev, &c);
                    axpy(-d, prev, &mut c);
                }
            }
            let norm = dot(&c, &c).sqrt();
            if norm > 1e-6 * start {
                c.iter_mut().for_each(|x| *x /= norm);
                cols[j] = c;
                return;
            }
        }
    }

    /// `c ← c − V Vᵀ c` over the basis columns `0..p`.
    fn orthogonalize_against_basis(&self, c: &mut [f64]) {
        if self.p == 0 {
            return;
        }
        let coef = block::project(&self.v, self.ld, self.p, c, 1);
        block::subtract(&self.v, self.ld, self.p, c, 1, &coef);
    }

    /// Ritz pairs of `H`, their residuals, convergence; then a thick restart
    /// (or, when done, a rotation of the `k` wanted vectors into `V[:, 0..k]`).
    fn check_and_restart(&mut self, final_check: bool) {
        let (p, b, m, k) = (self.p, self.b, self.basis, self.config.k);
        let mut hp = vec![0.0; p * p];
        for i in 0..p {
            hp[i * p..(i + 1) * p].copy_from_slice(&self.h[i * m..i * m + p]);
        }
        let e = sym_eigen(&hp, p);
        let which = self.config.which;
        let mut order: Vec<usize> = (0..p).collect();
        order.sort_by(|&x, &y| {
            which
                .key(e.values[y])
                .total_cmp(&which.key(e.values[x]))
                .then(x.cmp(&y))
        });
        let scale = e
            .values
            .iter()
            .fold(0.0f64, |a, v| a.max(v.abs()))
            .max(f64::MIN_POSITIVE);
        let residual = |j: usize| {
            // ‖R y_last‖ with y_last the last b entries of Ritz vector j.
            let mut s = 0.0;
            for i in 0..b {
                let ri: f64 = (0..b)
                    .map(|l| self.r[i * b + l] * e.vectors[(p - b + l) * p + j])
                    .sum();
                s += ri * ri;
            }
            s.sqrt() / e.values[j].abs().max(1e-12 * scale)
        };
        let wanted = k.min(p);
        self.ritz = order[..wanted].iter().map(|&j| e.values[j]).collect();
        self.residuals = order[..wanted].iter().map(|&j| residual(j)).collect();
        let tol = self.config.tol;
        self.status.converged = self.residuals.iter().filter(|&&r| r <= tol).count();
        self.status.worst_residual = self.residuals.iter().fold(0.0, |a: f64, &r| a.max(r));
        let done = wanted == k && self.status.converged == k;
        let keep = if done || final_check {
            wanted
        } else {
            self.keep.min(p)
        };
        let mut y = vec![0.0; p * keep];
        for i in 0..p {
            for (c, &j) in order[..keep].iter().enumerate() {
                y[i * keep + c] = e.vectors[i * p + j];
            }
        }
        block::rotate(&mut self.v, self.ld, p, &y, keep);
        self.rotated = true;
        if done || final_check {
            self.status.done = true;
            return;
        }
        // Thick restart: H = diag(θ_kept); Q moves to columns keep..keep+b.
        let (ld, bb) = (self.ld, b);
        self.v
            .par_chunks_mut(ld)
            .for_each(|row| row.copy_within(p..p + bb, keep));
        self.h.iter_mut().for_each(|x| *x = 0.0);
        for (c, &j) in order[..keep].iter().enumerate() {
            self.h[c * m + c] = e.values[j];
        }
        self.p = keep;
        self.status.restarts += 1;
    }

    /// Small problems: the whole matrix, densely.
    fn solve_dense(&mut self) {
        let n = self.n;
        let mut eye = vec![0.0; n * n];
        for i in 0..n {
            eye[i * n + i] = 1.0;
        }
        let mut a = vec![0.0; n * n];
        self.op.apply(&eye, &mut a, n);
        self.status.matvecs += n as u64;
        let e = sym_eigen(&a, n);
        let which = self.config.which;
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&x, &y| {
            which
                .key(e.values[y])
                .total_cmp(&which.key(e.values[x]))
                .then(x.cmp(&y))
        });
        let k = self.config.k;
        self.ld = k;
        self.v = vec![0.0; n * k];
        for i in 0..n {
            for (c, &j) in order[..k].iter().enumerate() {
                self.v[i * k + c] = e.vectors[i * n + j];
            }
        }
        self.ritz = order[..k].iter().map(|&j| e.values[j]).collect();
        self.residuals = vec![0.0; k];
        self.rotated = true;
        self.status.converged = k;
        self.status.worst_residual = 0.0;
        self.status.done = true;
    }
}

/// `A B` of two upper-triangular `b × b` row-major matrices.
fn upper_product(a: &[f64], c: &[f64], b: usize) -> Vec<f64> {
    matmul(a, c, b, b, b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::operator::DenseSymmetric;

    /// A random symmetric matrix with a known spectrum `values`: `Q diag Qᵀ`.
    fn with_spectrum(values: &[f64], seed: u64) -> DenseSymmetric {
        let n = values.len();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        // Orthogonal Q from Householder reflections of random vectors.
        let mut q = vec![0.0; n * n];
        for i in 0..n {
            q[i * n + i] = 1.0;
        }
        for _ in 0..3 {
            let u: Vec<f64> = (0..n).map(|_| rng.random::<f64>() - 0.5).collect();
            let uu = dot(&u, &u);
            // Q ← (I − 2uuᵀ/uᵀu) Q
            for j in 0..n {
                let s: f64 = (0..n).map(|i| u[i] * q[i * n + j]).sum::<f64>() * 2.0 / uu;
                for i in 0..n {
                    q[i * n + j] -= s * u[i];
                }
            }
        }
        let mut a = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..=i {
                let s: f64 = (0..n)
                    .map(|l| q[i * n + l] * values[l] * q[j * n + l])
                    .sum();
                a[i * n + j] = s;
                a[j * n + i] = s;
            }
        }
        DenseSymmetric::new(n, a).unwrap()
    }

    #[test]
    fn finds_known_largest_algebraic_eigenvalues_of_an_indefinite_matrix() {
        let n = 240;
        // Spectrum: 1..=n scaled, with big negatives that LA must skip.
        let values: Vec<f64> = (0..n)
            .map(|i| {
                if i % 7 == 0 {
                    -(i as f64) - 50.0
                } else {
                    i as f64 + 1.0
                }
            })
            .collect();
        let a = with_spectrum(&values, 3);
        let mut cfg = EigenConfig::new(6, Which::LargestAlgebraic);
        cfg.block = 4;
        cfg.tol = 1e-9;
        let pairs = Lanczos::new(&a, cfg).unwrap().solve(|_| {});
        assert!(pairs.converged, "{:?}", pairs.status);
        let mut want: Vec<f64> = values.clone();
        want.sort_by(|x, y| y.total_cmp(x));
        for (got, w) in pairs.values.iter().zip(&want) {
            assert!((got - w).abs() < 1e-7 * w.abs(), "{got} vs {w}");
        }
    }

    #[test]
    fn finds_known_largest_magnitude_eigenvalues_of_an_indefinite_matrix() {
        // The largest magnitudes alternate in sign: ±(n − i) for i < 8, and
        // small values of both signs elsewhere.
        let n = 200;
        let values: Vec<f64> = (0..n)
            .map(|i| {
                let sign = if i % 2 == 0 { 1.0 } else { -1.0 };
                if i < 8 {
                    sign * (n - i) as f64
                } else {
                    sign * (i % 37) as f64 * 0.5
                }
            })
            .collect();
        let a = with_spectrum(&values, 5);
        let mut cfg = EigenConfig::new(6, Which::LargestMagnitude);
        cfg.block = 3;
        cfg.tol = 1e-9;
        let pairs = Lanczos::new(&a, cfg).unwrap().solve(|_| {});
        assert!(pairs.converged, "{:?}", pairs.status);
        for (got, want) in pairs.values.iter().zip(&values) {
            assert!((got - want).abs() < 1e-7 * want.abs(), "{got} vs {want}");
        }
        let worst = crate::linalg::eigen_residuals(&a, &pairs.values, pairs.vectors.view())
            .into_iter()
            .fold(0.0, f64::max);
        assert!(worst <= 1e-9, "exact residual {worst:e}");
    }

    #[test]
    fn small_problems_are_solved_densely() {
        let a =
            DenseSymmetric::new(3, vec![0.2, -1.6, 0.0, -1.6, -2.2, 0.0, 0.0, 0.0, 2.0]).unwrap();
        let pairs = Lanczos::new(&a, EigenConfig::new(2, Which::LargestMagnitude))
            .unwrap()
            .solve(|_| {});
        assert!((pairs.values[0] + 3.0).abs() < 1e-12 && (pairs.values[1] - 2.0).abs() < 1e-12);
        let pairs = Lanczos::new(&a, EigenConfig::new(2, Which::LargestAlgebraic))
            .unwrap()
            .solve(|_| {});
        assert!((pairs.values[0] - 2.0).abs() < 1e-12 && (pairs.values[1] - 1.0).abs() < 1e-12);
    }

    #[test]
    fn rejects_impossible_requests() {
        let a = DenseSymmetric::new(2, vec![1.0, 0.0, 0.0, 1.0]).unwrap();
        assert!(Lanczos::new(&a, EigenConfig::new(2, Which::LargestAlgebraic)).is_err());
        assert!(Lanczos::new(&a, EigenConfig::new(0, Which::LargestAlgebraic)).is_err());
    }
}
