//! UBE's objective and gradient with the repulsion collapsed through the
//! first two moments of the embedding (docs/methods/ube.md, "Objective").
//!
//! With `s_ij = (y_i·y_j + 1)/2` and `J = ½ Σ_{i≠j} (w_ij − s_ij)²`, every
//! pair contributes to the repulsion, an `O(n² d)` sum. But
//! `Σ_j (y_i·y_j) y_j = G y_i` with `G = YᵀY`, and `Σ_j y_j = m`, so
//!
//! - the gradient `g_i = −Σ_j w_ij y_j + ½(G y_i − ‖y_i‖² y_i) + ½(m − y_i)`
//!   costs `O(nnz_i d + d²)`;
//! - `Σ_{i,j} s_ij² = ¼‖G‖_F² + ½‖m‖² + n²/4`, so `J` costs
//!   `O(nnz d + n d²)` once `G` and `m` are known.
//!
//! [`Moments`] holds `G` and `m` and is kept exact under single-row moves
//! by rank-one updates, which is what makes Gauss–Seidel sweeps `O(d²)` per
//! point in the repulsion.

use ndarray::{Array2, ArrayView2};

use super::affinity::Affinities;

/// `G = YᵀY` (row-major `d × d`) and `m = Σ_i y_i`, in `f64`.
#[derive(Debug, Clone, PartialEq)]
pub struct Moments {
    /// Dimension `d`.
    pub dim: usize,
    /// `G`, row-major.
    pub gram: Vec<f64>,
    /// `m`.
    pub sum: Vec<f64>,
}

impl Moments {
    /// The moments of the rows of `y`.
    pub fn of(y: ArrayView2<'_, f64>) -> Moments {
        let dim = y.ncols();
        let mut m = Moments {
            dim,
            gram: vec![0.0; dim * dim],
            sum: vec![0.0; dim],
        };
        for row in y.rows() {
            let row = row.to_vec();
            m.add(&row, 1.0);
        }
        m
    }

    /// Adds `sign · r rᵀ` to `G` and `sign · r` to `m`.
    fn add(&mut self, r: &[f64], sign: f64) {
        for (a, &ra) in r.iter().enumerate() {
            let line = &mut self.gram[a * self.dim..(a + 1) * self.dim];
            for (g, &rb) in line.iter_mut().zip(r) {
                *g += sign * ra * rb;
            }
            self.sum[a] += sign * ra;
        }
    }

    /// One row moved from `old` to `new`: two rank-one updates, `O(d²)`.
    pub fn replace(&mut self, old: &[f64], new: &[f64]) {
        self.add(old, -1.0);
        self.add(new, 1.0);
    }

    /// `G v` into `out`.
    pub fn gram_times(&self, v: &[f64], out: &mut [f64]) {
        for (a, o) in out.iter_mut().enumerate() {
            let line = &self.gram[a * self.dim..(a + 1) * self.dim];
            *o = line.iter().zip(v).map(|(g, x)| g * x).sum();
        }
    }
}

/// The gradient of `J` with respect to row `i` of `y`, written to `out`
/// (`scratch` holds `d` values). Exact for any rows, on the sphere or not.
pub fn gradient(
    w: &Affinities,
    y: ArrayView2<'_, f64>,
    mom: &Moments,
    i: usize,
    out: &mut [f64],
    scratch: &mut [f64],
) {
    let yi = y.row(i);
    let yi = yi.as_slice().expect("standard layout");
    mom.gram_times(yi, scratch);
    let norm2: f64 = yi.iter().map(|v| v * v).sum();
    for (a, o) in out.iter_mut().enumerate() {
        *o = 0.5 * (scratch[a] - norm2 * yi[a]) + 0.5 * (mom.sum[a] - yi[a]);
    }
    let (ids, ws) = w.row(i);
    for (&j, &wij) in ids.iter().zip(ws) {
        let yj = y.row(j as usize);
        for (o, &v) in out.iter_mut().zip(yj.iter()) {
            *o -= wij * v;
        }
    }
}

/// `J = ½ Σ_{i≠j} (w_ij − s_ij)²` in `O(nnz d + n d²)`.
pub fn loss(w: &Affinities, y: ArrayView2<'_, f64>, mom: &Moments, sum_w2: f64) -> f64 {
    let n = y.nrows() as f64;
    let g2: f64 = mom.gram.iter().map(|g| g * g).sum();
    let m2: f64 = mom.sum.iter().map(|v| v * v).sum();
    let diag: f64 = y
        .rows()
        .into_iter()
        .map(|r| {
            let s = 0.5 * (r.dot(&r) + 1.0);
            s * s
        })
        .sum();
    let s2 = 0.25 * g2 + 0.5 * m2 + 0.25 * n * n - diag;
    let mut ws = 0.0;
    for i in 0..w.len() {
        let yi = y.row(i);
        let (ids, wv) = w.row(i);
        for (&j, &wij) in ids.iter().zip(wv) {
            ws += wij * 0.5 * (yi.dot(&y.row(j as usize)) + 1.0);
        }
    }
    0.5 * (sum_w2 - 2.0 * ws + s2)
}

