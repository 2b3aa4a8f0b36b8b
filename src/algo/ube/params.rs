//! `ube`'s hyperparameters, declared once, and the settings a run
//! reads from them.

use crate::geometry::ube::options::{COVERAGE, ITERS, K_MAX, LR, MIN_K, UPDATE};
use crate::geometry::ube::Update;
use crate::schema::{bind_params, ParamSpec};

/// Hyperparameters of `ube`.
pub static SCHEMA: &[ParamSpec] = &[
    ParamSpec::int(
        "dim",
        2,
        2000,
        50,
        "dimension of the sphere's space (the thesis: about 50 for word vectors)",
    ),
    K_MAX,
    COVERAGE,
    ITERS,
    LR,
    UPDATE,
    MIN_K,
    ParamSpec::int(
        "window",
        1,
        255,
        5,
        "symmetric context window of the counts",
    ),
    ParamSpec::int(
        "max_vocab",
        3,
        100_000,
        2000,
        "embed the N most frequent words (rows and contexts; dense N x N rows)",
    ),
];

bind_params! {
    /// The values of [`SCHEMA`], a field per entry.
    #[derive(Debug, Clone, Copy)]
    pub(super) struct Values for SCHEMA {
        dim: usize,
        k_max: usize,
        coverage: f64,
        iters: usize,
        lr: f64,
        update: Update,
        min_k: usize,
        window: usize,
        max_vocab: usize,
    }
}
