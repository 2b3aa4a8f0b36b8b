//! Random draws every layout starts from: standard normals, and points
//! uniform on the unit sphere (independent Gaussian rows scaled to unit
//! length; KUBWE's authors normalise uniform `[-0.5, 0.5]` cubes, which is
//! slightly anisotropic).

use ndarray::Array2;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// `n` random unit vectors of dimension `dim`, from `seed`.
pub fn random_sphere(n: usize, dim: usize, seed: u64) -> Array2<f32> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x6b75_6277_6521_0001);
    let mut y = Array2::<f32>::zeros((n, dim));
    let mut row = vec![0.0f64; dim];
    for mut out in y.rows_mut() {
        loop {
            for pair in row.chunks_mut(2) {
                let (a, b) = gaussian_pair(&mut rng);
                pair[0] = a;
                if pair.len() > 1 {
                    pair[1] = b;
                }
            }
            let norm = row.iter().map(|v| v * v).sum::<f64>().sqrt();
            if norm > 1e-12 {
                for (o, v) in out.iter_mut().zip(&row) {
                    *o = (v / norm) as f32;
                }
                break;
            }
        }
    }
    y
}

/// A standard normal draw (Box-Muller).
pub fn gaussian(rng: &mut Xoshiro256PlusPlus) -> f64 {
    let u1: f64 = 1.0 - rng.random::<f64>();
    let u2: f64 = rng.random::<f64>();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// Two independent standard normals (Box–Muller).
fn gaussian_pair(rng: &mut Xoshiro256PlusPlus) -> (f64, f64) {
    let u: f64 = 1.0 - rng.random::<f64>(); // (0, 1]
    let v: f64 = rng.random::<f64>();
    let r = (-2.0 * u.ln()).sqrt();
    let t = std::f64::consts::TAU * v;
    (r * t.cos(), r * t.sin())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_unit_and_centred() {
        let y = random_sphere(2000, 7, 1);
        for r in y.rows() {
            let n: f64 = r.iter().map(|&v| (v as f64).powi(2)).sum();
            assert!((n - 1.0).abs() < 1e-6);
        }
        // The mean of uniform points on the sphere is near 0 (|mean| ~ 1/sqrt(n)).
        let mean = y.mean_axis(ndarray::Axis(0)).unwrap();
        assert!(mean.iter().all(|m| m.abs() < 0.05), "{mean}");
        assert_eq!(random_sphere(3, 4, 5), random_sphere(3, 4, 5));
        assert_ne!(random_sphere(3, 4, 5), random_sphere(3, 4, 6));
    }
}
