//! The factor `W` and Algorithm 1 of Sedov & Yang, split in two passes so
//! that the loss of the current `W` comes for free with the next update:
//!
//! - [`Model::evaluate`]: `s_k = Σ_v W_vk`; for every row `i` and every
//!   non-zero `S_ij`, `Ŝ_ij = Σ_k W_ik W_jk / s_k`, `Z_ij = S_ij / Ŝ_ij`,
//!   `(ZW)_i += Z_ij W_j` and the divergence terms; then
//!   `(WᵀZW)_kk = Σ_i W_ik (ZW)_ik`. Cost `O(nnz(S) r)`, never an `N × N`
//!   matrix.
//! - [`Model::update`] (Jacobi: everything from the evaluated `W`):
//!   `∇⁻_ik = 2 (ZW)_ik / s_k`, `∇⁺_k = (WᵀZW)_kk / s_k²`,
//!   `a_i = Σ_l W_il / ∇⁺_l`, `b_i = Σ_l W_il ∇⁻_il / ∇⁺_l`,
//!   `W_ik ← W_ik (∇⁻_ik a_i + 1) / (∇⁺_k a_i + b_i)`.
//!
//! [`EPS`] is added to `Ŝ_ij`, `∇⁺_k` and the update's denominator. Rows are
//! processed in fixed blocks in parallel and every sum over rows is the sum
//! of the blocks' partial sums in block order, so results do not depend on
//! the thread count.

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;

use crate::fast::lanes::{widest, Kernel, Lanes, Width};
use crate::linalg::Csr;
use crate::train::phase::{self, Unit};
use crate::{Error, Result};

/// Added to the denominators `Ŝ_ij`, `∇⁺_k` and `∇⁺_k a_i + b_i`.
pub const EPS: f64 = 1e-12;

/// Rows per parallel task (and per partial sum).
pub(crate) const ROWS_PER_TASK: usize = 64;

/// Offset added to the uniform initial values before the rows are normalised.
const INIT_OFFSET: f64 = 1e-3;

/// The non-negative factor `W` (`n × r`, row-major `f32`).
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    n: usize,
    r: usize,
    w: Vec<f32>,
}

/// What one pass over `S` learns about the current `W`.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    /// Column sums `s_k = Σ_v W_vk`.
    pub s: Vec<f64>,
    /// `1 / s_k` (0 for an empty column).
    pub inv_s: Vec<f64>,
    /// `(ZW)_ik`, row-major `n × r`.
    pub zw: Vec<f64>,
    /// `(WᵀZW)_kk`.
    pub diag: Vec<f64>,
    /// `Σ_{S_ij > 0} (S_ij ln(S_ij / Ŝ_ij) − S_ij)`: the divergence without
    /// its `Σ Ŝ` term, the part whose gradient Algorithm 1 splits.
    pub fit: f64,
    /// `D(S ‖ Ŝ) = fit + Σ_k s_k`: the objective of Algorithm 1 at the
    /// relaxed iterate (not monotone: it dips while rows leave the simplex).
    pub divergence: f64,
    /// `D(S ‖ Ŝ)` at the rows projected onto the simplex, `W_i / Σ_k W_ik`:
    /// the loss of the vectors a run outputs (reported as the loss).
    pub feasible: f64,
}

