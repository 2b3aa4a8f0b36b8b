//! The PMI family: PMI, PPMI, shifted PPMI, thresholded PMI, each with
//! optional context-distribution smoothing, as one parameterised kernel.
//!
//! `PMI_ij = log P(i,j) / (P(i) P(j))` with `P(i,j) = X_ij/X_**`,
//! `P(i) = X_i*/X_**` and `P(j) = X_*j/X_**`, or with context-distribution
//! smoothing `P(j) = X_*j^cds / Σ_k X_*k^cds` (the row side stays unsmoothed,
//! so the result is no longer symmetric). The kernel computes
//! `m_ij = PMI_ij − shift` on the non-zero cells of `X` and keeps it when it
//! is above `threshold`:
//!
//! | variant | shift | threshold |
//! |---|---|---|
//! | PMI | 0 | none (pattern of `X` kept) |
//! | PPMI `max(PMI, 0)` | 0 | 0 |
//! | SPPMI `max(PMI − log k, 0)` | `log k` | 0 |
//! | thresholded `M^τ` (PMI if `> τ`, else 0) | 0 | `τ` (may be negative) |
//!
//! The shift and threshold are in the units of `log_base` (bits for base 2).
//! Absent cells stay 0: never `−inf`.

use std::str::FromStr;

use serde::{Deserialize, Serialize};
use sprs::CsMat;

use super::cells::{as_csr, map_cells, Pattern};
use super::marginals::Marginals;
use crate::schema::choice_names;
use crate::{Error, Result};

/// The base of the logarithm in PMI-like values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum LogBase {
    /// Natural log (PSDVec, the reference matrix of docs/methods/linalg.md).
    #[default]
    E,
    /// Base 2: values in bits (Soleimani's experiments).
    Two,
}

choice_names!(LogBase {
    Two = "2",
    E = "e",
});

impl LogBase {
    /// `log_base(x)` for `x > 0`.
    #[inline]
    pub fn log(self, x: f64) -> f64 {
        match self {
            LogBase::E => x.ln(),
            LogBase::Two => x.log2(),
        }
    }

    /// Factor turning a natural log into this base.
    #[inline]
    pub fn from_ln(self) -> f64 {
        match self {
            LogBase::E => 1.0,
            LogBase::Two => std::f64::consts::LOG2_E,
        }
    }
}

impl FromStr for LogBase {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        match s {
            "e" | "ln" | "natural" => Ok(LogBase::E),
            "2" | "log2" | "bits" => Ok(LogBase::Two),
            _ => Err(Error::param("log_base", format!("{s:?} (expected e or 2)"))),
        }
    }
}

/// Parameters of the PMI kernel (see the module docs for the variants).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PmiConfig {
    /// Base of the logarithm.
    pub log_base: LogBase,
    /// Context-distribution smoothing exponent (0.75 is customary), or none.
    pub cds: Option<f64>,
    /// Subtracted from every PMI value, in `log_base` units (`log k` for SPPMI).
    pub shift: f64,
    /// Keep only values `> threshold` (others become absent); `None` keeps
    /// every cell of `X`, whatever its value.
    pub threshold: Option<f64>,
}

impl PmiConfig {
    /// Plain PMI on the non-zero cells.
    pub fn pmi(log_base: LogBase) -> Self {
        PmiConfig {
            log_base,
            cds: None,
            shift: 0.0,
            threshold: None,
        }
    }

    /// `max(PMI, 0)`.
    pub fn ppmi(log_base: LogBase) -> Self {
        PmiConfig {
            threshold: Some(0.0),
            ..Self::pmi(log_base)
        }
    }

    /// Shifted PPMI `max(PMI − log k, 0)`, the log in `log_base`.
    pub fn sppmi(k: f64, log_base: LogBase) -> Self {
        PmiConfig {
            shift: log_base.log(k),
            ..Self::ppmi(log_base)
        }
    }

    /// Thresholded PMI `M^τ`: PMI where `PMI > tau`, else 0 (`tau` may be
    /// negative; `tau = 0` is PPMI).
    pub fn thresholded(tau: f64, log_base: LogBase) -> Self {
        PmiConfig {
            threshold: Some(tau),
            ..Self::pmi(log_base)
        }
    }

