//! The local join of one point in NN-descent ([`crate::geometry::knn::descent`]): every
//! pair of its candidates (new × new with `a < b`, new × old) whose squared
//! distance beats either end's current worst becomes an update.
//!
//! This was most of the search's CPU at 200,000 points (k = 90, 180 + 180
//! candidates): a general GEMM of all new rows against all candidates (both
//! triangles of new × new, though only one is used), its packing copies,
//! and a scalar loop that tested each of the ~50,000 pairs of a point. On
//! AVX-512 the candidates are gathered once, transposed (`d × columns`), and
//! an 8 × 32 register-blocked kernel multiplies each tile of new rows by
//! the columns right of the diagonal only; its epilogue turns the 256 dot
//! products into distances, compares them with both ends' limits 16 at a
//! time, and emits only the pairs that pass. Elsewhere the GEMM and the
//! scalar test remain. Each path emits a point's pairs in an order fixed by
//! its candidates, so the result never depends on the thread count; the
//! two paths round the dot products differently, like
//! [`crate::fast::lanes`]. The kernel's dot product of a pair is the same
//! bits whichever end is the row (a sum over `t` in order), so a pair met
//! in two joins gets one distance.

use ndarray::linalg::general_mat_mul;
use ndarray::{s, Array2};

#[cfg(target_arch = "x86_64")]
use crate::fast::lanes::Avx512;

/// One update: points `p`, `q` and their squared distance.
pub type Update = (u32, u32, f32);

/// New rows per tile of the AVX-512 kernel.
const ROWS: usize = 8;
/// Columns per tile of the AVX-512 kernel (two 16-lane registers).
const COLS: usize = 32;

/// The rows of the points and their squared norms, as the join reads them.
pub struct Rows<'a> {
    /// `n × d`, row-major.
    pub data: &'a [f32],
    pub d: usize,
    /// `‖x_i‖²`.
    pub sq: &'a [f32],
}

impl Rows<'_> {
    fn row(&self, i: u32) -> &[f32] {
        let i = i as usize;
        &self.data[i * self.d..(i + 1) * self.d]
    }
}

/// Scratch of one task, reused point after point (the hot loop does not
/// allocate once the buffers have grown to the largest candidate set).
pub struct Joiner {
    #[cfg(target_arch = "x86_64")]
    avx512: Option<Avx512>,
    /// Candidate rows: transposed (`d × cols`) for the kernel, row-major
    /// (`all × d`) for the GEMM.
    rows: Vec<f32>,
    /// Per column: squared norm and current worst distance.
    sq: Vec<f32>,
    worst: Vec<f32>,
    /// The GEMM's products (fallback only).
    dots: Array2<f32>,
}

impl Joiner {
    /// Scratch for the join; the AVX-512 kernel when the CPU has it and
    /// `fast` is set.
    pub fn new(fast: bool) -> Self {
        Joiner {
            #[cfg(target_arch = "x86_64")]
            avx512: Avx512::detect().filter(|_| fast),
            rows: Vec::new(),
            sq: Vec::new(),
            worst: Vec::new(),
            dots: Array2::zeros((0, 0)),
        }
    }

    /// Appends to `out` every pair `(all[a], all[b])`, `a < nn`, `a < b`,
    /// `all[a] != all[b]`, whose squared distance `d2` satisfies
    /// `d2 <= worst(all[a]) || d2 <= worst(all[b])`, in an order fixed by
    /// `all` and `nn` (the GEMM path row by row, the kernel tile by tile).
    pub fn join(
        &mut self,
        x: &Rows<'_>,
        worst: impl Fn(u32) -> f32,
        all: &[u32],
        nn: usize,
        out: &mut Vec<Update>,
    ) {
        if nn == 0 {
            return;
        }
        #[cfg(target_arch = "x86_64")]
        if self.avx512.is_some() {
            self.gather_columns(x, &worst, all);
            // SAFETY: `avx512` is `Some` only on CPUs with AVX-512F, AVX2
            // and FMA; `gather_columns` sized the buffers for `all`.
            unsafe { self.tiles_avx512(x, &worst, all, nn, out) };
            return;
        }
        self.gemm(x, &worst, all, nn, out);
    }

