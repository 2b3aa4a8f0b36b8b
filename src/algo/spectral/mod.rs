//! The spectral count-based family (Soleimani ch.4; docs/methods/spectral.md):
//!
//! - `svd`: truncated SVD of counts, `√counts`, `log(1 + counts)`, PPMI or
//!   shifted PPMI (optionally context-smoothed), vectors `U Σ^p`, `p` in
//!   {0, 0.5, 1} (Table 4.1's SVD, SVD-S, SVD-L, PPMI-SVD-U/U_s/US, SPPMI-SVD);
//! - `eigenword`: eigenvectors of the `d` algebraically largest eigenvalues
//!   of the symmetric thresholded PMI matrix `M^τ` (PMI where PMI > τ, else
//!   0), unweighted — the maximiser of `Tr(Wᵀ M^τ W)` over orthonormal `W`;
//! - `svd-ns`: the `d` leading left singular vectors of `M^τ`, unweighted
//!   (equal to EigenWord unless a negative eigenvalue outweighs `λ_d`);
//!   `pmi_shift` reproduces the released code (cut at τ, shift by −τ).
//!
//! Shared pipeline and defaults: symmetric window of 5 with uniform weights
//! (the authors' pipeline used GloVe's cooccur with window 10 and 1/d
//! weights: `window=10 weighting=harmonic`), the corpus' vocabulary
//! (min-count from the corpus options), `max_vocab` to keep only the most
//! frequent words, PMI in base 2 (so τ = −2.5 is in bits, as in the thesis),
//! no context smoothing for EigenWord/SVD-NS (ch.4 uses none). Counting and
//! every transform come from [`crate::cooc`]; the solver from
//! [`crate::linalg`] (block Lanczos, relative residual 1e-6).
//!
//! Progress: each step is one solver block step; the loss is the worst
//! relative residual of the `d` wanted pairs at the last restart. Held-out
//! perplexity scores `s(w, c)` with the rank-`d` model of the matrix itself:
//! `U Θ Uᵀ` (EigenWord) or `U Σ Vᵀ` (SVDs), available from the first restart on.

pub mod matrix;
pub mod params;
pub mod shared;
pub mod trainer;

use std::path::Path;
use std::time::Instant;

pub use params::{Input, Settings, Target, EIGENWORD_SCHEMA, SVD_NS_SCHEMA, SVD_SCHEMA};
pub use trainer::{Solver, SpectralTrainer};

use crate::cooc::{LogBase, Product, Summary};
use crate::linalg::{Csr, Lanczos, SymmetricCsr, TruncatedSvd};
use crate::train::{Method, TrainInput, Trainer};
use crate::{Error, Result};

/// Truncated SVD baselines.
pub static SVD: Method = Method {
    name: "svd",
    summary: "truncated SVD of counts, sqrt, log, PPMI or SPPMI (vectors U Sigma^p)",
    schema: SVD_SCHEMA,
    dimension: Some("dim"),
    build: build_svd,
};

/// EigenWord.
pub static EIGENWORD: Method = Method {
    name: "eigenword",
    summary: "EigenWord: top algebraic eigenvectors of the thresholded PMI matrix (Soleimani ch.4)",
    schema: EIGENWORD_SCHEMA,
    dimension: Some("dim"),
    build: build_eigenword,
};

/// SVD-NS.
pub static SVD_NS: Method = Method {
    name: "svd-ns",
    summary: "SVD-NS: leading left singular vectors of the thresholded PMI matrix (Soleimani ch.4)",
    schema: SVD_NS_SCHEMA,
    dimension: Some("dim"),
    build: build_svd_ns,
};

fn build_svd(input: &TrainInput, log: &mut dyn FnMut(String)) -> Result<Box<dyn Trainer>> {
    build("svd", Settings::svd(&input.params), input, log)
}

fn build_eigenword(input: &TrainInput, log: &mut dyn FnMut(String)) -> Result<Box<dyn Trainer>> {
    build("eigenword", Settings::eigenword(&input.params), input, log)
}

fn build_svd_ns(input: &TrainInput, log: &mut dyn FnMut(String)) -> Result<Box<dyn Trainer>> {
    build("svd-ns", Settings::svd_ns(&input.params), input, log)
}

/// Fails, in the user's terms (`dim`, the vocabulary, `max_vocab`), unless
/// `dim` is below the number of words the matrix will have: the solver can
/// compute at most one vector fewer than its order.
fn check_dim(dim: usize, vocab: usize, max_vocab: Option<usize>, corpus: &Path) -> Result<()> {
    let n = max_vocab.map_or(vocab, |m| m.min(vocab));
    if n < 2 {
        let limit = match max_vocab {
            Some(m) if m < vocab => format!(" (max_vocab {m})"),
            _ => String::new(),
        };
        return Err(Error::format(
            corpus,
            format!(
                "{n} word{} in the vocabulary{limit}; a spectral method needs at least 2",
                if n == 1 { "" } else { "s" }
            ),
        ));
    }
    if dim < n {
        return Ok(());
    }
    let words = match max_vocab {
        Some(m) if m < vocab => format!("the {m} words kept by max_vocab (of {vocab})"),
        _ => format!("a vocabulary of {vocab} words"),
    };
    Err(Error::param(
        "dim",
        format!(
            "{dim} dimensions from {words}: dim must be smaller than the number of words \
             (at most {})",
            n - 1
        ),
    ))
}

