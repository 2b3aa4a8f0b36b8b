//! The objective KUBWE reports: a pseudo-energy whose gradient is the force.
//!
//! The thesis kernelises only the gradient (eq. 3.10) and defines no
//! objective for it (docs/methods/kubwe.md, "Loss"). With `c_ij = y_i·y_j`
//! and the pair energy `F(c) = (c + 1) K(c)/(p + 1)` (so `F′ = K`), the row
//! energy
//!
//! `e_i = −Σ_{j∈P_i} a_ij c_ij + Σ_{j∈N_i} F(c_ij)`
//!
//! has `∂e_i/∂y_i = g_i = −v₁ + v₂` exactly (others fixed), and the total
//! `E = ½ Σ_i e_i` has `∇_{y_i} E = g_i` whenever `A` (and so its pattern) is
//! symmetric; with the thesis' asymmetric `A` each word descends its own row
//! energy. For `p = 1` and the plain kernel the repulsion term is
//! `½ (c + 1)²`, eq. 3.8's quadratic up to constants. Reported per word
//! (`E / n`). Exact cost `O(n² d)` ([`energy`]); [`row_energies`] evaluates
//! any subset of rows exactly, which is the sampled estimate of
//! `kubwe-fast`.

use ndarray::ArrayView2;
use rayon::prelude::*;

use super::affinity::Affinity;
use super::exact::{block_forces, BlockOut, BlockScratch, BLOCK};
use super::kernel::Kernel;

/// Exact row energies `e_i` of the words `rows` (blocked dense products, in parallel).
pub fn row_energies(
    a: &Affinity,
    y: ArrayView2<'_, f32>,
    rows: &[u32],
    kernel: Kernel,
) -> Vec<f64> {
    let (n, dim) = y.dim();
    let mut energies = vec![0.0f64; rows.len()];
    rows.par_chunks(BLOCK)
        .zip(energies.par_chunks_mut(BLOCK))
        .for_each_init(
            || (BlockScratch::new(n, dim), vec![0.0f64; BLOCK * dim]),
            |(scratch, attraction), (block, energy)| {
                let out = BlockOut {
                    attraction,
                    repulsion: &mut [],
                    energy,
                };
                block_forces(a, y, block, kernel, false, scratch, out);
            },
        );
    energies
}

/// The total energy `E = ½ Σ_i e_i` (exact, `O(n² d)`).
pub fn energy(a: &Affinity, y: ArrayView2<'_, f32>, kernel: Kernel) -> f64 {
    let rows: Vec<u32> = (0..y.nrows() as u32).collect();
    0.5 * row_energies(a, y, &rows, kernel).iter().sum::<f64>()
}

/// `E` by plain double loops in `f64` (the reference for tests).
pub fn energy_naive(a: &Affinity, y: ArrayView2<'_, f32>, kernel: Kernel) -> f64 {
    0.5 * (0..y.nrows())
        .map(|i| row_energy_naive(a, y, i, kernel))
        .sum::<f64>()
}

/// `e_i` by a plain loop in `f64` (the reference for tests).
pub fn row_energy_naive(a: &Affinity, y: ArrayView2<'_, f32>, i: usize, kernel: Kernel) -> f64 {
    let mut total = 0.0;
    for j in (0..y.nrows()).filter(|&j| j != i) {
        let c = dot64(y.row(i).iter(), y.row(j).iter());
        let aij = a.get(i, j) as f64;
        total += if aij > 0.0 {
            -aij * c
        } else {
            (c + 1.0) * base64(kernel, c).powi(kernel.p as i32) / (kernel.p as f64 + 1.0)
        };
    }
    total
}

/// `g_i = −Σ_{P_i} a_ij y_j + Σ_{N_i} K(c_ij) y_j` by plain loops in `f64`.
pub fn gradient_naive(a: &Affinity, y: ArrayView2<'_, f32>, i: usize, kernel: Kernel) -> Vec<f64> {
    let (n, dim) = y.dim();
    let mut g = vec![0.0; dim];
    for j in (0..n).filter(|&j| j != i) {
        let c = dot64(y.row(i).iter(), y.row(j).iter());
        let aij = a.get(i, j) as f64;
        let w = if aij > 0.0 {
            -aij
        } else {
            base64(kernel, c).powi(kernel.p as i32)
        };
        for (gk, &x) in g.iter_mut().zip(y.row(j).iter()) {
            *gk += w * x as f64;
        }
    }
    g
}

fn base64(kernel: Kernel, c: f64) -> f64 {
    match kernel.scale {
        super::kernel::Scale::Half => 0.5 * (c + 1.0),
        super::kernel::Scale::Plain => c + 1.0,
    }
}

/// The naive references' own dot product, one `f64` sum in index order:
/// kept apart from `crate::fast`'s kernels on purpose, since the tests
/// check those kernels against these references.
fn dot64<'a>(a: impl Iterator<Item = &'a f32>, b: impl Iterator<Item = &'a f32>) -> f64 {
    a.zip(b).map(|(&x, &y)| x as f64 * y as f64).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::kubwe::kernel::Scale;
    use crate::geometry::random::random_sphere;

    fn toy() -> Affinity {
        Affinity::from_rows(&[
            vec![(1, 2.0), (2, 0.5)],
            vec![(0, 1.5)],
            vec![(0, 0.7), (3, 1.0)],
            vec![(2, 1.2), (4, 0.3)],
            vec![],
            vec![(4, 2.5)],
        ])
    }

    #[test]
    fn blocked_energy_matches_plain_loops() {
        let y = random_sphere(6, 5, 2);
        for (p, scale) in [(1, Scale::Plain), (3, Scale::Half), (13, Scale::Half)] {
            let k = Kernel { p, scale };
            let (fast, slow) = (
                energy(&toy(), y.view(), k),
                energy_naive(&toy(), y.view(), k),
            );
            assert!(
                (fast - slow).abs() < 1e-5 * slow.abs().max(1.0),
                "p={p}: {fast} vs {slow}"
            );
        }
    }

    #[test]
    fn two_orthogonal_repelling_words_by_hand() {
        // No positives; y0 ⊥ y1: each ordered pair has c = 0, F = 1/(p+1) (plain).
        let a = Affinity::from_rows(&[vec![], vec![]]);
        let y = ndarray::arr2(&[[1.0f32, 0.0], [0.0, 1.0]]);
        let k = Kernel {
            p: 3,
            scale: Scale::Plain,
        };
        assert!((energy(&a, y.view(), k) - 0.25).abs() < 1e-12);
        // Attraction a01 = 2 with c = 0.6: e0 = -1.2, e1 = F(0.6) = 1.6^4/4.
        let a = Affinity::from_rows(&[vec![(1, 2.0)], vec![]]);
        let y = ndarray::arr2(&[[1.0f32, 0.0], [0.6, 0.8]]);
        let expect = 0.5 * (-1.2 + 1.6f64.powi(4) / 4.0);
        assert!((energy(&a, y.view(), k) - expect).abs() < 1e-6);
    }
}
