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
pub mod ridge;
pub mod trainer;

#[cfg(test)]
mod tests;

use std::time::Instant;

pub use trainer::PsdvecTrainer;

use crate::schema::{CorpusSize, ParamSpec, Params};
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

/// The hyperparameters (paper or authors' code defaults; our choices are in
/// `docs/methods/psdvec.md`).
pub const SCHEMA: &[ParamSpec] = &[
    ParamSpec::int("dim", 1, 10_000, 500, "rank N of the PSD approximation (the vector dimension; authors' code: 500)"),
    ParamSpec::int("window", 1, 255, 3, "left window c: x_ij counts word i within the c words before word j (code: 3)"),
    ParamSpec::int("core", 2, 1_000_000, 25_000, "core words factorised by Algorithm 1, the rest by regression (paper: 25,000 of 180,000; capped at the vocabulary: at 25,000 a vocabulary below 25,000 words is all core, and the regression and mu never run)")
        .auto("half the vocabulary, at most 25,000 (the paper's)", half_the_vocabulary),
    ParamSpec::int("max_vocab", 0, 10_000_000, 180_000, "only the N most frequent words (paper: 180,000; 0 = the whole vocabulary)"),
    ParamSpec::int("iterations", 1, 100, 4, "BCD iterations T of Algorithm 1 (code: 4)"),
    ParamSpec::flag("anneal", true, "rank N + T - 1 at the first iteration, one less at each next, N at the last (code)"),
    ParamSpec::float("kappa", 1e-6, 0.999, 0.02, "Jelinek-Mercer smoothing weight (paper: 0.02, >= 0.04 degrades at 2B tokens; on text8-head 0.5 scores higher on SimLex and analogies, docs/methods/psdvec.md)"),
    ParamSpec::float("cut_quantile", 1e-9, 1.0, 0.0002, "fraction of the most frequent bigrams whose weight is cut at 1 (paper: 0.02%)"),
    ParamSpec::float("mu", 0.0, 1e6, 2.0, "Tikhonov mu of the first noncore band; x2 and x4 in the next two (paper: 2; 0 = unregularised; acts only when core < vocabulary)"),
    ParamSpec::int("block_words", 1, 10_000_000, 5000, "noncore words solved per step (bounds the memory of a step)"),
    ParamSpec::float("eig_tol", 1e-14, 0.5, 1e-6, "relative residual of the Lanczos eigenpairs in each PSD step"),
    ParamSpec::int("memory_mb", 0, 1 << 40, 0, "memory budget of the core solve in MiB (0 = half the machine's RAM)"),
    ParamSpec::int("ppl_tokens", 0, 10_000_000, 1000, "held-out tokens scored by the model's own perplexity (0 = none; each costs |V| x dim)"),
];

/// The default core size: the paper's 25,000 core words are 14% of its
/// 180,000-word vocabulary; on a vocabulary under 50,000 words (the bundled
/// text8-head has 22k) half of it is core, so both Algorithm 1 and the
/// regression of the noncore words run (with the paper's 25,000 every word
/// of such a corpus would be core and `mu` would never act).
fn half_the_vocabulary(size: CorpusSize) -> f64 {
    (size.vocab as f64 / 2.0).min(25_000.0)
}

/// The validated settings of one run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// Rank `N`.
    pub dim: usize,
    /// Left window `c`.
    pub window: usize,
    /// Core words requested.
    pub core: usize,
    /// Only the most frequent words, or all.
    pub max_vocab: Option<usize>,
    /// BCD iterations `T`.
    pub iterations: usize,
    /// Rank annealing.
    pub anneal: bool,
    /// Jelinek–Mercer weight.
    pub kappa: f64,
    /// Fraction of bigrams cut at weight 1.
    pub cut_quantile: f64,
    /// Tikhonov `μ` of the first noncore band.
    pub mu: f64,
    /// Noncore words per step.
    pub block_words: usize,
    /// Lanczos tolerance.
    pub eig_tol: f64,
    /// Memory budget in MiB, or `None` for half the RAM.
    pub memory_mb: Option<usize>,
    /// Held-out tokens for the model perplexity.
    pub ppl_tokens: usize,
}

impl Settings {
    /// Reads the settings from validated parameters of [`SCHEMA`].
    pub fn from_params(p: &Params) -> Settings {
        Settings {
            dim: p.usize("dim"),
            window: p.usize("window"),
            core: p.usize("core"),
            max_vocab: Some(p.usize("max_vocab")).filter(|&v| v > 0),
            iterations: p.usize("iterations"),
            anneal: p.bool("anneal"),
            kappa: p.f64("kappa"),
            cut_quantile: p.f64("cut_quantile"),
            mu: p.f64("mu"),
            block_words: p.usize("block_words"),
            eig_tol: p.f64("eig_tol"),
            memory_mb: Some(p.usize("memory_mb")).filter(|&v| v > 0),
            ppl_tokens: p.usize("ppl_tokens"),
        }
    }

    /// The rank of BCD iteration `t` (0-based): `N + T − 1 − t` when
    /// annealing, else `N`.
    pub fn rank_at(&self, t: usize) -> usize {
        if self.anneal {
            self.dim + self.iterations.saturating_sub(1 + t)
        } else {
            self.dim
        }
    }
}

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