impl Model {
    /// `W = U(0, 1) + 10⁻³` from `seed`, each row normalised to sum 1.
    pub fn init(n: usize, r: usize, seed: u64) -> Model {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0xd5_5a_f0_0d);
        let mut w = vec![0f32; n * r];
        let mut row = vec![0f64; r];
        for out in w.chunks_exact_mut(r.max(1)) {
            for x in row.iter_mut() {
                *x = rng.random::<f64>() + INIT_OFFSET;
            }
            let sum: f64 = row.iter().sum();
            for (o, x) in out.iter_mut().zip(&row) {
                *o = (x / sum) as f32;
            }
        }
        Model { n, r, w }
    }

    /// A model from given values (row-major `n × r`, all finite and `≥ 0`).
    pub fn from_values(n: usize, r: usize, w: Vec<f32>) -> Result<Model> {
        if w.len() != n * r || r == 0 {
            return Err(Error::param(
                "W",
                format!("{} values for {n} x {r} (r must be positive)", w.len()),
            ));
        }
        if let Some(v) = w.iter().find(|v| !(v.is_finite() && **v >= 0.0)) {
            return Err(Error::param(
                "W",
                format!("{v} found (expected finite non-negative values)"),
            ));
        }
        Ok(Model { n, r, w })
    }

    /// Number of words (rows).
    pub fn n(&self) -> usize {
        self.n
    }

    /// Number of topics (columns).
    pub fn r(&self) -> usize {
        self.r
    }

    /// All values, row-major.
    pub fn values(&self) -> &[f32] {
        &self.w
    }

    /// Row `i`: P(topic | word `i`) once the rows sum to 1.
    pub fn row(&self, i: usize) -> &[f32] {
        &self.w[i * self.r..(i + 1) * self.r]
    }

    /// Column sums `s_k` in `f64` (block partial sums added in block order).
    pub fn column_sums(&self) -> Vec<f64> {
        self.column_sums_scaled(&vec![1.0; self.n])
    }

    /// `Σ_v c_v W_vk` in `f64` (block partial sums added in block order).
    fn column_sums_scaled(&self, c: &[f64]) -> Vec<f64> {
        let r = self.r;
        let partials: Vec<Vec<f64>> = self
            .w
            .par_chunks(ROWS_PER_TASK * r)
            .zip(c.par_chunks(ROWS_PER_TASK))
            .map(|(block, c)| {
                let mut acc = vec![0f64; r];
                for (row, &c) in block.chunks_exact(r).zip(c) {
                    for (a, &x) in acc.iter_mut().zip(row) {
                        *a += c * x as f64;
                    }
                }
                acc
            })
            .collect();
        sum_in_order(partials, r)
    }

    /// `Ŝ_ij = Σ_k W_ik W_jk / s_k` for the column sums' reciprocals `inv_s`.
    pub fn similarity(&self, i: usize, j: usize, inv_s: &[f64]) -> f64 {
        let (a, b) = (self.row(i), self.row(j));
        let mut u = vec![0f64; self.r];
        scale_row(a, inv_s, 1.0, &mut u);
        kernel::dot(&u, b)
    }

    /// One pass over the non-zeros of `s` (`n × n`) at the current `W`.
    pub fn evaluate(&self, s: &Csr) -> Evaluation {
        assert_eq!(s.shape(), (self.n, self.n), "S must be n x n");
        let r = self.r;
        let scales = Scales::of(self);
        let mut zw = vec![0f64; self.n * r];
        let work = phase::begin("pass over S (rows)", self.n as u64, Unit::Percent);
        let partials: Vec<BlockSums> = zw
            .par_chunks_mut(ROWS_PER_TASK * r)
            .enumerate()
            .map(|(b, out)| {
                let rows = b * ROWS_PER_TASK..(b * ROWS_PER_TASK + out.len() / r);
                let len = rows.len() as u64;
                let sums = self.evaluate_block(s, &scales, rows, out);
                work.add(len);
                sums
            })
            .collect();
        drop(work);
        let (mut fit, mut feasible_fit) = (0.0, 0.0);
        let mut diags = Vec::with_capacity(partials.len());
        for p in partials {
            fit += p.fit;
            feasible_fit += p.feasible_fit;
            diags.push(p.diag);
        }
        let diag = sum_in_order(diags, r);
        let divergence = fit + scales.s.iter().sum::<f64>();
        let feasible = feasible_fit + scales.feasible_s.iter().sum::<f64>();
        Evaluation {
            s: scales.s,
            inv_s: scales.inv_s,
            zw,
            diag,
            fit,
            divergence,
            feasible,
        }
    }

    /// Rows `rows` of the pass: fills their `(ZW)` rows in `out`, returns
    /// their share of the sums. Compiled twice, with and without AVX2, and
    /// chosen once per block ([`crate::fast::lanes::widest`]; the loop uses
    /// no intrinsics, so both copies give the same bits).
    fn evaluate_block(
        &self,
        s: &Csr,
        scales: &Scales,
        rows: std::ops::Range<usize>,
        out: &mut [f64],
    ) -> BlockSums {
        widest(
            Width::Avx2,
            EvaluateBlock {
                model: self,
                s,
                scales,
                rows,
                out,
            },
        )
    }

    #[inline(always)]
    fn evaluate_block_body(
        &self,
        s: &Csr,
        scales: &Scales,
        rows: std::ops::Range<usize>,
        out: &mut [f64],
    ) -> BlockSums {
        let r = self.r;
        let (indptr, indices, data) = (s.indptr(), s.indices(), s.data());
        let mut u = vec![0f64; r];
        let mut v = vec![0f64; r];
        let mut sums = BlockSums {
            fit: 0.0,
            feasible_fit: 0.0,
            diag: vec![0f64; r],
        };
        for (i, acc) in rows.zip(out.chunks_exact_mut(r)) {
            let wi = self.row(i);
            scale_row(wi, &scales.inv_s, 1.0, &mut u);
            scale_row(wi, &scales.feasible_inv_s, scales.inv_rho[i], &mut v);
            for k in indptr[i]..indptr[i + 1] {
                let sij = data[k];
                if !(sij > 0.0) {
                    continue;
                }
                let j = indices[k] as usize;
                let wj = self.row(j);
                let shat = kernel::dot(&u, wj) + EPS;
                let z = sij / shat;
                sums.fit += sij * z.ln() - sij;
                kernel::axpy(z, wj, acc);
                let feasible = kernel::dot(&v, wj) * scales.inv_rho[j] + EPS;
                sums.feasible_fit += sij * (sij / feasible).ln() - sij;
            }
            for ((d, a), &x) in sums.diag.iter_mut().zip(acc.iter()).zip(wi) {
                *d += x as f64 * a;
            }
        }
        sums
    }

    /// One multiplicative update from `e`, the evaluation of the current `W`.
    pub fn update(&mut self, e: &Evaluation) {
        let r = self.r;
        let grad_plus: Vec<f64> = e
            .diag
            .iter()
            .zip(&e.inv_s)
            .map(|(&d, &q)| d * q * q)
            .collect();
        let inv_plus: Vec<f64> = grad_plus.iter().map(|&g| 1.0 / (g + EPS)).collect();
        self.w
            .par_chunks_mut(ROWS_PER_TASK * r)
            .zip(e.zw.par_chunks(ROWS_PER_TASK * r))
            .for_each(|(block, zw)| {
                let mut minus = vec![0f64; r];
                for (w, zw) in block.chunks_exact_mut(r).zip(zw.chunks_exact(r)) {
                    let (mut a, mut b) = (0.0, 0.0);
                    for k in 0..r {
                        minus[k] = 2.0 * zw[k] * e.inv_s[k];
                        let x = w[k] as f64 * inv_plus[k];
                        a += x;
                        b += x * minus[k];
                    }
                    for k in 0..r {
                        let ratio = (minus[k] * a + 1.0) / (grad_plus[k] * a + b + EPS);
                        w[k] = (w[k] as f64 * ratio) as f32;
                    }
                }
            });
    }

    /// `W` with every row divided by its sum: the nearest point of the
    /// relaxed iterate on the simplex the model is defined on (rows of zeros stay).
    pub fn normalized(&self) -> Model {
        let mut w = self.w.clone();
        for row in w.chunks_exact_mut(self.r) {
            let sum: f64 = row.iter().map(|&x| x as f64).sum();
            if sum > 0.0 {
                for x in row.iter_mut() {
                    *x = (*x as f64 / sum) as f32;
                }
            }
        }
        Model {
            n: self.n,
            r: self.r,
            w,
        }
    }

    /// The largest `|Σ_k W_ik − 1|` over the rows: how far `W` is from the simplex.
    pub fn simplex_gap(&self) -> f64 {
        self.w
            .chunks_exact(self.r)
            .map(|row| (row.iter().map(|&x| x as f64).sum::<f64>() - 1.0).abs())
            .fold(0.0, f64::max)
    }
}

