//! The t-SNE gradient: sparse attraction plus one of three repulsion methods.
//!
//! `∂KL/∂y_i = 4 Σ_j (α p_ij − q_ij) w_ij (y_i − y_j)` with `w_ij = 1/(1 + d²)`,
//! `q_ij = w_ij / Z` and exaggeration `α`. The attraction runs over the
//! non-zeros of `P`; the repulsion `Σ_j w_ij² (y_i − y_j) / Z` over all pairs,
//! exactly ([`super::exact`]), by Barnes-Hut ([`super::barnes_hut`])
//! or by FFT-accelerated interpolation ([`super::fft`]).
//!
//! [`Gradient::compute`] returns the gradient divided by 4, as openTSNE does,
//! so that openTSNE's learning rates (`n / 12`, then `n`) carry over unchanged.
//! Sums over points run in fixed chunks whose partial results are added in
//! order, so the result does not depend on the number of threads.
//!
//! Layouts are 2-D or 3-D (`D`); the FFT interpolation grid is planar, so
//! a 3-D layout uses the exact or the Barnes-Hut (octree) repulsion, as
//! openTSNE does.

use rayon::prelude::*;

use super::affinity::SparseP;
pub use super::attraction::attraction;
use super::fft::{FftParams, FftWorkspace};
pub use super::points::CHUNK;
use super::{barnes_hut, exact};
use crate::{Error, Result};

/// How the repulsive forces are computed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Repulsion {
    /// All pairs, O(n²).
    Exact,
    /// Barnes-Hut quadtree with opening angle `theta`.
    BarnesHut {
        /// Cells with `width / distance < theta` are summarised by their centre of mass.
        theta: f64,
    },
    /// Polynomial interpolation on a grid, convolved by FFT (FIt-SNE).
    Fft(FftParams),
}

/// The layout dimensions the FFT repulsion works in: the plane only.
pub trait FftIn<const D: usize> {
    /// As [`FftWorkspace::repulsion`].
    fn repulsion_in(&mut self, y: &[[f64; D]], out: &mut [[f64; D]]) -> f64;
}

impl FftIn<2> for FftWorkspace {
    fn repulsion_in(&mut self, y: &[[f64; 2]], out: &mut [[f64; 2]]) -> f64 {
        self.repulsion(y, out)
    }
}

impl FftIn<3> for FftWorkspace {
    fn repulsion_in(&mut self, _: &[[f64; 3]], _: &mut [[f64; 3]]) -> f64 {
        unreachable!("Gradient::try_new refuses the FFT repulsion in 3-D")
    }
}

/// Computes gradients for one `P` in `D` dimensions, keeping scratch space
/// between calls.
#[derive(Debug)]
pub struct Gradient<const D: usize = 2> {
    repulsion: Repulsion,
    fft: Option<FftWorkspace>,
    rep: Vec<[f64; D]>,
    neg_entropy: f64,
    sum_p: f64,
}

impl Gradient<2> {
    /// Scratch for `p` with the given repulsion method (each works in 2-D).
    pub fn new(p: &SparseP, repulsion: Repulsion) -> Self {
        Self::try_new(p, repulsion).expect("every repulsion lays out in 2-D")
    }
}

