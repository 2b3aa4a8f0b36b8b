//! A one-line description of a matrix's values, recorded for every
//! association matrix (docs/methods/cooc.md, "Summary line").

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sprs::CsMat;

/// Counts and range of the stored values.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Stored cells.
    pub nnz: usize,
    /// Stored cells `> 0`.
    pub positive: usize,
    /// Stored cells `< 0`.
    pub negative: usize,
    /// Smallest stored value (0 for an empty matrix).
    pub min: f64,
    /// Largest stored value (0 for an empty matrix).
    pub max: f64,
}

impl Summary {
    /// Summarises the stored values of `m`.
    pub fn of(m: &CsMat<f64>) -> Summary {
        let data = m.data();
        let (positive, negative, min, max) = data
            .par_iter()
            .fold(
                || (0usize, 0usize, f64::INFINITY, f64::NEG_INFINITY),
                |(p, n, lo, hi), &v| {
                    (
                        p + (v > 0.0) as usize,
                        n + (v < 0.0) as usize,
                        lo.min(v),
                        hi.max(v),
                    )
                },
            )
            .reduce(
                || (0, 0, f64::INFINITY, f64::NEG_INFINITY),
                |a, b| (a.0 + b.0, a.1 + b.1, a.2.min(b.2), a.3.max(b.3)),
            );
        let empty = data.is_empty();
        Summary {
            nnz: data.len(),
            positive,
            negative,
            min: if empty { 0.0 } else { min },
            max: if empty { 0.0 } else { max },
        }
    }
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "nnz {} ({} positive, {} negative), min {:.6}, max {:.6}",
            self.nnz, self.positive, self.negative, self.min, self.max
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_signs_and_range() {
        let m = CsMat::new((2, 2), vec![0, 2, 3], vec![0, 1, 1], vec![-1.5, 0.0, 2.0]);
        let s = Summary::of(&m);
        assert_eq!((s.nnz, s.positive, s.negative), (3, 1, 1));
        assert_eq!((s.min, s.max), (-1.5, 2.0));
        let e = Summary::of(&CsMat::<f64>::zero((2, 2)));
        assert_eq!((e.nnz, e.min, e.max), (0, 0.0, 0.0));
    }
}
