//! `f32` dot products and `axpy` for the hot loops of SGNS/CBOW and KUBWE.
//!
//! The compiler does not vectorise a float reduction by itself (it may not
//! reorder the sum), so the portable [`dot`] keeps eight independent partial
//! sums that it can map onto vector lanes, and [`Avx2`] and [`Avx512`] use
//! intrinsics with fused multiply-adds (AVX-512 with masked tails).
//! [`Lanes::dots`] and [`Lanes::combine`] are the register-blocked small
//! dense products of SGNS's window batches: one row against several, and
//! several rows summed into one in a single pass.
//!
//! A hot loop generic over [`Lanes`] is compiled once per instruction set
//! and one copy is picked at run time ([`widest`]); they give slightly different bits
//! (FMA rounds once, the sums are grouped by the register width), so a run
//! records which it used only through its result — replays on the same
//! machine match bit for bit.

/// Vector arithmetic on `f32` rows; hot loops are generic over it so that
/// they can be compiled once per instruction set.
pub trait Lanes: Copy + Send + Sync {
    /// `Σ a_i b_i` over the common length.
    fn dot(self, a: &[f32], b: &[f32]) -> f32;
    /// `y += alpha · x` over the common length.
    fn axpy(self, alpha: f32, x: &[f32], y: &mut [f32]);

    /// A negative-sampling step in one pass: `e += g·o`, then `o += g·h`
    /// (`e` sees `o` before its update), element by element. The same
    /// arithmetic as [`Lanes::axpy`] twice, so the same bits.
    #[inline(always)]
    fn step(self, g: f32, h: &[f32], o: &mut [f32], e: &mut [f32]) {
        self.axpy(g, o, e);
        self.axpy(g, h, o);
    }

    /// `out[j] = a · b_j` for `j < out.len()`, where `b_j` is row `j` of `b`
    /// (rows of `a.len()` values): several rows scored per pass over `a`.
    /// Panics when `b` holds fewer than `out.len()` rows.
    #[inline(always)]
    fn dots(self, a: &[f32], b: &[f32], out: &mut [f32]) {
        let d = a.len();
        assert!(b.len() >= out.len() * d, "dots: too few rows");
        for (j, o) in out.iter_mut().enumerate() {
            *o = self.dot(a, &b[j * d..(j + 1) * d]);
        }
    }

    /// `y += Σ_j g[j] · x_j` for `j < g.len()`, where `x_j` is row `j` of `x`
    /// (rows of `y.len()` values): one pass over `y`, which stays in
    /// registers. Panics when `x` holds fewer than `g.len()` rows.
    #[inline(always)]
    fn combine(self, g: &[f32], x: &[f32], y: &mut [f32]) {
        let d = y.len();
        assert!(x.len() >= g.len() * d, "combine: too few rows");
        for (j, &gj) in g.iter().enumerate() {
            self.axpy(gj, &x[j * d..(j + 1) * d], y);
        }
    }
}

/// A computation generic over [`Lanes`], run by [`widest`] compiled for
/// the instruction set it picks. `run` should be `#[inline(always)]`, so
/// that its body (not a call) is compiled with that instruction set.
pub trait Kernel {
    /// What the computation returns.
    type Output;
    /// Runs the computation with `lanes`.
    fn run<L: Lanes>(self, lanes: L) -> Self::Output;
}

/// The widest instruction set [`widest`] may pick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Width {
    /// AVX2 + FMA at most.
    Avx2,
    /// AVX-512F at most.
    Avx512,
}

/// Runs `kernel` compiled for the widest instruction set that the CPU has
/// and `limit` allows (AVX-512F, AVX2+FMA, or portable code).
#[inline]
pub fn widest<K: Kernel>(limit: Width, kernel: K) -> K::Output {
    #[cfg(target_arch = "x86_64")]
    {
        if limit == Width::Avx512 {
            if let Some(lanes) = Avx512::detect() {
                // SAFETY: an `Avx512` value proves the CPU has AVX-512F, AVX2 and FMA.
                return unsafe { run_avx512(lanes, kernel) };
            }
        }
        if let Some(lanes) = Avx2::detect() {
            // SAFETY: an `Avx2` value proves the CPU has AVX2 and FMA.
            return unsafe { run_avx2(lanes, kernel) };
        }
    }
    kernel.run(Portable)
}

