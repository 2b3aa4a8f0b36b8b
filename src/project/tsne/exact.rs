//! Exact O(n²) repulsion and the exact KL divergence.
//!
//! With Student-t weights `w_ij = 1 / (1 + ‖y_i − y_j‖²)` and
//! `Z = Σ_{i≠j} w_ij`, the repulsive part of the gradient is
//! `Σ_j w_ij² (y_i − y_j) / Z`. Computing it for every pair is the reference
//! the approximations are tested against, and the fastest choice for a few
//! hundred points.

use rayon::prelude::*;

use super::affinity::SparseP;
pub use super::points::one_plus_d2;
use super::points::CHUNK;

/// Writes `Σ_j w_ij² (y_i − y_j)` (unnormalised repulsion) into `out` and returns `Z`.
pub fn repulsion<const D: usize>(y: &[[f64; D]], out: &mut [[f64; D]]) -> f64 {
    let parts: Vec<f64> = out
        .par_chunks_mut(CHUNK)
        .enumerate()
        .map(|(c, chunk)| {
            let mut z = 0.0;
            for (o, i) in chunk.iter_mut().zip(c * CHUNK..) {
                let yi = y[i];
                let mut f = [0.0; D];
                for (j, yj) in y.iter().enumerate() {
                    if j == i {
                        continue;
                    }
                    let (s, d) = one_plus_d2(&yi, yj);
                    let w = 1.0 / s;
                    z += w;
                    for k in 0..D {
                        f[k] += w * w * d[k];
                    }
                }
                *o = f;
            }
            z
        })
        .collect();
    parts.iter().sum()
}

/// `Z = Σ_{i≠j} w_ij` exactly.
pub fn normalizer<const D: usize>(y: &[[f64; D]]) -> f64 {
    let parts: Vec<f64> = y
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(c, chunk)| {
            let mut z = 0.0;
            for (yi, i) in chunk.iter().zip(c * CHUNK..) {
                for (j, yj) in y.iter().enumerate() {
                    if j != i {
                        z += 1.0 / one_plus_d2(yi, yj).0;
                    }
                }
            }
            z
        })
        .collect();
    parts.iter().sum()
}

/// KL(P ‖ Q) with the exact `Q` (O(n²); for tests, small inputs and final scores).
pub fn kl_divergence<const D: usize>(p: &SparseP, y: &[[f64; D]]) -> f64 {
    let z = normalizer(y);
    let mut kl = 0.0;
    for i in 0..p.n() {
        let (cols, vals) = p.row(i);
        for (&j, &v) in cols.iter().zip(vals) {
            if v > 0.0 {
                let v = f64::from(v);
                let yj = y[j as usize];
                let mut d2 = 0.0;
                for k in 0..D {
                    d2 += (y[i][k] - yj[k]).powi(2);
                }
                let q = 1.0 / ((1.0 + d2) * z);
                kl += v * (v / q).ln();
            }
        }
    }
    kl
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_points_by_hand() {
        // Distance 2 apart: w = 1/5 each way, Z = 2/5, force on 0 = w² (y0 − y1) = (−2/25, 0).
        let y = [[0.0, 0.0], [2.0, 0.0]];
        let mut out = [[9.0; 2]; 2];
        let z = repulsion(&y, &mut out);
        assert!((z - 0.4).abs() < 1e-15);
        assert!((out[0][0] + 0.08).abs() < 1e-15 && out[0][1] == 0.0);
        assert!((out[1][0] - 0.08).abs() < 1e-15);
        assert!((normalizer(&y) - 0.4).abs() < 1e-15);
        // P puts all mass on the pair, as Q does: KL = 0.
        let p = SparseP {
            indptr: vec![0, 1, 2],
            indices: vec![1, 0],
            values: vec![0.5, 0.5],
        };
        assert!(kl_divergence(&p, &y).abs() < 1e-12);
        // The same pair in 3-D, apart along the third axis.
        let y3 = [[0.0, 0.0, 0.0], [0.0, 0.0, 2.0]];
        let mut out3 = [[9.0; 3]; 2];
        assert!((repulsion(&y3, &mut out3) - 0.4).abs() < 1e-15);
        assert!((out3[0][2] + 0.08).abs() < 1e-15 && out3[0][..2] == [0.0, 0.0]);
        assert!(kl_divergence(&p, &y3).abs() < 1e-12);
    }
}