/// `u_k = c W_ik / s_k` in `f64`.
fn scale_row(w: &[f32], inv_s: &[f64], c: f64, u: &mut [f64]) {
    for ((u, &x), &q) in u.iter_mut().zip(w).zip(inv_s) {
        *u = x as f64 * c * q;
    }
}

/// The sums of one block of rows.
struct BlockSums {
    fit: f64,
    feasible_fit: f64,
    diag: Vec<f64>,
}

/// The scalings an evaluation needs, for `W` and for its rows projected onto
/// the simplex (`W̃_i = W_i / ρ_i`, `ρ_i = Σ_k W_ik`).
struct Scales {
    s: Vec<f64>,
    inv_s: Vec<f64>,
    /// `1 / ρ_i` (0 for a row of zeros).
    inv_rho: Vec<f64>,
    /// `s̃_k = Σ_v W_vk / ρ_v`.
    feasible_s: Vec<f64>,
    feasible_inv_s: Vec<f64>,
}

impl Scales {
    fn of(m: &Model) -> Scales {
        let inv = |x: f64| if x > 0.0 { 1.0 / x } else { 0.0 };
        let s = m.column_sums();
        let inv_rho: Vec<f64> =
            m.w.par_chunks(m.r)
                .map(|row| inv(row.iter().map(|&x| x as f64).sum()))
                .collect();
        let feasible_s = m.column_sums_scaled(&inv_rho);
        Scales {
            inv_s: s.iter().map(|&x| inv(x)).collect(),
            s,
            inv_rho,
            feasible_inv_s: feasible_s.iter().map(|&x| inv(x)).collect(),
            feasible_s,
        }
    }
}

