//! Locally linear embedding (docs/methods/manifold.md, "LLE"): the
//! reconstruction weights from regularised local Gram solves, and the
//! operator `c I − M`, `M = (I − W)ᵀ(I − W)`, applied by two sparse products
//! so that the bottom eigenvectors of `M` are the top ones of a sparse solve.

use ndarray::ArrayView2;
use rayon::prelude::*;

use crate::fast::mixed::dot_f32;
use crate::linalg::dense::{cholesky_solve, WeakPivot};
use crate::linalg::{Csr, SymmetricOperator};
use crate::Result;

/// Reconstruction weights and what they cost.
pub struct Weights {
    /// `W` (`n × n`, rows sum to one).
    pub w: Csr,
    /// `Σ_i ‖x_i − Σ_j w_ij x_j‖²`.
    pub reconstruction_error: f64,
}

/// Per-thread buffers of the local solves (no allocation per point).
struct Local {
    z: Vec<f32>,
    c: Vec<f64>,
    raw: Vec<f64>,
    w: Vec<f64>,
}

/// The weights reconstructing each row of `x` from its neighbours
/// `lists[i]`: `C w = 1` with `C_jk = (x_i − x_j)·(x_i − x_k)` plus
/// `reg · tr(C)` on the diagonal (`reg` alone when the trace is 0), then
/// `w / Σ w`.
pub fn weights(x: ArrayView2<'_, f32>, lists: &[&[u32]], reg: f64) -> Result<Weights> {
    let n = x.nrows();
    let x = x.as_standard_layout();
    let dim = x.ncols();
    let rows: Vec<(Vec<(u32, f64)>, f64)> = (0..n)
        .into_par_iter()
        .map_init(
            || Local {
                z: Vec::new(),
                c: Vec::new(),
                raw: Vec::new(),
                w: Vec::new(),
            },
            |buf, i| {
                let ids = lists[i];
                let k = ids.len();
                buf.z.clear();
                let xi = x.row(i);
                let xi = xi.as_slice().expect("standard layout");
                for &j in ids {
                    let xj = x.row(j as usize);
                    let xj = xj.as_slice().expect("standard layout");
                    buf.z.extend(xj.iter().zip(xi).map(|(a, b)| a - b));
                }
                gram(&buf.z, k, dim, &mut buf.c);
                buf.raw.clone_from(&buf.c);
                let trace: f64 = (0..k).map(|a| buf.c[a * k + a]).sum();
                let r = if trace > 0.0 { reg * trace } else { reg };
                for a in 0..k {
                    buf.c[a * k + a] += r;
                }
                buf.w.clear();
                buf.w.resize(k, 1.0);
                solve_spd(&mut buf.c, k, &mut buf.w);
                let sum: f64 = buf.w.iter().sum();
                buf.w.iter_mut().for_each(|v| *v /= sum);
                let err = quadratic(&buf.raw, &buf.w, k);
                let mut row: Vec<(u32, f64)> =
                    ids.iter().copied().zip(buf.w.iter().copied()).collect();
                row.sort_by_key(|e| e.0);
                (row, err)
            },
        )
        .collect();
    let mut indptr = Vec::with_capacity(n + 1);
    indptr.push(0);
    let (mut indices, mut data) = (Vec::new(), Vec::new());
    let mut reconstruction_error = 0.0;
    for (row, err) in rows {
        for (j, v) in row {
            indices.push(j);
            data.push(v);
        }
        indptr.push(indices.len());
        reconstruction_error += err;
    }
    Ok(Weights {
        w: Csr::new((n, n), indptr, indices, data)?,
        reconstruction_error,
    })
}

/// `C = Z Zᵀ` of `k` rows of length `dim` (symmetric, `f64` sums).
fn gram(z: &[f32], k: usize, dim: usize, c: &mut Vec<f64>) {
    c.clear();
    c.resize(k * k, 0.0);
    for a in 0..k {
        let za = &z[a * dim..(a + 1) * dim];
        for b in 0..=a {
            let v = dot_f32(za, &z[b * dim..(b + 1) * dim]);
            c[a * k + b] = v;
            c[b * k + a] = v;
        }
    }
}

