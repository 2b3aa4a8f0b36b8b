//! Small deterministic inputs shared by the geometry and projection unit tests.

use ndarray::Array2;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use super::random::gaussian;

/// `n` points in `d` dimensions around `k` centres, with a decaying spread
/// per dimension (`0.9^j`) so that PCA has a clear spectrum.
pub fn gaussian_blobs(n: usize, d: usize, k: usize, seed: u64) -> Array2<f32> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let centres = Array2::from_shape_simple_fn((k.max(1), d), || 4.0 * gaussian(&mut rng));
    Array2::from_shape_fn((n, d), |(i, j)| {
        let c = centres[[i % k.max(1), j]];
        ((c + gaussian(&mut rng)) * 0.9f64.powi(j as i32)) as f32
    })
}
