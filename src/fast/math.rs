//! `exp` and `tanh` in plain arithmetic, so that a loop over an array of
//! them compiles to vector instructions (libm's are one call per value).
//!
//! Why: MPNNLM's token spends ~13% of its CPU time in libm (`tanhf` for the
//! 150 units of its two layers, `exp` for each softmax entry), a call per
//! value that no loop around it can vectorise. These functions are
//! branch-free (selects only), use no fused multiply-add and no table, and
//! every operation is an IEEE-754 add, multiply, divide or bit operation in
//! a fixed order: the same bits on every CPU and instruction set. They are
//! not libm's bits, so a method offers them as an option of its own.
//!
//! Accuracy (tests below, dense grids): [`exp`] within one unit in the
//! last place of libm's on `[-708, 709]`; [`tanh`] the `f64` `tanh`
//! rounded to `f32` (within two units of `tanhf`, whose own error reaches
//! 1.5).
//!
//! No `unsafe` here: plain code the compiler vectorises.

/// `1 / ln 2`.
const INV_LN2: f64 = std::f64::consts::LOG2_E;
/// `ln 2` split Cody–Waite style (fdlibm's constants): `k · LN2_HI` is exact
/// for every `k` reached here.
const LN2_HI: f64 = 0.693_147_180_369_123_8;
const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
/// `1.5 · 2^52`: added to a float below `2^51` in magnitude, rounds it to
/// the nearest integer (ties to even) in the low bits of the sum.
const ROUNDER: f64 = 6_755_399_441_055_744.0;

/// `1/n!` for `n` = 2..=13, the Taylor coefficients of `e^r` after `1 + r`.
const INV_FACT: [f64; 12] = [
    1.0 / 2.0,
    1.0 / 6.0,
    1.0 / 24.0,
    1.0 / 120.0,
    1.0 / 720.0,
    1.0 / 5040.0,
    1.0 / 40320.0,
    1.0 / 362_880.0,
    1.0 / 3_628_800.0,
    1.0 / 39_916_800.0,
    1.0 / 479_001_600.0,
    1.0 / 6_227_020_800.0,
];

/// `2^k` for `k` in `[-1022, 1023]`, from its exponent bits.
#[inline(always)]
fn pow2(k: i64) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// `e^x`: `x = k ln 2 + r` with `|r| ≤ ln 2 / 2`, `e^r` by its Taylor
/// polynomial of degree 13 (truncation below 2e-17 relative), times `2^k`
/// as two factors so that results down to the subnormals are reached
/// without an overflowing exponent. Below −746 the result is 0, above 710
/// infinity; NaN stays NaN.
#[inline(always)]
pub fn exp(x: f64) -> f64 {
    let c = x.clamp(-746.0, 710.0);
    let kd = c * INV_LN2 + ROUNDER;
    let k = (kd.to_bits() as i64).wrapping_sub(ROUNDER.to_bits() as i64);
    let kf = kd - ROUNDER;
    let r = (c - kf * LN2_HI) - kf * LN2_LO;
    let mut p = INV_FACT[11];
    for &a in INV_FACT[..11].iter().rev() {
        p = p * r + a;
    }
    let p = (p * r * r + r) + 1.0;
    let half = k >> 1;
    let e = p * pow2(half) * pow2(k - half);
    if x.is_nan() {
        x
    } else {
        e
    }
}

/// `tanh(x)` for an `f32`, computed in `f64` as `1 − 2 / (e^{2|x|} + 1)`
/// (relative error below 1e-12 for `|x| ≥ 1e-4`, where the subtraction
/// cancels least) and as `x (1 − x²/3)` below (the next term is under
/// 1e-9 relative there), then rounded: within one unit in the last place
/// of the true value. Beyond `|x|` = 20 it is ±1 in `f32` either way.
#[inline(always)]
pub fn tanh(x: f32) -> f32 {
    let a = (x as f64).abs().min(20.0);
    let big = 1.0 - 2.0 / (exp(2.0 * a) + 1.0);
    let small = a * (1.0 - a * a / 3.0);
    let t = if a < 1e-4 { small } else { big };
    if x.is_nan() {
        x
    } else {
        (t as f32).copysign(x)
    }
}

