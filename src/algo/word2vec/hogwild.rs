//! Lock-free shared matrices for Hogwild-style training.
//!
//! word2vec.c and gensim let every worker thread read and write the shared
//! weight matrices without any synchronisation: two threads rarely touch the
//! same row at the same time, and when they do, one update is partly lost or
//! mixed, which stochastic gradient descent tolerates (Recht et al. 2011,
//! "Hogwild!"). Locks or atomics would cost far more than they save (atomic
//! `f32` updates also defeat vectorisation), so this module does the same: a
//! [`SharedMatrix`] owns the data and, while a step runs, hands out a
//! [`Hogwild`] handle that worker threads use to get raw row pointers.

use std::marker::PhantomData;

use ndarray::{Array2, ArrayView2};

/// A row-major `rows × cols` `f32` matrix that can be updated from many
/// threads at once through a [`Hogwild`] handle.
#[derive(Debug, Clone)]
pub struct SharedMatrix {
    data: Vec<f32>,
    rows: usize,
    cols: usize,
}

impl SharedMatrix {
    /// Wraps a matrix (copied into row-major order if it is not already).
    pub fn from_array(array: Array2<f32>) -> Self {
        let (rows, cols) = array.dim();
        let data = if array.is_standard_layout() {
            array.into_raw_vec_and_offset().0
        } else {
            array.iter().copied().collect()
        };
        SharedMatrix { data, rows, cols }
    }

    /// A zero matrix.
    pub fn zeros(rows: usize, cols: usize) -> Self {
        SharedMatrix {
            data: vec![0.0; rows * cols],
            rows,
            cols,
        }
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// A read-only view (no step can be running: that needs `&mut self`).
    pub fn view(&self) -> ArrayView2<'_, f32> {
        ArrayView2::from_shape((self.rows, self.cols), &self.data).expect("shape matches data")
    }

    /// The matrix itself.
    pub fn into_array(self) -> Array2<f32> {
        Array2::from_shape_vec((self.rows, self.cols), self.data).expect("shape matches data")
    }

    /// A handle for racy concurrent updates, valid while `self` is mutably borrowed.
    pub fn hogwild(&mut self) -> Hogwild<'_> {
        Hogwild {
            ptr: self.data.as_mut_ptr(),
            rows: self.rows,
            cols: self.cols,
            _borrow: PhantomData,
        }
    }
}

/// Shared, unsynchronised write access to a [`SharedMatrix`] for the duration
/// of one training step.
#[derive(Debug, Clone, Copy)]
pub struct Hogwild<'a> {
    ptr: *mut f32,
    rows: usize,
    cols: usize,
    _borrow: PhantomData<&'a mut [f32]>,
}

// SAFETY: the handle is a raw pointer into a `Vec<f32>` that is mutably
// borrowed for `'a`, so nothing else reads or frees it meanwhile. Threads that
// share the handle race on individual `f32` cells by design (see the module
// docs): this is the algorithm of word2vec.c and gensim, the same unsynchronised
// loads and stores their C code performs. Every value stays a valid `f32`
// whatever the interleaving, and all accesses stay in bounds (checked in `row`).
unsafe impl Send for Hogwild<'_> {}
// SAFETY: as for `Send`.
unsafe impl Sync for Hogwild<'_> {}

impl Hogwild<'_> {
    /// Number of columns (the vector dimension).
    #[inline]
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Asks the CPU to start loading row `i` into the cache (a hint: no-op
    /// on other architectures or when `i` is out of range).
    #[inline(always)]
    pub fn prefetch(&self, i: u32) {
        #[cfg(target_arch = "x86_64")]
        if (i as usize) < self.rows {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let start = i as usize * self.cols;
            for offset in (0..self.cols).step_by(16) {
                // SAFETY: `start + offset` is inside the allocation (row `i`
                // is in range); a prefetch never faults and changes no memory.
                unsafe { _mm_prefetch::<_MM_HINT_T0>(self.ptr.add(start + offset) as *const i8) };
            }
        }
    }

    /// Row `i` as a mutable slice.
    ///
    /// # Safety
    /// Within one thread, no two live slices from this handle may overlap (use
    /// one row of a matrix at a time per thread, or rows of different
    /// matrices). Other threads may write the same row concurrently: that race
    /// is the Hogwild algorithm's and is accepted (module docs).
    #[inline]
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn row(&self, i: u32) -> &mut [f32] {
        let i = i as usize;
        assert!(i < self.rows, "row {i} out of range ({} rows)", self.rows);
        // SAFETY: in bounds (asserted); exclusivity per the caller's contract.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(i * self.cols), self.cols) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn rows_map_to_the_array_and_back() {
        let mut m = SharedMatrix::from_array(array![[1.0f32, 2.0], [3.0, 4.0], [5.0, 6.0]]);
        {
            let h = m.hogwild();
            // SAFETY: single thread, one row at a time.
            unsafe { h.row(1)[0] = 30.0 };
            assert_eq!(unsafe { h.row(2) }, &[5.0, 6.0]);
        }
        assert_eq!(m.view()[[1, 0]], 30.0);
        assert_eq!(
            m.into_array(),
            array![[1.0f32, 2.0], [30.0, 4.0], [5.0, 6.0]]
        );
    }

    #[test]
    fn column_major_input_is_reordered() {
        let a = array![[1.0f32, 2.0], [3.0, 4.0]].reversed_axes();
        let m = SharedMatrix::from_array(a.clone());
        assert_eq!(m.view(), a.view());
    }
}
