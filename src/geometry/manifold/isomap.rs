//! Isomap's classical MDS (docs/methods/manifold.md, "Isomap"): the
//! eigenvectors of `B = −½ J S J`, `S` the squared geodesic distances and
//! `J = I − 11ᵀ/n`, applied as an operator on the stored `S` (never forming
//! `B`), the landmark triangulation, and the residual variance report.

use std::sync::Arc;

use ndarray::Array2;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;

use crate::fast::mixed::dot_f64;
use crate::linalg::SymmetricOperator;
use crate::stats::pearson;

/// Pairs sampled for the residual variance above this many pairs.
const VARIANCE_PAIRS: usize = 500_000;

/// `B = −½ J S J` for a symmetric `m × m` block of squared distances held in
/// `f32` rows of a wider matrix (`stride` values per row; the first `m`
/// columns of row `i` are `S_i*`). Products accumulate in `f64`.
pub struct CentredSquares {
    s: Arc<Vec<f32>>,
    m: usize,
    stride: usize,
    /// Column `c` of the stored matrix holds point `cols[c]`, when the block
    /// is the landmarks' (their columns are gathered once).
    gathered: Option<Vec<f32>>,
}

impl CentredSquares {
    /// The operator on the `n × n` matrix `s`.
    pub fn full(s: Arc<Vec<f32>>, n: usize) -> Self {
        CentredSquares {
            s,
            m: n,
            stride: n,
            gathered: None,
        }
    }

    /// The operator on the landmarks' block of `s` (`landmarks.len() × n`,
    /// row `r` from landmark `landmarks[r]`).
    pub fn landmarks(s: &[f32], n: usize, landmarks: &[u32]) -> Self {
        let m = landmarks.len();
        let mut block = vec![0.0f32; m * m];
        for r in 0..m {
            for (c, &l) in landmarks.iter().enumerate() {
                // Average both directions: shortest paths are symmetric up to rounding.
                let a = s[r * n + l as usize];
                let b = s[c * n + landmarks[r] as usize];
                block[r * m + c] = 0.5 * (a + b);
            }
        }
        CentredSquares {
            s: Arc::new(Vec::new()),
            m,
            stride: m,
            gathered: Some(block),
        }
    }

    fn rows(&self) -> &[f32] {
        self.gathered.as_deref().unwrap_or(&self.s)
    }
}

impl SymmetricOperator for CentredSquares {
    fn size(&self) -> usize {
        self.m
    }

    fn apply(&self, x: &[f64], y: &mut [f64], b: usize) {
        let m = self.m;
        // Columns of J X, contiguous, so that each row of S is read once per block.
        let mut cols = vec![0.0f64; b * m];
        for t in 0..b {
            let mean = (0..m).map(|i| x[i * b + t]).sum::<f64>() / m as f64;
            for i in 0..m {
                cols[t * m + i] = x[i * b + t] - mean;
            }
        }
        let rows = self.rows();
        let stride = self.stride;
        y.par_chunks_mut(b).enumerate().for_each(|(i, yi)| {
            let si = &rows[i * stride..i * stride + m];
            for (t, v) in yi.iter_mut().enumerate() {
                *v = dot_f64(&cols[t * m..(t + 1) * m], si);
            }
        });
        for t in 0..b {
            let mean = (0..m).map(|i| y[i * b + t]).sum::<f64>() / m as f64;
            for i in 0..m {
                y[i * b + t] = -0.5 * (y[i * b + t] - mean);
            }
        }
    }

    fn nnz(&self) -> usize {
        self.m * self.m
    }
}

/// `Y = U Λ^½` from eigenpairs (`n × d`; negative eigenvalues, which a
/// non-Euclidean geodesic matrix can have, give zero columns).
pub fn scaled_vectors(values: &[f64], vectors: &Array2<f64>) -> Array2<f64> {
    let mut y = vectors.clone();
    for (mut col, &l) in y.columns_mut().into_iter().zip(values) {
        let s = l.max(0.0).sqrt();
        col.mapv_inplace(|v| v * s);
    }
    y
}

