//! The input similarity `S` and its held-out counterpart, both from
//! [`crate::cooc`]: symmetric unweighted window counts over the most frequent
//! words, the diagonal removed. The training `S` is scaled so that `Σ S = N`
//! (the updates are invariant to the scale; this one makes `D(S ‖ Ŝ)` read
//! per word).

use sprs::CsMat;

use super::Settings;
use crate::cooc::{
    count_batch, count_corpus, scaled_to_sum, without_diagonal, CountConfig, Weighting, Window,
};
use crate::corpus::{Corpus, Split};
use crate::{Error, Result};

/// The counting of both matrices.
pub fn count_config(settings: &Settings) -> CountConfig {
    CountConfig {
        window: Window::symmetric(settings.window, Weighting::Uniform),
        max_vocab: settings.max_vocab,
    }
}

/// `S` over the training split (`n × n`, `n = min(|V|, max_vocab)`).
pub fn similarity(corpus: &Corpus, settings: &Settings) -> Result<CsMat<f64>> {
    similarity_of(&count_corpus(corpus, &count_config(settings))?)
}

/// `S` from the counts of the training split, made with [`count_config`].
pub fn similarity_of(counts: &CsMat<f64>) -> Result<CsMat<f64>> {
    let x = without_diagonal(counts)?;
    if x.nnz() == 0 {
        return Err(Error::param(
            "corpus",
            "no two different words co-occur within the window: nothing for dsnmf to fit",
        ));
    }
    scaled_to_sum(&x, x.rows() as f64)
}

/// Raw window counts of the held-out split over the same `n` words (the
/// diagonal removed), or `None` when the split holds no pair.
pub fn heldout_similarity(
    corpus: &Corpus,
    settings: &Settings,
    n: usize,
) -> Result<Option<CsMat<f64>>> {
    let heldout = corpus.encode(Split::Heldout)?;
    let config = CountConfig {
        max_vocab: Some(n),
        ..count_config(settings)
    };
    let x = without_diagonal(&count_batch(&heldout, corpus.vocab().len(), &config)?)?;
    Ok((x.nnz() > 0).then_some(x))
}
