//! TF-IDF of co-occurrence counts (Trichelair & Toumdi §3.1), in two readings.
//!
//! \[T\] treats each context column as a "document" and prints
//! `tfidf(word, context) = f_ij · log(#contexts / #contexts where word i appears)`:
//! the idf then depends on the *row* only, a per-row scale that cosine
//! similarity cannot see (docs/methods/cooc.md, "TF-IDF"). [`TfIdf::AsPrinted`]
//! implements that formula; [`TfIdf::OverContexts`] is the reading that
//! discounts common contexts, `f_ij · log(#words / #words that context j appears with)`.
//! Cells whose idf is 0 (a word seen with every context, or a context seen
//! with every word) are dropped.

use std::str::FromStr;

use serde::{Deserialize, Serialize};
use sprs::CsMat;

use super::cells::{as_csr, map_cells, positive_per_col, positive_per_row, Pattern};
use super::pmi::{check_counts, LogBase};
use crate::{Error, Result};

/// Which idf [`tfidf`] applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum TfIdf {
    /// \[T\]'s formula: `idf_i = log(n_cols / |{j : f_ij > 0}|)`, per word (row).
    #[default]
    AsPrinted,
    /// `idf_j = log(n_rows / |{i : f_ij > 0}|)`, per context (column).
    OverContexts,
}

impl FromStr for TfIdf {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        match s {
            "printed" | "as-printed" | "rows" => Ok(TfIdf::AsPrinted),
            "contexts" | "over-contexts" | "columns" => Ok(TfIdf::OverContexts),
            _ => Err(Error::param(
                "tfidf",
                format!("{s:?} (expected printed or contexts)"),
            )),
        }
    }
}

/// TF-IDF of the counts `x` (non-negative), logs in `log_base`.
pub fn tfidf(x: &CsMat<f64>, variant: TfIdf, log_base: LogBase) -> Result<CsMat<f64>> {
    let x = as_csr(x);
    check_counts(&x)?;
    let idf = |total: usize, present: &[usize]| -> Vec<f64> {
        present
            .iter()
            .map(|&p| {
                if p > 0 {
                    log_base.log(total as f64 / p as f64)
                } else {
                    0.0
                }
            })
            .collect()
    };
    Ok(match variant {
        TfIdf::AsPrinted => {
            let w = idf(x.cols(), &positive_per_row(&x));
            map_cells(&x, Pattern::DropZeros, |i, _, v| v * w[i])
        }
        TfIdf::OverContexts => {
            let w = idf(x.rows(), &positive_per_col(&x));
            map_cells(&x, Pattern::DropZeros, |_, j, v| v * w[j])
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_computed_both_variants() {
        // f = [[2, 1, 0], [0, 4, 0], [1, 1, 1]]
        let x = CsMat::new(
            (3, 3),
            vec![0, 2, 3, 6],
            vec![0, 1, 1, 0, 1, 2],
            vec![2.0, 1.0, 4.0, 1.0, 1.0, 1.0],
        );
        let t = tfidf(&x, TfIdf::AsPrinted, LogBase::E).unwrap();
        // Row idfs: ln(3/2), ln(3/1), ln(3/3) = 0 (row 2 dropped).
        let l = |v: f64| v.ln();
        assert_eq!(t.indptr().raw_storage(), &[0, 2, 3, 3]);
        assert!((t.data()[0] - 2.0 * l(1.5)).abs() < 1e-12);
        assert!((t.data()[1] - l(1.5)).abs() < 1e-12);
        assert!((t.data()[2] - 4.0 * l(3.0)).abs() < 1e-12);
        let c = tfidf(&x, TfIdf::OverContexts, LogBase::Two).unwrap();
        // Column idfs (base 2): log2(3/2), log2(3/3) = 0 (column 1 dropped), log2(3/1).
        assert_eq!(c.indices(), &[0, 0, 2]);
        assert!((c.data()[0] - 2.0 * 1.5f64.log2()).abs() < 1e-12);
        assert!((c.data()[1] - 1.5f64.log2()).abs() < 1e-12);
        assert!((c.data()[2] - 3f64.log2()).abs() < 1e-12);
    }
}
