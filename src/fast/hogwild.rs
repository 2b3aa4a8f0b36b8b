//! Lock-free shared rows for Hogwild-style training.
//!
//! word2vec.c, gensim and glove.c let every worker thread read and write the
//! shared parameter tables without any synchronisation: two threads rarely
//! touch the same row at the same time, and when they do, one update is
//! partly lost or mixed, which stochastic gradient descent tolerates (Recht
//! et al. 2011, "Hogwild!"). Locks or atomics would cost far more than they
//! save (atomic `f32` updates also defeat vectorisation), so we do the same.
//! Rust forbids aliased `&mut`, so the sharing lives in this one wrapper and
//! nowhere else. With one thread there is no sharing and runs are
//! deterministic.
//!
//! [`SharedMatrix`] owns a table; while a step runs it lends a [`Hogwild`]
//! handle (a plain slice can be lent too, with [`Hogwild::new`]) that the
//! worker threads use to reach rows.

use std::marker::PhantomData;

use ndarray::{Array2, ArrayView2};

/// A row-major `rows × cols` `f32` table that many threads can update at
/// once through a [`Hogwild`] handle.
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

    /// The values, row-major (no step can be running).
    pub fn as_slice(&self) -> &[f32] {
        &self.data
    }

    /// The values, row-major, for writing between steps.
    pub fn as_mut_slice(&mut self) -> &mut [f32] {
        &mut self.data
    }

    /// The matrix itself.
    pub fn into_array(self) -> Array2<f32> {
        Array2::from_shape_vec((self.rows, self.cols), self.data).expect("shape matches data")
    }

    /// A handle for racy concurrent updates, valid while `self` is mutably borrowed.
    pub fn hogwild(&mut self) -> Hogwild<'_> {
        let cols = self.cols;
        Hogwild::with_rows(&mut self.data, self.rows, cols)
    }
}

/// Shared, unsynchronised write access to the rows of a borrowed table for
/// the duration of one training step.
#[derive(Debug, Clone, Copy)]
pub struct Hogwild<'a> {
    ptr: *mut f32,
    rows: usize,
    cols: usize,
    _borrow: PhantomData<&'a mut [f32]>,
}

// SAFETY: the handle is a raw pointer into a slice that is mutably borrowed
// for `'a`, so nothing else reads, writes or frees it meanwhile. Threads that
// share the handle race on individual `f32` cells by design (module docs):
// the unsynchronised loads and stores of word2vec.c and glove.c. Every value
// stays a valid `f32` whatever the interleaving, and every access is in
// bounds (checked in `row`).
unsafe impl Send for Hogwild<'_> {}
// SAFETY: as for `Send`.
unsafe impl Sync for Hogwild<'_> {}

impl<'a> Hogwild<'a> {
    /// Lends `data` as rows of `cols` values. Panics unless `cols > 0` and
    /// `data.len()` is a whole number of rows (a programming error).
    pub fn new(data: &'a mut [f32], cols: usize) -> Self {
        assert!(
            cols > 0 && data.len().is_multiple_of(cols),
            "table of {} values is not a whole number of {cols}-wide rows",
            data.len()
        );
        let rows = data.len() / cols;
        Hogwild::with_rows(data, rows, cols)
    }

    /// As [`Hogwild::new`] with the row count known (and allowed to be 0 wide).
    fn with_rows(data: &'a mut [f32], rows: usize, cols: usize) -> Self {
        assert_eq!(data.len(), rows * cols, "table shape");
        Hogwild {
            ptr: data.as_mut_ptr(),
            rows,
            cols,
            _borrow: PhantomData,
        }
    }

    /// Whether `other` lends the same table (a copy of this handle).
    #[inline]
    pub fn same_table(&self, other: &Hogwild<'_>) -> bool {
        std::ptr::eq(self.ptr, other.ptr)
    }

    /// Number of rows.
    #[inline]
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns (the vector dimension).
    #[inline]
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Asks the CPU to start loading row `i` into the cache (a hint: no
    /// effect on values; ignored when `i` is out of range).
    #[inline(always)]
    pub fn prefetch(&self, i: usize) {
        if i < self.rows {
            super::prefetch::raw(self.ptr.wrapping_add(i * self.cols), self.cols);
        }
    }

    /// Row `i` as a mutable slice. Panics when `i` is out of range.
    ///
    /// # Safety
    /// Within one thread, no two live slices from this handle may overlap
    /// (use one row of a table at a time per thread, or rows of different
    /// tables). Other threads may write the same row concurrently: that race
    /// is the Hogwild algorithm's and is accepted (module docs); callers
    /// never read the table for anything else until every thread of the
    /// step has finished.
    #[inline(always)]
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn row(&self, i: usize) -> &mut [f32] {
        assert!(i < self.rows, "row {i} out of range ({} rows)", self.rows);
        // SAFETY: in bounds (asserted); exclusivity per the caller's contract.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(i * self.cols), self.cols) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;
    use rayon::prelude::*;

    #[test]
    fn rows_map_to_the_array_and_back() {
        let mut m = SharedMatrix::from_array(array![[1.0f32, 2.0], [3.0, 4.0], [5.0, 6.0]]);
        {
            let h = m.hogwild();
            assert_eq!((h.rows(), h.cols()), (3, 2));
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

    #[test]
    fn a_lent_slice_is_its_rows() {
        let mut data: Vec<f32> = (0..6).map(|x| x as f32).collect();
        let t = Hogwild::new(&mut data, 3);
        assert_eq!(t.rows(), 2);
        t.prefetch(1);
        t.prefetch(7);
        // SAFETY: one row at a time, one thread.
        unsafe {
            assert_eq!(t.row(1), &[3.0, 4.0, 5.0]);
            t.row(0)[2] = 9.0;
        }
        assert_eq!(data[2], 9.0);
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn a_row_out_of_range_panics_instead_of_reading() {
        let mut data = vec![0f32; 4];
        let t = Hogwild::new(&mut data, 2);
        // SAFETY: one thread; the call must panic before forming a slice.
        let _ = unsafe { t.row(2) };
    }

    #[test]
    fn disjoint_rows_from_many_threads() {
        let mut data = vec![0f32; 64 * 4];
        let t = Hogwild::new(&mut data, 4);
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
