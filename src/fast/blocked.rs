//! Register-blocked kernels for the thin products of
//! [`crate::linalg::block`] on one range of rows: `C += Vᵀ W` and `W −= V C` with `W` only `b` columns wide.
//!
//! A general GEMM (matrixmultiply) packs both operands first; with `b = 8`
//! the packing of the tall `V` cost more than the multiplication itself (31%
//! against 12% of a whole solve in `perf`). These kernels read `V` in place,
//! a few rows at a time, keep `W`'s rows (or the accumulators) in AVX
//! registers and use fused multiply-adds. The crate is built for baseline
//! x86-64, so they are compiled with `target_feature` and chosen at run time
//! when the CPU has AVX2 and FMA (auto-vectorisation of a portable version
//! picked the wrong loop and spilled registers: slower than the GEMM). Without
//! them, or for other widths, the callers fall back to the GEMM.

/// `c (p × b) += Σ_r V[r, 0..p]ᵀ W[r, 0..b]` over the rows of `w` (stride
/// `b`) and the same rows of `v` (stride `ld`), for `b` in {4, 8, 16}.
/// Returns false, doing nothing, when the width or the CPU is not supported.
pub fn project_rows(v: &[f64], ld: usize, p: usize, w: &[f64], b: usize, c: &mut [f64]) -> bool {
    let rows = w.len() / b.max(1);
    if !supported(b) || c.len() < p * b || (rows > 0 && v.len() < (rows - 1) * ld + p) {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `supported` checked AVX2 and FMA; the bounds were checked above.
    unsafe {
        match b {
            4 => avx::project::<1, 4>(v, ld, p, w, c),
            8 => avx::project::<2, 4>(v, ld, p, w, c),
            _ => avx::project::<4, 2>(v, ld, p, w, c),
        }
    }
    true
}

/// `W −= V c` on these rows, for `b` in {4, 8, 16}; with `project`, also
/// accumulates `Vᵀ W` of the updated rows into its first slice and their
/// squared column norms into its second. Returns false, doing nothing, when
/// the width or the CPU is not supported.
pub fn subtract_rows(
    v: &[f64],
    ld: usize,
    p: usize,
    w: &mut [f64],
    b: usize,
    c: &[f64],
    project: Option<(&mut [f64], &mut [f64])>,
) -> bool {
    let rows = w.len() / b.max(1);
    if !supported(b) || c.len() < p * b || (rows > 0 && v.len() < (rows - 1) * ld + p) {
        return false;
    }
    if let Some((c2, norms)) = &project {
        if c2.len() < p * b || norms.len() < b {
            return false;
        }
    }
    #[cfg(target_arch = "x86_64")]
    // SAFETY: as in `project_rows`.
    unsafe {
        match b {
            4 => avx::subtract::<1, 4>(v, ld, p, w, c, project),
            8 => avx::subtract::<2, 4>(v, ld, p, w, c, project),
            _ => avx::subtract::<4, 2>(v, ld, p, w, c, project),
        }
    }
    true
}

/// Column indices of a sparse matrix checked once against its column count,
/// so that products need not scan them again: [`spmm_rows_indexed`].
/// Immutable after [`ColumnIndices::new`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnIndices {
    indices: Vec<u32>,
    cols: usize,
}

impl ColumnIndices {
    /// Takes `indices` if every one is below `cols`; gives back the first
    /// that is not.
    pub fn new(indices: Vec<u32>, cols: usize) -> Result<ColumnIndices, u32> {
        match indices.iter().find(|&&c| c as usize >= cols) {
            Some(&c) => Err(c),
            None => Ok(ColumnIndices { indices, cols }),
        }
    }

    /// The indices.
    pub fn as_slice(&self) -> &[u32] {
        &self.indices
    }

    /// The column count they were checked against.
    pub fn cols(&self) -> usize {
        self.cols
    }
}

