//! The matrix each spectral method factorises, from the corpus through
//! `crate::cooc` (counting and every transform live there; this file only
//! picks them) plus EigenWord's optional PSD fix.
//!
//! Runs that differ only in the solve (`dim`, `tol`, `block`, `basis`,
//! `max_steps`, `power`, or SVD against eigenpairs) factorise the same
//! matrix: the first one offers it in the session's
//! [`CountCache`](crate::cooc::CountCache) and the next ones take it from
//! there ([`transformed`]), so a sweep over `dim` transforms once.

use std::sync::Arc;

use sprs::{CsMat, TriMat};

use super::params::{Input, Settings};
use crate::cooc::{
    count_corpus, log1p_counts, pmi, sqrt_counts, CountConfig, Marginals, PmiConfig, Product,
    Window,
};
use crate::corpus::Corpus;
use crate::train::TrainInput;
use crate::Result;

/// A transformed matrix as runs share it (its own type, so the cache counts
/// transforms apart from factorisations).
#[derive(Debug)]
pub struct Transformed(pub CsMat<f64>);

/// The key of the matrix `settings` factorises: the counting and the
/// transform, nothing of the solve.
pub fn key(settings: &Settings) -> String {
    let s = settings;
    format!(
        "spectral matrix window={} {:?} max_vocab={:?} {:?} cds={:?} {:?} psd_fix={}",
        s.window, s.weighting, s.max_vocab, s.log_base, s.cds, s.input, s.psd_fix
    )
}

/// The matrix `settings` factorises and whether an earlier run made it:
/// taken from `input.counts` when one did, else counted (counts are shared
/// too), transformed and offered to the next runs.
pub fn transformed(input: &TrainInput, settings: &Settings) -> Result<(Arc<Transformed>, bool)> {
    let claim = match input
        .counts
        .product::<Transformed>(&input.corpus, &key(settings))
    {
        Product::Ready(m) => return Ok((m, true)),
        Product::Make(claim) => claim,
    };
    let x = input
        .counts
        .counts(&input.corpus, &count_config(settings))?;
    let m = Arc::new(Transformed(transform(&x, settings)?));
    claim.fulfil(m.clone());
    Ok((m, false))
}

/// The co-occurrence counting of `settings`: symmetric window,
/// `n = min(|V|, max_vocab)`.
pub fn count_config(settings: &Settings) -> CountConfig {
    CountConfig {
        window: Window::symmetric(settings.window, settings.weighting),
        max_vocab: settings.max_vocab,
    }
}

/// The co-occurrence counts of `corpus` for `settings`.
pub fn counts(corpus: &Corpus, settings: &Settings) -> Result<CsMat<f64>> {
    count_corpus(corpus, &count_config(settings))
}

/// The matrix `settings.input` of the counts `x` (plus the PSD fix if asked).
pub fn transform(x: &CsMat<f64>, settings: &Settings) -> Result<CsMat<f64>> {
    let base = settings.log_base;
    let with_cds = |c: PmiConfig| match settings.cds {
        Some(a) => c.with_cds(a),
        None => c,
    };
    let m = match settings.input {
        Input::Counts => x.clone(),
        Input::Sqrt => sqrt_counts(x)?,
        Input::Log => log1p_counts(x, base)?,
        Input::Ppmi => pmi(x, &Marginals::of(x), &with_cds(PmiConfig::ppmi(base)))?,
        Input::Sppmi { k } => pmi(x, &Marginals::of(x), &with_cds(PmiConfig::sppmi(k, base)))?,
        Input::Thresholded { tau } => pmi(
            x,
            &Marginals::of(x),
            &with_cds(PmiConfig::thresholded(tau, base)),
        )?,
        Input::ShiftedThreshold { tau } => {
            // max(PMI − τ, 0): the SPPMI kernel with a negative shift τ.
            let config = PmiConfig {
                shift: tau,
                ..PmiConfig::ppmi(base)
            };
            pmi(x, &Marginals::of(x), &with_cds(config))?
        }
    };
    Ok(if settings.psd_fix { psd_fix(&m) } else { m })
}

/// Sets each diagonal entry to the sum of the absolute off-diagonal values
/// of its row (docs/methods/spectral.md, "Our choices where the thesis is
/// silent or ambiguous": the thesis omits the absolute values):
/// a symmetric diagonally dominant matrix with a non-negative diagonal is
/// positive semi-definite.
pub fn psd_fix(m: &CsMat<f64>) -> CsMat<f64> {
    let m = if m.is_csr() { m.clone() } else { m.to_csr() };
    let mut t = TriMat::with_capacity(m.shape(), m.nnz() + m.rows());
    for (i, row) in m.outer_iterator().enumerate() {
        let mut off = 0.0;
        for (j, &v) in row.iter() {
            if j != i {
                off += v.abs();
                t.add_triplet(i, j, v);
            }
        }
        if off > 0.0 {
            t.add_triplet(i, i, off);
        }
    }
    t.to_csr()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn psd_fix_replaces_the_diagonal() {
        // [[5, -1, 2], [-1, 0, 0], [2, 0, 0]] → diag (3, 1, 2)
        let mut t = TriMat::new((3, 3));
        for &(i, j, v) in &[
            (0, 0, 5.0),
            (0, 1, -1.0),
            (0, 2, 2.0),
            (1, 0, -1.0),
            (2, 0, 2.0),
        ] {
            t.add_triplet(i, j, v);
        }
        let m: CsMat<f64> = t.to_csr();
        let f = psd_fix(&m);
        let d = f.to_dense();
        assert_eq!(d[[0, 0]], 3.0);
        assert_eq!(d[[1, 1]], 1.0);
        assert_eq!(d[[2, 2]], 2.0);
        assert_eq!(d[[0, 1]], -1.0);
        assert_eq!(d[[2, 0]], 2.0);
    }
}