/// Places every point from its squared distances to the landmarks (de Silva
/// & Tenenbaum's triangulation): `y_i = −½ L♯ (δ_i − δ̄)`, `L♯` rows
/// `v_kᵀ / √λ_k`, `δ̄` the mean landmark column of the landmarks' block.
pub fn triangulate(
    s: &[f32],
    n: usize,
    landmarks: &[u32],
    values: &[f64],
    vectors: &Array2<f64>,
) -> Array2<f64> {
    let m = landmarks.len();
    let d = values.len();
    let mut mean = vec![0.0f64; m];
    for (r, mr) in mean.iter_mut().enumerate() {
        *mr = landmarks
            .iter()
            .map(|&l| f64::from(s[r * n + l as usize]))
            .sum::<f64>()
            / m as f64;
    }
    let mut y = Array2::<f64>::zeros((n, d));
    y.axis_iter_mut(ndarray::Axis(0))
        .into_par_iter()
        .enumerate()
        .for_each(|(i, mut yi)| {
            for k in 0..d {
                if values[k] <= 0.0 {
                    continue;
                }
                let mut acc = 0.0;
                for r in 0..m {
                    acc += vectors[[r, k]] * (f64::from(s[r * n + i]) - mean[r]);
                }
                yi[k] = -0.5 * acc / values[k].sqrt();
            }
        });
    y
}

/// `m` distinct landmarks drawn from `n` points with `seed` (partial Fisher–Yates).
pub fn pick_landmarks(n: usize, m: usize, seed: u64) -> Vec<u32> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut ids: Vec<u32> = (0..n as u32).collect();
    for i in 0..m.min(n) {
        let j = rng.random_range(i..n);
        ids.swap(i, j);
    }
    ids.truncate(m.min(n));
    ids
}

/// `1 − ρ²` between geodesic and embedded distances over the pairs of rows
/// `sources` (of `s`) and all points: every pair when there are few, a
/// seeded sample otherwise. Tenenbaum et al.'s residual variance.
pub fn residual_variance(s: &[f32], n: usize, sources: &[u32], y: &Array2<f64>, seed: u64) -> f64 {
    let total = sources.len() * n;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x5eed);
    let pairs: Vec<(usize, usize)> = if total <= VARIANCE_PAIRS {
        (0..sources.len())
            .flat_map(|r| (0..n).map(move |j| (r, j)))
            .collect()
    } else {
        (0..VARIANCE_PAIRS)
            .map(|_| (rng.random_range(0..sources.len()), rng.random_range(0..n)))
            .collect()
    };
    let pairs: Vec<(usize, usize)> = pairs
        .into_iter()
        .filter(|&(r, j)| sources[r] as usize != j)
        .collect();
    let geo: Vec<f64> = pairs
        .iter()
        .map(|&(r, j)| f64::from(s[r * n + j]).sqrt())
        .collect();
    let emb: Vec<f64> = pairs
        .iter()
        .map(|&(r, j)| {
            let a = y.row(sources[r] as usize);
            let b = y.row(j);
            a.iter()
                .zip(b.iter())
                .map(|(p, q)| (p - q) * (p - q))
                .sum::<f64>()
                .sqrt()
        })
        .collect();
    let rho = pearson(&geo, &emb);
    if rho.is_nan() {
        1.0
    } else {
        1.0 - rho * rho
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::DenseSymmetric;

    #[test]
    fn the_operator_double_centres_without_forming_b() {
        let n = 5;
        let pts = [0.0f64, 1.0, 3.0, 4.5, 7.0];
        let s: Vec<f32> = (0..n * n)
            .map(|k| ((pts[k / n] - pts[k % n]).powi(2)) as f32)
            .collect();
        let op = CentredSquares::full(Arc::new(s.clone()), n);
        // Dense B for comparison.
        let mut b = vec![0.0f64; n * n];
        let row_mean: Vec<f64> = (0..n)
            .map(|i| (0..n).map(|j| f64::from(s[i * n + j])).sum::<f64>() / n as f64)
            .collect();
        let all = row_mean.iter().sum::<f64>() / n as f64;
        for i in 0..n {
            for j in 0..n {
                b[i * n + j] = -0.5 * (f64::from(s[i * n + j]) - row_mean[i] - row_mean[j] + all);
            }
        }
        let dense = DenseSymmetric::new(n, b).unwrap();
        let x: Vec<f64> = (0..n * 2).map(|k| (k as f64 * 0.7).sin()).collect();
        let (mut y1, mut y2) = (vec![0.0; n * 2], vec![0.0; n * 2]);
        op.apply(&x, &mut y1, 2);
        dense.apply(&x, &mut y2, 2);
        for (a, b) in y1.iter().zip(&y2) {
            assert!((a - b).abs() < 1e-9, "{a} vs {b}");
        }
    }

    #[test]
    fn landmarks_are_distinct_and_seeded() {
        let a = pick_landmarks(100, 20, 3);
        let mut b = a.clone();
        b.sort_unstable();
        b.dedup();
        assert_eq!(b.len(), 20);
        assert_eq!(a, pick_landmarks(100, 20, 3));
    }
}
