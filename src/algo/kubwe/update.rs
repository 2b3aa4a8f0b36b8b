//! Moving one word: the update rule and the learning-rate schedule.
//!
//! The thesis (§3.3.3) uses projected gradient descent,
//! `y ← normalize(y − lr·g)` with `g = −v₁ + v₂`, `v₁ = Σ_{P_i} a_ij y_j`
//! (attraction) and `v₂ = Σ_{N_i} K(y_i·y_j) y_j` (repulsion), but gives no
//! step size. The authors' code normalises both forces and the step
//! (docs/methods/kubwe.md, "Update rule"): `u = v₁/‖v₁‖ − v₂/‖v₂‖`,
//! `y ← normalize(y + lr·u/‖u‖)` — every word moves by about `lr` radians per
//! sweep whatever the scale of its PPMI row or the number of its negatives,
//! which is why one `lr ≈ 0.1` works for every corpus. That is the default
//! ([`Update::Normalized`]); [`Update::Gradient`] is the literal rule.

/// How a word moves given its forces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Update {
    /// Unit attraction minus unit repulsion, a step of length `lr` (code).
    Normalized,
    /// `y − lr·g`, the raw projected gradient step (thesis).
    Gradient,
}

/// How the learning rate decays over the sweeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decay {
    /// The authors' sigmoid: `lr·(0.1 + 0.9 σ(13(1 − 0.18 t/T) − 6))`, from
    /// `lr` to about `0.99 lr` — practically constant.
    Sigmoid,
    /// `lr·(1 − t/T)`: word2vec-style linear decay to `lr/T`.
    Linear,
}

impl Decay {
    /// The rate of sweep `t` (0-based) of `sweeps`, starting from `lr`.
    pub fn rate(self, lr: f64, t: usize, sweeps: usize) -> f64 {
        let frac = t as f64 / sweeps.max(1) as f64;
        match self {
            Decay::Sigmoid if t == 0 => lr,
            Decay::Sigmoid => {
                let z = 13.0 * (1.0 - 0.18 * frac) - 6.0;
                lr * (0.1 + 0.9 / (1.0 + (-z).exp()))
            }
            Decay::Linear => lr * (1.0 - frac),
        }
    }
}

/// Writes the moved, renormalised `y` into `out` (`y` itself if it cannot
/// move: no force, or a degenerate step).
pub fn move_word(y: &[f32], v1: &[f64], v2: &[f64], lr: f64, rule: Update, out: &mut [f32]) {
    let norm = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
    let (n1, n2) = (norm(v1), norm(v2));
    let inv = |n: f64| if n > 0.0 { 1.0 / n } else { 0.0 };
    let (s1, s2, step) = match rule {
        Update::Normalized => {
            let (s1, s2) = (inv(n1), inv(n2));
            let un: f64 = v1
                .iter()
                .zip(v2)
                .map(|(a, b)| (a * s1 - b * s2).powi(2))
                .sum::<f64>()
                .sqrt();
            (s1, s2, lr * inv(un))
        }
        Update::Gradient => (1.0, 1.0, lr),
    };
    let mut len = 0.0f64;
    for (k, o) in out.iter_mut().enumerate() {
        let v = y[k] as f64 + step * (v1[k] * s1 - v2[k] * s2);
        len += v * v;
        *o = v as f32;
    }
    let len = len.sqrt();
    if len > 1e-12 && len.is_finite() {
        let s = 1.0 / len;
        for (k, o) in out.iter_mut().enumerate() {
            *o = ((*o as f64) * s) as f32;
            debug_assert!(o.is_finite(), "component {k}");
        }
    } else {
        out.copy_from_slice(y);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalised_step_moves_by_lr_towards_attraction_away_from_repulsion() {
        let y = [1.0f32, 0.0, 0.0];
        let v1 = [0.0, 10.0, 0.0]; // pulls towards +e2
        let v2 = [0.0, 0.0, 0.001]; // pushes away from +e3
        let mut out = [0.0f32; 3];
        move_word(&y, &v1, &v2, 0.1, Update::Normalized, &mut out);
        // u = (0, 1, -1) / sqrt 2; y + 0.1 u, renormalised.
        let s = 0.1 / 2f64.sqrt();
        let len = (1.0 + 2.0 * s * s).sqrt();
        let expect = [1.0 / len, s / len, -s / len];
        for k in 0..3 {
            assert!((out[k] as f64 - expect[k]).abs() < 1e-6, "{out:?}");
        }
        // The force scales do not matter.
        let mut out2 = [0.0f32; 3];
        move_word(
            &y,
            &[0.0, 1.0, 0.0],
            &[0.0, 0.0, 7.0],
            0.1,
            Update::Normalized,
            &mut out2,
        );
        assert_eq!(out, out2);
    }

    #[test]
    fn gradient_step_is_raw_and_zero_force_keeps_the_word() {
        let y = [0.6f32, 0.8];
        let mut out = [0.0f32; 2];
        move_word(
            &y,
            &[1.0, 0.0],
            &[0.0, 2.0],
            0.5,
            Update::Gradient,
            &mut out,
        );
        // y + 0.5 (v1 - v2) = (1.1, -0.2)
        let len = (1.1f64 * 1.1 + 0.04).sqrt();
        assert!(
            (out[0] as f64 - 1.1 / len).abs() < 1e-6 && (out[1] as f64 + 0.2 / len).abs() < 1e-6
        );
        move_word(
            &y,
            &[0.0, 0.0],
            &[0.0, 0.0],
            0.5,
            Update::Normalized,
            &mut out,
        );
        assert_eq!(out, y);
    }

    #[test]
    fn schedules() {
        assert_eq!(Decay::Sigmoid.rate(0.1, 0, 50), 0.1);
        let last = Decay::Sigmoid.rate(0.1, 49, 50);
        assert!(last > 0.098 && last < 0.1, "{last}");
        assert!((Decay::Linear.rate(0.1, 25, 50) - 0.05).abs() < 1e-12);
    }
}