/// `kernel.run` compiled for AVX2 and FMA.
///
/// # Safety
/// The CPU must support AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn run_avx2<K: Kernel>(lanes: Avx2, kernel: K) -> K::Output {
    kernel.run(lanes)
}

/// `kernel.run` compiled for AVX-512F (with AVX2 and FMA).
///
/// # Safety
/// The CPU must support AVX-512F, AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn run_avx512<K: Kernel>(lanes: Avx512, kernel: K) -> K::Output {
    kernel.run(lanes)
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

    #[inline(always)]
    fn step(self, g: f32, h: &[f32], o: &mut [f32], e: &mut [f32]) {
        // SAFETY: as above.
        unsafe { avx2::step(g, h, o, e) }
    }

    #[inline(always)]
    fn dots(self, a: &[f32], b: &[f32], out: &mut [f32]) {
        assert!(b.len() >= out.len() * a.len(), "dots: too few rows");
        // SAFETY: as above; `b` holds the rows (asserted).
        unsafe { avx2::dots(a, b, out) }
    }

    #[inline(always)]
    fn combine(self, g: &[f32], x: &[f32], y: &mut [f32]) {
        assert!(x.len() >= g.len() * y.len(), "combine: too few rows");
        // SAFETY: as above; `x` holds the rows (asserted).
        unsafe { avx2::combine(g, x, y) }
    }
}

/// AVX-512F intrinsics (16 lanes, masked tails); a value exists only on
/// CPUs that have AVX-512F, AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[derive(Debug, Clone, Copy)]
pub struct Avx512 {
    _checked: (),
}

#[cfg(target_arch = "x86_64")]
impl Avx512 {
    /// `Some` when the running CPU supports AVX-512F, AVX2 and FMA.
    pub fn detect() -> Option<Avx512> {
        (std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma"))
        .then_some(Avx512 { _checked: () })
    }
}

#[cfg(target_arch = "x86_64")]
impl Lanes for Avx512 {
    #[inline(always)]
    fn dot(self, a: &[f32], b: &[f32]) -> f32 {
        // SAFETY: an `Avx512` value proves the CPU has AVX-512F and FMA.
        unsafe { avx512::dot(a, b) }
    }

    #[inline(always)]
    fn axpy(self, alpha: f32, x: &[f32], y: &mut [f32]) {
        // SAFETY: as above.
        unsafe { avx512::axpy(alpha, x, y) }
    }

    #[inline(always)]
    fn dots(self, a: &[f32], b: &[f32], out: &mut [f32]) {
        assert!(b.len() >= out.len() * a.len(), "dots: too few rows");
        // SAFETY: as above; `b` holds the rows (asserted).
        unsafe { avx512::dots(a, b, out) }
    }

