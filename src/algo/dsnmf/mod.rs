//! Word embedding by low-rank doubly stochastic matrix decomposition (Sedov &
//! Yang), `--algo dsnmf`; the equations and our choices are written out in
//! `docs/methods/dsnmf.md`.
//!
//! - Input `S`: symmetric unweighted window counts (default 8 words each
//!   side) over the `max_vocab` most frequent words (default 20,000), the
//!   diagonal removed, scaled so that `Σ S = N` (the number of words); built
//!   once by [`input`] from [`crate::cooc`].
//! - Model: `W ≥ 0` (`N × r`), row `i` = P(topic | word `i`);
//!   `Ŝ_ij = Σ_k W_ik W_jk / s_k` with `s_k = Σ_v W_vk`, a word → topic →
//!   word random walk, symmetric and doubly stochastic once the rows of `W`
//!   sum to 1.
//! - Objective: `D(S ‖ Ŝ) = Σ (S ln(S/Ŝ) − S + Ŝ)`, evaluated on the
//!   non-zeros of `S` only (`Σ_ij Ŝ_ij = Σ_k s_k`), reported every step.
//! - Optimiser: Algorithm 1, multiplicative updates with the relaxed simplex
//!   constraint ([`model`]); one step is one iteration over all rows, rows in
//!   parallel. The run ends after `iterations` steps or when the relative
//!   decrease of `D` falls below `tol`.
//! - Perplexity: the engine's calibrated one scores `s(w, c) = Ŝ_wc`; the
//!   model's own is the held-out co-occurrence perplexity of the rows of `Ŝ`
//!   ([`heldout`]), reported as `model ppl`.
//! - Numbers: `W` is stored as `f32`, every sum is accumulated in `f64` over
//!   fixed row blocks, so a run is bit-for-bit reproducible for a given seed
//!   whatever the thread count.

pub mod heldout;
pub mod input;
pub mod model;
pub mod params;
pub mod trainer;
pub mod walk;

#[cfg(test)]
mod tests;

use std::time::Instant;

pub use model::Model;
pub use params::*;
pub use trainer::DsnmfTrainer;

use crate::train::{Method, TrainInput, Trainer};
use crate::Result;

/// The registry entry.
pub static DSNMF: Method = Method {
    name: "dsnmf",
    summary:
        "low-rank doubly stochastic NMF of window counts: words on a topic simplex (Sedov & Yang)",
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
    let s = input::similarity_of(&counts)?;
    drop(counts);
    let n = s.rows();
    log(format!(
        "dsnmf: S over {n} words, window {} (uniform, no diagonal), {} non-zeros, scaled to sum {n}, in {:.1}s",
        settings.window,
        s.nnz(),
        t.elapsed().as_secs_f64()
    ));
    let test = input::heldout_similarity(&input.corpus, &settings, n)?;
    match &test {
        Some(m) => log(format!(
            "dsnmf: model perplexity on {} held-out co-occurrence cells",
            m.nnz()
        )),
        None => log("dsnmf: no held-out co-occurrences: no model perplexity".into()),
    }
    let mut index = input.corpus.vocab().index().clone();
    index.truncate(n);
    let trainer = DsnmfTrainer::new(
        settings,
        index,
        input.corpus.vocab().len(),
        &s,
        test.as_ref(),
        input.seed,
    )?;
    log(format!(
        "dsnmf: r = {}, D(S||S_hat) at the start {:.6e}",
        settings.dim,
        trainer.loss()
    ));
    Ok(Box::new(trainer))
}