    /// Fills the transposed candidate rows (`d × cols`, `cols` = `all.len()`
    /// rounded up to [`COLS`], zeros after the last) and the per-column
    /// norms and limits.
    #[cfg(target_arch = "x86_64")]
    fn gather_columns(&mut self, x: &Rows<'_>, worst: &impl Fn(u32) -> f32, all: &[u32]) {
        let cols = all.len().next_multiple_of(COLS);
        self.rows.clear();
        self.rows.resize(x.d * cols, 0.0);
        // SAFETY: `avx512` is `Some` (the caller's check).
        unsafe { self.transpose_avx512(x, all, cols) };
        self.sq.clear();
        self.sq.extend(all.iter().map(|&q| x.sq[q as usize]));
        self.sq.resize(cols, 0.0);
        self.worst.clear();
        self.worst.extend(all.iter().map(|&q| worst(q)));
        self.worst.resize(cols, f32::NEG_INFINITY);
    }

    /// `rows[t][b] = x[all[b]][t]`: 16 candidate rows at a time, 16 values
    /// of each loaded and transposed in registers (a gather per `t` cost as
    /// much as the products), lanes past a row's end or past `all.len()`
    /// left at zero.
    ///
    /// # Safety
    /// The CPU must support AVX-512F.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx2,fma")]
    unsafe fn transpose_avx512(&mut self, x: &Rows<'_>, all: &[u32], cols: usize) {
        use std::arch::x86_64::*;
        let d = x.d;
        assert!(self.rows.len() >= d * cols && cols >= all.len() && cols.is_multiple_of(16));
        let out = self.rows.as_mut_ptr();
        for (g, ids) in all.chunks(16).enumerate() {
            let src: [&[f32]; 16] =
                std::array::from_fn(|i| ids.get(i).map_or(&[][..], |&q| x.row(q)));
            for t0 in (0..d).step_by(16) {
                let live = mask(d - t0) as __mmask16;
                // SAFETY: each load is masked to `t0 + lane < d`, inside a
                // row of `d` values (an empty slice loads nothing: its mask
                // is empty); each store writes `rows[t·cols + 16g ..][..16]`
                // with `t < d` and `16g + 16 <= cols`, inside `rows` (asserted).
                unsafe {
                    let r: [__m512; 16] = std::array::from_fn(|i| {
                        let m = if src[i].is_empty() { 0 } else { live };
                        _mm512_maskz_loadu_ps(m, src[i].as_ptr().wrapping_add(t0))
                    });
                    let c = transpose16(r);
                    for (j, col) in c.iter().enumerate().take(d - t0) {
                        _mm512_storeu_ps(out.add((t0 + j) * cols + 16 * g), *col);
                    }
                }
            }
        }
    }