    #[inline(always)]
    fn combine(self, g: &[f32], x: &[f32], y: &mut [f32]) {
        assert!(x.len() >= g.len() * y.len(), "combine: too few rows");
        // SAFETY: as above; `x` holds the rows (asserted).
        unsafe { avx512::combine(g, x, y) }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    /// The lanes `0..left` of a 16-lane register (all of them when `left >= 16`).
    #[inline(always)]
    fn mask(left: usize) -> __mmask16 {
        if left >= 16 {
            0xffff
        } else {
            ((1u32 << left) - 1) as __mmask16
        }
    }

    /// Dot product, 32 lanes per iteration in two accumulators, the tail
    /// by a masked load (masked-off lanes are neither read nor faulted on).
    ///
    /// # Safety
    /// The CPU must support AVX-512F and FMA.
    #[target_feature(enable = "avx512f,avx2,fma")]
    #[inline]
    pub unsafe fn dot(a: &[f32], b: &[f32]) -> f32 {
        let n = a.len().min(b.len());
        let (pa, pb) = (a.as_ptr(), b.as_ptr());
        let mut i = 0;
        // SAFETY (all loads): `i + 16 <= n`, or masked to the lanes below `n`.
        unsafe {
            let (mut s0, mut s1) = (_mm512_setzero_ps(), _mm512_setzero_ps());
            while i + 32 <= n {
                s0 = _mm512_fmadd_ps(_mm512_loadu_ps(pa.add(i)), _mm512_loadu_ps(pb.add(i)), s0);
                s1 = _mm512_fmadd_ps(
                    _mm512_loadu_ps(pa.add(i + 16)),
                    _mm512_loadu_ps(pb.add(i + 16)),
                    s1,
                );
                i += 32;
            }
            while i < n {
                let k = mask(n - i);
                s0 = _mm512_fmadd_ps(
                    _mm512_maskz_loadu_ps(k, pa.add(i)),
                    _mm512_maskz_loadu_ps(k, pb.add(i)),
                    s0,
                );
                i += 16;
            }
            _mm512_reduce_add_ps(_mm512_add_ps(s0, s1))
        }
    }

    /// `y += alpha · x`, 16 lanes per iteration, the tail masked.
    ///
    /// # Safety
    /// The CPU must support AVX-512F and FMA.
    #[target_feature(enable = "avx512f,avx2,fma")]
    #[inline]
    pub unsafe fn axpy(alpha: f32, x: &[f32], y: &mut [f32]) {
        let n = x.len().min(y.len());
        let (px, py) = (x.as_ptr(), y.as_mut_ptr());
        let mut i = 0;
        // SAFETY (all loads and stores): masked to the lanes below `n`.
        unsafe {
            let a16 = _mm512_set1_ps(alpha);
            while i < n {
                let k = mask(n - i);
                let v = _mm512_fmadd_ps(
                    a16,
                    _mm512_maskz_loadu_ps(k, px.add(i)),
                    _mm512_maskz_loadu_ps(k, py.add(i)),
                );
                _mm512_mask_storeu_ps(py.add(i), k, v);
                i += 16;
            }
        }
    }

    /// [`super::Lanes::dots`]: four rows of `b` per pass over `a`.
    ///
    /// # Safety
    /// The CPU must support AVX-512F and FMA, and `b.len() >= out.len() * a.len()`.
    #[target_feature(enable = "avx512f,avx2,fma")]
    #[inline]
    pub unsafe fn dots(a: &[f32], b: &[f32], out: &mut [f32]) {
        let (d, n) = (a.len(), out.len());
        let (pa, pb) = (a.as_ptr(), b.as_ptr());
        let mut j = 0;
        // SAFETY (all loads): row `r < n` of `b` spans `r·d..(r+1)·d`, inside
        // `b` by the caller's contract; every load is masked to `i < d`.
        unsafe {
            while j + 4 <= n {
                let rows = [
                    pb.add(j * d),
                    pb.add((j + 1) * d),
                    pb.add((j + 2) * d),
                    pb.add((j + 3) * d),
                ];
                let mut s = [_mm512_setzero_ps(); 4];
                let mut i = 0;
                while i < d {
                    let k = mask(d - i);
                    let va = _mm512_maskz_loadu_ps(k, pa.add(i));
                    for (sk, row) in s.iter_mut().zip(rows) {
                        *sk = _mm512_fmadd_ps(va, _mm512_maskz_loadu_ps(k, row.add(i)), *sk);
                    }
                    i += 16;
                }
                for (o, sk) in out[j..j + 4].iter_mut().zip(s) {
                    *o = _mm512_reduce_add_ps(sk);
                }
                j += 4;
            }
            while j < n {
                out[j] = dot(a, std::slice::from_raw_parts(pb.add(j * d), d));
                j += 1;
            }
        }
    }

    /// [`super::Lanes::combine`]: 64 values of `y` held in four registers
    /// while every row of `x` is added into them, then 16 at a time.
    ///
    /// # Safety
    /// The CPU must support AVX-512F and FMA, and `x.len() >= g.len() * y.len()`.
    #[target_feature(enable = "avx512f,avx2,fma")]
    #[inline]
    pub unsafe fn combine(g: &[f32], x: &[f32], y: &mut [f32]) {
        let d = y.len();
        let (px, py) = (x.as_ptr(), y.as_mut_ptr());
        let mut i = 0;
        // SAFETY (all loads and stores): `i + 64 <= d`, or masked to the
        // lanes below `d`, in `y` and in every row `j < g.len()` of `x`,
        // which lies inside `x` by the caller's contract.
        unsafe {
            while i + 64 <= d {
                let mut acc = [
                    _mm512_loadu_ps(py.add(i)),
                    _mm512_loadu_ps(py.add(i + 16)),
                    _mm512_loadu_ps(py.add(i + 32)),
                    _mm512_loadu_ps(py.add(i + 48)),
                ];
                for (j, &gj) in g.iter().enumerate() {
                    let (gv, row) = (_mm512_set1_ps(gj), px.add(j * d + i));
                    for (k, a) in acc.iter_mut().enumerate() {
                        *a = _mm512_fmadd_ps(gv, _mm512_loadu_ps(row.add(16 * k)), *a);
                    }
                }
                for (k, a) in acc.iter().enumerate() {
                    _mm512_storeu_ps(py.add(i + 16 * k), *a);
                }
                i += 64;
            }
            while i < d {
                let k = mask(d - i);
                let mut acc = _mm512_maskz_loadu_ps(k, py.add(i));
                for (j, &gj) in g.iter().enumerate() {
                    let row = _mm512_maskz_loadu_ps(k, px.add(j * d + i));
                    acc = _mm512_fmadd_ps(_mm512_set1_ps(gj), row, acc);
                }
                _mm512_mask_storeu_ps(py.add(i), k, acc);
                i += 16;
            }
        }
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

    /// The sum of a register's eight lanes.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    unsafe fn hsum(s: __m256) -> f32 {
        let mut q = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps::<1>(s));
        q = _mm_add_ps(q, _mm_movehl_ps(q, q));
        q = _mm_add_ss(q, _mm_shuffle_ps::<1>(q, q));
        _mm_cvtss_f32(q)
    }