    /// The same with context-distribution smoothing `cds` (e.g. 0.75).
    pub fn with_cds(self, cds: f64) -> Self {
        PmiConfig {
            cds: Some(cds),
            ..self
        }
    }

    /// Checks the parameters.
    pub fn validate(&self) -> Result<()> {
        if let Some(a) = self.cds {
            if !(a > 0.0 && a.is_finite()) {
                return Err(Error::param(
                    "cds",
                    format!("{a} (expected a positive exponent such as 0.75)"),
                ));
            }
        }
        if !self.shift.is_finite() {
            return Err(Error::param(
                "shift",
                format!("{} (expected a finite log k; k must be > 0)", self.shift),
            ));
        }
        if let Some(t) = self.threshold {
            if !t.is_finite() {
                return Err(Error::param(
                    "threshold",
                    format!("{t} (expected a finite value)"),
                ));
            }
        }
        Ok(())
    }
}

/// Applies the PMI kernel to the counts `x`, with `marginals = Marginals::of(x)`.
///
/// Errors if a parameter is invalid, the marginals do not match `x`, or `x`
/// holds a negative value.
pub fn pmi(x: &CsMat<f64>, marginals: &Marginals, config: &PmiConfig) -> Result<CsMat<f64>> {
    config.validate()?;
    marginals.check_shape(x.shape())?;
    let x = as_csr(x);
    check_counts(&x)?;
    let log_rows: Vec<f64> = marginals.rows.iter().map(|&r| r.ln()).collect();
    let log_cols = marginals.log_context_probs(config.cds);
    let scale = config.log_base.from_ln();
    let shift = config.shift;
    // A stored zero is an absent count: it stays 0, never -inf.
    let value = |i: usize, j: usize, v: f64| {
        if v > 0.0 {
            (v.ln() - log_rows[i] - log_cols[j]) * scale - shift
        } else {
            0.0
        }
    };
    Ok(match config.threshold {
        None => map_cells(&x, Pattern::Keep, value),
        Some(t) => map_cells(&x, Pattern::DropZeros, |i, j, v| {
            let m = value(i, j, v);
            if m > t {
                m
            } else {
                0.0
            }
        }),
    })
}

/// Errors unless every stored value is a finite count `>= 0`.
pub(crate) fn check_counts(x: &CsMat<f64>) -> Result<()> {
    use rayon::prelude::*;
    if let Some(v) = x
        .data()
        .par_iter()
        .find_any(|&&v| !(v >= 0.0 && v.is_finite()))
    {
        return Err(Error::param(
            "counts",
            format!("{v} found (expected finite non-negative co-occurrence counts)"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_bases() {
        assert_eq!(LogBase::Two.log(8.0), 3.0);
        assert!((LogBase::E.log(std::f64::consts::E) - 1.0).abs() < 1e-15);
        assert!((LogBase::Two.from_ln() * 8f64.ln() - 3.0).abs() < 1e-12);
        assert_eq!("2".parse::<LogBase>().unwrap(), LogBase::Two);
        assert!("10".parse::<LogBase>().is_err());
    }

    #[test]
    fn sppmi_shift_is_in_the_log_base() {
        assert_eq!(PmiConfig::sppmi(4.0, LogBase::Two).shift, 2.0);
        assert!((PmiConfig::sppmi(5.0, LogBase::E).shift - 5f64.ln()).abs() < 1e-15);
    }

    #[test]
    fn invalid_parameters_are_rejected() {
        assert!(PmiConfig::ppmi(LogBase::E)
            .with_cds(0.0)
            .validate()
            .is_err());
        assert!(PmiConfig::sppmi(0.0, LogBase::E).validate().is_err());
        assert!(PmiConfig::thresholded(f64::NAN, LogBase::E)
            .validate()
            .is_err());
        let x = CsMat::new((1, 1), vec![0, 1], vec![0], vec![-1.0]);
        let m = Marginals::of(&x);
        assert!(pmi(&x, &m, &PmiConfig::pmi(LogBase::E)).is_err());
    }
}