    /// The kernel: for each tile of [`ROWS`] new rows, each block of
    /// [`COLS`] columns from the tile's diagonal on, `Σ_t x[a][t] ·
    /// rows[t][b]` accumulated over `t` in 16 registers (each row value
    /// broadcast, two column loads per `t`), then the epilogue.
    ///
    /// # Safety
    /// The CPU must support AVX-512F, AVX2 and FMA; `self.rows`, `self.sq`
    /// and `self.worst` must hold `all`'s columns ([`Self::gather_columns`]).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx2,fma")]
    unsafe fn tiles_avx512(
        &self,
        x: &Rows<'_>,
        worst: &impl Fn(u32) -> f32,
        all: &[u32],
        nn: usize,
        out: &mut Vec<Update>,
    ) {
        use std::arch::x86_64::*;
        let (d, na) = (x.d, all.len());
        let cols = na.next_multiple_of(COLS);
        assert!(self.rows.len() >= d * cols && self.sq.len() >= cols && self.worst.len() >= cols);
        let bt = self.rows.as_ptr();
        for a0 in (0..nn).step_by(ROWS) {
            let live = (nn - a0).min(ROWS);
            // Rows past `nn` repeat the last live one; their sums are unused.
            let ptr: [*const f32; ROWS] =
                std::array::from_fn(|r| x.row(all[a0 + r.min(live - 1)]).as_ptr());
            for c0 in ((a0 + 1) / COLS * COLS..na).step_by(COLS) {
                let mut acc = [[_mm512_setzero_ps(); 2]; ROWS];
                // SAFETY: `t < d`, so `ptr[r] + t` lies in a row of `x`, and
                // `t·cols + c0 + 31 < d·cols` lies in `self.rows` (asserted).
                unsafe {
                    let col = bt.add(c0);
                    for t in 0..d {
                        let b0 = _mm512_loadu_ps(col.add(t * cols));
                        let b1 = _mm512_loadu_ps(col.add(t * cols + 16));
                        for (acc, p) in acc.iter_mut().zip(ptr) {
                            let v = _mm512_set1_ps(*p.add(t));
                            acc[0] = _mm512_fmadd_ps(v, b0, acc[0]);
                            acc[1] = _mm512_fmadd_ps(v, b1, acc[1]);
                        }
                    }
                }
                for (r, acc) in acc.iter().enumerate().take(live) {
                    for (h, &dots) in acc.iter().enumerate() {
                        // SAFETY: `c0 + 16h + 15 < cols`.
                        unsafe { self.emit(x, worst, all, a0 + r, c0 + 16 * h, dots, out) };
                    }
                }
            }
        }
    }

    /// The epilogue of 16 columns `c..c + 16` of row `a`: `d2 = max(0, ‖p‖²
    /// + ‖q‖² − 2 p·q)`, kept when `b > a`, `b < all.len()`, `q != p` and
    /// `d2` is within either limit; the kept pairs appended by column.
    ///
    /// # Safety
    /// As [`Self::tiles_avx512`], and `c + 16 <= ` the padded column count.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx2,fma")]
    #[allow(clippy::too_many_arguments)]
    #[inline]
    unsafe fn emit(
        &self,
        x: &Rows<'_>,
        worst: &impl Fn(u32) -> f32,
        all: &[u32],
        a: usize,
        c: usize,
        dots: std::arch::x86_64::__m512,
        out: &mut Vec<Update>,
    ) {
        use std::arch::x86_64::*;
        let (lo, hi) = ((a + 1).saturating_sub(c), all.len().saturating_sub(c));
        if lo >= 16 || hi == 0 {
            return;
        }
        let lanes = (mask(hi) & !mask(lo)) as __mmask16;
        let p = all[a];
        // SAFETY: lanes `c..c + 16` lie inside `self.sq` and `self.worst`.
        let (d2, pass) = unsafe {
            let sq = _mm512_loadu_ps(self.sq.as_ptr().add(c));
            let limits = _mm512_loadu_ps(self.worst.as_ptr().add(c));
            let sum = _mm512_add_ps(_mm512_set1_ps(x.sq[p as usize]), sq);
            let d2 = _mm512_max_ps(
                _mm512_sub_ps(sum, _mm512_mul_ps(_mm512_set1_ps(2.0), dots)),
                _mm512_setzero_ps(),
            );
            let own = _mm512_cmp_ps_mask::<_CMP_LE_OQ>(d2, _mm512_set1_ps(worst(p)));
            let theirs = _mm512_cmp_ps_mask::<_CMP_LE_OQ>(d2, limits);
            (d2, (own | theirs) & lanes)
        };
        if pass == 0 {
            return;
        }
        let mut v = [0.0f32; 16];
        // SAFETY: `v` holds 16 floats.
        unsafe { _mm512_storeu_ps(v.as_mut_ptr(), d2) };
        let mut bits = pass;
        while bits != 0 {
            let l = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let q = all[c + l];
            if q != p {
                out.push((p, q, v[l]));
            }
        }
    }