    /// [`super::Lanes::dots`]: four rows of `b` per pass over `a`, one
    /// accumulator each.
    ///
    /// # Safety
    /// The CPU must support AVX2 and FMA, and `b.len() >= out.len() * a.len()`.
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    pub unsafe fn dots(a: &[f32], b: &[f32], out: &mut [f32]) {
        let (d, n) = (a.len(), out.len());
        let (pa, pb) = (a.as_ptr(), b.as_ptr());
        let mut j = 0;
        // SAFETY (all loads): row `r < n` of `b` spans `r·d..(r+1)·d`, inside
        // `b` by the caller's contract; `i + 8 <= d` or `i < d` in each row and in `a`.
        unsafe {
            while j + 4 <= n {
                let rows = [
                    pb.add(j * d),
                    pb.add((j + 1) * d),
                    pb.add((j + 2) * d),
                    pb.add((j + 3) * d),
                ];
                let mut s = [_mm256_setzero_ps(); 4];
                let mut i = 0;
                while i + 8 <= d {
                    let va = _mm256_loadu_ps(pa.add(i));
                    for k in 0..4 {
                        s[k] = _mm256_fmadd_ps(va, _mm256_loadu_ps(rows[k].add(i)), s[k]);
                    }
                    i += 8;
                }
                for k in 0..4 {
                    let mut total = hsum(s[k]);
                    for t in i..d {
                        total += *pa.add(t) * *rows[k].add(t);
                    }
                    out[j + k] = total;
                }
                j += 4;
            }
            while j < n {
                out[j] = dot(a, std::slice::from_raw_parts(pb.add(j * d), d));
                j += 1;
            }
        }
    }

