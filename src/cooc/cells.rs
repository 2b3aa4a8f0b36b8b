//! Row-parallel maps over the stored cells of a CSR matrix: the one loop
//! every transform shares.
//!
//! Transforms touch non-zero cells only (an absent cell is a zero count and
//! stays 0, never `-inf`). A map either keeps the pattern exactly, or drops
//! the cells whose new value is 0 (PPMI-like transforms).

use std::borrow::Cow;

use rayon::prelude::*;
use sprs::CsMat;

/// Rows per parallel task.
const ROWS_PER_TASK: usize = 256;

/// Whether a map keeps every stored cell or drops those that become zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pattern {
    /// Same pattern as the input, zeros included.
    Keep,
    /// Cells whose new value is exactly 0 are removed.
    DropZeros,
}

/// The matrix in CSR storage (a copy only when it was CSC).
pub(crate) fn as_csr(m: &CsMat<f64>) -> Cow<'_, CsMat<f64>> {
    if m.is_csr() {
        Cow::Borrowed(m)
    } else {
        Cow::Owned(m.to_csr())
    }
}

/// Applies `f(row, col, value)` to every stored cell of the CSR matrix `m`.
pub(crate) fn map_cells<F>(m: &CsMat<f64>, pattern: Pattern, f: F) -> CsMat<f64>
where
    F: Fn(usize, usize, f64) -> f64 + Sync,
{
    debug_assert!(m.is_csr());
    match pattern {
        Pattern::Keep => map_keep(m, f),
        Pattern::DropZeros => map_drop(m, f),
    }
}

fn map_keep<F>(m: &CsMat<f64>, f: F) -> CsMat<f64>
where
    F: Fn(usize, usize, f64) -> f64 + Sync,
{
    let indptr = m.indptr();
    let indptr = indptr.raw_storage();
    let indices = m.indices();
    let old = m.data();
    let mut data = vec![0.0; old.len()];
    let mut rest: &mut [f64] = &mut data;
    let mut slices = Vec::with_capacity(m.rows().div_ceil(ROWS_PER_TASK));
    for r0 in (0..m.rows()).step_by(ROWS_PER_TASK) {
        let r1 = (r0 + ROWS_PER_TASK).min(m.rows());
        let (head, tail) = rest.split_at_mut(indptr[r1] - indptr[r0]);
        slices.push((r0..r1, head));
        rest = tail;
    }
    slices.into_par_iter().for_each(|(rows, out)| {
        let base = indptr[rows.start];
        for i in rows {
            for k in indptr[i]..indptr[i + 1] {
                out[k - base] = f(i, indices[k], old[k]);
            }
        }
    });
    CsMat::new(m.shape(), indptr.to_vec(), indices.to_vec(), data)
}

fn map_drop<F>(m: &CsMat<f64>, f: F) -> CsMat<f64>
where
    F: Fn(usize, usize, f64) -> f64 + Sync,
{
    let indptr = m.indptr();
    let indptr = indptr.raw_storage();
    let indices = m.indices();
    let old = m.data();
    let chunks: Vec<(Vec<usize>, Vec<usize>, Vec<f64>)> = (0..m.rows().div_ceil(ROWS_PER_TASK))
        .into_par_iter()
        .map(|c| {
            let rows = c * ROWS_PER_TASK..((c + 1) * ROWS_PER_TASK).min(m.rows());
            let mut lens = Vec::with_capacity(rows.len());
            let mut idx = Vec::new();
            let mut val = Vec::new();
            for i in rows {
                let before = idx.len();
                for k in indptr[i]..indptr[i + 1] {
                    let v = f(i, indices[k], old[k]);
                    if v != 0.0 {
                        idx.push(indices[k]);
                        val.push(v);
                    }
                }
                lens.push(idx.len() - before);
            }
            (lens, idx, val)
        })
        .collect();
    concat_rows(m.shape(), chunks)
}

/// Concatenates per-chunk `(row lengths, indices, values)` into a CSR matrix.
pub(crate) fn concat_rows(
    shape: (usize, usize),
    chunks: Vec<(Vec<usize>, Vec<usize>, Vec<f64>)>,
) -> CsMat<f64> {
    let nnz: usize = chunks.iter().map(|c| c.1.len()).sum();
    let mut indptr = Vec::with_capacity(shape.0 + 1);
    let mut indices = Vec::with_capacity(nnz);
    let mut data = Vec::with_capacity(nnz);
    indptr.push(0);
    let mut total = 0;
    for (lens, idx, val) in chunks {
        for len in lens {
            total += len;
            indptr.push(total);
        }
        indices.extend_from_slice(&idx);
        data.extend_from_slice(&val);
    }
    CsMat::try_new(shape, indptr, indices, data)
        .map_err(|e| e.3)
        .expect("rows built in order with sorted, in-range columns")
}

/// Number of stored cells with a value `> 0` in each row.
pub(crate) fn positive_per_row(m: &CsMat<f64>) -> Vec<usize> {
    let indptr = m.indptr();
    let indptr = indptr.raw_storage();
    let data = m.data();
    (0..m.rows())
        .into_par_iter()
        .map(|i| {
            data[indptr[i]..indptr[i + 1]]
                .iter()
                .filter(|&&v| v > 0.0)
                .count()
        })
        .collect()
}

/// Number of stored cells with a value `> 0` in each column.
pub(crate) fn positive_per_col(m: &CsMat<f64>) -> Vec<usize> {
    let mut counts = vec![0usize; m.cols()];
    for (&v, &j) in m.data().iter().zip(m.indices()) {
        if v > 0.0 {
            counts[j] += 1;
        }
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> CsMat<f64> {
        CsMat::new(
            (3, 3),
            vec![0, 2, 2, 4],
            vec![0, 2, 1, 2],
            vec![1.0, -2.0, 3.0, 0.5],
        )
    }

    #[test]
    fn keep_preserves_pattern_and_drop_removes_zeros() {
        let m = sample();
        let k = map_cells(&m, Pattern::Keep, |i, j, v| {
            if v > 0.0 {
                v + (i * 10 + j) as f64
            } else {
                0.0
            }
        });
        assert_eq!(k.indptr().raw_storage(), &[0, 2, 2, 4]);
        assert_eq!(k.data(), &[1.0, 0.0, 24.0, 22.5]);
        let d = map_cells(&m, Pattern::DropZeros, |_, _, v| v.max(0.0));
        assert_eq!(d.indptr().raw_storage(), &[0, 1, 1, 3]);
        assert_eq!(d.indices(), &[0, 1, 2]);
        assert_eq!(d.data(), &[1.0, 3.0, 0.5]);
    }

    #[test]
    fn positive_counts() {
        let m = sample();
        assert_eq!(positive_per_row(&m), vec![1, 0, 2]);
        assert_eq!(positive_per_col(&m), vec![1, 1, 1]);
    }
}
