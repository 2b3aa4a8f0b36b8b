//! Lock-free shared parameter rows for Hogwild training.
//!
//! GloVe's reference trainer lets every thread update the shared parameters
//! without locks ("lock-free asynchronous SGD", Recht et al.'s Hogwild): two
//! threads rarely touch the same row at the same time, and when they do an
//! update may be lost or mixed, which SGD tolerates. Rust forbids aliased
//! `&mut`, so the sharing lives here, in one small wrapper, and nowhere else.
//! With one thread there is no sharing at all and runs are deterministic.

use std::marker::PhantomData;

/// A row-major `f32` table that several threads may update at once.
pub struct HogwildRows<'a> {
    ptr: *mut f32,
    rows: usize,
    width: usize,
    _borrow: PhantomData<&'a mut [f32]>,
}

// SAFETY: the wrapper only hands out rows through the `unsafe` `row`, whose
// contract is the Hogwild one documented there; the underlying slice is
// mutably borrowed for `'a`, so nothing else reads or writes it meanwhile.
unsafe impl Send for HogwildRows<'_> {}
// SAFETY: as above.
unsafe impl Sync for HogwildRows<'_> {}

impl<'a> HogwildRows<'a> {
    /// Wraps `data` as rows of `width` values (`data.len()` must be a multiple of `width`).
    pub fn new(data: &'a mut [f32], width: usize) -> Self {
        assert!(
            width > 0 && data.len().is_multiple_of(width),
            "table is not a whole number of rows"
        );
        HogwildRows {
            ptr: data.as_mut_ptr(),
            rows: data.len() / width,
            width,
            _borrow: PhantomData,
        }
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Hints the CPU to start loading row `r` into cache (no effect on values;
    /// out-of-range rows are ignored).
    #[inline(always)]
    pub fn prefetch(&self, r: usize) {
        #[cfg(target_arch = "x86_64")]
        if r < self.rows {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let start = self.ptr.wrapping_add(r * self.width) as *const i8;
            let bytes = self.width * std::mem::size_of::<f32>();
            for offset in (0..bytes).step_by(64) {
                // SAFETY: a prefetch never faults and the address lies inside the table.
                unsafe { _mm_prefetch::<_MM_HINT_T0>(start.wrapping_add(offset)) };
            }
        }
    }

    /// Row `r` as a mutable slice.
    ///
    /// # Safety
    ///
    /// The caller must not keep two slices of the same row alive in one
    /// thread. Other threads may hold the same row at the same time: that is
    /// the deliberate, unsynchronised Hogwild race (plain `f32` loads and
    /// stores that may interleave, losing or mixing an update); callers accept
    /// it only for the parameter tables of a training step and never read
    /// the tables for anything else until every thread of the step has finished.
    #[inline(always)]
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn row(&self, r: usize) -> &mut [f32] {
        assert!(r < self.rows, "row {r} out of {} rows", self.rows);
        // SAFETY: `r < rows`, so the range lies inside the borrowed slice;
        // aliasing across threads is the contract above.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(r * self.width), self.width) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rayon::prelude::*;

    #[test]
    fn rows_are_the_table_rows() {
        let mut data: Vec<f32> = (0..6).map(|x| x as f32).collect();
        let t = HogwildRows::new(&mut data, 3);
        assert_eq!(t.rows(), 2);
        // SAFETY: one row at a time, one thread.
        unsafe {
            assert_eq!(t.row(1), &[3.0, 4.0, 5.0]);
            t.row(0)[2] = 9.0;
        }
        assert_eq!(data[2], 9.0);
    }

    #[test]
    fn disjoint_rows_from_many_threads() {
        let mut data = vec![0f32; 64 * 4];
        let t = HogwildRows::new(&mut data, 4);
        (0..64usize).into_par_iter().for_each(|r| {
            // SAFETY: each task owns a different row.
            let row = unsafe { t.row(r) };
            row.iter_mut().for_each(|x| *x = r as f32);
        });
        assert!(data
            .chunks(4)
            .enumerate()
            .all(|(r, row)| row.iter().all(|&x| x == r as f32)));
    }
}
