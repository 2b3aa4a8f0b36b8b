//! Row and column sums of a co-occurrence matrix, computed once and passed
//! to every transform that needs them.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sprs::CsMat;

use super::cells::as_csr;
use crate::{Error, Result};

/// Rows per parallel task for the column sums.
const ROWS_PER_TASK: usize = 1024;

/// Marginals of `X`: `rows[i] = X_i*`, `cols[j] = X_*j`, `total = X_**`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Marginals {
    /// Row sums.
    pub rows: Vec<f64>,
    /// Column sums.
    pub cols: Vec<f64>,
    /// Sum of all cells.
    pub total: f64,
}

impl Marginals {
    /// Sums the rows and columns of `x` in parallel.
    pub fn of(x: &CsMat<f64>) -> Marginals {
        let x = as_csr(x);
        let indptr = x.indptr();
        let indptr = indptr.raw_storage();
        let (indices, data) = (x.indices(), x.data());
        let rows: Vec<f64> = (0..x.rows())
            .into_par_iter()
            .map(|i| data[indptr[i]..indptr[i + 1]].iter().sum())
            .collect();
        let ncols = x.cols();
        let cols = (0..x.rows().div_ceil(ROWS_PER_TASK))
            .into_par_iter()
            .fold(
                || vec![0.0f64; ncols],
                |mut acc, c| {
                    let r0 = c * ROWS_PER_TASK;
                    let r1 = (r0 + ROWS_PER_TASK).min(x.rows());
                    for k in indptr[r0]..indptr[r1] {
                        acc[indices[k]] += data[k];
                    }
                    acc
                },
            )
            .reduce(
                || vec![0.0f64; ncols],
                |mut a, b| {
                    a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                    a
                },
            );
        let total = rows.iter().sum();
        Marginals { rows, cols, total }
    }

    /// Checks that these marginals belong to a matrix of `shape`.
    pub fn check_shape(&self, shape: (usize, usize)) -> Result<()> {
        if (self.rows.len(), self.cols.len()) != shape {
            return Err(Error::param(
                "marginals",
                format!(
                    "computed for a {}x{} matrix, applied to {}x{}",
                    self.rows.len(),
                    self.cols.len(),
                    shape.0,
                    shape.1
                ),
            ));
        }
        Ok(())
    }

    /// Natural log of the context distribution `P(j)`: `X_*j / X_**`, or with
    /// context-distribution smoothing `cds`, `X_*j^cds / Σ_k X_*k^cds`.
    /// Empty columns get `-inf` (they hold no cells, so it is never used).
    pub fn log_context_probs(&self, cds: Option<f64>) -> Vec<f64> {
        match cds {
            None => {
                let lt = self.total.ln();
                self.cols.iter().map(|&c| c.ln() - lt).collect()
            }
            Some(a) => {
                let z: f64 = self
                    .cols
                    .iter()
                    .filter(|&&c| c > 0.0)
                    .map(|&c| c.powf(a))
                    .sum();
                let lz = z.ln();
                self.cols
                    .iter()
                    .map(|&c| {
                        if c > 0.0 {
                            a * c.ln() - lz
                        } else {
                            f64::NEG_INFINITY
                        }
                    })
                    .collect()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_rows_columns_and_total() {
        let x = CsMat::new((2, 3), vec![0, 2, 3], vec![0, 2, 2], vec![1.0, 2.0, 4.0]);
        let m = Marginals::of(&x);
        assert_eq!(m.rows, vec![3.0, 4.0]);
        assert_eq!(m.cols, vec![1.0, 0.0, 6.0]);
        assert_eq!(m.total, 7.0);
        assert!(m.check_shape((2, 3)).is_ok());
        assert!(m.check_shape((3, 3)).is_err());
        let lp = m.log_context_probs(None);
        assert!((lp[2] - (6.0f64 / 7.0).ln()).abs() < 1e-12);
        assert_eq!(lp[1], f64::NEG_INFINITY);
        // cds 0.5: weights 1 and sqrt(6).
        let lp = m.log_context_probs(Some(0.5));
        let z = 1.0 + 6.0f64.sqrt();
        assert!((lp[0] - (1.0 / z).ln()).abs() < 1e-12);
        assert!((lp[2] - (6.0f64.sqrt() / z).ln()).abs() < 1e-12);
    }
}
