//! The high-dimensional fuzzy graph (McInnes et al. 2018, Alg. 2-3;
//! umap-learn's `smooth_knn_dist`, `compute_membership_strengths` and
//! `fuzzy_simplicial_set`).
//!
//! Each point `i` sees its `k − 1` nearest other points at distances `d`
//! (umap-learn counts the point itself among its `n_neighbors = k`). Its
//! `rho` is the distance to its nearest point at a positive distance (local
//! connectivity 1), and its `sigma` is found by binary search so that
//! `Σ_j exp(−max(d_j − rho, 0) / sigma) = log2(k)`: every point then has
//! the same total membership, whatever the local density. The directed
//! memberships `A` are made symmetric by the fuzzy union
//! `A + Aᵀ − A∘Aᵀ` (probabilistic t-conorm).

use crate::linalg::Csr;
use crate::Result;

/// Binary search steps per point (umap-learn's `n_iter`).
const SEARCH_STEPS: usize = 64;
/// The search stops when the sum is this close to the target.
pub const TOLERANCE: f64 = 1e-5;
/// Lower bound of `sigma`, as a fraction of the mean neighbour distance
/// (umap-learn's `MIN_K_DIST_SCALE`): keeps points in flat regions from a
/// zero width.
const MIN_SCALE: f64 = 1e-3;

/// Per-point distance offset and width.
#[derive(Debug, Clone, PartialEq)]
pub struct Smooth {
    /// Distance to the nearest point at a positive distance.
    pub rho: Vec<f64>,
    /// Width of the exponential beyond `rho`.
    pub sigma: Vec<f64>,
}

/// The membership of a neighbour at distance `d` of a point with `rho`, `sigma`.
fn membership(d: f64, rho: f64, sigma: f64) -> f64 {
    let over = d - rho;
    if over <= 0.0 || sigma == 0.0 {
        1.0
    } else {
        (-over / sigma).exp()
    }
}

/// `rho` and `sigma` of every point from its `m` neighbour distances
/// (`dist`, row-major, nearest first, the point itself excluded), the
/// target sum being `log2(n_neighbors)`.
pub fn smooth_distances(dist: &[f32], m: usize, n_neighbors: usize) -> Smooth {
    let n = dist.len().checked_div(m).unwrap_or(0);
    let target = (n_neighbors as f64).log2();
    let mean_all = if dist.is_empty() {
        0.0
    } else {
        dist.iter().map(|&d| f64::from(d)).sum::<f64>() / dist.len() as f64
    };
    let mut rho = vec![0.0; n];
    let mut sigma = vec![0.0; n];
    for i in 0..n {
        let row = &dist[i * m..(i + 1) * m];
        rho[i] = row
            .iter()
            .map(|&d| f64::from(d))
            .find(|&d| d > 0.0)
            .unwrap_or(0.0);
        let (mut lo, mut hi, mut mid) = (0.0f64, f64::INFINITY, 1.0f64);
        for _ in 0..SEARCH_STEPS {
            let sum: f64 = row
                .iter()
                .map(|&d| membership(f64::from(d), rho[i], mid))
                .sum();
            if (sum - target).abs() < TOLERANCE {
                break;
            }
            if sum > target {
                hi = mid;
                mid = (lo + hi) / 2.0;
            } else {
                lo = mid;
                mid = if hi.is_infinite() {
                    mid * 2.0
                } else {
                    (lo + hi) / 2.0
                };
            }
        }
        let mean = row.iter().map(|&d| f64::from(d)).sum::<f64>() / m.max(1) as f64;
        let floor = MIN_SCALE * if rho[i] > 0.0 { mean } else { mean_all };
        sigma[i] = mid.max(floor);
    }
    Smooth { rho, sigma }
}

