//! t-SNE's input affinities: a sparse, symmetric joint distribution `P`.
//!
//! Each point gets a Gaussian over its `k = 3 × perplexity` nearest
//! neighbours whose bandwidth is found by bisection so that the conditional
//! distribution's entropy is `ln(perplexity)` (van der Maaten 2014; the same
//! construction as scikit-learn's and openTSNE's, with squared Euclidean
//! distances). The conditionals are symmetrised as
//! `p_ij = (p_j|i + p_i|j) / 2n`, so `P` sums to one.

use rayon::prelude::*;

use super::knn::Knn;
use crate::{Error, Result};

/// Entropy tolerance of the bandwidth search, in nats.
const ENTROPY_TOL: f64 = 1e-5;
/// Bisection steps at most (the tolerance is normally met in 20-60).
const MAX_STEPS: usize = 200;

/// A square sparse matrix in compressed rows: `values[indptr[i]..indptr[i+1]]`
/// are row `i`'s entries at columns `indices[..]` (sorted, no duplicates).
#[derive(Debug, Clone, PartialEq)]
pub struct SparseP {
    /// Row starts, `n + 1` of them.
    pub indptr: Vec<usize>,
    /// Column of each entry.
    pub indices: Vec<u32>,
    /// Value of each entry (probabilities; `f32` storage, sums in `f64`).
    pub values: Vec<f32>,
}

impl SparseP {
    /// Number of rows (points).
    pub fn n(&self) -> usize {
        self.indptr.len() - 1
    }

    /// Number of stored entries.
    pub fn nnz(&self) -> usize {
        self.indices.len()
    }

    /// Columns and values of row `i`.
    pub fn row(&self, i: usize) -> (&[u32], &[f32]) {
        let r = self.indptr[i]..self.indptr[i + 1];
        (&self.indices[r.clone()], &self.values[r])
    }

    /// `Σ p_ij` (1 up to rounding).
    pub fn sum(&self) -> f64 {
        self.values.iter().map(|&v| f64::from(v)).sum()
    }

    /// `Σ p_ij ln p_ij`, the constant part of KL(P ‖ Q).
    pub fn neg_entropy(&self) -> f64 {
        self.values
            .iter()
            .filter(|&&v| v > 0.0)
            .map(|&v| f64::from(v) * f64::from(v).ln())
            .sum()
    }

    /// The value at `(i, j)` (0 when not stored).
    pub fn get(&self, i: usize, j: usize) -> f32 {
        let (cols, vals) = self.row(i);
        cols.binary_search(&(j as u32)).map_or(0.0, |p| vals[p])
    }
}

/// Conditional neighbour distributions: row `i` holds `p_j|i` for the
/// neighbours in `knn.row(i)`, in the same order.
#[derive(Debug, Clone, PartialEq)]
pub struct Conditional {
    /// `n × k` probabilities.
    pub p: Vec<f64>,
    /// The precision `β_i = 1 / 2σ_i²` found for each point.
    pub beta: Vec<f64>,
}

/// Calibrates every point's bandwidth to `perplexity` on its neighbours.
/// Fails when the perplexity is not positive or not below the neighbour count.
pub fn conditional(knn: &Knn, perplexity: f64) -> Result<Conditional> {
    let k = knn.k;
    if !(perplexity.is_finite() && perplexity > 0.0) {
        return Err(Error::param(
            "perplexity",
            format!("{perplexity} (expected a positive number)"),
        ));
    }
    if k == 0 || perplexity >= k as f64 {
        return Err(Error::param(
            "perplexity",
            format!(
                "{perplexity} needs more than {k} neighbours per point; use a perplexity below {} or more points",
                k.max(1)
            ),
        ));
    }
    let target = perplexity.ln();
    let mut p = vec![0.0; knn.len() * k];
    let beta: Vec<f64> = p
        .par_chunks_mut(k)
        .enumerate()
        .map(|(i, row)| calibrate(knn.row(i).1, target, row))
        .collect();
    Ok(Conditional { p, beta })
}

