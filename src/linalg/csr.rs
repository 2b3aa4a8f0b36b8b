//! A compact CSR matrix for the eigensolver's sparse-times-dense products.
//!
//! `sprs` stores `usize` indices; a product streams the whole matrix once
//! per block, so 32-bit column indices cut a third of the traffic (12 bytes
//! per non-zero instead of 16, as scipy's `int32` indices). Values stay `f64`:
//! a 1e-6 relative residual is checked against the matrix as given.
//!
//! [`Csr::mul_block`] computes `Y = A X` for a row-major `X` of `b` columns:
//! every non-zero reads `b` contiguous values of `X`, so one pass over the
//! matrix serves `b` vectors. Rows are cut into ranges of equal non-zero
//! counts (fixed at construction, not per thread count) and run in parallel
//! with rayon; each output row is written by exactly one task, so the product
//! is deterministic.

use rayon::prelude::*;
use sprs::CsMat;

use crate::fast::blocked::{self as kernels, ColumnIndices};
use crate::{Error, Result};

/// Row ranges per product: enough for load balance on a busy machine.
const RANGES: usize = 128;

/// A sparse matrix in compressed sparse rows with `u32` column indices.
#[derive(Debug, Clone, PartialEq)]
pub struct Csr {
    rows: usize,
    cols: usize,
    indptr: Vec<usize>,
    /// Checked against `cols` once, so products need not scan them.
    indices: ColumnIndices,
    data: Vec<f64>,
    /// Row boundaries of the parallel ranges (`RANGES + 1` or fewer entries).
    cuts: Vec<usize>,
}

impl Csr {
    /// Builds from raw CSR arrays; checks their consistency.
    pub fn new(
        shape: (usize, usize),
        indptr: Vec<usize>,
        indices: Vec<u32>,
        data: Vec<f64>,
    ) -> Result<Csr> {
        let (rows, cols) = shape;
        let bad = |m: String| Err(Error::param("matrix", m));
        if indptr.len() != rows + 1 || indptr[0] != 0 || indptr[rows] != indices.len() {
            return bad(format!(
                "indptr of length {} for {rows} rows is inconsistent",
                indptr.len()
            ));
        }
        if indices.len() != data.len() {
            return bad(format!(
                "{} indices but {} values",
                indices.len(),
                data.len()
            ));
        }
        if indptr.windows(2).any(|w| w[0] > w[1]) {
            return bad("indptr is not non-decreasing".into());
        }
        let indices = match ColumnIndices::new(indices, cols) {
            Ok(indices) => indices,
            Err(c) => return bad(format!("column index {c} out of range for {cols} columns")),
        };
        if let Some(v) = data.iter().find(|v| !v.is_finite()) {
            return bad(format!("non-finite value {v}"));
        }
        let cuts = balanced_cuts(&indptr, RANGES);
        Ok(Csr {
            rows,
            cols,
            indptr,
            indices,
            data,
            cuts,
        })
    }

    /// Converts a `sprs` matrix (CSR or CSC).
    pub fn from_sprs(m: &CsMat<f64>) -> Result<Csr> {
        if m.cols() > u32::MAX as usize {
            return Err(Error::param(
                "matrix",
                format!("{} columns (at most {} supported)", m.cols(), u32::MAX),
            ));
        }
        let owned;
        let m = if m.is_csr() {
            m
        } else {
            owned = m.to_csr();
            &owned
        };
        let indptr = m.indptr().raw_storage().to_vec();
        let base = indptr[0];
        let indptr: Vec<usize> = indptr.iter().map(|&p| p - base).collect();
        let span = base..base + indptr[m.rows()];
        let indices = m.indices()[span.clone()]
            .iter()
            .map(|&c| c as u32)
            .collect();
        let data = m.data()[span].to_vec();
        Csr::new(m.shape(), indptr, indices, data)
    }

    /// `(rows, cols)`.
    pub fn shape(&self) -> (usize, usize) {
        (self.rows, self.cols)
    }

    /// Stored entries.
    pub fn nnz(&self) -> usize {
        self.data.len()
    }

    /// The row pointer array.
    pub fn indptr(&self) -> &[usize] {
        &self.indptr
    }

    /// Column indices of the stored entries.
    pub fn indices(&self) -> &[u32] {
        self.indices.as_slice()
    }