/// [`exp`] of every value, in place (a loop the compiler vectorises).
#[inline(always)]
pub fn exp_all(xs: &mut [f64]) {
    for x in xs {
        *x = exp(*x);
    }
}

/// [`tanh`] of every value, in place (a loop the compiler vectorises).
#[inline(always)]
pub fn tanh_all(xs: &mut [f32]) {
    for x in xs {
        *x = tanh(*x);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Units in the last place between two `f32`s of the same sign.
    fn ulps(a: f32, b: f32) -> u32 {
        (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs() as u32
    }

    /// Units in the last place between two positive `f64`s.
    fn ulps64(a: f64, b: f64) -> u64 {
        (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs()
    }

    #[test]
    fn exp_is_within_one_ulp_of_libm_on_a_dense_grid() {
        let mut worst = 0;
        let n = 2_000_000;
        for i in 0..=n {
            let x = -708.0 + 1417.0 * i as f64 / n as f64;
            worst = worst.max(ulps64(exp(x), x.exp()));
        }
        // Near 0 too, where `r` is the whole argument.
        for i in -100_000..=100_000 {
            let x = i as f64 * 1e-6;
            worst = worst.max(ulps64(exp(x), x.exp()));
        }
        assert!(worst <= 1, "worst {worst} ulp");
    }

    #[test]
    fn exp_at_the_edges_underflows_overflows_and_keeps_nan() {
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(exp(-800.0), 0.0);
        assert_eq!(exp(f64::NEG_INFINITY), 0.0);
        assert_eq!(exp(800.0), f64::INFINITY);
        assert!(exp(f64::NAN).is_nan());
        // Subnormal results: within the coarser spacing there.
        let (ours, libm) = (exp(-740.0), (-740.0f64).exp());
        assert!(((ours - libm) / libm).abs() < 1e-6, "{ours:e} vs {libm:e}");
    }

    /// Against `f64`'s `tanh` rounded to `f32` (all equal on this grid; one
    /// ulp allowed for a double rounding) and within two ulps of `tanhf`,
    /// whose own error reaches 1.5 ulps.
    #[test]
    fn tanh_is_the_rounded_f64_tanh_and_within_two_ulps_of_libm() {
        let (mut worst, mut worst_libm) = (0, 0);
        // Every 64th f32 from 1e-8 to 12 (beyond, both are 1).
        let (lo, hi) = (1e-8f32.to_bits(), 12.0f32.to_bits());
        for bits in (lo..=hi).step_by(64) {
            let x = f32::from_bits(bits);
            worst = worst.max(ulps(tanh(x), (x as f64).tanh() as f32));
            worst_libm = worst_libm.max(ulps(tanh(x), x.tanh()));
            worst_libm = worst_libm.max(ulps(-tanh(x), (-x).tanh()));
            assert_eq!(tanh(-x), -tanh(x));
        }
        assert!(worst <= 1, "worst {worst} ulp from the rounded f64 tanh");
        assert!(worst_libm <= 2, "worst {worst_libm} ulp from tanhf");
    }

    #[test]
    fn tanh_keeps_zero_signs_saturates_and_keeps_nan() {
        assert_eq!(tanh(0.0).to_bits(), 0.0f32.to_bits());
        assert_eq!(tanh(-0.0).to_bits(), (-0.0f32).to_bits());
        assert_eq!(tanh(30.0), 1.0);
        assert_eq!(tanh(f32::NEG_INFINITY), -1.0);
        assert!(tanh(f32::NAN).is_nan());
        let mut xs = [-2.0f32, 0.5, 1e-6, 9.0];
        tanh_all(&mut xs);
        assert_eq!(xs, [tanh(-2.0), tanh(0.5), tanh(1e-6), tanh(9.0)]);
    }
}
