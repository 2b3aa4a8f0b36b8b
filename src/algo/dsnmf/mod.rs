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
pub mod trainer;
pub mod walk;

#[cfg(test)]
mod tests;

use std::time::Instant;

pub use model::Model;
pub use trainer::DsnmfTrainer;

use crate::schema::{CorpusSize, ParamSpec, Params};
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

/// The hyperparameters (defaults from the paper where it gives them, else
/// the choices in `docs/methods/dsnmf.md`).
pub const SCHEMA: &[ParamSpec] = &[
    ParamSpec::int(
        "dim",
        1,
        10_000,
        200,
        "number of topics r (the vector dimension; paper: 200)",
    ),
    ParamSpec::int(
        "window",
        1,
        255,
        8,
        "symmetric window, every pair counts 1 (paper: 8)",
    ),
    ParamSpec::int(
        "max_vocab",
        0,
        10_000_000,
        20_000,
        "only the N most frequent words (paper: 20,000; 0 = the whole vocabulary)",
    ),
    ParamSpec::int(
        "iterations",
        1,
        1_000_000,
        1000,
        "maximum iterations of Algorithm 1 (one step each); the default run on text8-head stops by tol after ~114 (about 3 CPU minutes)",
    ),
    ParamSpec::float(
        "tol",
        0.0,
        1.0,
        1e-6,
        "stop when D(S||S_hat) decreases by less than this fraction in an iteration (1e-6 on text8-head: ~880 iterations, ~16 min on 2 cores; auto: 5.1e-5 there, ~114)",
    )
    .live()
    .auto(
        "1e-6 from 100M training tokens up, 1e-6 x 100M / tokens below",
        tolerance_for,
    ),
];

/// The default tolerance: 1e-6 on a corpus of 100M tokens or more, larger
/// in proportion below. The counts of a small corpus are noisier and its
/// fit's last relative gains are far below that noise: on text8-head (1.95M
/// training tokens) the decrease per iteration falls to 5e-5 after about
/// 110 iterations and to 1e-6 only after about 880 (16 minutes on 2 cores),
/// so the default becomes 5.1e-5 there and the run converges in about 110.
fn tolerance_for(size: CorpusSize) -> f64 {
    1e-6 * (1e8 / size.tokens.max(1) as f64).max(1.0)
}

/// The validated settings of one run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// Number of topics `r`.
    pub dim: usize,
    /// Symmetric window size.
    pub window: usize,
    /// Only the most frequent words, or all.
    pub max_vocab: Option<usize>,
    /// Iteration budget.
    pub iterations: u64,
    /// Relative-decrease tolerance (live).
    pub tol: f64,
}

impl Settings {
    /// Reads the settings from validated parameters of [`SCHEMA`].
    pub fn from_params(p: &Params) -> Settings {
        Settings {
            dim: p.usize("dim"),
            window: p.usize("window"),
            max_vocab: Some(p.usize("max_vocab")).filter(|&v| v > 0),
            iterations: p.usize("iterations") as u64,
            tol: p.f64("tol"),
        }
    }
}

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
