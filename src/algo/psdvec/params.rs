//! `psdvec`'s hyperparameters, declared once, and the settings a run
//! reads from them.

use crate::schema::{bind_params, CorpusSize, ParamSpec};

/// The hyperparameters (paper or authors' code defaults; our choices are in
/// `docs/methods/psdvec.md`).
pub static SCHEMA: &[ParamSpec] = &[
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

bind_params! {
    /// The validated settings of one run.
    #[derive(Debug, Clone, Copy, PartialEq)]
    pub struct Settings for SCHEMA {
        /// Rank `N`.
        dim: usize,
        /// Left window `c`.
        window: usize,
        /// Core words requested.
        core: usize,
        /// Only the most frequent words, or all.
        max_vocab: Option<usize>,
        /// BCD iterations `T`.
        iterations: usize,
        /// Rank annealing.
        anneal: bool,
        /// Jelinek–Mercer weight.
        kappa: f64,
        /// Fraction of bigrams cut at weight 1.
        cut_quantile: f64,
        /// Tikhonov `μ` of the first noncore band.
        mu: f64,
        /// Noncore words per step.
        block_words: usize,
        /// Lanczos tolerance.
        eig_tol: f64,
        /// Memory budget in MiB, or `None` for half the RAM.
        memory_mb: Option<usize>,
        /// Held-out tokens for the model perplexity.
        ppl_tokens: usize,
    }
}

impl Settings {
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
