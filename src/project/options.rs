//! The projection options, declared once like a method's hyperparameters:
//! the workbench's Projection form comes from [`OPTIONS`], and the command
//! line's `project` takes its defaults from the same constants (its flags
//! add file-only choices: word lists, metric, image size).

use crate::train::ParamSpec;

/// The method projected with unless one is chosen.
pub const METHOD_DEFAULT: &str = "tsne";

/// Words projected by default (the most frequent).
pub const COUNT_DEFAULT: usize = 500;

/// Seed of the initialisation by default.
pub const SEED_DEFAULT: u64 = 1;

/// The projection options, declared like hyperparameters (t-SNE's
/// perplexity is t-SNE's own declaration).
pub static OPTIONS: &[ParamSpec] = &[
    ParamSpec::choice("method", &["tsne", "pca", "isomap", "lle", "laplacian", "ube"], METHOD_DEFAULT, "t-SNE keeps neighbourhoods; PCA the largest variance; isomap/lle/laplacian unroll a kNN graph; ube: a sphere (equal-area map)"),
    ParamSpec::int("count", 4, 20_000, COUNT_DEFAULT as i64, "words projected: the most frequent, or the neighbours of the focus word"),
    ParamSpec::int("labels", 0, 500, 40, "words labelled in the preview and the plot (most frequent first)"),
    crate::project::tsne::PERPLEXITY,
    crate::project::manifold::NEIGHBOURS,
    ParamSpec::int("seed", 0, i64::MAX, SEED_DEFAULT as i64, "seed of the t-SNE initialisation"),
];
