//! PSDVec (Li, Zhu & Miao): a weighted low-rank positive semidefinite
//! factorisation of a smoothed PMI matrix, `--algo psdvec`; the equations and
//! our choices are written out in `docs/methods/psdvec.md`.
//!
//! - Input ([`input`], all from [`crate::cooc`]): directional bigram counts
//!   `x_ij` (word `i` within the `window` words before word `j`), unigram
//!   probabilities, the Jelinek–Mercer target
//!   `G*_ij = log P̃(j|i) − log u_j` and the weights
//!   `f_ij = min(√x_ij / C_cut, 1)` (0 on the diagonal and on absent bigrams).
//! - Core words (the `core` most frequent): Algorithm 1, block coordinate
//!   descent `G_t = W∘G* + (1 − W)∘X_{t−1}`, `X_t` = the nearest rank-`N`
//!   PSD matrix of `(G_t + G_tᵀ)/2` ([`core`]). Since `W` is zero off the
//!   bigram pattern, `G_t` is "sparse + low rank" and is never stored dense:
//!   the top eigenpairs come from our block Lanczos on that operator
//!   ([`operator`]).
//! - Noncore words: weighted ridge regression against the fixed core
//!   vectors, `block_words` words per step, Tikhonov `μ` by frequency band
//!   ([`ridge`]).
//! - Reported: the weighted residual after every step (core iteration or
//!   noncore block) and the model's own held-out perplexity, eq. 8
//!   normalised over the vocabulary ([`heldout`]), as `model ppl`.
//! - Numbers: `f64` throughout the solve, `f32` output; every parallel sum
//!   is added in a fixed order, so a run is reproducible for a given seed
//!   whatever the thread count.

pub mod core;
pub mod heldout;
pub mod input;
pub mod operator;
pub mod params;
pub mod ridge;
pub mod trainer;

#[cfg(test)]
mod tests;

use std::time::Instant;

pub use params::*;
pub use trainer::PsdvecTrainer;

use crate::train::{Method, TrainInput, Trainer};
use crate::Result;

/// The registry entry.
pub static PSDVEC: Method = Method {
    name: "psdvec",
    summary: "weighted low-rank PSD factorisation of a smoothed PMI matrix, core words by BCD, the rest by ridge regression (Li, Zhu & Miao)",
    schema: SCHEMA,
    dimension: Some("dim"),
    build,
};

fn build(input: &TrainInput, log: &mut dyn FnMut(String)) -> Result<Box<dyn Trainer>> {
    let settings = Settings::from_params(&input.params);
    let t = Instant::now();
    let counts = input
        .counts
        .counts(&input.corpus, &input::count_config(&settings))?;
    let stats = input::Statistics::new(&counts, input.corpus.vocab().counts(), &settings)?;
    drop(counts);
    log(format!(
        "psdvec: {} words ({} core), left window {}, {} bigram cells, C_cut = sqrt({:.0}), kappa {}, in {:.1}s",
        stats.n(),
        stats.core(),
        settings.window,
        stats.nnz(),
        stats.c_cut * stats.c_cut,
        settings.kappa,
        t.elapsed().as_secs_f64()
    ));
    let heldout = heldout::Heldout::new(&input.corpus, &settings, stats.n())?;
    match &heldout {
        Some(h) => log(format!(
            "psdvec: model perplexity on {} held-out tokens (eq. 8 with the unigram prior: it starts at the unigram's; above it, the unfitted diagonal ‖v_w‖² dominates); the engine's ppl has no frequency prior and may rise as rare words get vectors (docs/methods/psdvec.md)",
            h.len()
        )),
        None => log("psdvec: no held-out tokens: no model perplexity".into()),
    }
    let mut index = input.corpus.vocab().index().clone();
    index.truncate(stats.n());
    let trainer = PsdvecTrainer::new(settings, index, input.corpus.vocab().len(), stats, heldout)?;
    log(trainer.describe());
    Ok(Box::new(trainer))
}
