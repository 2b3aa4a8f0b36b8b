//! `f32` dot products and `axpy` for the hot loops of SGNS/CBOW and KUBWE.
//!
//! The compiler does not vectorise a float reduction by itself (it may not
//! reorder the sum), so the portable [`dot`] keeps eight independent partial
//! sums that it can map onto vector lanes, and [`Avx2`] uses intrinsics with
//! fused multiply-adds. A hot loop generic over [`Lanes`] is compiled once
//! per instruction set and one copy is picked at run time; the two give
//! slightly different bits (FMA rounds once), so a run records which it used
//! only through its result — replays on the same machine match bit for bit.

/// Vector arithmetic on `f32` rows; hot loops are generic over it so that
/// they can be compiled once per instruction set.
pub trait Lanes: Copy + Send + Sync {
    /// `Σ a_i b_i` over the common length.
    fn dot(self, a: &[f32], b: &[f32]) -> f32;
    /// `y += alpha · x` over the common length.
    fn axpy(self, alpha: f32, x: &[f32], y: &mut [f32]);
}

/// Plain Rust, for any CPU (the compiler vectorises what it can).
#[derive(Debug, Clone, Copy, Default)]
pub struct Portable;

impl Lanes for Portable {
    #[inline(always)]
    fn dot(self, a: &[f32], b: &[f32]) -> f32 {
        dot(a, b)
    }

    #[inline(always)]
    fn axpy(self, alpha: f32, x: &[f32], y: &mut [f32]) {
        axpy(alpha, x, y)
    }
}

/// AVX2 + FMA intrinsics; a value exists only on CPUs that have them.
#[cfg(target_arch = "x86_64")]
#[derive(Debug, Clone, Copy)]
pub struct Avx2 {
    _checked: (),
}

#[cfg(target_arch = "x86_64")]
impl Avx2 {
    /// `Some` when the running CPU supports AVX2 and FMA.
    pub fn detect() -> Option<Avx2> {
        (std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma"))
            .then_some(Avx2 { _checked: () })
    }
}

#[cfg(target_arch = "x86_64")]
impl Lanes for Avx2 {
    #[inline(always)]
    fn dot(self, a: &[f32], b: &[f32]) -> f32 {
        // SAFETY: an `Avx2` value proves the CPU has AVX2 and FMA.
        unsafe { avx2::dot(a, b) }
    }

    #[inline(always)]
    fn axpy(self, alpha: f32, x: &[f32], y: &mut [f32]) {
        // SAFETY: as above.
        unsafe { avx2::axpy(alpha, x, y) }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    /// Dot product, 16 lanes per iteration in two accumulators.
    ///
    /// # Safety
    /// The CPU must support AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    pub unsafe fn dot(a: &[f32], b: &[f32]) -> f32 {
        let n = a.len().min(b.len());
        let (pa, pb) = (a.as_ptr(), b.as_ptr());
        let mut i = 0;
        // SAFETY (all loads): `i + width <= n`, inside both slices.
        unsafe {
            let (mut s0, mut s1) = (_mm256_setzero_ps(), _mm256_setzero_ps());
            while i + 16 <= n {
                s0 = _mm256_fmadd_ps(_mm256_loadu_ps(pa.add(i)), _mm256_loadu_ps(pb.add(i)), s0);
                s1 = _mm256_fmadd_ps(
                    _mm256_loadu_ps(pa.add(i + 8)),
                    _mm256_loadu_ps(pb.add(i + 8)),
                    s1,
                );
                i += 16;
            }
            if i + 8 <= n {
                s0 = _mm256_fmadd_ps(_mm256_loadu_ps(pa.add(i)), _mm256_loadu_ps(pb.add(i)), s0);
                i += 8;
            }
            let s = _mm256_add_ps(s0, s1);
            let mut q = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps::<1>(s));
            if i + 4 <= n {
                q = _mm_fmadd_ps(_mm_loadu_ps(pa.add(i)), _mm_loadu_ps(pb.add(i)), q);
                i += 4;
            }
            q = _mm_add_ps(q, _mm_movehl_ps(q, q));
            q = _mm_add_ss(q, _mm_shuffle_ps::<1>(q, q));
            let mut total = _mm_cvtss_f32(q);
            while i < n {
                total += *pa.add(i) * *pb.add(i);
                i += 1;
            }
            total
        }
    }

    /// `y += alpha · x`, 8 lanes per iteration.
    ///
    /// # Safety
    /// The CPU must support AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    pub unsafe fn axpy(alpha: f32, x: &[f32], y: &mut [f32]) {
        let n = x.len().min(y.len());
        let (px, py) = (x.as_ptr(), y.as_mut_ptr());
        let mut i = 0;
        // SAFETY (all loads and stores): `i + width <= n`, inside both slices.
        unsafe {
            let a8 = _mm256_set1_ps(alpha);
            while i + 8 <= n {
                let v = _mm256_fmadd_ps(a8, _mm256_loadu_ps(px.add(i)), _mm256_loadu_ps(py.add(i)));
                _mm256_storeu_ps(py.add(i), v);
                i += 8;
            }
            if i + 4 <= n {
                let v = _mm_fmadd_ps(
                    _mm_set1_ps(alpha),
                    _mm_loadu_ps(px.add(i)),
                    _mm_loadu_ps(py.add(i)),
                );
                _mm_storeu_ps(py.add(i), v);
                i += 4;
            }
            while i < n {
                *py.add(i) = alpha.mul_add(*px.add(i), *py.add(i));
                i += 1;
            }
        }
    }
}

/// `Σ a_i b_i` over the common length, in eight independent partial sums
/// (vectorises; the error for 100-dim unit vectors is ~1e-7).
#[inline(always)]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let (ca, ta) = a[..n].as_chunks::<8>();
    let (cb, tb) = b[..n].as_chunks::<8>();
    let mut acc = [0.0f32; 8];
    for (x, y) in ca.iter().zip(cb) {
        for k in 0..8 {
            acc[k] += x[k] * y[k];
        }
    }
    let s = ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
    s + ta.iter().zip(tb).map(|(x, y)| x * y).sum::<f32>()
}

/// `y += alpha · x` over the common length (portable).
#[inline(always)]
pub fn axpy(alpha: f32, x: &[f32], y: &mut [f32]) {
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += alpha * xi;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dot64(a: &[f32], b: &[f32]) -> f64 {
        a.iter().zip(b).map(|(&x, &y)| x as f64 * y as f64).sum()
    }

    fn check_lanes(lanes: impl Lanes) {
        for n in [0usize, 1, 3, 4, 7, 8, 15, 16, 17, 24, 100, 300] {
            let a: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).sin()).collect();
            let b: Vec<f32> = (0..n).map(|i| (i as f32 * 0.11).cos()).collect();
            assert!(
                (lanes.dot(&a, &b) as f64 - dot64(&a, &b)).abs() < 1e-4,
                "n = {n}"
            );
            assert_eq!(
                lanes.dot(&a[..n / 2], &b),
                lanes.dot(&a[..n / 2], &b[..n / 2])
            );
            let mut y = b.clone();
            lanes.axpy(0.5, &a, &mut y);
            for i in 0..n {
                assert!(
                    (y[i] - (b[i] + 0.5 * a[i])).abs() <= 1e-6,
                    "n = {n}, i = {i}"
                );
            }
        }
    }

    #[test]
    fn dot_and_axpy_match_naive_loops() {
        check_lanes(Portable);
        #[cfg(target_arch = "x86_64")]
        if let Some(avx) = Avx2::detect() {
            check_lanes(avx);
        }
    }
}
