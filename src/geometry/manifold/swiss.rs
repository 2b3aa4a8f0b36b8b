//! The Swiss roll, a seeded test manifold with a known unrolled coordinate
//! (scikit-learn's `make_swiss_roll` parametrisation).

use ndarray::Array2;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// `n` points `(t cos t, h, t sin t)` with `t = 1.5π (1 + 2u)`, `u` and
/// `h / 21` uniform in `[0, 1)`, plus Gaussian noise of sd `noise`; returns
/// the points and `t`, the coordinate along the roll.
pub fn swiss_roll(n: usize, noise: f64, seed: u64) -> (Array2<f32>, Vec<f64>) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut x = Array2::<f32>::zeros((n, 3));
    let mut ts = Vec::with_capacity(n);
    for i in 0..n {
        let t = 1.5 * std::f64::consts::PI * (1.0 + 2.0 * rng.random::<f64>());
        let h = 21.0 * rng.random::<f64>();
        let p = [t * t.cos(), h, t * t.sin()];
        for (j, v) in p.iter().enumerate() {
            x[[i, j]] = (v + noise * crate::geometry::random::gaussian(&mut rng)) as f32;
        }
        ts.push(t);
    }
    (x, ts)
}