    /// Stored values.
    pub fn data(&self) -> &[f64] {
        &self.data
    }

    /// The transpose, in CSR (a counting sort by column).
    pub fn transpose(&self) -> Csr {
        let mut counts = vec![0usize; self.cols + 1];
        for &c in self.indices() {
            counts[c as usize + 1] += 1;
        }
        for j in 0..self.cols {
            counts[j + 1] += counts[j];
        }
        let indptr = counts.clone();
        let mut next = counts;
        let mut indices = vec![0u32; self.nnz()];
        let mut data = vec![0.0; self.nnz()];
        for i in 0..self.rows {
            for k in self.indptr[i]..self.indptr[i + 1] {
                let c = self.indices()[k] as usize;
                indices[next[c]] = i as u32;
                data[next[c]] = self.data[k];
                next[c] += 1;
            }
        }
        Csr::new((self.cols, self.rows), indptr, indices, data)
            .expect("transpose of a valid matrix")
    }

    /// Whether the matrix is square and equal to its transpose within
    /// `tol · max|a_ij|` (same pattern required).
    pub fn is_symmetric(&self, tol: f64) -> bool {
        if self.rows != self.cols {
            return false;
        }
        let t = self.transpose();
        if t.indptr != self.indptr || t.indices != self.indices {
            return false;
        }
        let scale = self.data.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        self.data
            .iter()
            .zip(&t.data)
            .all(|(a, b)| (a - b).abs() <= tol * scale)
    }

    /// The largest absolute row sum `‖A‖_∞`, an upper bound of every |eigenvalue|.
    pub fn norm_inf(&self) -> f64 {
        (0..self.rows)
            .into_par_iter()
            .map(|i| {
                self.data[self.indptr[i]..self.indptr[i + 1]]
                    .iter()
                    .map(|v| v.abs())
                    .sum::<f64>()
            })
            .reduce(|| 0.0, f64::max)
    }

    /// `Y = A X`: `X` is `cols × b` and `Y` is `rows × b`, both row-major.
    pub fn mul_block(&self, x: &[f64], y: &mut [f64], b: usize) {
        assert_eq!(x.len(), self.cols * b, "mul_block: X must be cols × b");
        assert_eq!(y.len(), self.rows * b, "mul_block: Y must be rows × b");
        match b {
            1 => self.mul_fixed::<1>(x, y),
            2 => self.mul_fixed::<2>(x, y),
            4 => self.mul_fixed::<4>(x, y),
            8 => self.mul_fixed::<8>(x, y),
            16 => self.mul_fixed::<16>(x, y),
            _ => self.mul_any(x, y, b),
        }
    }

    /// The output rows of each range, as disjoint mutable slices.
    fn range_outputs<'a>(&self, mut y: &'a mut [f64], b: usize) -> Vec<(usize, &'a mut [f64])> {
        let mut out = Vec::with_capacity(self.cuts.len());
        for w in self.cuts.windows(2) {
            let (head, tail) = std::mem::take(&mut y).split_at_mut((w[1] - w[0]) * b);
            out.push((w[0], head));
            y = tail;
        }
        out
    }

    fn mul_fixed<const B: usize>(&self, x: &[f64], y: &mut [f64]) {
        self.range_outputs(y, B)
            .into_par_iter()
            .for_each(|(row0, out)| {
                if kernels::spmm_rows_indexed(
                    &self.indptr,
                    &self.indices,
                    &self.data,
                    row0,
                    x,
                    out,
                    B,
                ) {
                    return;
                }
                for (r, yrow) in out.chunks_exact_mut(B).enumerate() {
                    let i = row0 + r;
                    let mut acc = [0.0f64; B];
                    let span = self.indptr[i]..self.indptr[i + 1];
                    for (&c, &v) in self.indices()[span.clone()].iter().zip(&self.data[span]) {
                        let xr: &[f64; B] = x[c as usize * B..c as usize * B + B]
                            .try_into()
                            .expect("B values");
                        for t in 0..B {
                            acc[t] += v * xr[t];
                        }
                    }
                    yrow.copy_from_slice(&acc);
                }
            });
    }

    fn mul_any(&self, x: &[f64], y: &mut [f64], b: usize) {
        self.range_outputs(y, b)
            .into_par_iter()
            .for_each(|(row0, out)| {
                for (r, yrow) in out.chunks_exact_mut(b).enumerate() {
                    let i = row0 + r;
                    yrow.fill(0.0);
                    for k in self.indptr[i]..self.indptr[i + 1] {
                        let (c, v) = (self.indices()[k] as usize, self.data[k]);
                        for (acc, xv) in yrow.iter_mut().zip(&x[c * b..c * b + b]) {
                            *acc += v * xv;
                        }
                    }
                }
            });
    }
}