/// Counts, transforms and prepares the solver for `settings`.
pub fn build(
    name: &str,
    settings: Settings,
    input: &TrainInput,
    log: &mut dyn FnMut(String),
) -> Result<Box<dyn Trainer>> {
    check_dim(
        settings.dim,
        input.corpus.vocab().len(),
        settings.max_vocab,
        input.corpus.path(),
    )?;
    let vocab_len = input.corpus.vocab().len();
    let key = shared::key(&settings, input.seed, input.threads);
    let claim = match input
        .counts
        .product::<shared::SharedSolve>(&input.corpus, &key)
    {
        Product::Ready(solve) => {
            log(format!(
                "{name}: reusing the factorisation an earlier run made of the same matrix \
                 (same counts, transform, dim and solver settings)"
            ));
            let mut index = input.corpus.vocab().index().clone();
            index.truncate(solve.vectors.nrows());
            let solver = Solver::Shared { solve, at: 0 };
            return Ok(Box::new(SpectralTrainer::new(
                solver, settings, index, vocab_len,
            )));
        }
        Product::Make(claim) => claim,
    };
    let t = Instant::now();
    let (m, reused) = matrix::transformed(input, &settings)?;
    let n = m.0.rows();
    let made = if reused {
        "reused from an earlier run".to_string()
    } else {
        format!("in {:.1}s", t.elapsed().as_secs_f64())
    };
    log(format!(
        "{name}: {n} words, window {} {:?}, {} {made}: {}",
        settings.window,
        settings.weighting,
        describe(&settings),
        Summary::of(&m.0)
    ));
    let a = Csr::from_sprs(&m.0)?;
    drop(m);
    let config = settings.eigen_config(input.seed);
    let (solver, sizes) = match settings.target {
        params::Target::Eigen => {
            let l = Lanczos::new(SymmetricCsr::new(a)?, config)?;
            let sizes = l.sizes();
            (Solver::Eigen(l), sizes)
        }
        params::Target::Svd { .. } => {
            let s = TruncatedSvd::new(a, config)?;
            let sizes = s.sizes();
            let route = if s.is_symmetric() {
                "symmetric: eigenpairs of largest magnitude"
            } else {
                "not symmetric: eigenpairs of A A^T"
            };
            log(format!("{name}: {route}"));
            (Solver::Svd(s), sizes)
        }
    };
    log(format!(
        "{name}: block Lanczos, d = {}, block {}, basis {}, keep {}, tol {:e}",
        settings.dim, settings.block, sizes.0, sizes.1, settings.tol
    ));
    let mut index = input.corpus.vocab().index().clone();
    index.truncate(n);
    Ok(Box::new(
        SpectralTrainer::new(solver, settings, index, vocab_len).offering(claim),
    ))
}

/// A short name of the factorised matrix.
fn describe(s: &Settings) -> String {
    let unit = match s.log_base {
        LogBase::Two => "bits",
        LogBase::E => "nats",
    };
    let cds = s.cds.map(|a| format!(", cds {a}")).unwrap_or_default();
    let m = match s.input {
        Input::Counts => "counts".to_string(),
        Input::Sqrt => "sqrt counts".to_string(),
        Input::Log => "log(1 + counts)".to_string(),
        Input::Ppmi => format!("PPMI{cds}"),
        Input::Sppmi { k } => format!("SPPMI k = {k}{cds}"),
        Input::Thresholded { tau } => format!("M^tau, tau = {tau} {unit}{cds}"),
        Input::ShiftedThreshold { tau } => format!("PMI > {tau} {unit} shifted by {}{cds}", -tau),
    };
    if s.psd_fix {
        format!("{m} with PSD diagonal")
    } else {
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dim_is_checked_against_the_vocabulary_in_the_users_terms() {
        let c = Path::new("c.txt");
        assert!(check_dim(7, 8, None, c).is_ok());
        let e = check_dim(8, 8, None, c).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid value for dim: 8 dimensions from a vocabulary of 8 words: \
             dim must be smaller than the number of words (at most 7)"
        );
        let e = check_dim(5, 100, Some(5), c).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid value for dim: 5 dimensions from the 5 words kept by max_vocab (of 100): \
             dim must be smaller than the number of words (at most 4)"
        );
        let e = check_dim(1, 1, None, c).unwrap_err();
        assert_eq!(
            e.to_string(),
            "c.txt: 1 word in the vocabulary; a spectral method needs at least 2"
        );
        let e = check_dim(1, 9, Some(1), c).unwrap_err();
        assert_eq!(
            e.to_string(),
            "c.txt: 1 word in the vocabulary (max_vocab 1); a spectral method needs at least 2"
        );
    }
}
