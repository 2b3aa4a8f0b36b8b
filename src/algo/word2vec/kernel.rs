//! The arithmetic of one negative-sampling example, shared by SGNS and CBOW.
//!
//! An example is an input vector `h` (a context word's vector in SGNS, the mean
//! of the context vectors in CBOW) scored against the output (context-matrix)
//! rows of one positive target `t` and `k` sampled negatives `n_i`:
//!
//! ```text
//! L = -ln σ(h·t) - Σ_i ln σ(-h·n_i)
//! ∂L/∂h   = -(1 - σ(h·t))·t + Σ_i σ(h·n_i)·n_i
//! ∂L/∂t   = -(1 - σ(h·t))·h
//! ∂L/∂n_i =  σ(h·n_i)·h
//! ```
//!
//! [`ns_update`] is the hot loop's step for one output row: with
//! `g = (label - σ(h·o))·lr` it adds `g·o` to the input's pending update
//! (`neu1e`) and `g·h` to the row, i.e. a gradient-descent step of size `lr`.
//! [`ns_loss`] and [`ns_gradient`] are the same objective in plain `f64`, for
//! tests (finite differences) and for reading.
//!
//! The row arithmetic ([`Lanes`]: dot product and `axpy`) comes from
//! [`crate::fast::lanes`] in a portable version and an AVX2+FMA one;
//! `worker.rs` compiles the hot loop once for each and picks one at run time.

use super::sigmoid::{softplus, Sigmoid};
use crate::fast::mixed::dot_f32;

pub use crate::fast::lanes::{Lanes, Portable};

/// One (input, output row) term of an example, as word2vec.c computes it:
/// `g = (label - σ(h·o))·lr`, then `neu1e += g·o` and `o += g·h` (in that
/// order, so `neu1e` sees the row before its update). Returns the term's loss,
/// `-ln σ(h·o)` for `label = 1` and `-ln σ(-h·o)` for `label = 0`.
#[inline(always)]
pub fn ns_update<L: Lanes, G: Sigmoid>(
    lanes: L,
    h: &[f32],
    out: &mut [f32],
    label: f32,
    lr: f32,
    sigmoid: &G,
    neu1e: &mut [f32],
) -> f32 {
    let f = lanes.dot(h, out);
    let g = (label - sigmoid.sigma(f)) * lr;
    lanes.axpy(g, out, neu1e);
    lanes.axpy(g, h, out);
    sigmoid.neg_log_sigma(if label > 0.5 { f } else { -f })
}

/// The example's loss in `f64`: `outputs[0]` is the positive target, the rest
/// are negatives.
pub fn ns_loss(h: &[f32], outputs: &[&[f32]]) -> f64 {
    outputs
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let f = dot_f32(h, o);
            if i == 0 {
                softplus(-f)
            } else {
                softplus(f)
            }
        })
        .sum()
}

/// The gradient of [`ns_loss`]: `(∂L/∂h, [∂L/∂outputs[i]])`.
pub fn ns_gradient(h: &[f32], outputs: &[&[f32]]) -> (Vec<f64>, Vec<Vec<f64>>) {
    let mut dh = vec![0.0; h.len()];
    let mut douts = Vec::with_capacity(outputs.len());
    for (i, o) in outputs.iter().enumerate() {
        let label = if i == 0 { 1.0 } else { 0.0 };
        let s = 1.0 / (1.0 + (-dot_f32(h, o)).exp());
        let coef = s - label;
        for (d, &x) in dh.iter_mut().zip(o.iter()) {
            *d += coef * x as f64;
        }
        douts.push(h.iter().map(|&x| coef * x as f64).collect());
    }
    (dh, douts)
}

#[cfg(test)]
mod tests {
    use super::super::sigmoid::ExactSigmoid;
    use super::*;

    #[test]
    fn update_is_a_gradient_step() {
        let h = [0.3f32, -0.2, 0.5];
        let pos = [0.1f32, 0.4, -0.3];
        let neg = [-0.5f32, 0.2, 0.25];
        let (dh, douts) = ns_gradient(&h, &[&pos, &neg]);
        let lr = 0.1;
        let mut neu1e = [0.0f32; 3];
        let (mut p, mut n) = (pos, neg);
        let loss = ns_update(Portable, &h, &mut p, 1.0, lr, &ExactSigmoid, &mut neu1e)
            + ns_update(Portable, &h, &mut n, 0.0, lr, &ExactSigmoid, &mut neu1e);
        assert!((loss as f64 - ns_loss(&h, &[&pos, &neg])).abs() < 1e-6);
        for i in 0..3 {
            assert!((neu1e[i] as f64 + lr as f64 * dh[i]).abs() < 1e-7);
            assert!((p[i] as f64 - pos[i] as f64 + lr as f64 * douts[0][i]).abs() < 1e-7);
            assert!((n[i] as f64 - neg[i] as f64 + lr as f64 * douts[1][i]).abs() < 1e-7);
        }
    }
}
