//! k-means clustering of the selected vectors, to colour a plot by groups
//! the embedding itself forms (not the 2-D layout, which would only echo
//! what the eye already sees).
//!
//! k-means++ seeding (Arthur & Vassilvitskii 2007) from a seeded RNG, then
//! Lloyd iterations until no point changes cluster. Distances are squared
//! Euclidean in `f64`; callers pass unit-length rows for cosine grouping.

use ndarray::{Array2, ArrayView2, Axis};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;

/// Lloyd iterations at most.
const MAX_ITERS: usize = 100;

/// Cluster labels `0..k` for the rows of `x` (`k` is capped at the number of rows).
/// Labels are renumbered by first appearance, so row 0 is in cluster 0.
pub fn kmeans(x: ArrayView2<'_, f32>, k: usize, seed: u64) -> Vec<usize> {
    kmeans_fit(x, k, seed).0
}

/// [`kmeans`] and its inertia: the sum of squared distances of the rows to
/// their centres (what restarts compare).
pub fn kmeans_fit(x: ArrayView2<'_, f32>, k: usize, seed: u64) -> (Vec<usize>, f64) {
    let n = x.nrows();
    let k = k.min(n);
    if k <= 1 {
        let x = x.mapv(f64::from);
        let mean = x.mean_axis(Axis(0));
        let inertia = mean.map_or(0.0, |m| {
            x.rows().into_iter().map(|r| sq_dist(r, m.view())).sum()
        });
        return (vec![0; n], inertia);
    }
    let x = x.mapv(f64::from);
    let mut centres = seed_centres(&x, k, seed);
    let mut labels = vec![usize::MAX; n];
    for _ in 0..MAX_ITERS {
        let next: Vec<usize> = x
            .axis_iter(Axis(0))
            .into_par_iter()
            .map(|row| nearest(&centres, row.as_slice().unwrap_or(&row.to_vec())).0)
            .collect();
        let changed = next != labels;
        labels = next;
        if !changed {
            break;
        }
        update_centres(&x, &labels, &mut centres);
    }
    let inertia = x
        .axis_iter(Axis(0))
        .zip(&labels)
        .map(|(r, &l)| sq_dist(r, centres.row(l)))
        .sum();
    (renumber(&labels), inertia)
}

/// k-means++: each next centre drawn with probability proportional to the
/// squared distance to the nearest centre so far.
fn seed_centres(x: &Array2<f64>, k: usize, seed: u64) -> Array2<f64> {
    let n = x.nrows();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut centres = Array2::zeros((k, x.ncols()));
    let first = rng.random_range(0..n);
    centres.row_mut(0).assign(&x.row(first));
    let mut d2: Vec<f64> = (0..n).map(|i| sq_dist(x.row(i), centres.row(0))).collect();
    for c in 1..k {
        let total: f64 = d2.iter().sum();
        let pick = if total > 0.0 {
            let mut target = rng.random::<f64>() * total;
            d2.iter()
                .position(|&d| {
                    target -= d;
                    target < 0.0
                })
                .unwrap_or(n - 1)
        } else {
            rng.random_range(0..n)
        };
        centres.row_mut(c).assign(&x.row(pick));
        for (i, d) in d2.iter_mut().enumerate() {
            *d = d.min(sq_dist(x.row(i), centres.row(c)));
        }
    }
    centres
}

fn sq_dist(a: ndarray::ArrayView1<'_, f64>, b: ndarray::ArrayView1<'_, f64>) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum()
}

/// The nearest centre to `row` and the squared distance.
fn nearest(centres: &Array2<f64>, row: &[f64]) -> (usize, f64) {
    let mut best = (0, f64::INFINITY);
    for (c, centre) in centres.axis_iter(Axis(0)).enumerate() {
        let d: f64 = centre.iter().zip(row).map(|(a, b)| (a - b) * (a - b)).sum();
        if d < best.1 {
            best = (c, d);
        }
    }
    best
}

/// Centres become the means of their points; an empty cluster keeps its centre.
fn update_centres(x: &Array2<f64>, labels: &[usize], centres: &mut Array2<f64>) {
    let k = centres.nrows();
    let mut sums = Array2::<f64>::zeros(centres.dim());
    let mut counts = vec![0usize; k];
    for (row, &l) in x.axis_iter(Axis(0)).zip(labels) {
        let mut s = sums.row_mut(l);
        s += &row;
        counts[l] += 1;
    }
    for c in 0..k {
        if counts[c] > 0 {
            let mean = &sums.row(c) / counts[c] as f64;
            centres.row_mut(c).assign(&mean);
        }
    }
}

/// Labels renumbered in order of first appearance.
fn renumber(labels: &[usize]) -> Vec<usize> {
    let mut map = std::collections::HashMap::new();
    labels
        .iter()
        .map(|&l| {
            let next = map.len();
            *map.entry(l).or_insert(next)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_well_separated_groups() {
        // Three tight groups far apart, interleaved.
        let centres = [[0.0f32, 0.0], [10.0, 0.0], [0.0, 10.0]];
        let x = Array2::from_shape_fn((30, 2), |(i, d)| {
            centres[i % 3][d] + 0.01 * (i as f32 % 7.0)
        });
        let labels = kmeans(x.view(), 3, 1);
        for (i, &l) in labels.iter().enumerate() {
            assert_eq!(l, i % 3, "row {i}");
        }
        assert_eq!(kmeans(x.view(), 3, 99), labels, "any seed finds them");
    }

    #[test]
    fn degenerate_inputs() {
        let x = Array2::<f32>::zeros((4, 3));
        assert_eq!(kmeans(x.view(), 1, 0), vec![0; 4]);
        let labels = kmeans(x.view(), 10, 0);
        assert_eq!(labels.len(), 4);
        assert!(labels.iter().all(|&l| l < 4));
    }
}
