//! The inverse of UBE's Hessian `G = YᵀY`, kept current while rows move.
//!
//! A Newton step solves `G N = −g` for every point; refactoring `G` each
//! time would cost `O(d³)` per point (`d` = 50 for word vectors). A point's
//! move changes `G` by `y_newy_newᵀ − y_oldy_oldᵀ`, so `G⁻¹` follows by
//! two Sherman–Morrison updates, `O(d²)`; it is refactored exactly once per
//! sweep (and whenever a downdate would be ill-conditioned).

use nalgebra::DMatrix;

/// `G⁻¹`, row-major `d × d`.
#[derive(Debug, Clone)]
pub struct Inverse {
    dim: usize,
    inv: Vec<f64>,
    scratch: Vec<f64>,
}

/// A downdate whose denominator `1 − vᵀG⁻¹v` falls below this refactors.
const MIN_PIVOT: f64 = 1e-6;

impl Inverse {
    /// The inverse of the symmetric `gram` (a tiny ridge if it is singular).
    pub fn of(gram: &[f64], dim: usize) -> Inverse {
        let mut inv = Inverse {
            dim,
            inv: vec![0.0; dim * dim],
            scratch: vec![0.0; dim],
        };
        inv.refactor(gram);
        inv
    }

    /// Recomputes the inverse from `gram` exactly.
    pub fn refactor(&mut self, gram: &[f64]) {
        let d = self.dim;
        let g = DMatrix::from_row_slice(d, d, gram);
        let trace: f64 = (0..d).map(|a| gram[a * d + a]).sum::<f64>().max(1e-300);
        let mut ridge = 0.0;
        let chol = loop {
            let shifted = &g + DMatrix::<f64>::identity(d, d) * ridge;
            match shifted.cholesky() {
                Some(c) => break c,
                None => {
                    ridge = if ridge == 0.0 {
                        1e-10 * trace
                    } else {
                        ridge * 10.0
                    }
                }
            }
        };
        let inv = chol.inverse();
        for a in 0..d {
            for b in 0..d {
                self.inv[a * d + b] = inv[(a, b)];
            }
        }
    }

    /// `out = G⁻¹ v`.
    pub fn solve(&self, v: &[f64], out: &mut [f64]) {
        let d = self.dim;
        for (a, o) in out.iter_mut().enumerate() {
            *o = self.inv[a * d..(a + 1) * d]
                .iter()
                .zip(v)
                .map(|(h, x)| h * x)
                .sum();
        }
    }

    /// `G ± u uᵀ`: returns false (and changes nothing) when the update is
    /// ill-conditioned, so that the caller refactors.
    fn rank_one(&mut self, u: &[f64], sign: f64) -> bool {
        let d = self.dim;
        let mut hu = std::mem::take(&mut self.scratch);
        self.solve(u, &mut hu);
        let denom = 1.0 + sign * u.iter().zip(&hu).map(|(a, b)| a * b).sum::<f64>();
        let ok = denom > MIN_PIVOT;
        if ok {
            let c = sign / denom;
            for a in 0..d {
                for b in 0..d {
                    self.inv[a * d + b] -= c * hu[a] * hu[b];
                }
            }
        }
        self.scratch = hu;
        ok
    }

    /// Follows one row's move from `old` to `new`; `gram` is the already
    /// updated `G`, used if a Sherman–Morrison step would be unstable.
    pub fn replace(&mut self, old: &[f64], new: &[f64], gram: &[f64]) {
        if !(self.rank_one(new, 1.0) && self.rank_one(old, -1.0)) {
            self.refactor(gram);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::ube::init::random_sphere;
    use crate::geometry::ube::objective::Moments;

    #[test]
    fn follows_row_moves_like_a_fresh_inverse() {
        let mut y = random_sphere(40, 5, 2);
        let mut mom = Moments::of(y.view());
        let mut inv = Inverse::of(&mom.gram, 5);
        for i in 0..40 {
            let old = y.row(i).to_vec();
            let new: Vec<f64> = old.iter().rev().copied().collect();
            y.row_mut(i).assign(&ndarray::ArrayView1::from(&new));
            mom.replace(&old, &new);
            inv.replace(&old, &new, &mom.gram);
        }
        let fresh = Inverse::of(&mom.gram, 5);
        for (a, b) in inv.inv.iter().zip(&fresh.inv) {
            assert!((a - b).abs() < 1e-9 * (1.0 + b.abs()), "{a} vs {b}");
        }
        // G G⁻¹ = I.
        let mut col = vec![0.0; 5];
        let mut back = vec![0.0; 5];
        for a in 0..5 {
            let mut e = vec![0.0; 5];
            e[a] = 1.0;
            inv.solve(&e, &mut col);
            mom.gram_times(&col, &mut back);
            for (b, v) in back.iter().enumerate() {
                assert!((v - if a == b { 1.0 } else { 0.0 }).abs() < 1e-9);
            }
        }
        // A singular G (fewer rows than dimensions) still inverts.
        let thin = random_sphere(2, 5, 1);
        let m = Moments::of(thin.view());
        let i = Inverse::of(&m.gram, 5);
        assert!(i.inv.iter().all(|v| v.is_finite()));
    }
}
