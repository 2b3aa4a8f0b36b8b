//! Elementwise rescalings of counts: `sqrt(x)`, `log(1 + x)`, the diagonal
//! removed, and a constant factor that sets the total.
//!
//! `log(1 + x)` rather than `log x` because harmonic-weighted counts can be
//! below 1 and would turn negative (SVD-Log; docs/methods/cooc.md,
//! "Rescaled counts").

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

/// The counts `x` without their diagonal cells (a word co-occurring with
/// itself), e.g. for similarity matrices whose diagonal must be zero.
pub fn without_diagonal(x: &CsMat<f64>) -> Result<CsMat<f64>> {
    let x = as_csr(x);
    check_counts(&x)?;
    Ok(map_cells(&x, Pattern::DropZeros, |i, j, v| {
        if i == j {
            0.0
        } else {
            v
        }
    }))
}

/// The counts `x` times the factor that makes their sum `total` (unchanged
/// when they sum to 0).
pub fn scaled_to_sum(x: &CsMat<f64>, total: f64) -> Result<CsMat<f64>> {
    let x = as_csr(x);
    check_counts(&x)?;
    let sum: f64 = x.data().iter().sum();
    let factor = if sum > 0.0 { total / sum } else { 1.0 };
    Ok(map_cells(&x, Pattern::Keep, |_, _, v| v * factor))
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

    #[test]
    fn diagonal_removed_and_total_set() {
        let x = CsMat::new(
            (2, 2),
            vec![0, 2, 4],
            vec![0, 1, 0, 1],
            vec![5.0, 1.0, 1.0, 2.0],
        );
        let d = without_diagonal(&x).unwrap();
        assert_eq!(d.indices(), &[1, 0]);
        assert_eq!(d.data(), &[1.0, 1.0]);
        let s = scaled_to_sum(&d, 3.0).unwrap();
        assert_eq!(s.data(), &[1.5, 1.5]);
        assert!(without_diagonal(&CsMat::new((1, 1), vec![0, 1], vec![0], vec![-1.0])).is_err());
    }
}