/// Dense `W` (tests and small references).
pub fn dense(w: &Affinities) -> Array2<f64> {
    let n = w.len();
    let mut out = Array2::zeros((n, n));
    for i in 0..n {
        let (ids, ws) = w.row(i);
        for (&j, &v) in ids.iter().zip(ws) {
            out[[i, j as usize]] = v;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::testdata::gaussian_blobs;
    use crate::geometry::ube::init::random_sphere;

    fn problem(n: usize, dim: usize) -> (Affinities, Array2<f64>) {
        let x = gaussian_blobs(n, 6, 3, 4);
        let w = Affinities::build(x.view(), 10, 3.0).unwrap();
        (w, random_sphere(n, dim, 9))
    }

    /// `J` and the repulsion summed pair by pair, `O(n² d)`.
    fn brute(w: &Array2<f64>, y: &Array2<f64>) -> (f64, Array2<f64>) {
        let n = y.nrows();
        let mut j = 0.0;
        let mut rep = Array2::zeros(y.dim());
        for a in 0..n {
            for b in 0..n {
                if a == b {
                    continue;
                }
                let s = 0.5 * (y.row(a).dot(&y.row(b)) + 1.0);
                j += 0.5 * (w[[a, b]] - s).powi(2);
                let mut r = rep.row_mut(a);
                r.scaled_add(s, &y.row(b));
            }
        }
        (j, rep)
    }

    #[test]
    fn collapsed_repulsion_and_loss_equal_the_pairwise_sums() {
        for dim in [3, 7] {
            let (w, mut y) = problem(60, dim);
            // Off the sphere too: the formulas hold for any rows.
            y.row_mut(5).mapv_inplace(|v| 1.7 * v);
            let mom = Moments::of(y.view());
            let wd = dense(&w);
            let (want_j, rep) = brute(&wd, &y);
            let got_j = loss(&w, y.view(), &mom, w.sum_squares());
            assert!(
                (got_j - want_j).abs() < 1e-9 * want_j,
                "{got_j} vs {want_j}"
            );
            let (mut g, mut s) = (vec![0.0; dim], vec![0.0; dim]);
            for i in 0..60 {
                gradient(&w, y.view(), &mom, i, &mut g, &mut s);
                let attract = wd.row(i).dot(&y);
                for a in 0..dim {
                    let want = rep[[i, a]] - attract[a];
                    assert!((g[a] - want).abs() < 1e-9 * (1.0 + want.abs()), "{i} {a}");
                }
            }
        }
    }

    #[test]
    fn gradient_matches_finite_differences() {
        let (w, y) = problem(40, 4);
        let sum_w2 = w.sum_squares();
        let mom = Moments::of(y.view());
        let (mut g, mut s) = (vec![0.0; 4], vec![0.0; 4]);
        for i in [0usize, 17, 39] {
            gradient(&w, y.view(), &mom, i, &mut g, &mut s);
            for a in 0..4 {
                let h = 1e-5;
                let mut plus = y.clone();
                plus[[i, a]] += h;
                let mut minus = y.clone();
                minus[[i, a]] -= h;
                let jp = loss(&w, plus.view(), &Moments::of(plus.view()), sum_w2);
                let jm = loss(&w, minus.view(), &Moments::of(minus.view()), sum_w2);
                let fd = (jp - jm) / (2.0 * h);
                assert!(
                    (fd - g[a]).abs() < 1e-5 * (1.0 + fd.abs()),
                    "{i} {a}: {fd} vs {}",
                    g[a]
                );
            }
        }
    }

    #[test]
    fn rank_one_updates_keep_the_moments_exact() {
        let (_, mut y) = problem(30, 5);
        let mut mom = Moments::of(y.view());
        let old = y.row(3).to_vec();
        let new = vec![0.0, 1.0, 0.0, 0.0, 0.0];
        y.row_mut(3).assign(&ndarray::ArrayView1::from(&new));
        mom.replace(&old, &new);
        let fresh = Moments::of(y.view());
        for (a, b) in mom.gram.iter().zip(&fresh.gram) {
            assert!((a - b).abs() < 1e-12);
        }
        for (a, b) in mom.sum.iter().zip(&fresh.sum) {
            assert!((a - b).abs() < 1e-12);
        }
    }
}
