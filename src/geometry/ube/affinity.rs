//! UBE's input similarities (docs/methods/ube.md, "Affinities"): every
//! point keeps its nearest neighbours up to the *elbow* of its sorted
//! neighbour distances, with a Gaussian whose 3σ falls on the elbow; the
//! directed weights are then averaged with their transposes, `(W + Wᵀ)/2`,
//! so that the objective's gradient is exact.

use ndarray::ArrayView2;

use crate::geometry::knn::{search, Knn, Search};
use crate::{Error, Result};

/// Smallest Gaussian width (duplicate points have elbow distance 0).
const MIN_SIGMA: f64 = 1e-12;

/// The index (0-based) of the elbow of an increasing curve `d[0..k]`: the
/// point farthest from the straight line through the first and the last
/// point. The argmax does not change when either axis is rescaled, so no
/// normalisation is needed. A straight curve has no elbow: the last index.
pub fn elbow(d: &[f64]) -> usize {
    let k = d.len();
    if k < 3 {
        return k.saturating_sub(1);
    }
    let (dx, dy) = ((k - 1) as f64, d[k - 1] - d[0]);
    let mut best = (k - 1, 0.0f64);
    for (j, &v) in d.iter().enumerate().take(k - 1).skip(1) {
        // |cross product| of the chord and the vector to point j, proportional
        // to the distance of point j from the chord.
        let dist = (dx * (v - d[0]) - dy * j as f64).abs();
        if dist > best.1 * (1.0 + 1e-12) {
            best = (j, dist);
        }
    }
    best.0
}

/// The symmetric sparse affinity matrix `W` in compressed rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Affinities {
    /// Row `i`'s entries are `ids[indptr[i]..indptr[i + 1]]`, ids ascending.
    pub indptr: Vec<usize>,
    /// Neighbour ids.
    pub ids: Vec<u32>,
    /// Weights `w_ij` in `(0, 1]`, matching `ids`.
    pub weights: Vec<f64>,
    /// Neighbours each point kept (its elbow, 1-based) before symmetrising.
    pub kept: Vec<u32>,
    /// Gaussian width of each point.
    pub sigma: Vec<f64>,
}

impl Affinities {
    /// Affinities of the rows of `x` from their `k_max` nearest neighbours,
    /// the elbow at `coverage` standard deviations (the paper: 3).
    pub fn build(x: ArrayView2<'_, f32>, k_max: usize, coverage: f64) -> Result<Affinities> {
        Affinities::build_with_floor(x, k_max, 1, coverage, Search::Auto)
    }

    /// [`Affinities::build`] with every point keeping at least `min_k`
    /// neighbours (its cut at the later of its elbow and its `min_k`-th
    /// neighbour; the authors' code floors at 15).
    pub fn build_with_floor(
        x: ArrayView2<'_, f32>,
        k_max: usize,
        min_k: usize,
        coverage: f64,
        how: Search,
    ) -> Result<Affinities> {
        let n = x.nrows();
        if n < 3 {
            return Err(Error::param(
                "points",
                format!("{n} points; UBE needs at least 3"),
            ));
        }
        if k_max < 2 {
            return Err(Error::param(
                "k_max",
                format!("{k_max} (expected at least 2)"),
            ));
        }
        Ok(Affinities::from_knn(
            &search(x, k_max, how),
            min_k,
            coverage,
        ))
    }

    /// Affinities from a neighbour search already done (squared distances),
    /// every point keeping at least `min_k` neighbours.
    pub fn from_knn(g: &Knn, min_k: usize, coverage: f64) -> Affinities {
        let n = g.len();
        let mut kept = Vec::with_capacity(n);
        let mut sigma = Vec::with_capacity(n);
        let mut rows: Vec<Vec<(u32, f64)>> = vec![Vec::new(); n];
        let mut d = Vec::with_capacity(g.k);
        for i in 0..n {
            let (ids, d2) = g.row(i);
            d.clear();
            d.extend(d2.iter().map(|&v| f64::from(v).max(0.0).sqrt()));
            let e = elbow(&d)
                .max(min_k.saturating_sub(1))
                .min(d.len().saturating_sub(1));
            let s = (d[e] / coverage).max(MIN_SIGMA);
            kept.push(e as u32 + 1);
            sigma.push(s);
            for (&j, &dist) in ids.iter().zip(&d).take(e + 1) {
                let w = (-dist * dist / (2.0 * s * s)).exp();
                if w > 0.0 {
                    rows[i].push((j, 0.5 * w));
                    rows[j as usize].push((i as u32, 0.5 * w));
                }
            }
        }
        let mut a = Affinities {
            indptr: Vec::with_capacity(n + 1),
            ids: Vec::new(),
            weights: Vec::new(),
            kept,
            sigma,
        };
        a.indptr.push(0);
        for row in &mut rows {
            row.sort_by_key(|e| e.0);
            let mut last = u32::MAX;
            for &(j, w) in row.iter() {
                if j == last {
                    *a.weights.last_mut().expect("an entry was pushed") += w;
                } else {
                    a.ids.push(j);
                    a.weights.push(w);
                    last = j;
                }
            }
            a.indptr.push(a.ids.len());
        }
        a
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.indptr.len() - 1
    }