    /// Without AVX-512: the candidate rows gathered, one GEMM of the new
    /// rows against all of them, and a scalar test of each pair.
    fn gemm(
        &mut self,
        x: &Rows<'_>,
        worst: &impl Fn(u32) -> f32,
        all: &[u32],
        nn: usize,
        out: &mut Vec<Update>,
    ) {
        let (na, d) = (all.len(), x.d);
        self.rows.clear();
        for &q in all {
            self.rows.extend_from_slice(x.row(q));
        }
        if self.dots.nrows() < nn || self.dots.ncols() < na {
            self.dots = Array2::zeros((nn.max(self.dots.nrows()), na.max(self.dots.ncols())));
        }
        let g = ndarray::ArrayView2::from_shape((na, d), &self.rows).expect("na × d rows");
        let mut dots = self.dots.slice_mut(s![..nn, ..na]);
        general_mat_mul(1.0, &g.slice(s![..nn, ..]), &g.t(), 0.0, &mut dots);
        for (a, &p) in all[..nn].iter().enumerate() {
            let limit = worst(p);
            let base = x.sq[p as usize];
            for (b, &q) in all.iter().enumerate().skip(a + 1) {
                if q == p {
                    continue;
                }
                let d2 = (base + x.sq[q as usize] - 2.0 * dots[[a, b]]).max(0.0);
                if d2 <= limit || d2 <= worst(q) {
                    out.push((p, q, d2));
                }
            }
        }
    }
}

/// The 16 × 16 transpose of `r` (row `i`, lane `j` → row `j`, lane `i`):
/// pairs of rows interleaved by 32 then 64 bits within each 128-bit lane,
/// then the 128-bit lanes exchanged twice.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn transpose16(r: [std::arch::x86_64::__m512; 16]) -> [std::arch::x86_64::__m512; 16] {
    use std::arch::x86_64::*;
    // Lane L of t[2i] = [r2i[4L], r2i+1[4L], r2i[4L+1], r2i+1[4L+1]], t[2i+1] the +2, +3.
    let t: [__m512; 16] = std::array::from_fn(|i| {
        let (a, b) = (r[i & !1], r[i | 1]);
        if i % 2 == 0 {
            _mm512_unpacklo_ps(a, b)
        } else {
            _mm512_unpackhi_ps(a, b)
        }
    });
    // u[4q + c], lane L: column 4L + c of rows 4q..4q + 4.
    let u: [__m512; 16] = std::array::from_fn(|i| {
        let (q, c) = (i / 4, i % 4);
        let (a, b) = (
            _mm512_castps_pd(t[4 * q + c / 2]),
            _mm512_castps_pd(t[4 * q + 2 + c / 2]),
        );
        _mm512_castpd_ps(if c % 2 == 0 {
            _mm512_unpacklo_pd(a, b)
        } else {
            _mm512_unpackhi_pd(a, b)
        })
    });
    // v[c] = cols c, 8+c of rows 0..8; v[4+c] = cols 4+c, 12+c; v[8+..] rows 8..16.
    let v: [__m512; 16] = std::array::from_fn(|i| {
        let (half, hi, c) = (i / 8, (i / 4) % 2, i % 4);
        let (a, b) = (u[8 * half + c], u[8 * half + 4 + c]);
        if hi == 0 {
            _mm512_shuffle_f32x4::<0x88>(a, b)
        } else {
            _mm512_shuffle_f32x4::<0xdd>(a, b)
        }
    });
    std::array::from_fn(|j| {
        // Column j: c = j % 4, from v[c] (j < 4 or 8 ≤ j < 12) or v[4 + c].
        let (c, four, eight) = (j % 4, (j / 4) % 2, j / 8);
        let (a, b) = (v[4 * four + c], v[8 + 4 * four + c]);
        if eight == 0 {
            _mm512_shuffle_f32x4::<0x88>(a, b)
        } else {
            _mm512_shuffle_f32x4::<0xdd>(a, b)
        }
    })
}

