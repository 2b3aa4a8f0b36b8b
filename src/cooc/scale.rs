//! Elementwise rescalings of counts: `sqrt(x)` and `log(1 + x)`.
//!
//! `log(1 + x)` rather than `log x` because harmonic-weighted counts can be
//! below 1 and would turn negative (ALGORITHMS.md §13.17, SVD-Log).

use sprs::CsMat;

use super::cells::{as_csr, map_cells, Pattern};
use super::pmi::{check_counts, LogBase};
use crate::Result;

/// `sqrt(x_ij)` on the non-zero cells of the counts `x`.
pub fn sqrt_counts(x: &CsMat<f64>) -> Result<CsMat<f64>> {
    let x = as_csr(x);
    check_counts(&x)?;
    Ok(map_cells(&x, Pattern::Keep, |_, _, v| v.sqrt()))
}

/// `log(1 + x_ij)` in `log_base` on the non-zero cells of the counts `x`.
pub fn log1p_counts(x: &CsMat<f64>, log_base: LogBase) -> Result<CsMat<f64>> {
    let x = as_csr(x);
    check_counts(&x)?;
    let scale = log_base.from_ln();
    Ok(map_cells(&x, Pattern::Keep, |_, _, v| v.ln_1p() * scale))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rescales_stored_cells_only() {
        let x = CsMat::new((2, 2), vec![0, 1, 2], vec![1, 0], vec![4.0, 0.5]);
        let s = sqrt_counts(&x).unwrap();
        assert_eq!(s.data(), &[2.0, 0.5f64.sqrt()]);
        assert_eq!(s.indices(), x.indices());
        let l = log1p_counts(&x, LogBase::Two).unwrap();
        assert!((l.data()[0] - 5f64.log2()).abs() < 1e-12);
        assert!((l.data()[1] - 1.5f64.log2()).abs() < 1e-12);
        let neg = CsMat::new((1, 1), vec![0, 1], vec![0], vec![-1.0]);
        assert!(sqrt_counts(&neg).is_err());
    }
}
