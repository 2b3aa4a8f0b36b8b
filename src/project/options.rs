//! The projection options, declared once like a method's hyperparameters:
//! the workbench's Projection form comes from [`OPTIONS`], and the command
//! line's `project` takes its defaults from the same constants (its flags
//! add file-only choices: word lists, metric, image size).

use crate::train::{DefaultValue, Kind, ParamSpec};

/// The method projected with unless one is chosen.
pub const METHOD_DEFAULT: &str = "tsne";

/// Words projected by default (the most frequent).
pub const COUNT_DEFAULT: usize = 500;

/// Seed of the initialisation by default.
pub const SEED_DEFAULT: u64 = 1;

/// The projection options, declared like hyperparameters (t-SNE's
/// perplexity is t-SNE's own declaration).
pub static OPTIONS: &[ParamSpec] = &[
    ParamSpec {
        name: "method",
        kind: Kind::Choice(&["tsne", "pca", "isomap", "lle", "laplacian", "ube"]),
        default: DefaultValue::Choice(METHOD_DEFAULT),
        help: "t-SNE keeps neighbourhoods; PCA the largest variance; isomap/lle/laplacian unroll a kNN graph; ube: a sphere (equal-area map)",
        live: false,
    },
    ParamSpec {
        name: "count",
        kind: Kind::Int {
            min: 4,
            max: 20_000,
        },
        default: DefaultValue::Int(COUNT_DEFAULT as i64),
        help: "words projected: the most frequent, or the neighbours of the focus word",
        live: false,
    },
    ParamSpec {
        name: "labels",
        kind: Kind::Int { min: 0, max: 500 },
        default: DefaultValue::Int(40),
        help: "words labelled in the preview and the plot (most frequent first)",
        live: false,
    },
    crate::project::tsne::PERPLEXITY,
    crate::project::manifold::NEIGHBOURS,
    ParamSpec {
        name: "seed",
        kind: Kind::Int {
            min: 0,
            max: i64::MAX,
        },
        default: DefaultValue::Int(SEED_DEFAULT as i64),
        help: "seed of the t-SNE initialisation",
        live: false,
    },
];
