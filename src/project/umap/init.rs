//! The starting layout (umap-learn's `spectral_layout` and
//! `noisy_scale_coords`): the eigenvectors of the normalised Laplacian
//! `L = I − D^-½ P D^-½` of the fuzzy graph `P` with the smallest non-zero
//! eigenvalues, scaled so the largest coordinate is 10, plus Gaussian noise
//! of standard deviation 1e-4.
//!
//! The smallest eigenvalues of `L` are the largest of `S = D^-½ P D^-½`;
//! they are solved with the crate's block Lanczos on the lazy power
//! `((I + S)/2)^8` that Laplacian eigenmaps use
//! ([`crate::geometry::manifold::laplacian::LazyPower`]), which spreads the wanted
//! eigenvalues away from the bulk. A disconnected graph (each component
//! adds an eigenvalue 1 to `S`) or a solve that does not converge gives the
//! random start instead — uniform in `[−10, 10]²`, as umap-learn's fallback —
//! and a note saying so (umap-learn lays components out separately; that
//! is not done here).

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::geometry::manifold::laplacian::LazyPower;
use crate::geometry::random::gaussian;
use crate::linalg::{Csr, EigenConfig, Lanczos, Which};
use crate::Result;

/// Power of the lazy matrix (as Laplacian eigenmaps).
const POWER: usize = 8;
/// Relative residual of the eigenpairs: a start needs little precision
/// (umap-learn asks ARPACK for 1e-4 on `L`).
const TOL: f64 = 1e-6;
/// Lanczos basis (as Laplacian eigenmaps').
const BASIS: usize = 64;
/// Block steps allowed before falling back to the random start.
const MAX_STEPS: u64 = 2_000;
/// The largest coordinate of the scaled spectral start.
const MAX_COORD: f64 = 10.0;
/// Standard deviation of the noise added to it.
const NOISE: f64 = 1e-4;

/// How the start was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// Spectral: the Laplacian's eigenvectors.
    Spectral,
    /// Uniform noise, because the graph has this many components (> 1).
    Disconnected(usize),
    /// Uniform noise, because the eigensolver did not converge.
    Unconverged,
    /// Uniform noise, because there are too few points (at most 3) for
    /// two non-trivial eigenvectors.
    TooFew,
}

/// The number of connected components of the symmetric graph `p`.
pub fn components(p: &Csr) -> usize {
    let n = p.shape().0;
    let mut seen = vec![false; n];
    let mut stack = Vec::new();
    let mut count = 0;
    for s in 0..n {
        if seen[s] {
            continue;
        }
        count += 1;
        seen[s] = true;
        stack.push(s);
        while let Some(i) = stack.pop() {
            for &j in &p.indices()[p.indptr()[i]..p.indptr()[i + 1]] {
                if !seen[j as usize] {
                    seen[j as usize] = true;
                    stack.push(j as usize);
                }
            }
        }
    }
    count
}

/// The `n × dims` start (row-major) for the fuzzy graph `p`, and how it was made.
pub fn start(p: &Csr, dims: usize, seed: u64) -> Result<(Vec<f32>, Start)> {
    let n = p.shape().0;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x554d_4150);
    let parts = components(p);
    let how = if n <= dims + 1 {
        Start::TooFew
    } else if parts > 1 {
        Start::Disconnected(parts)
    } else {
        match spectral(p, dims, seed)? {
            Some(v) => {
                let big = v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
                let scale = if big > 0.0 { MAX_COORD / big } else { 1.0 };
                let y = v
                    .iter()
                    .map(|&x| ((x * scale) as f32) + (NOISE * gaussian(&mut rng)) as f32)
                    .collect();
                return Ok((y, Start::Spectral));
            }
            None => Start::Unconverged,
        }
    };
    let y = (0..dims * n)
        .map(|_| rng.random_range(-10.0f32..10.0))
        .collect();
    Ok((y, how))
}

/// Eigenvectors 2 to `dims + 1` of `S = D^-½ P D^-½` (row-major
/// `n × dims`), or `None` when the solve does not converge.
fn spectral(p: &Csr, dims: usize, seed: u64) -> Result<Option<Vec<f64>>> {
    let n = p.shape().0;
    let degree: Vec<f64> = (0..n)
        .map(|i| p.data()[p.indptr()[i]..p.indptr()[i + 1]].iter().sum())
        .collect();
    let inv: Vec<f64> = degree.iter().map(|d| 1.0 / d.sqrt()).collect();
    let mut data = p.data().to_vec();
    for i in 0..n {
        let r = p.indptr()[i]..p.indptr()[i + 1];
        for (v, &j) in data[r.clone()].iter_mut().zip(&p.indices()[r]) {
            *v *= inv[i] * inv[j as usize];
        }
    }
    let s = Csr::new((n, n), p.indptr().to_vec(), p.indices().to_vec(), data)?;
    let op = LazyPower::new(&s, POWER)?;
    let config = EigenConfig {
        tol: TOL,
        basis: Some(BASIS.min(n.saturating_sub(1)).max(dims + 1 + 8)),
        max_steps: MAX_STEPS,
        seed,
        ..EigenConfig::new(dims + 1, Which::LargestAlgebraic)
    };
    let pairs = Lanczos::new(op, config)?.solve(|_| {});
    if !pairs.converged {
        return Ok(None);
    }
    let v = &pairs.vectors;
    Ok(Some(
        (0..n)
            .flat_map(|i| (1..=dims).map(move |c| v[[i, c]]))
            .collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cycle of `n` points with unit weights.
    fn ring(n: usize) -> Csr {
        let mut indptr = vec![0];
        let mut indices = Vec::new();
        for i in 0..n {
            let mut row = [(i + n - 1) % n, (i + 1) % n];
            row.sort_unstable();
            indices.extend(row.iter().map(|&j| j as u32));
            indptr.push(indices.len());
        }
        let nnz = indices.len();
        Csr::new((n, n), indptr, indices, vec![1.0; nnz]).unwrap()
    }

    #[test]
    fn a_ring_starts_as_a_circle_and_two_rings_at_random() {
        let (y, how) = start(&ring(60), 2, 1).unwrap();
        assert_eq!(how, Start::Spectral);
        // The 2nd and 3rd eigenvectors of a cycle are cos and sin: every
        // point at the same radius, the largest coordinate 10.
        let r: Vec<f32> = y.chunks(2).map(|p| p[0].hypot(p[1])).collect();
        assert!(r.iter().all(|&v| (v - r[0]).abs() < 1e-2), "{r:?}");
        let big = y.iter().fold(0.0f32, |m, v| m.max(v.abs()));
        assert!((big - 10.0).abs() < 1e-2);
        // Two disjoint rings: the union is disconnected.
        let a = ring(30);
        let mut indptr = a.indptr().to_vec();
        let mut indices = a.indices().to_vec();
        for i in 0..30 {
            indptr.push(indptr[30] + a.indptr()[i + 1]);
            indices.extend(
                a.indices()[a.indptr()[i]..a.indptr()[i + 1]]
                    .iter()
                    .map(|j| j + 30),
            );
        }
        let nnz = indices.len();
        let two = Csr::new((60, 60), indptr, indices, vec![1.0; nnz]).unwrap();
        let (y, how) = start(&two, 2, 1).unwrap();
        assert_eq!(how, Start::Disconnected(2));
        assert!(y.iter().all(|v| (-10.0..10.0).contains(v)));
    }
}