/// The low `n` bits set (all 16 from 16 on).
#[cfg(target_arch = "x86_64")]
fn mask(n: usize) -> u32 {
    if n >= 16 {
        0xffff
    } else {
        (1u32 << n) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::random::gaussian;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// Every pair the join should emit, from `f64` distances.
    fn reference(
        x: &Rows<'_>,
        worst: &impl Fn(u32) -> f32,
        all: &[u32],
        nn: usize,
    ) -> Vec<(u32, u32, f64)> {
        let mut want = Vec::new();
        for a in 0..nn {
            for b in a + 1..all.len() {
                let (p, q) = (all[a], all[b]);
                let d2: f64 = x
                    .row(p)
                    .iter()
                    .zip(x.row(q))
                    .map(|(&u, &v)| (f64::from(u) - f64::from(v)).powi(2))
                    .sum();
                if p != q && (d2 <= f64::from(worst(p)) || d2 <= f64::from(worst(q))) {
                    want.push((p, q, d2));
                }
            }
        }
        want
    }

    /// Both paths emit the reference's pairs (each in its own fixed order), with distances
    /// within `f32` rounding, for candidate counts around the tile sizes,
    /// with repeated ids and a column past the last tile.
    #[test]
    fn both_paths_emit_the_pairs_within_the_limits_in_order() {
        let (n, d) = (300, 37);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        let data: Vec<f32> = (0..n * d).map(|_| gaussian(&mut rng) as f32).collect();
        let sq: Vec<f32> = data
            .chunks(d)
            .map(|r| r.iter().map(|&v| f64::from(v).powi(2)).sum::<f64>() as f32)
            .collect();
        let x = Rows {
            data: &data,
            d,
            sq: &sq,
        };
        // Limits around the typical squared distance (2d), so about half the
        // pairs pass; pairs within 1e-3 of a limit are not asked about.
        let limit: Vec<f32> = (0..n)
            .map(|i| (2 * d) as f32 * (0.8 + 0.4 * ((i * 37) % 100) as f32 / 100.0))
            .collect();
        let worst = |i: u32| limit[i as usize];
        for (na, nn) in [(1, 1), (9, 3), (33, 33), (70, 17), (200, 100), (61, 8)] {
            let mut all: Vec<u32> = (0..na).map(|i| ((i * 131 + nn * 7) % n) as u32).collect();
            all[na - 1] = all[0];
            let want = reference(&x, &worst, &all, nn);
            for fast in [false, true] {
                let mut got = Vec::new();
                let mut j = Joiner::new(fast);
                j.join(&x, worst, &all, nn, &mut got);
                let near = |p: u32, q: u32, d2: f64| {
                    let l = f64::from(worst(p)).min(f64::from(worst(q)));
                    let h = f64::from(worst(p)).max(f64::from(worst(q)));
                    (d2 - l).abs() < 1e-3 * l || (d2 - h).abs() < 1e-3 * h
                };
                let clear = |v: &[(u32, u32, f64)]| -> Vec<(u32, u32)> {
                    let mut v: Vec<_> = v
                        .iter()
                        .filter(|&&(p, q, d2)| !near(p, q, d2))
                        .map(|&(p, q, _)| (p, q))
                        .collect();
                    v.sort_unstable();
                    v
                };
                let got64: Vec<_> = got
                    .iter()
                    .map(|&(p, q, d2)| (p, q, f64::from(d2)))
                    .collect();
                assert_eq!(clear(&got64), clear(&want), "na {na}, nn {nn}, fast {fast}");
                for &(p, q, d2) in &got {
                    let (a, b) = (
                        all.iter().position(|&i| i == p).unwrap(),
                        all.iter().rposition(|&i| i == q).unwrap(),
                    );
                    let w = want.iter().find(|w| (w.0, w.1) == (p, q));
                    if let Some(w) = w {
                        assert!((f64::from(d2) - w.2).abs() < 1e-4 * (1.0 + w.2), "{a} {b}");
                    }
                }
            }
        }
    }
}