/// Element-wise sum of equal-length vectors, in the given order.
fn sum_in_order(parts: Vec<Vec<f64>>, len: usize) -> Vec<f64> {
    let mut out = vec![0f64; len];
    for p in parts {
        for (o, x) in out.iter_mut().zip(&p) {
            *o += x;
        }
    }
    out
}

/// The row kernels (`f64` sums over `f32` rows, the same bits with or
/// without AVX2), shared with the other methods in [`crate::fast::mixed`].
pub(crate) mod kernel {
    pub use crate::fast::mixed::{axpy_f64 as axpy, dot_f64 as dot};
}

/// [`Model::evaluate_block`]'s loop, for [`widest`].
struct EvaluateBlock<'a> {
    model: &'a Model,
    s: &'a Csr,
    scales: &'a Scales,
    rows: std::ops::Range<usize>,
    out: &'a mut [f64],
}

impl Kernel for EvaluateBlock<'_> {
    type Output = BlockSums;

    #[inline(always)]
    fn run<L: Lanes>(self, _: L) -> BlockSums {
        self.model
            .evaluate_block_body(self.s, self.scales, self.rows, self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernels_match_plain_sums() {
        let u: Vec<f64> = (0..13).map(|k| 0.1 * k as f64 - 0.3).collect();
        let w: Vec<f32> = (0..13).map(|k| (k * k) as f32 / 7.0).collect();
        let plain: f64 = u.iter().zip(&w).map(|(a, &b)| a * b as f64).sum();
        assert!((kernel::dot(&u, &w) - plain).abs() < 1e-12);
        let mut acc = vec![1.0; 13];
        kernel::axpy(2.0, &w, &mut acc);
        assert!((acc[3] - (1.0 + 2.0 * 9.0 / 7.0f32 as f64)).abs() < 1e-6);
    }
}