    /// [`super::Lanes::combine`]: 32 values of `y` held in four registers
    /// while every row of `x` is added into them.
    ///
    /// # Safety
    /// The CPU must support AVX2 and FMA, and `x.len() >= g.len() * y.len()`.
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    pub unsafe fn combine(g: &[f32], x: &[f32], y: &mut [f32]) {
        let (d, n) = (y.len(), g.len());
        let (px, py) = (x.as_ptr(), y.as_mut_ptr());
        let mut i = 0;
        // SAFETY (all loads and stores): `i + width <= d` in `y` and in every
        // row `j < n` of `x`, which lies inside `x` by the caller's contract.
        unsafe {
            while i + 32 <= d {
                let mut acc = [
                    _mm256_loadu_ps(py.add(i)),
                    _mm256_loadu_ps(py.add(i + 8)),
                    _mm256_loadu_ps(py.add(i + 16)),
                    _mm256_loadu_ps(py.add(i + 24)),
                ];
                for (j, &gj) in g.iter().enumerate() {
                    let (gv, row) = (_mm256_set1_ps(gj), px.add(j * d + i));
                    for (k, a) in acc.iter_mut().enumerate() {
                        *a = _mm256_fmadd_ps(gv, _mm256_loadu_ps(row.add(8 * k)), *a);
                    }
                }
                for (k, a) in acc.iter().enumerate() {
                    _mm256_storeu_ps(py.add(i + 8 * k), *a);
                }
                i += 32;
            }
            while i + 8 <= d {
                let mut acc = _mm256_loadu_ps(py.add(i));
                for (j, &gj) in g.iter().enumerate() {
                    acc = _mm256_fmadd_ps(
                        _mm256_set1_ps(gj),
                        _mm256_loadu_ps(px.add(j * d + i)),
                        acc,
                    );
                }
                _mm256_storeu_ps(py.add(i), acc);
                i += 8;
            }
            while i < d {
                let mut acc = *py.add(i);
                for (j, &gj) in g.iter().enumerate().take(n) {
                    acc = gj.mul_add(*px.add(j * d + i), acc);
                }
                *py.add(i) = acc;
                i += 1;
            }
        }
    }

