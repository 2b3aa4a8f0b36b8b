//! `dsnmf`'s hyperparameters, declared once, and the settings a run
//! reads from them.

use crate::schema::{bind_params, CorpusSize, ParamSpec};

/// The hyperparameters (defaults from the paper where it gives them, else
/// the choices in `docs/methods/dsnmf.md`).
pub static SCHEMA: &[ParamSpec] = &[
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

bind_params! {
    /// The validated settings of one run, a field per entry of [`SCHEMA`].
    #[derive(Debug, Clone, Copy, PartialEq)]
    pub struct Settings for SCHEMA {
        /// Number of topics `r`.
        dim: usize,
        /// Symmetric window size.
        window: usize,
        /// Only the most frequent words, or all.
        max_vocab: Option<usize>,
        /// Iteration budget.
        iterations: u64,
        /// Relative-decrease tolerance (live).
        tol: f64,
    }
}
