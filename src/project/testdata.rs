//! Small deterministic inputs shared by the projection unit tests.

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::tsne::affinity::{affinities, SparseP};
use super::tsne::knn::knn;
pub use crate::geometry::testdata::gaussian_blobs;

/// Affinities of `n` blob points in 5-D at `perplexity`.
pub fn small_problem(n: usize, perplexity: f64, seed: u64) -> SparseP {
    let x = gaussian_blobs(n, 5, 3, seed);
    let g = knn(x.view(), (3.0 * perplexity) as usize);
    affinities(&g, perplexity).expect("valid perplexity")
}

/// `n` 2-D points, uniform in a disc of the given radius.
pub fn spread_layout(n: usize, radius: f64, seed: u64) -> Vec<[f64; 2]> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            let r = radius * rng.random::<f64>().sqrt();
            let t = std::f64::consts::TAU * rng.random::<f64>();
            [r * t.cos(), r * t.sin()]
        })
        .collect()
}

/// `‖got − want‖ / ‖want‖` over forces or gradients.
pub fn relative_l2<const D: usize>(want: &[[f64; D]], got: &[[f64; D]]) -> f64 {
    let sq = |v: [f64; D]| v.iter().map(|x| x * x).sum::<f64>();
    let norm: f64 = want.iter().map(|&w| sq(w)).sum::<f64>().sqrt();
    let err: f64 = want
        .iter()
        .zip(got)
        .map(|(a, b)| sq(std::array::from_fn(|d| a[d] - b[d])))
        .sum::<f64>()
        .sqrt();
    err / norm
}