/// Sparse rows times a dense block: `Y[r, 0..b] = Σ_k data[k] X[indices[k], 0..b]`
/// for the rows `row0..row0 + y.len() / b` of a CSR matrix whose column
/// indices were checked at construction, `X` row-major with `b` columns,
/// for `b` in {4, 8, 16}. The indices are not scanned again (a read of the
/// whole index array per product, about a fifth of a product's time on a
/// 5M-entry matrix). Returns false, doing nothing, when the width or the
/// CPU is not supported, when `x` has fewer than `indices.cols()` rows, or
/// when the arrays do not describe valid CSR rows (`indptr` not covering
/// the rows or not increasing, `indices`/`data` shorter than it says): the
/// caller then takes its checked path, which reports the problem.
pub fn spmm_rows_indexed(
    indptr: &[usize],
    indices: &ColumnIndices,
    data: &[f64],
    row0: usize,
    x: &[f64],
    y: &mut [f64],
    b: usize,
) -> bool {
    if !supported(b) || x.len() / b < indices.cols {
        return false;
    }
    let Some(span) = row_span(indptr, data.len(), row0, y.len() / b) else {
        return false;
    };
    if span.end > indices.indices.len() {
        return false;
    }
    let indices = &indices.indices;
    #[cfg(target_arch = "x86_64")]
    // SAFETY: features checked by `supported`; the rows' pointers are in
    // `indptr` and increasing, so every `k` the kernel visits lies in the
    // span, inside `indices` and `data` (checked above), and every column
    // index is below `cols` (checked at construction, never changed since),
    // which is at most the rows of `x` (checked above).
    unsafe {
        match b {
            4 => avx::spmm::<1, 4>(indptr, indices, data, row0, x, y),
            8 => avx::spmm::<2, 4>(indptr, indices, data, row0, x, y),
            _ => avx::spmm::<4, 2>(indptr, indices, data, row0, x, y),
        }
    }
    true
}

/// The span of `data` that rows `row0..row0 + rows` cover, when `indptr`
/// describes them (present, non-decreasing, within `len` entries).
fn row_span(
    indptr: &[usize],
    len: usize,
    row0: usize,
    rows: usize,
) -> Option<std::ops::Range<usize>> {
    let ptrs = indptr.get(row0..=row0.checked_add(rows)?)?;
    if ptrs.windows(2).any(|w| w[0] > w[1]) || ptrs[rows] > len {
        return None;
    }
    Some(ptrs[0]..ptrs[rows])
}

