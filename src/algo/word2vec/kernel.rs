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
use crate::fast::replicas::Rows;

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

/// [`ns_update`] on row `i` of a table, through its safe row operations
/// ([`Rows::dot_row`], [`Rows::step_row`]): the same arithmetic in the same
/// order, so the same bits.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn ns_update_row<L: Lanes, G: Sigmoid, R: Rows>(
    lanes: L,
    rows: &R,
    i: usize,
    h: &[f32],
    label: f32,
    lr: f32,
    sigmoid: &G,
    neu1e: &mut [f32],
) -> f32 {
    let f = rows.dot_row(lanes, i, h);
    let g = (label - sigmoid.sigma(f)) * lr;
    rows.step_row(lanes, i, g, h, neu1e);
    sigmoid.neg_log_sigma(if label > 0.5 { f } else { -f })
}

/// One example against the target rows `targets` of a table (`targets[0]`
/// the positive), as CBOW's `batch=window` takes it: every row is scored
/// against `h` first, then each gets [`ns_update_row`]'s step (`neu1e +=
/// g·o`, then `o += g·h`). `g` receives the coefficients; returns the loss.
///
/// With distinct targets this is word2vec.c's example bit for bit (a row's
/// score never depends on another row's step); the scores need not wait
/// on the steps, so the row loads overlap. A target drawn twice gets two
/// steps with the coefficient of its old value.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn ns_update_rows<L: Lanes, G: Sigmoid, R: Rows>(
    lanes: L,
    rows: &R,
    targets: &[u32],
    h: &[f32],
    lr: f32,
    sigmoid: &G,
    g: &mut Vec<f32>,
    neu1e: &mut [f32],
) -> f32 {
    g.resize(targets.len(), 0.0);
    for (x, &t) in g.iter_mut().zip(targets) {
        *x = rows.dot_row(lanes, t as usize, h);
    }
    let mut loss = 0.0;
    for (b, x) in g.iter_mut().enumerate() {
        let (f, label) = (*x, if b == 0 { 1.0 } else { 0.0 });
        loss += sigmoid.neg_log_sigma(if b == 0 { f } else { -f });
        *x = (label - sigmoid.sigma(f)) * lr;
    }
    for (&t, &coef) in targets.iter().zip(g.iter()) {
        rows.step_row(lanes, t as usize, coef, h, neu1e);
    }
    loss
}