/// The directed memberships `A_ij` of every point's `m` neighbours
/// (row-major, matching `ids`).
pub fn memberships(dist: &[f32], m: usize, s: &Smooth) -> Vec<f32> {
    dist.iter()
        .enumerate()
        .map(|(e, &d)| {
            let i = e / m;
            membership(f64::from(d), s.rho[i], s.sigma[i]) as f32
        })
        .collect()
}

/// The fuzzy union `A + Aᵀ − A∘Aᵀ` of the directed memberships `w` of
/// each of `n` points' `m` neighbours `ids`, as a symmetric CSR matrix
/// (columns ascending within a row, zeros dropped, no diagonal).
pub fn fuzzy_union(n: usize, ids: &[u32], w: &[f32], m: usize) -> Result<Csr> {
    // (row, col, A_rc, A_cr) for both directions of every listed edge,
    // sorted so that the two halves of a pair meet.
    let mut entries: Vec<(u32, u32, f32, f32)> = Vec::with_capacity(2 * ids.len());
    for (e, (&j, &v)) in ids.iter().zip(w).enumerate() {
        let i = (e / m) as u32;
        if i != j {
            entries.push((i, j, v, 0.0));
            entries.push((j, i, 0.0, v));
        }
    }
    entries.sort_unstable_by_key(|&(r, c, _, _)| (r, c));
    let mut indptr = vec![0usize; n + 1];
    let mut indices = Vec::with_capacity(entries.len());
    let mut data = Vec::with_capacity(entries.len());
    let mut k = 0;
    while k < entries.len() {
        let (r, c, mut a, mut b) = entries[k];
        k += 1;
        while k < entries.len() && entries[k].0 == r && entries[k].1 == c {
            a = a.max(entries[k].2);
            b = b.max(entries[k].3);
            k += 1;
        }
        let (a, b) = (f64::from(a), f64::from(b));
        let v = a + b - a * b;
        if v > 0.0 {
            indices.push(c);
            data.push(v);
            indptr[r as usize + 1] += 1;
        }
    }
    for i in 0..n {
        indptr[i + 1] += indptr[i];
    }
    Csr::new((n, n), indptr, indices, data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_point_s_memberships_sum_to_log2_k() {
        let x = crate::project::testdata::gaussian_blobs(200, 6, 3, 4);
        let k = 15;
        let g = crate::geometry::knn::knn(x.view(), k - 1);
        let dist: Vec<f32> = g.dist2.iter().map(|d| d.sqrt()).collect();
        let s = smooth_distances(&dist, k - 1, k);
        let w = memberships(&dist, k - 1, &s);
        for i in 0..200 {
            let sum: f64 = w[i * (k - 1)..(i + 1) * (k - 1)]
                .iter()
                .map(|&v| f64::from(v))
                .sum();
            // f32 storage adds at most 14 × 6e-8 to the search's tolerance.
            assert!(
                (sum - (k as f64).log2()).abs() < TOLERANCE + 1e-5,
                "point {i}: {sum}"
            );
            // The nearest neighbour has membership 1 (it sits at rho).
            assert_eq!(w[i * (k - 1)], 1.0);
            assert_eq!(s.rho[i], f64::from(dist[i * (k - 1)]));
        }
    }

    #[test]
    fn the_union_of_three_points_by_hand() {
        // 0 lists 1 (0.5) and 2 (0.25); 1 lists 0 (0.5); 2 lists 1 (1.0).
        let ids = [1, 2, 0, 2, 1, 0];
        let w = [0.5, 0.25, 0.5, 0.0, 1.0, 0.0];
        let p = fuzzy_union(3, &ids, &w, 2).unwrap();
        // P01 = .5 + .5 − .25 = .75; P02 = .25; P12 = 1 (2 → 1).
        assert_eq!(p.indptr(), &[0, 2, 4, 6]);
        assert_eq!(p.indices(), &[1, 2, 0, 2, 0, 1]);
        assert_eq!(p.data(), &[0.75, 0.25, 0.75, 1.0, 0.25, 1.0]);
        assert!(p.is_symmetric(0.0));
    }
}
