//! A block of ordinary Rust compiled for the CPU's vector instructions.
//!
//! The release build targets the baseline x86-64 (SSE2), so a loop the
//! compiler could run on 256-bit registers runs on 128-bit ones. A method
//! whose hot loop is plain Rust (no intrinsics) wraps it in [`widest`]: the
//! closure is compiled a second time inside a function built for AVX2 and
//! FMA and that copy runs when the CPU has them. Both copies perform the
//! same operations in the same order (Rust never fuses a multiply and an
//! add by itself), so they give the same bits; only intrinsics such as
//! [`super::lanes`]'s change results with the instruction set.
//!
//! The loop is a [`Kernel`] whose `run` is `#[inline(always)]`, and so is
//! whatever `run` calls: only code inlined into the wide copy is compiled
//! with the wider instructions. (A closure does not do: called from both
//! copies, it is too large to inline into either and runs the baseline code.)

/// A hot loop [`widest`] compiles twice. Implement `run` with
/// `#[inline(always)]`.
pub trait Kernel {
    /// What the loop returns.
    type Output;
    /// Runs the loop.
    fn run(self) -> Self::Output;
}

/// Runs `kernel`, compiled for AVX2 and FMA when the CPU has them, else as
/// the baseline build.
#[inline]
pub fn widest<K: Kernel>(kernel: K) -> K::Output {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has AVX2 and FMA (checked just above).
        return unsafe { with_avx2(kernel) };
    }
    kernel.run()
}

/// `kernel.run()` compiled with AVX2 and FMA.
///
/// # Safety
/// The CPU must support AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn with_avx2<K: Kernel>(kernel: K) -> K::Output {
    kernel.run()
}

#[cfg(test)]
mod tests {
    use super::*;

    struct SumOfSquares<'a>(&'a [f64]);

    impl Kernel for SumOfSquares<'_> {
        type Output = f64;
        #[inline(always)]
        fn run(self) -> f64 {
            self.0.iter().map(|v| v * v + 0.5 * v).sum()
        }
    }

    #[test]
    fn the_wide_copy_gives_the_same_bits_as_the_baseline() {
        let x: Vec<f64> = (0..1000).map(|i| (i as f64 * 0.37).sin()).collect();
        let wide = widest(SumOfSquares(&x));
        assert_eq!(wide.to_bits(), SumOfSquares(&x).run().to_bits());
    }
}