/// Bisection on `β` for one point: fills `out` with the normalised
/// probabilities and returns `β`. Distances are shifted by their minimum,
/// which leaves the distribution unchanged and keeps `exp` in range.
fn calibrate(dist2: &[f32], target: f64, out: &mut [f64]) -> f64 {
    let d_min = dist2
        .iter()
        .map(|&d| f64::from(d))
        .fold(f64::INFINITY, f64::min);
    let spread: f64 = dist2.iter().map(|&d| f64::from(d) - d_min).sum::<f64>() / dist2.len() as f64;
    // Start where the kernel is of the order of the typical spread.
    let mut beta = if spread > 0.0 { 1.0 / spread } else { 1.0 };
    let (mut lo, mut hi) = (0.0f64, f64::INFINITY);
    for _ in 0..MAX_STEPS {
        let entropy = fill(dist2, d_min, beta, out);
        let diff = entropy - target;
        if diff.abs() <= ENTROPY_TOL {
            break;
        }
        if diff > 0.0 {
            // Too flat: sharpen.
            lo = beta;
            beta = if hi.is_finite() {
                0.5 * (beta + hi)
            } else {
                beta * 2.0
            };
        } else {
            hi = beta;
            beta = 0.5 * (beta + lo);
        }
    }
    fill(dist2, d_min, beta, out);
    beta
}

/// Writes `exp(−β (d − d_min))`, normalised, into `out`; returns the entropy (nats).
fn fill(dist2: &[f32], d_min: f64, beta: f64, out: &mut [f64]) -> f64 {
    let mut sum = 0.0;
    let mut weighted = 0.0;
    for (o, &d) in out.iter_mut().zip(dist2) {
        let shifted = f64::from(d) - d_min;
        let v = (-beta * shifted).exp();
        *o = v;
        sum += v;
        weighted += v * shifted;
    }
    // sum >= 1: the nearest neighbour contributes exp(0).
    let inv = 1.0 / sum;
    for o in out.iter_mut() {
        *o *= inv;
    }
    sum.ln() + beta * weighted * inv
}

/// The symmetric joint distribution `p_ij = (p_j|i + p_i|j) / 2n` as a sparse matrix.
pub fn symmetrize(knn: &Knn, cond: &Conditional) -> SparseP {
    let n = knn.len();
    let k = knn.k;
    // Row i receives its own k entries and one for every point that has i as a neighbour.
    let mut counts = vec![k; n];
    for &j in &knn.ids {
        counts[j as usize] += 1;
    }
    let mut starts = Vec::with_capacity(n + 1);
    starts.push(0usize);
    for c in &counts {
        starts.push(starts.last().copied().unwrap_or(0) + c);
    }
    let mut cols = vec![0u32; starts[n]];
    let mut vals = vec![0.0f64; starts[n]];
    let mut fill = starts[..n].to_vec();
    let scale = 1.0 / (2.0 * n as f64);
    for i in 0..n {
        let (ids, _) = knn.row(i);
        for (&j, &p) in ids.iter().zip(&cond.p[i * k..(i + 1) * k]) {
            let v = p * scale;
            for (row, col) in [(i, j as usize), (j as usize, i)] {
                cols[fill[row]] = col as u32;
                vals[fill[row]] = v;
                fill[row] += 1;
            }
        }
    }
    // Sort each row by column and merge duplicates (i ~ j and j ~ i).
    let rows: Vec<(Vec<u32>, Vec<f32>)> = (0..n)
        .into_par_iter()
        .map(|i| {
            merge_row(
                &cols[starts[i]..starts[i + 1]],
                &vals[starts[i]..starts[i + 1]],
            )
        })
        .collect();
    let mut indptr = Vec::with_capacity(n + 1);
    indptr.push(0);
    let total: usize = rows.iter().map(|r| r.0.len()).sum();
    let mut indices = Vec::with_capacity(total);
    let mut values = Vec::with_capacity(total);
    for (c, v) in rows {
        indices.extend_from_slice(&c);
        values.extend_from_slice(&v);
        indptr.push(indices.len());
    }
    SparseP {
        indptr,
        indices,
        values,
    }
}