impl<const D: usize> Gradient<D>
where
    FftWorkspace: FftIn<D>,
{
    /// Scratch for `p` with the given repulsion method; the FFT method
    /// only in 2-D.
    pub fn try_new(p: &SparseP, repulsion: Repulsion) -> Result<Self> {
        if matches!(repulsion, Repulsion::Fft(_)) && D != 2 {
            return Err(Error::param(
                "gradient",
                format!("fft in {D}-D (the FFT repulsion lays out in 2-D; use bh or exact)"),
            ));
        }
        Ok(Gradient {
            repulsion,
            fft: match repulsion {
                Repulsion::Fft(params) => Some(FftWorkspace::new(params)),
                _ => None,
            },
            rep: vec![[0.0; D]; p.n()],
            neg_entropy: p.neg_entropy(),
            sum_p: p.sum(),
        })
    }

    /// The repulsion method in use.
    pub fn repulsion(&self) -> Repulsion {
        self.repulsion
    }

    /// Writes `¼ ∂KL/∂y` for exaggeration `exaggeration` into `out`. With
    /// `want_kl`, also returns KL(P ‖ Q) for the unexaggerated `P`, with `Z`
    /// from the repulsion method (exact for [`Repulsion::Exact`]).
    pub fn compute(
        &mut self,
        p: &SparseP,
        y: &[[f64; D]],
        exaggeration: f64,
        want_kl: bool,
        out: &mut [[f64; D]],
    ) -> Option<f64> {
        let z = match self.repulsion {
            Repulsion::Exact => exact::repulsion(y, &mut self.rep),
            Repulsion::BarnesHut { theta } => barnes_hut::repulsion(y, theta, &mut self.rep),
            Repulsion::Fft(_) => match self.fft.as_mut() {
                Some(ws) => ws.repulsion_in(y, &mut self.rep),
                None => unreachable!("FFT workspace is created with the method"),
            },
        };
        let p_log_w = attraction(p, y, exaggeration, want_kl, out);
        let inv_z = 1.0 / z;
        out.par_iter_mut().zip(&self.rep).for_each(|(g, r)| {
            for d in 0..D {
                g[d] -= r[d] * inv_z;
            }
        });
        // KL = Σ p ln p − Σ p ln w + (Σ p) ln Z.
        want_kl.then(|| self.neg_entropy - p_log_w + self.sum_p * z.ln())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::testdata::{small_problem, spread_layout};

    /// KL for a layout, through the exact method.
    fn kl(p: &SparseP, y: &[[f64; 2]]) -> f64 {
        exact::kl_divergence(p, y)
    }

    #[test]
    fn exact_gradient_matches_finite_differences_of_kl() {
        let p = small_problem(60, 8.0, 3);
        let y = spread_layout(60, 4.0, 7);
        let mut g = Gradient::new(&p, Repulsion::Exact);
        let mut grad = vec![[0.0; 2]; 60];
        let kl_reported = g.compute(&p, &y, 1.0, true, &mut grad).unwrap();
        assert!((kl_reported - kl(&p, &y)).abs() < 1e-10 * kl(&p, &y).abs().max(1.0));
        let h = 1e-5;
        let mut worst = 0.0f64;
        for i in 0..60 {
            for d in 0..2 {
                let mut plus = y.clone();
                plus[i][d] += h;
                let mut minus = y.clone();
                minus[i][d] -= h;
                let numeric = (kl(&p, &plus) - kl(&p, &minus)) / (2.0 * h);
                let analytic = 4.0 * grad[i][d];
                worst = worst.max((numeric - analytic).abs() / (1e-3 + numeric.abs()));
            }
        }
        assert!(worst < 1e-5, "worst relative error {worst}");
    }

    #[test]
    fn a_3d_gradient_matches_finite_differences_and_fft_is_refused() {
        let p = small_problem(40, 6.0, 3);
        let (a, b) = (spread_layout(40, 4.0, 7), spread_layout(40, 4.0, 9));
        let y: Vec<[f64; 3]> = a.iter().zip(&b).map(|(a, b)| [a[0], a[1], b[0]]).collect();
        let mut g = Gradient::<3>::try_new(&p, Repulsion::Exact).unwrap();
        let mut grad = vec![[0.0; 3]; 40];
        g.compute(&p, &y, 1.0, false, &mut grad);
        let h = 1e-5;
        let mut worst = 0.0f64;
        for i in 0..40 {
            for d in 0..3 {
                let (mut plus, mut minus) = (y.clone(), y.clone());
                plus[i][d] += h;
                minus[i][d] -= h;
                let numeric = (exact::kl_divergence(&p, &plus) - exact::kl_divergence(&p, &minus))
                    / (2.0 * h);
                worst = worst.max((numeric - 4.0 * grad[i][d]).abs() / (1e-3 + numeric.abs()));
            }
        }
        assert!(worst < 1e-5, "worst relative error {worst}");
        let e = Gradient::<3>::try_new(&p, Repulsion::Fft(Default::default())).unwrap_err();
        assert!(e.to_string().contains("gradient"), "{e}");
    }

    /// Relative L2 error of a gradient against the exact one.
    fn rel_error(p: &SparseP, y: &[[f64; 2]], method: Repulsion) -> (f64, f64) {
        let n = y.len();
        let (mut want, mut got) = (vec![[0.0; 2]; n], vec![[0.0; 2]; n]);
        let kl_exact = Gradient::new(p, Repulsion::Exact).compute(p, y, 1.0, true, &mut want);
        let kl = Gradient::new(p, method).compute(p, y, 1.0, true, &mut got);
        (
            crate::project::testdata::relative_l2(&want, &got),
            (kl.unwrap() - kl_exact.unwrap()).abs() / kl_exact.unwrap(),
        )
    }

    #[test]
    fn barnes_hut_and_fft_gradients_agree_with_exact() {
        // 1,500 points at t-SNE-like density (about one per unit area). Stated
        // tolerance: 5% relative L2 error of the gradient, 1% of the KL.
        let p = small_problem(1500, 30.0, 5);
        let y = spread_layout(1500, 22.0, 6);
        let (bh, bh_kl) = rel_error(&p, &y, Repulsion::BarnesHut { theta: 0.5 });
        let (fft, fft_kl) = rel_error(&p, &y, Repulsion::Fft(Default::default()));
        // Measured: Barnes-Hut 2.2% (KL 0.2%), FFT 2.9% (KL 0.05%).
        assert!(
            bh < 0.05 && bh_kl < 0.01,
            "Barnes-Hut: gradient {bh}, KL {bh_kl}"
        );
        assert!(
            fft < 0.05 && fft_kl < 0.01,
            "FFT: gradient {fft}, KL {fft_kl}"
        );
        let (bh0, _) = rel_error(&p, &y, Repulsion::BarnesHut { theta: 0.0 });
        assert!(bh0 < 1e-12, "theta 0 is exact: {bh0}");
    }

    #[test]
    fn exaggeration_scales_only_the_attraction() {
        let p = small_problem(40, 5.0, 4);
        let y = spread_layout(40, 2.0, 8);
        let mut g = Gradient::new(&p, Repulsion::Exact);
        let (mut g1, mut g12) = (vec![[0.0; 2]; 40], vec![[0.0; 2]; 40]);
        g.compute(&p, &y, 1.0, false, &mut g1);
        g.compute(&p, &y, 12.0, false, &mut g12);
        let mut attr = vec![[0.0; 2]; 40];
        attraction(&p, &y, 1.0, false, &mut attr);
        for i in 0..40 {
            for d in 0..2 {
                let want = g1[i][d] + 11.0 * attr[i][d];
                assert!((g12[i][d] - want).abs() < 1e-12);
            }
        }
    }
}