/// `wᵀ C w`.
fn quadratic(c: &[f64], w: &[f64], k: usize) -> f64 {
    (0..k)
        .map(|a| w[a] * (0..k).map(|b| c[a * k + b] * w[b]).sum::<f64>())
        .sum()
}

/// Solves `A x = rhs` in place for the regularised local Gram matrix `A`
/// (`k × k`); a pivot that rounds to zero or below is raised to a tiny
/// positive value so that the solve never fails.
fn solve_spd(a: &mut [f64], k: usize, rhs: &mut [f64]) {
    let scale = (0..k).map(|i| a[i * k + i].abs()).fold(0.0f64, f64::max);
    let floor = (scale * 1e-14).max(f64::MIN_POSITIVE);
    cholesky_solve(a, k, rhs, WeakPivot::Floor(floor));
}

/// `c I − (I − W)ᵀ(I − W)`: its largest eigenpairs are `M`'s smallest.
pub struct ShiftedCost {
    w: Csr,
    wt: Csr,
    shift: f64,
}

impl ShiftedCost {
    /// The operator for `w`, shifted by a bound on `λ_max(M)`:
    /// `‖I − W‖₁ ‖I − W‖_∞` (row and column absolute sums).
    pub fn new(w: Csr) -> Self {
        let wt = w.transpose();
        let shift = (1.0 + w.norm_inf()) * (1.0 + wt.norm_inf());
        ShiftedCost { w, wt, shift }
    }

    /// The shift `c`.
    pub fn shift(&self) -> f64 {
        self.shift
    }
}

impl SymmetricOperator for ShiftedCost {
    fn size(&self) -> usize {
        self.w.shape().0
    }

    fn apply(&self, x: &[f64], y: &mut [f64], b: usize) {
        // t = (I − W) x; y = c x − (t − Wᵀ t).
        let mut t = vec![0.0; x.len()];
        self.w.mul_block(x, &mut t, b);
        t.par_iter_mut().zip(x).for_each(|(t, &x)| *t = x - *t);
        self.wt.mul_block(&t, y, b);
        y.par_iter_mut()
            .zip(x.par_iter().zip(&t))
            .for_each(|(y, (&x, &t))| *y = self.shift * x - (t - *y));
    }

    fn nnz(&self) -> usize {
        2 * self.w.nnz()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn weights_sum_to_one_and_reconstruct_a_line_exactly() {
        // x1 is the midpoint of x0 and x2: weights 1/2, 1/2, no error.
        let x = array![[0.0f32, 0.0], [1.0, 1.0], [2.0, 2.0]];
        let lists: Vec<&[u32]> = vec![&[1, 2], &[0, 2], &[1, 0]];
        let w = weights(x.view(), &lists, 1e-9).unwrap();
        let row = |i: usize| {
            let s = w.w.indptr()[i]..w.w.indptr()[i + 1];
            (w.w.indices()[s.clone()].to_vec(), w.w.data()[s].to_vec())
        };
        let (ids, vals) = row(1);
        assert_eq!(ids, vec![0, 2]);
        assert!((vals[0] - 0.5).abs() < 1e-6 && (vals[1] - 0.5).abs() < 1e-6);
        for i in 0..3 {
            assert!((row(i).1.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        }
        // x0 from x1, x2: 2 x1 − x2, error ~0 up to the regulariser.
        let (_, v0) = row(0);
        assert!(
            (v0[0] - 2.0).abs() < 1e-3 && (v0[1] + 1.0).abs() < 1e-3,
            "{v0:?}"
        );
        assert!(w.reconstruction_error < 1e-6);
    }

    #[test]
    fn the_constant_vector_is_the_top_of_the_shifted_operator() {
        let x = array![[0.0f32, 0.0], [1.0, 0.3], [2.0, 0.1], [3.0, 0.7]];
        let lists: Vec<&[u32]> = vec![&[1, 2], &[0, 2], &[1, 3], &[2, 1]];
        let w = weights(x.view(), &lists, 1e-3).unwrap();
        let op = ShiftedCost::new(w.w);
        let mut y = vec![0.0; 4];
        op.apply(&[1.0; 4], &mut y, 1);
        for v in y {
            assert!((v - op.shift()).abs() < 1e-12);
        }
    }
}