/// Whether width `b` has a kernel and the CPU has AVX2 and FMA (checked once).
fn supported(b: usize) -> bool {
    if !matches!(b, 4 | 8 | 16) {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    {
        use std::sync::OnceLock;
        static FMA: OnceLock<bool> = OnceLock::new();
        *FMA.get_or_init(|| is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma"))
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[cfg(target_arch = "x86_64")]
mod avx {
    //! The AVX2 + FMA bodies: `Q` vectors of 4 lanes per row (`b = 4Q`),
    //! `R` rows per group (R·Q accumulators stay in registers).

    use std::arch::x86_64::*;

    /// See [`super::project_rows`]; the caller checked features and bounds.
    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn project<const Q: usize, const R: usize>(
        v: &[f64],
        ld: usize,
        p: usize,
        w: &[f64],
        c: &mut [f64],
    ) {
        let b = 4 * Q;
        let rows = w.len() / b;
        let mut r = 0;
        while r + R <= rows {
            project_group::<Q, R>(
                v.as_ptr().add(r * ld),
                ld,
                p,
                w.as_ptr().add(r * b),
                c.as_mut_ptr(),
            );
            r += R;
        }
        while r < rows {
            project_group::<Q, 1>(
                v.as_ptr().add(r * ld),
                ld,
                p,
                w.as_ptr().add(r * b),
                c.as_mut_ptr(),
            );
            r += 1;
        }
    }

    #[inline(always)]
    unsafe fn project_group<const Q: usize, const R: usize>(
        v: *const f64,
        ld: usize,
        p: usize,
        w: *const f64,
        c: *mut f64,
    ) {
        let b = 4 * Q;
        let mut wr = [[_mm256_setzero_pd(); Q]; R];
        for g in 0..R {
            for q in 0..Q {
                wr[g][q] = _mm256_loadu_pd(w.add(g * b + 4 * q));
            }
        }
        for i in 0..p {
            let ci = c.add(i * b);
            let mut acc = [_mm256_setzero_pd(); Q];
            for q in 0..Q {
                acc[q] = _mm256_loadu_pd(ci.add(4 * q));
            }
            for g in 0..R {
                let a = _mm256_broadcast_sd(&*v.add(g * ld + i));
                for q in 0..Q {
                    acc[q] = _mm256_fmadd_pd(a, wr[g][q], acc[q]);
                }
            }
            for q in 0..Q {
                _mm256_storeu_pd(ci.add(4 * q), acc[q]);
            }
        }
    }

    /// See [`super::spmm_rows_indexed`]; the caller checked features and indices.
    /// `U` independent accumulator sets take successive non-zeros of a row
    /// (with one set, every non-zero waited for the previous fused
    /// multiply-add: the product was bound by its latency), added pairwise
    /// at the end of the row, so the sum order is fixed.
    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn spmm<const Q: usize, const U: usize>(
        indptr: &[usize],
        indices: &[u32],
        data: &[f64],
        row0: usize,
        x: &[f64],
        y: &mut [f64],
    ) {
        let b = 4 * Q;
        let xp = x.as_ptr();
        for (r, yr) in y.chunks_exact_mut(b).enumerate() {
            let i = row0 + r;
            let (start, end) = (*indptr.get_unchecked(i), *indptr.get_unchecked(i + 1));
            let mut acc = [[_mm256_setzero_pd(); Q]; U];
            let mut k = start;
            while k + U <= end {
                for (u, set) in acc.iter_mut().enumerate() {
                    let c = *indices.get_unchecked(k + u) as usize;
                    let a = _mm256_broadcast_sd(data.get_unchecked(k + u));
                    let xr = xp.add(c * b);
                    for (q, s) in set.iter_mut().enumerate() {
                        *s = _mm256_fmadd_pd(a, _mm256_loadu_pd(xr.add(4 * q)), *s);
                    }
                }
                k += U;
            }
            while k < end {
                let c = *indices.get_unchecked(k) as usize;
                let a = _mm256_broadcast_sd(data.get_unchecked(k));
                let xr = xp.add(c * b);
                for (q, s) in acc[0].iter_mut().enumerate() {
                    *s = _mm256_fmadd_pd(a, _mm256_loadu_pd(xr.add(4 * q)), *s);
                }
                k += 1;
            }
            let mut half = U / 2;
            while half > 0 {
                for u in 0..half {
                    for q in 0..Q {
                        acc[u][q] = _mm256_add_pd(acc[u][q], acc[u + half][q]);
                    }
                }
                half /= 2;
            }
            for q in 0..Q {
                _mm256_storeu_pd(yr.as_mut_ptr().add(4 * q), acc[0][q]);
            }
        }
    }

    /// See [`super::subtract_rows`]; the caller checked features and bounds.
    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn subtract<const Q: usize, const R: usize>(
        v: &[f64],
        ld: usize,
        p: usize,
        w: &mut [f64],
        c: &[f64],
        mut project: Option<(&mut [f64], &mut [f64])>,
    ) {
        let b = 4 * Q;
        let rows = w.len() / b;
        let mut r = 0;
        while r < rows {
            let group = if r + R <= rows { R } else { 1 };
            let (vp, wp) = (v.as_ptr().add(r * ld), w.as_mut_ptr().add(r * b));
            if group == R {
                subtract_group::<Q, R>(vp, ld, p, wp, c.as_ptr());
            } else {
                subtract_group::<Q, 1>(vp, ld, p, wp, c.as_ptr());
            }
            if let Some((c2, norms)) = project.as_mut() {
                if group == R {
                    project_group::<Q, R>(vp, ld, p, wp, c2.as_mut_ptr());
                } else {
                    project_group::<Q, 1>(vp, ld, p, wp, c2.as_mut_ptr());
                }
                for g in 0..group {
                    for t in 0..b {
                        let x = *wp.add(g * b + t);
                        norms[t] += x * x;
                    }
                }
            }
            r += group;
        }
    }

    #[inline(always)]
    unsafe fn subtract_group<const Q: usize, const R: usize>(
        v: *const f64,
        ld: usize,
        p: usize,
        w: *mut f64,
        c: *const f64,
    ) {
        let b = 4 * Q;
        let mut acc = [[_mm256_setzero_pd(); Q]; R];
        for g in 0..R {
            for q in 0..Q {
                acc[g][q] = _mm256_loadu_pd(w.add(g * b + 4 * q));
            }
        }
        for i in 0..p {
            let ci = c.add(i * b);
            let mut cq = [_mm256_setzero_pd(); Q];
            for q in 0..Q {
                cq[q] = _mm256_loadu_pd(ci.add(4 * q));
            }
            for g in 0..R {
                let a = _mm256_broadcast_sd(&*v.add(g * ld + i));
                for q in 0..Q {
                    acc[g][q] = _mm256_fnmadd_pd(a, cq[q], acc[g][q]);
                }
            }
        }
        for g in 0..R {
            for q in 0..Q {
                _mm256_storeu_pd(w.add(g * b + 4 * q), acc[g][q]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 3 × 4 CSR matrix and a 4 × 8 dense block.
    fn case() -> (Vec<usize>, Vec<u32>, Vec<f64>, Vec<f64>) {
        let indptr = vec![0, 2, 2, 5];
        let indices = vec![0, 3, 1, 2, 3];
        let data = vec![1.0, 2.0, -1.0, 0.5, 3.0];
        let x = (0..32).map(|k| k as f64 * 0.25 - 1.0).collect();
        (indptr, indices, data, x)
    }

    fn naive(indptr: &[usize], indices: &[u32], data: &[f64], x: &[f64], b: usize) -> Vec<f64> {
        let mut y = vec![0.0; (indptr.len() - 1) * b];
        for r in 0..indptr.len() - 1 {
            for k in indptr[r]..indptr[r + 1] {
                for t in 0..b {
                    y[r * b + t] += data[k] * x[indices[k] as usize * b + t];
                }
            }
        }
        y
    }

    /// The columns of [`case`]'s matrix, checked.
    fn checked(indices: &[u32]) -> ColumnIndices {
        ColumnIndices::new(indices.to_vec(), 4).unwrap()
    }

    #[test]
    fn spmm_matches_a_plain_loop_when_it_runs() {
        let (indptr, indices, data, x) = case();
        let idx = checked(&indices);
        let mut y = vec![f64::NAN; 3 * 8];
        if spmm_rows_indexed(&indptr, &idx, &data, 0, &x, &mut y, 8) {
            assert_eq!(y, naive(&indptr, &indices, &data, &x, 8));
        }
        let mut tail = vec![f64::NAN; 8];
        if spmm_rows_indexed(&indptr, &idx, &data, 2, &x, &mut tail, 8) {
            assert_eq!(tail[..], naive(&indptr, &indices, &data, &x, 8)[16..]);
        }
    }

    #[test]
    fn spmm_with_long_rows_and_checked_indices_matches_a_plain_loop() {
        // Rows of 0, 3, 4, 9 and 11 non-zeros: whole groups of the unrolled
        // accumulators and tails. Small integers times quarters: every sum is
        // exact, whatever its order.
        let lens = [0usize, 3, 4, 9, 11];
        let mut indptr = vec![0];
        let (mut indices, mut data) = (Vec::new(), Vec::new());
        for (r, &len) in lens.iter().enumerate() {
            for t in 0..len {
                indices.push(((r * 7 + t * 5) % 13) as u32);
                data.push((t as f64) - 4.0 + r as f64);
            }
            indptr.push(indices.len());
        }
        let checked = ColumnIndices::new(indices.clone(), 13).unwrap();
        assert_eq!(ColumnIndices::new(indices.clone(), 12), Err(12));
        for b in [4usize, 8, 16] {
            let x: Vec<f64> = (0..13 * b).map(|k| (k % 9) as f64 * 0.25 - 1.0).collect();
            let want = naive(&indptr, &indices, &data, &x, b);
            let mut y = vec![f64::NAN; lens.len() * b];
            if spmm_rows_indexed(&indptr, &checked, &data, 0, &x, &mut y, b) {
                assert_eq!(y, want, "b = {b}");
            }
            // Fewer rows of X than the indices were checked against.
            let mut y = vec![0.0; lens.len() * b];
            assert!(!spmm_rows_indexed(
                &indptr,
                &checked,
                &data,
                0,
                &x[..12 * b],
                &mut y,
                b
            ));
        }
    }

    #[test]
    fn spmm_refuses_arrays_that_are_not_valid_rows() {
        let (indptr, indices, data, x) = case();
        let idx = checked(&indices);
        let mut y = vec![0.0; 3 * 8];
        // More rows asked for than `indptr` describes.
        assert!(!spmm_rows_indexed(&indptr, &idx, &data, 1, &x, &mut y, 8));
        assert!(!spmm_rows_indexed(
            &indptr,
            &idx,
            &data,
            usize::MAX,
            &x,
            &mut y,
            8
        ));
        // Pointers that go backwards: the middle row would read past the span.
        assert!(!spmm_rows_indexed(
            &[0, 100, 5, 5],
            &idx,
            &data,
            0,
            &x,
            &mut y,
            8
        ));
        // Pointers past the data or the indices.
        assert!(!spmm_rows_indexed(
            &indptr,
            &idx,
            &data[..4],
            0,
            &x,
            &mut y,
            8
        ));
        let short = checked(&indices[..4]);
        assert!(!spmm_rows_indexed(&indptr, &short, &data, 0, &x, &mut y, 8));
        // A column past the rows of `x`, and one past the columns checked.
        assert!(!spmm_rows_indexed(
            &indptr,
            &idx,
            &data,
            0,
            &x[..24],
            &mut y,
            8
        ));
        assert_eq!(ColumnIndices::new(indices.clone(), 3), Err(3));
        // A width without a kernel.
        assert!(!spmm_rows_indexed(
            &indptr,
            &idx,
            &data,
            0,
            &x,
            &mut y[..9],
            3
        ));
    }
}
