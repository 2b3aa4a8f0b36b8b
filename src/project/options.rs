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
/// perplexity, the graph methods' `k` and UBE's options are those methods'
/// own declarations; [`applies`] says which method reads which).
pub static OPTIONS: &[ParamSpec] = &[
    ParamSpec::choice("method", &["tsne", "pca", "isomap", "lle", "laplacian", "ube"], METHOD_DEFAULT, "t-SNE keeps neighbourhoods; PCA the largest variance; isomap/lle/laplacian unroll a kNN graph; ube: a sphere (equal-area map)"),
    ParamSpec::int("count", 4, 20_000, COUNT_DEFAULT as i64, "words projected: the most frequent, or the neighbours of the focus word"),
    ParamSpec::int("labels", 0, 500, 40, "words labelled in the preview and the plot (most frequent first)"),
    crate::project::tsne::PERPLEXITY,
    crate::project::manifold::NEIGHBOURS,
    ParamSpec::int("seed", 0, i64::MAX, SEED_DEFAULT as i64, "seed of every random choice (initialisation, colour clusters)"),
    crate::project::ube::K_MAX,
    crate::project::ube::COVERAGE,
    crate::project::ube::ITERS,
    crate::project::ube::LR,
    crate::project::ube::UPDATE,
];

/// Whether `method` reads the option `name`: the Projection form shows, and
/// a plot's record keeps, only those.
pub fn applies(name: &str, method: &str) -> bool {
    if name == crate::project::tsne::PERPLEXITY.name {
        method == "tsne"
    } else if name == crate::project::manifold::NEIGHBOURS.name {
        crate::project::manifold::kind(method).is_some()
    } else if crate::project::ube::SCHEMA.iter().any(|s| s.name == name) {
        method == "ube"
    } else {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_method_reads_its_own_options_and_the_common_ones() {
        let shown = |m: &str| -> Vec<&str> {
            OPTIONS
                .iter()
                .map(|s| s.name)
                .filter(|n| applies(n, m))
                .collect()
        };
        assert_eq!(shown("pca"), ["method", "count", "labels", "seed"]);
        assert_eq!(
            shown("tsne"),
            ["method", "count", "labels", "perplexity", "seed"]
        );
        assert_eq!(shown("lle"), ["method", "count", "labels", "k", "seed"]);
        assert_eq!(
            shown("ube"),
            ["method", "count", "labels", "seed", "k_max", "coverage", "iters", "lr", "update"]
        );
    }
}
