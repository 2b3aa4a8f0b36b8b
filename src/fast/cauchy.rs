//! Sums of the Cauchy (Student-t, one degree of freedom) kernel's weighted
//! offsets over rows gathered by index, 8 entries to an AVX-512 register:
//! t-SNE's attraction `Σ_j p_ij (y_i − y_j) / (1 + ‖y_i − y_j‖²)`
//! (`crate::project::tsne`, where the plain-Rust definition lives and the
//! tests hold this copy to its bits).
//!
//! Entry `e` of a row adds into lane `e mod LANES`. Per group of 8 entries:
//! one gather of the rows' coordinates per dimension, the subtractions,
//! `1 + d₀² + d₁² (+ d₂²)` summed in that order, one division, one
//! multiply-add per dimension done as a multiply then an add (no fused
//! multiply-add), exactly the plain code's operations.

/// Entries of a row summed in independent lanes (one AVX-512 register of `f64`).
pub const LANES: usize = 8;

/// A row's partial sums: `lanes[k][l]` is dimension `k`'s sum over the
/// entries `e ≡ l (mod LANES)`.
pub type RowLanes<const D: usize> = [[f64; LANES]; D];

/// The lane sums over `cols` (a multiple of [`LANES`] long, with `vals` of the
/// same length) of `v_e (y_i − y_e) / (1 + ‖y_i − y_e‖²)`, or `None` when the
/// CPU lacks AVX-512F, the lengths do not fit, or a column names no row of
/// `y` (the caller then runs its plain code, which gives the same bits).
#[inline]
pub fn force_lanes<const D: usize>(
    yi: &[f64; D],
    cols: &[u32],
    vals: &[f32],
    y: &[[f64; D]],
) -> Option<RowLanes<D>> {
    #[cfg(target_arch = "x86_64")]
    {
        let n = y.len();
        // Gather offsets are `i32` element counts.
        let fits = n.checked_mul(D).is_some_and(|e| e <= i32::MAX as usize);
        let shaped = cols.len() == vals.len() && cols.len().is_multiple_of(LANES);
        if fits
            && shaped
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx2")
        {
            // SAFETY: AVX-512F and AVX2 are present, `cols` and `vals` are
            // whole groups of equal length and `y.len() · D` fits an `i32`
            // (all checked above); the columns are checked inside.
            return unsafe { avx512::checked(yi, cols, vals, y) };
        }
    }
    let _ = (yi, cols, vals, y);
    None
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    use super::{RowLanes, LANES};

    /// [`force_lanes`] if every column names a row of `y`, else `None`.
    /// The check is a maximum over the columns, compiled here for AVX-512
    /// (a short-circuiting scalar test cost 6% of a t-SNE run).
    ///
    /// # Safety
    /// AVX-512F and AVX2; `cols.len() == vals.len()`, a multiple of
    /// [`LANES`]; `y.len() · D` within `i32`.
    #[target_feature(enable = "avx512f,avx2")]
    pub unsafe fn checked<const D: usize>(
        yi: &[f64; D],
        cols: &[u32],
        vals: &[f32],
        y: &[[f64; D]],
    ) -> Option<RowLanes<D>> {
        let top = cols.iter().fold(0u32, |m, &j| m.max(j));
        if !cols.is_empty() && top as usize >= y.len() {
            return None;
        }
        // SAFETY: the caller's conditions, and every column below `y.len()`.
        Some(unsafe { force_lanes(yi, cols, vals, y) })
    }

    /// [`super::force_lanes`] once its conditions hold.
    ///
    /// # Safety
    /// AVX-512F and AVX2; `cols.len() == vals.len()`, a multiple of
    /// [`LANES`]; every entry of `cols` below `y.len()`; `y.len() · D`
    /// within `i32`.
    #[target_feature(enable = "avx512f,avx2")]
    unsafe fn force_lanes<const D: usize>(
        yi: &[f64; D],
        cols: &[u32],
        vals: &[f32],
        y: &[[f64; D]],
    ) -> RowLanes<D> {
        let flat = y.as_flattened().as_ptr();
        let yi_lanes: [__m512d; D] = std::array::from_fn(|k| _mm512_set1_pd(yi[k]));
        let stride = _mm256_set1_epi32(D as i32);
        let one = _mm512_set1_pd(1.0);
        let mut acc = [_mm512_setzero_pd(); D];
        for e in (0..cols.len()).step_by(LANES) {
            // SAFETY: `e + LANES <= cols.len() == vals.len()`.
            let (idx, v) = unsafe {
                (
                    _mm256_loadu_si256(cols.as_ptr().add(e).cast()),
                    _mm512_cvtps_pd(_mm256_loadu_ps(vals.as_ptr().add(e))),
                )
            };
            let mut one_plus = one;
            let mut d = [_mm512_setzero_pd(); D];
            if D == 2 {
                // SAFETY: the columns `e..e + 8` are below `y.len()`.
                let (xs, ys) = unsafe { planar_pairs(flat, cols.as_ptr().add(e)) };
                d[0] = _mm512_sub_pd(yi_lanes[0], xs);
                one_plus = _mm512_add_pd(one_plus, _mm512_mul_pd(d[0], d[0]));
                d[1] = _mm512_sub_pd(yi_lanes[1], ys);
                one_plus = _mm512_add_pd(one_plus, _mm512_mul_pd(d[1], d[1]));
            } else {
                let idx = _mm256_mullo_epi32(idx, stride);
                for k in 0..D {
                    // SAFETY: every index times `D`, plus `k < D`, is below
                    // `y.len() · D`, the length of `flat` (the caller's bounds).
                    let yj = unsafe { _mm512_i32gather_pd::<8>(idx, flat.add(k)) };
                    d[k] = _mm512_sub_pd(yi_lanes[k], yj);
                    one_plus = _mm512_add_pd(one_plus, _mm512_mul_pd(d[k], d[k]));
                }
            }
            let pw = _mm512_div_pd(v, one_plus);
            for k in 0..D {
                acc[k] = _mm512_add_pd(acc[k], _mm512_mul_pd(pw, d[k]));
            }
        }
        let mut lanes = [[0.0f64; LANES]; D];
        for k in 0..D {
            // SAFETY: `lanes[k]` holds `LANES` = 8 `f64`.
            unsafe { _mm512_storeu_pd(lanes[k].as_mut_ptr(), acc[k]) };
        }
        lanes
    }

    /// The x and the y coordinates of the 8 planar rows `cols[0..8]` of
    /// `flat` (`x₀ y₀ x₁ y₁ …`), one 16-byte load a row and two permutes:
    /// cheaper than two gathers on CPUs whose gathers are microcoded.
    ///
    /// # Safety
    /// AVX-512F; `cols` points at 8 readable columns, each below the number
    /// of rows of `flat`.
    #[inline]
    #[target_feature(enable = "avx512f,avx2")]
    unsafe fn planar_pairs(flat: *const f64, cols: *const u32) -> (__m512d, __m512d) {
        // SAFETY: the caller's bounds (8 columns, each a row of `flat`).
        let row = |t: usize| unsafe { _mm_loadu_pd(flat.add(2 * *cols.add(t) as usize)) };
        let quad = |t: usize| {
            let lo = _mm256_insertf128_pd(_mm256_castpd128_pd256(row(t)), row(t + 1), 1);
            let hi = _mm256_insertf128_pd(_mm256_castpd128_pd256(row(t + 2)), row(t + 3), 1);
            _mm512_insertf64x4(_mm512_castpd256_pd512(lo), hi, 1)
        };
        let (a, b) = (quad(0), quad(4));
        let even = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
        let odd = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
        (
            _mm512_permutex2var_pd(a, even, b),
            _mm512_permutex2var_pd(a, odd, b),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bad shapes and columns past the rows are refused (the caller's plain
    /// code then indexes, and panics on the bad column), never read.
    #[test]
    fn bad_columns_and_shapes_are_refused() {
        let y = vec![[0.5, -1.0]; 10];
        let vals = [0.1f32; 8];
        assert!(force_lanes(&y[0], &[1, 2, 3, 4, 5, 6, 7, 10], &vals, &y).is_none());
        assert!(force_lanes(&y[0], &[1, 2, 3], &vals[..3], &y).is_none());
        assert!(force_lanes(&y[0], &[1; 8], &vals[..7], &y).is_none());
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx512f") {
            let lanes = force_lanes(&[1.5, 0.0], &[1; 8], &vals, &y).expect("valid row");
            // d = (1, 1), 1 + d² = 3, 0.1 / 3 per lane and dimension.
            let want = f64::from(0.1f32) / 3.0;
            assert!(lanes[0].iter().chain(&lanes[1]).all(|&v| v == want));
        }
    }
}