/// One row's entries sorted by column, duplicates summed.
fn merge_row(cols: &[u32], vals: &[f64]) -> (Vec<u32>, Vec<f32>) {
    let mut pairs: Vec<(u32, f64)> = cols.iter().copied().zip(vals.iter().copied()).collect();
    pairs.sort_unstable_by_key(|p| p.0);
    let mut out_c: Vec<u32> = Vec::with_capacity(pairs.len());
    let mut out_v: Vec<f64> = Vec::with_capacity(pairs.len());
    for (c, v) in pairs {
        if out_c.last() == Some(&c) {
            if let Some(last) = out_v.last_mut() {
                *last += v;
            }
        } else {
            out_c.push(c);
            out_v.push(v);
        }
    }
    (out_c, out_v.into_iter().map(|v| v as f32).collect())
}

/// Input affinities for `perplexity` from a neighbour graph: calibration plus symmetrisation.
pub fn affinities(knn: &Knn, perplexity: f64) -> Result<SparseP> {
    let cond = conditional(knn, perplexity)?;
    Ok(symmetrize(knn, &cond))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::testdata::gaussian_blobs;
    use crate::project::tsne::knn::knn;

    #[test]
    fn calibration_hits_the_target_entropy() {
        let x = gaussian_blobs(400, 10, 4, 1);
        let g = knn(x.view(), 45);
        for perplexity in [5.0, 15.0, 30.0] {
            let cond = conditional(&g, perplexity).unwrap();
            for i in 0..g.len() {
                let row = &cond.p[i * g.k..(i + 1) * g.k];
                let total: f64 = row.iter().sum();
                assert!((total - 1.0).abs() < 1e-12);
                let h: f64 = -row
                    .iter()
                    .filter(|&&p| p > 0.0)
                    .map(|p| p * p.ln())
                    .sum::<f64>();
                assert!(
                    (h - perplexity.ln()).abs() < 1e-4,
                    "point {i}: perplexity {} vs {perplexity}",
                    h.exp()
                );
                // The conditional decreases with distance.
                assert!(row.windows(2).all(|w| w[0] >= w[1]));
            }
        }
    }

    #[test]
    fn hand_computed_symmetric_matrix() {
        // Three points on a line at 0, 1, 3 with k = 2: each point sees both others.
        let x = ndarray::array![[0.0f32], [1.0], [3.0]];
        let g = knn(x.view(), 2);
        let cond = conditional(&g, 1.5).unwrap();
        let p = symmetrize(&g, &cond);
        assert_eq!(p.n(), 3);
        assert_eq!(p.nnz(), 6, "no diagonal, duplicates merged");
        assert!((p.sum() - 1.0).abs() < 1e-6);
        for i in 0..3 {
            for j in 0..3 {
                assert!((p.get(i, j) - p.get(j, i)).abs() < 1e-7);
            }
        }
        // p_01 = (p_1|0 + p_0|1) / 6, with p_j|i from each point's own row.
        let pc = |i: usize, j: u32| {
            let (ids, _) = g.row(i);
            cond.p[i * 2 + ids.iter().position(|&x| x == j).unwrap()]
        };
        let want = (pc(0, 1) + pc(1, 0)) / 6.0;
        assert!((f64::from(p.get(0, 1)) - want).abs() < 1e-7);
        assert!(p.neg_entropy() < 0.0);
    }

    #[test]
    fn bad_perplexity_is_an_error() {
        let x = gaussian_blobs(20, 3, 2, 2);
        let g = knn(x.view(), 9);
        let e = conditional(&g, 30.0).unwrap_err().to_string();
        assert!(e.starts_with("invalid value for perplexity: 30"), "{e}");
        assert!(conditional(&g, 0.0).is_err());
        assert!(conditional(&g, f64::NAN).is_err());
    }
}
