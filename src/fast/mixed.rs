//! Dot products and `axpy` over `f32` rows accumulated in `f64`.
//!
//! GloVe's loss, DSNMF's `Ŝ` entries and their sums add up millions of
//! terms, where `f32` accumulation loses digits the tests (and the numpy
//! references) see. The partial sums are few and in a fixed order, so the
//! compiler can use vector lanes without reordering any single sum (Rust
//! never fuses or reassociates floating-point operations): builds with and
//! without AVX2 give the same bits, which one-thread replays rely on. The
//! lane counts differ per function because each is the one its method's
//! recorded sessions were made with.

/// `Σ a_k b_k` of two `f64` rows over their common length, one sum from
/// the first term to the last (the order PSDVec's and the Lanczos solver's
/// recorded sessions were made with).
#[inline]
pub fn dot64(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// `y += alpha · x` over `f64` rows (their common length).
#[inline]
pub fn axpy64(alpha: f64, x: &[f64], y: &mut [f64]) {
    y.iter_mut().zip(x).for_each(|(y, x)| *y += alpha * x);
}

/// `Σ a_k b_k` over the common length of two `f32` rows, in eight `f64`
/// partial sums.
#[inline(always)]
pub fn dot_f32(a: &[f32], b: &[f32]) -> f64 {
    let n = a.len().min(b.len());
    let (ca, ta) = a[..n].as_chunks::<8>();
    let (cb, tb) = b[..n].as_chunks::<8>();
    let mut acc = [0f64; 8];
    for (x, y) in ca.iter().zip(cb) {
        for k in 0..8 {
            acc[k] += x[k] as f64 * y[k] as f64;
        }
    }
    let mut sum = ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
    for (x, y) in ta.iter().zip(tb) {
        sum += *x as f64 * *y as f64;
    }
    sum
}

/// `Σ_k u_k w_k` of an `f64` row and an `f32` row over their common length,
/// in four partial sums.
#[inline(always)]
pub fn dot_f64(u: &[f64], w: &[f32]) -> f64 {
    let n = u.len().min(w.len());
    let (uc, ur) = u[..n].as_chunks::<4>();
    let (wc, wr) = w[..n].as_chunks::<4>();
    let mut s = [0f64; 4];
    for (a, b) in uc.iter().zip(wc) {
        for l in 0..4 {
            s[l] += a[l] * b[l] as f64;
        }
    }
    let mut total = (s[0] + s[1]) + (s[2] + s[3]);
    for (a, &b) in ur.iter().zip(wr) {
        total += a * b as f64;
    }
    total
}

/// `acc_k += z w_k` over the common length.
#[inline(always)]
pub fn axpy_f64(z: f64, w: &[f32], acc: &mut [f64]) {
    for (a, &x) in acc.iter_mut().zip(w) {
        *a += z * x as f64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_match_plain_loops_for_every_tail_length() {
        for n in [0usize, 1, 3, 4, 5, 8, 9, 13, 21, 100] {
            let a: Vec<f32> = (0..n).map(|k| k as f32 * 0.5 - 3.0).collect();
            let b: Vec<f32> = (0..n).map(|k| (k * k) as f32 / 7.0).collect();
            let u: Vec<f64> = (0..n).map(|k| 0.1 * k as f64 - 0.3).collect();
            let plain32: f64 = a.iter().zip(&b).map(|(&x, &y)| x as f64 * y as f64).sum();
            let plain64: f64 = u.iter().zip(&b).map(|(x, &y)| x * y as f64).sum();
            assert!((dot_f32(&a, &b) - plain32).abs() <= 1e-9 * (1.0 + plain32.abs()));
            assert!((dot_f64(&u, &b) - plain64).abs() <= 1e-9 * (1.0 + plain64.abs()));
            let mut acc = vec![1.0; n];
            axpy_f64(2.0, &b, &mut acc);
            assert!(acc.iter().zip(&b).all(|(x, &y)| *x == 1.0 + 2.0 * y as f64));
        }
    }

    #[test]
    fn unequal_lengths_use_the_common_prefix() {
        let a = [1.0f32; 9];
        let b = [2.0f32; 16];
        assert_eq!(dot_f32(&a, &b), 18.0);
        assert_eq!(dot_f64(&[1.0; 5], &b), 10.0);
    }
}