    /// True for no points.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Ids and weights of row `i`.
    pub fn row(&self, i: usize) -> (&[u32], &[f64]) {
        let r = self.indptr[i]..self.indptr[i + 1];
        (&self.ids[r.clone()], &self.weights[r])
    }

    /// `Σ_ij w_ij²` (the objective's constant part).
    pub fn sum_squares(&self) -> f64 {
        self.weights.iter().map(|w| w * w).sum()
    }

    /// Mean neighbours kept per point (the elbows).
    pub fn mean_kept(&self) -> f64 {
        self.kept.iter().map(|&k| f64::from(k)).sum::<f64>() / self.len().max(1) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn the_elbow_of_a_bent_curve_is_at_the_bend() {
        // Steep rise to index 9, then flat: the bend is at 9.
        let d: Vec<f64> = (0..50)
            .map(|j| {
                if j <= 9 {
                    j as f64
                } else {
                    9.0 + 0.01 * (j - 9) as f64
                }
            })
            .collect();
        assert_eq!(elbow(&d), 9);
        // Flat then a jump (moving to another cluster): the last flat point.
        let d: Vec<f64> = (0..50)
            .map(|j| {
                if j < 20 {
                    1.0 + 0.001 * j as f64
                } else {
                    5.0 + 0.1 * j as f64
                }
            })
            .collect();
        assert_eq!(elbow(&d), 19);
        // Rescaling either axis keeps it.
        let scaled: Vec<f64> = d.iter().map(|v| 1000.0 * v).collect();
        assert_eq!(elbow(&scaled), 19);
        // Straight lines and tiny curves.
        let line: Vec<f64> = (0..10).map(|j| 2.0 * j as f64).collect();
        assert_eq!(elbow(&line), 9);
        assert_eq!(elbow(&[1.0, 2.0]), 1);
        assert_eq!(elbow(&[]), 0);
    }

    #[test]
    fn weights_are_symmetrised_gaussians_cut_at_the_elbow() {
        let x = array![
            [0.0f32, 0.0],
            [0.1, 0.0],
            [0.0, 0.3],
            [0.4, 0.4],
            [3.0, 0.0],
            [3.2, 0.1],
            [2.9, 0.5],
            [6.0, 6.0]
        ];
        let n = x.nrows();
        let a = Affinities::build(x.view(), 6, 3.0).unwrap();
        // Brute force: directed Gaussian weights up to each point's elbow.
        let dist = |i: usize, j: usize| -> f64 {
            let (a, b) = (x.row(i), x.row(j));
            let s: f64 = a.iter().zip(b).map(|(p, q)| f64::from(p - q).powi(2)).sum();
            s.sqrt()
        };
        let mut directed = vec![vec![0.0f64; n]; n];
        for i in 0..n {
            let mut others: Vec<usize> = (0..n).filter(|&j| j != i).collect();
            others.sort_by(|&p, &q| dist(i, p).total_cmp(&dist(i, q)));
            others.truncate(6);
            let d: Vec<f64> = others.iter().map(|&j| dist(i, j)).collect();
            let e = elbow(&d);
            assert_eq!(a.kept[i] as usize, e + 1, "point {i}");
            let s = d[e] / 3.0;
            assert!((a.sigma[i] - s).abs() < 1e-5);
            for &j in &others[..=e] {
                directed[i][j] = (-dist(i, j).powi(2) / (2.0 * s * s)).exp();
            }
        }
        for i in 0..n {
            let (ids, w) = a.row(i);
            let want: Vec<(usize, f64)> = (0..n)
                .map(|j| (j, 0.5 * (directed[i][j] + directed[j][i])))
                .filter(|&(_, v)| v > 0.0)
                .collect();
            assert_eq!(ids.len(), want.len(), "row {i}");
            for ((&j, &v), &(wj, wv)) in ids.iter().zip(w).zip(&want) {
                assert_eq!(j as usize, wj);
                assert!((v - wv).abs() < 1e-5, "w[{i}][{j}] = {v}, want {wv}");
            }
        }
        // Symmetric, as the exact gradient needs.
        for i in 0..n {
            for (&j, &v) in a.row(i).0.iter().zip(a.row(i).1) {
                let (back, bw) = a.row(j as usize);
                let k = back.iter().position(|&b| b as usize == i).unwrap();
                assert_eq!(bw[k], v);
            }
        }
        assert!(Affinities::build(x.view(), 1, 3.0).is_err());
        assert!(Affinities::build(x.slice(ndarray::s![..2, ..]), 5, 3.0).is_err());
    }
}