/// Row boundaries cutting `indptr`'s rows into at most `parts` ranges of
/// about equal non-zeros (rows count as one unit each, so empty rows spread too).
fn balanced_cuts(indptr: &[usize], parts: usize) -> Vec<usize> {
    let rows = indptr.len() - 1;
    let work = |i: usize| indptr[i] + i;
    let total = work(rows);
    let mut cuts = vec![0];
    for k in 1..parts {
        let target = total * k / parts;
        // First row r with work(r) >= target (work is increasing).
        let (mut lo, mut hi) = (0, rows);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if work(mid) < target {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if lo > *cuts.last().expect("non-empty") && lo < rows {
            cuts.push(lo);
        }
    }
    cuts.push(rows);
    cuts.dedup();
    cuts
}

#[cfg(test)]
mod tests {
    use super::*;
    use sprs::TriMat;

    fn example() -> CsMat<f64> {
        // [[1, 0, 2], [0, 0, 3], [4, 5, 0], [0, 0, 0]]
        let mut t = TriMat::new((4, 3));
        for &(r, c, v) in &[
            (0, 0, 1.0),
            (0, 2, 2.0),
            (1, 2, 3.0),
            (2, 0, 4.0),
            (2, 1, 5.0),
        ] {
            t.add_triplet(r, c, v);
        }
        t.to_csr()
    }

    #[test]
    fn block_product_by_hand() {
        let a = Csr::from_sprs(&example()).unwrap();
        assert_eq!((a.shape(), a.nnz()), ((4, 3), 5));
        // X = [[1, 10], [2, 20], [3, 30]]
        let x = [1.0, 10.0, 2.0, 20.0, 3.0, 30.0];
        let mut y = vec![f64::NAN; 8];
        a.mul_block(&x, &mut y, 2);
        assert_eq!(y, vec![7.0, 70.0, 9.0, 90.0, 14.0, 140.0, 0.0, 0.0]);
        let mut y3 = vec![f64::NAN; 4 * 3];
        let x3 = [1.0, 0.0, 1.0, 2.0, 0.0, 1.0, 3.0, 0.0, 1.0];
        a.mul_block(&x3, &mut y3, 3);
        assert_eq!(&y3[..3], &[7.0, 0.0, 3.0]);
        assert_eq!(&y3[9..], &[0.0, 0.0, 0.0]);
    }

    #[test]
    fn transpose_and_symmetry() {
        let a = Csr::from_sprs(&example()).unwrap();
        let t = a.transpose();
        assert_eq!(t.shape(), (3, 4));
        let at = Csr::from_sprs(&example().transpose_into().to_csr()).unwrap();
        assert_eq!(t.indptr(), at.indptr());
        assert_eq!(t.indices(), at.indices());
        assert_eq!(t.data(), at.data());
        assert!(!a.is_symmetric(0.0));
        let s = Csr::new((2, 2), vec![0, 2, 3], vec![0, 1, 0], vec![1.0, 2.0, 2.0]).unwrap();
        assert!(s.is_symmetric(0.0));
        assert_eq!(s.norm_inf(), 3.0);
    }

    #[test]
    fn rejects_inconsistent_arrays() {
        assert!(Csr::new((2, 2), vec![0, 1], vec![0], vec![1.0]).is_err());
        assert!(Csr::new((1, 2), vec![0, 1], vec![2], vec![1.0]).is_err());
        assert!(Csr::new((1, 2), vec![0, 1], vec![0], vec![f64::NAN]).is_err());
    }

    #[test]
    fn cuts_cover_all_rows_in_order() {
        let indptr: Vec<usize> = (0..=1000).map(|i| i * i / 10).collect();
        let cuts = balanced_cuts(&indptr, 16);
        assert_eq!(cuts.first(), Some(&0));
        assert_eq!(cuts.last(), Some(&1000));
        assert!(cuts.windows(2).all(|w| w[0] < w[1]));
    }
}