    /// [`super::Lanes::step`]: `e += g·o` and `o += g·h`, 8 lanes per
    /// iteration, each row loaded once; each element is the fused
    /// multiply-add of [`axpy`], so the bits are those of two `axpy` calls.
    ///
    /// # Safety
    /// The CPU must support AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    pub unsafe fn step(g: f32, h: &[f32], o: &mut [f32], e: &mut [f32]) {
        let n = h.len().min(o.len()).min(e.len());
        let (ph, po, pe) = (h.as_ptr(), o.as_mut_ptr(), e.as_mut_ptr());
        let mut i = 0;
        // SAFETY (all loads and stores): `i + width <= n`, inside all three slices.
        unsafe {
            let g8 = _mm256_set1_ps(g);
            while i + 8 <= n {
                let old = _mm256_loadu_ps(po.add(i));
                let ev = _mm256_fmadd_ps(g8, old, _mm256_loadu_ps(pe.add(i)));
                _mm256_storeu_ps(pe.add(i), ev);
                let ov = _mm256_fmadd_ps(g8, _mm256_loadu_ps(ph.add(i)), old);
                _mm256_storeu_ps(po.add(i), ov);
                i += 8;
            }
            if i + 4 <= n {
                let g4 = _mm_set1_ps(g);
                let old = _mm_loadu_ps(po.add(i));
                _mm_storeu_ps(pe.add(i), _mm_fmadd_ps(g4, old, _mm_loadu_ps(pe.add(i))));
                _mm_storeu_ps(po.add(i), _mm_fmadd_ps(g4, _mm_loadu_ps(ph.add(i)), old));
                i += 4;
            }
            while i < n {
                let old = *po.add(i);
                *pe.add(i) = g.mul_add(old, *pe.add(i));
                *po.add(i) = g.mul_add(*ph.add(i), old);
                i += 1;
            }
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

    /// `dots` and `combine` against naive `f64` loops, for row counts
    /// around the 4-row block and lengths around the 8- and 32-lane tiles.
    fn check_blocks(lanes: impl Lanes) {
        for d in [0usize, 1, 5, 8, 13, 32, 40, 100, 301] {
            for n in [0usize, 1, 3, 4, 5, 9] {
                let a: Vec<f32> = (0..d).map(|i| (i as f32 * 0.37).sin()).collect();
                let b: Vec<f32> = (0..n * d).map(|i| (i as f32 * 0.11).cos()).collect();
                let mut out = vec![f32::NAN; n];
                lanes.dots(&a, &b, &mut out);
                for j in 0..n {
                    let want = dot64(&a, &b[j * d..(j + 1) * d]);
                    assert!(
                        (out[j] as f64 - want).abs() < 1e-4,
                        "d = {d}, n = {n}, j = {j}"
                    );
                }
                let g: Vec<f32> = (0..n).map(|j| 0.5 - 0.3 * j as f32).collect();
                let mut y = a.clone();
                lanes.combine(&g, &b, &mut y);
                for i in 0..d {
                    let want = a[i] as f64
                        + (0..n)
                            .map(|j| g[j] as f64 * b[j * d + i] as f64)
                            .sum::<f64>();
                    assert!(
                        (y[i] as f64 - want).abs() < 1e-5,
                        "d = {d}, n = {n}, i = {i}"
                    );
                }
            }
        }
    }

    /// `step` is two `axpy` calls bit for bit, for lengths around the tiles.
    fn check_step(lanes: impl Lanes) {
        for n in [0usize, 1, 3, 4, 7, 8, 13, 100, 301] {
            let h: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).sin()).collect();
            let o: Vec<f32> = (0..n).map(|i| (i as f32 * 0.11).cos()).collect();
            let e: Vec<f32> = (0..n).map(|i| (i as f32 * 0.23).sin() * 0.1).collect();
            let (mut o1, mut e1) = (o.clone(), e.clone());
            lanes.step(0.037, &h, &mut o1, &mut e1);
            let (mut o2, mut e2) = (o.clone(), e.clone());
            lanes.axpy(0.037, &o, &mut e2);
            lanes.axpy(0.037, &h, &mut o2);
            assert_eq!((o1, e1), (o2, e2), "n = {n}");
        }
    }

    #[test]
    fn a_step_is_two_axpys_bit_for_bit() {
        check_step(Portable);
        #[cfg(target_arch = "x86_64")]
        if let Some(avx) = Avx2::detect() {
            check_step(avx);
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(avx) = Avx512::detect() {
            check_step(avx);
        }
    }

    #[test]
    fn dot_and_axpy_match_naive_loops() {
        check_lanes(Portable);
        #[cfg(target_arch = "x86_64")]
        if let Some(avx) = Avx2::detect() {
            check_lanes(avx);
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(avx) = Avx512::detect() {
            check_lanes(avx);
        }
    }

    #[test]
    fn blocked_dots_and_combinations_match_naive_loops() {
        check_blocks(Portable);
        #[cfg(target_arch = "x86_64")]
        if let Some(avx) = Avx2::detect() {
            check_blocks(avx);
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(avx) = Avx512::detect() {
            check_blocks(avx);
        }
    }

    #[test]
    #[should_panic(expected = "too few rows")]
    fn a_short_row_table_is_refused() {
        let mut y = [0.0f32; 4];
        Portable.combine(&[1.0, 2.0], &[0.0; 6], &mut y);
    }
}