/// A window's examples as one small dense product (`batch=window`): the `m`
/// context rows `ctx` against the `n` target rows `out` (the centre's first,
/// then the shared negatives), both `d` wide and copied out of the tables.
/// Fills `g` (`m × n`) with `g[a·n + b] = (label_b - σ(ctx_a·out_b))·lr` and
/// `gt` with its transpose; returns the summed loss of the `m·n` terms.
///
/// The step is then `ctx_a += Σ_b g[a·n + b]·out_b` and
/// `out_b += Σ_a gt[b·m + a]·ctx_a` ([`Lanes::combine`]), both from the
/// values before the step: every gradient is computed before any row is
/// written, the sum of [`ns_update`]'s steps over the window's pairs taken
/// at one point.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn window_gradient<L: Lanes, G: Sigmoid>(
    lanes: L,
    ctx: &[f32],
    out: &[f32],
    d: usize,
    lr: f32,
    sigmoid: &G,
    g: &mut Vec<f32>,
    gt: &mut Vec<f32>,
) -> f32 {
    let (m, n) = (ctx.len() / d.max(1), out.len() / d.max(1));
    g.resize(m * n, 0.0);
    gt.resize(m * n, 0.0);
    let mut loss = 0.0;
    for (a, row) in g.chunks_exact_mut(n.max(1)).enumerate().take(m) {
        lanes.dots(&ctx[a * d..(a + 1) * d], out, row);
        for (b, x) in row.iter_mut().enumerate() {
            let f = *x;
            let positive = b == 0;
            loss += sigmoid.neg_log_sigma(if positive { f } else { -f });
            *x = (if positive { 1.0 } else { 0.0 } - sigmoid.sigma(f)) * lr;
            gt[b * m + a] = *x;
        }
    }
    loss
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
    use crate::fast::hogwild::Hogwild;

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

    /// CBOW's `batch=window` step (the mean of two contexts against a
    /// positive and two negatives, all scored first) is the example's
    /// gradient step, and word2vec.c's term-by-term `ns_update` bit for bit.
    #[test]
    fn scoring_first_is_the_examples_gradient_step() {
        let d = 3;
        let (c0, c1) = ([0.3f32, -0.2, 0.5], [-0.1f32, 0.4, 0.2]);
        let h: Vec<f32> = c0.iter().zip(&c1).map(|(a, b)| (a + b) * 0.5).collect();
        let out = [0.1f32, 0.4, -0.3, -0.5, 0.2, 0.25, 0.6, -0.1, 0.05];
        let o: Vec<&[f32]> = out.chunks(d).collect();
        let (dh, douts) = ns_gradient(&h, &o);
        let lr = 0.1f32;
        let (mut table, mut g, mut neu1e) = (out, Vec::new(), [0.0f32; 3]);
        let rows = Hogwild::new(&mut table, d);
        let loss = ns_update_rows(
            Portable,
            &rows,
            &[0, 1, 2],
            &h,
            lr,
            &ExactSigmoid,
            &mut g,
            &mut neu1e,
        );
        assert!((loss as f64 - ns_loss(&h, &o)).abs() < 1e-6);
        let (mut seq, mut seq_e, mut seq_loss) = (out, [0.0f32; 3], 0.0);
        for (b, row) in seq.chunks_exact_mut(d).enumerate() {
            let label = if b == 0 { 1.0 } else { 0.0 };
            seq_loss += ns_update(Portable, &h, row, label, lr, &ExactSigmoid, &mut seq_e);
        }
        assert_eq!(
            (table, neu1e, loss),
            (seq, seq_e, seq_loss),
            "word2vec.c's bits"
        );
        for i in 0..d {
            assert!((neu1e[i] as f64 + lr as f64 * dh[i]).abs() < 1e-7);
            for (b, grad) in douts.iter().enumerate() {
                let step = table[b * d + i] as f64 - out[b * d + i] as f64;
                assert!((step + lr as f64 * grad[i]).abs() < 1e-7);
            }
        }
        // By hand: h = (0.1, 0.1, 0.35), h·out_0 = 0.01 + 0.04 - 0.105 =
        // -0.055, g_0 = (1 - σ(-0.055))·0.1 = σ(0.055)·0.1 = 0.0513746.
        assert!((g[0] - 0.051_374_6).abs() < 1e-6);
    }

    /// A negative drawn twice is stepped twice with the coefficient of its
    /// old value (scored before either step).
    #[test]
    fn a_target_drawn_twice_is_stepped_twice_from_its_old_score() {
        let h = [0.5f32, -0.25];
        let (mut table, mut g, mut neu1e) = ([0.2f32, 0.1, -0.3, 0.4], Vec::new(), [0.0f32; 2]);
        let old = table;
        let rows = Hogwild::new(&mut table, 2);
        ns_update_rows(
            Portable,
            &rows,
            &[0, 1, 1],
            &h,
            0.5,
            &ExactSigmoid,
            &mut g,
            &mut neu1e,
        );
        assert_eq!(g[1], g[2]);
        // Row 1: two steps of g·h; neu1e: g_0·o_0 + g_1·o_1 + g_1·(o_1 + g_1·h).
        for i in 0..2 {
            let o1 = old[2 + i] + g[1] * h[i];
            assert!((table[2 + i] - (o1 + g[1] * h[i])).abs() < 1e-6);
            let e = g[0] * old[i] + g[1] * old[2 + i] + g[1] * o1;
            assert!((neu1e[i] - e).abs() < 1e-6);
        }
    }

    /// Two contexts, a positive and two negatives in `d = 3`: the window step
    /// is the sum of the pairs' gradient steps, all taken at the old values.
    #[test]
    fn window_step_sums_the_pairs_gradients() {
        let d = 3;
        let ctx = [0.3f32, -0.2, 0.5, -0.1, 0.4, 0.2];
        let out = [0.1f32, 0.4, -0.3, -0.5, 0.2, 0.25, 0.6, -0.1, 0.05];
        let rows = |t: &[f32]| t.chunks(d).map(|r| r.to_vec()).collect::<Vec<_>>();
        let (c, o) = (rows(&ctx), rows(&out));
        let orefs: Vec<&[f32]> = o.iter().map(|r| &r[..]).collect();
        let lr = 0.1f32;
        let (mut g, mut gt) = (Vec::new(), Vec::new());
        let loss = window_gradient(Portable, &ctx, &out, d, lr, &ExactSigmoid, &mut g, &mut gt);
        let want: f64 = c.iter().map(|h| ns_loss(h, &orefs)).sum();
        assert!((loss as f64 - want).abs() < 1e-6);
        assert_eq!((g.len(), gt[2]), (6, g[1]), "gt is g transposed");
        let (mut new_ctx, mut new_out) = (ctx, out);
        for a in 0..2 {
            Portable.combine(&g[a * 3..a * 3 + 3], &out, &mut new_ctx[a * d..(a + 1) * d]);
        }
        for b in 0..3 {
            Portable.combine(
                &gt[b * 2..b * 2 + 2],
                &ctx,
                &mut new_out[b * d..(b + 1) * d],
            );
        }
        let grads: Vec<_> = c.iter().map(|h| ns_gradient(h, &orefs)).collect();
        for a in 0..2 {
            for i in 0..d {
                let step = -(lr as f64) * grads[a].0[i];
                assert!((new_ctx[a * d + i] as f64 - ctx[a * d + i] as f64 - step).abs() < 1e-7);
            }
        }
        for b in 0..3 {
            for i in 0..d {
                let step = -(lr as f64) * (grads[0].1[b][i] + grads[1].1[b][i]);
                assert!((new_out[b * d + i] as f64 - out[b * d + i] as f64 - step).abs() < 1e-7);
            }
        }
        // By hand, the first term: ctx_0·out_0 = 0.03 - 0.08 - 0.15 = -0.2,
        // g = (1 - σ(-0.2))·0.1 = 0.0549834.
        assert!((g[0] - 0.054_983_4).abs() < 1e-6);
    }
}
