//! The projection options, declared once like a method's hyperparameters:
//! the workbench's Projection form comes from [`OPTIONS`], and the command
//! line's `project` takes its defaults from the same constants (its flags
//! add file-only choices: word lists, metric, image size). The methods and
//! which of their options the form shows come from the projection registry
//! ([`crate::project::registry`]).

use crate::project::registry::{self, NAMES, PROJECTIONS};
use crate::schema::{bind_params, ParamSpec, Params};
use crate::Result;

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
    ParamSpec::choice("method", &NAMES, METHOD_DEFAULT, "t-SNE keeps neighbourhoods; PCA the largest variance; isomap/lle/laplacian unroll a kNN graph; ube: a sphere (equal-area map); umap: a fuzzy kNN graph laid out by SGD"),
    ParamSpec::int("dims", 2, 3, 2, "2, or 3 for a cloud turned with H/J/K/L (the Projector's 3-D view)"),
    ParamSpec::int("count", 4, 20_000, COUNT_DEFAULT as i64, "words projected: the most frequent, or the neighbours of the focus word"),
    ParamSpec::int("labels", 0, 500, 40, "words labelled in the preview and the plot (most frequent first)"),
    crate::project::tsne::PERPLEXITY,
    crate::project::manifold::NEIGHBOURS,
    ParamSpec::int("seed", 0, i64::MAX, SEED_DEFAULT as i64, "seed of every random choice (initialisation, colour clusters)"),
    crate::geometry::ube::options::K_MAX,
    crate::geometry::ube::options::COVERAGE,
    crate::geometry::ube::options::ITERS,
    crate::geometry::ube::options::LR,
    crate::geometry::ube::options::UPDATE,
    crate::geometry::ube::options::MIN_K,
    crate::project::umap::N_NEIGHBORS,
    crate::project::umap::MIN_DIST,
    crate::project::umap::SPREAD,
    crate::project::umap::N_EPOCHS,
    crate::geometry::knn::KNN,
];

/// Whether `method` reads the option `name`: the Projection form shows, and
/// a plot's record keeps, only those. An option of some projection's schema
/// is read by the projections that declare it; the others by every method.
pub fn applies(name: &str, method: &str) -> bool {
    if name == "dims" {
        return registry::find(method).is_ok_and(lays_out_3d);
    }
    let declares = |p: &registry::Projection| p.schema.iter().any(|s| s.name == name);
    if PROJECTIONS.iter().any(declares) {
        registry::find(method).is_ok_and(declares)
    } else {
        true
    }
}

/// Whether a projection lays out in 2-D by default and can also in 3-D (a
/// sphere-only method such as UBE is always 3-D and has no choice).
fn lays_out_3d(p: &registry::Projection) -> bool {
    p.default_dims == 2 && p.max_dims >= 3
}

/// The dimensions `p` lays out in when `asked` for: the asked ones where
/// the method has the choice (within its range), else its own.
pub fn output_dims(p: &registry::Projection, asked: usize) -> usize {
    if lays_out_3d(p) {
        asked.clamp(2, p.max_dims)
    } else {
        p.default_dims
    }
}

/// The Projection form's values, typed and validated.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The method.
    pub projection: &'static registry::Projection,
    /// Its own options: those of the form it declares, defaults for the rest.
    pub params: Params,
    /// Words projected.
    pub count: usize,
    /// Words labelled.
    pub labels: usize,
    /// Seed of every random choice.
    pub seed: u64,
    /// Output dimensions: the form's `dims` where the method has the
    /// choice, else its default.
    pub dims: usize,
}

/// Types the form's `(name, text)` values: every one is checked against
/// [`OPTIONS`], and the chosen method's own options against its schema.
pub fn settings<'a>(assignments: &[(&'a str, &'a str)]) -> Result<Settings> {
    let all = Values::from_params(&Params::parse(
        OPTIONS,
        "project",
        assignments.iter().copied(),
    )?);
    let projection = registry::find(&all.method)?;
    let own = assignments
        .iter()
        .copied()
        .filter(|(n, _)| projection.schema.iter().any(|s| s.name == *n));
    let dims = output_dims(projection, all.dims);
    Ok(Settings {
        params: Params::parse(projection.schema, projection.name, own)?,
        dims,
        projection,
        count: all.count,
        labels: all.labels,
        seed: all.seed,
    })
}

bind_params! {
    /// The values of [`OPTIONS`], a field per entry (the methods' own
    /// options are read again from their schemas, by [`settings`]).
    #[derive(Debug, Clone)]
    struct Values for OPTIONS {
        method: String,
        dims: usize,
        count: usize,
        labels: usize,
        perplexity: f64,
        k: usize,
        seed: u64,
        k_max: usize,
        coverage: f64,
        iters: usize,
        lr: f64,
        update: crate::geometry::ube::Update,
        min_k: usize,
        n_neighbors: usize,
        min_dist: f64,
        spread: f64,
        n_epochs: usize,
        knn: crate::geometry::knn::Search,
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
        assert_eq!(shown("pca"), ["method", "dims", "count", "labels", "seed"]);
        assert_eq!(
            shown("tsne"),
            [
                "method",
                "dims",
                "count",
                "labels",
                "perplexity",
                "seed",
                "knn"
            ]
        );
        assert_eq!(
            shown("lle"),
            ["method", "count", "labels", "k", "seed", "knn"]
        );
        assert_eq!(
            shown("ube"),
            [
                "method", "count", "labels", "seed", "k_max", "coverage", "iters", "lr", "update",
                "min_k", "knn"
            ]
        );
        assert_eq!(
            shown("umap"),
            [
                "method",
                "dims",
                "count",
                "labels",
                "seed",
                "n_neighbors",
                "min_dist",
                "spread",
                "n_epochs",
                "knn"
            ]
        );
    }

    #[test]
    fn settings_are_typed_and_the_method_reads_its_own_options() {
        let s = settings(&[
            ("method", "tsne"),
            ("count", "12"),
            ("perplexity", "7"),
            ("k", "3"),
        ])
        .unwrap();
        assert_eq!(s.projection.name, "tsne");
        assert_eq!((s.count, s.labels, s.seed), (12, 40, SEED_DEFAULT));
        assert_eq!(s.params.f64("perplexity"), 7.0);
        assert_eq!(s.params.f64("theta"), 0.5, "a default of the rest");
        let s = settings(&[("method", "lle"), ("k", "3")]).unwrap();
        assert_eq!(s.params.usize("k"), 3);
        assert_eq!(s.dims, 2, "the graph methods lay out in 2-D only");
        let s = settings(&[("method", "pca"), ("dims", "3")]).unwrap();
        assert_eq!(s.dims, 3);
        let s = settings(&[("method", "ube"), ("dims", "2")]).unwrap();
        assert_eq!(s.dims, 3, "UBE is a sphere whatever the form says");
        assert!(settings(&[("count", "2")])
            .unwrap_err()
            .to_string()
            .contains("count"));
        use crate::geometry::knn::Search;
        let s = settings(&[("method", "umap"), ("knn", "approximate")]).unwrap();
        let umap = crate::project::umap::Settings::from_params(&s.params, 1).unwrap();
        assert_eq!(umap.knn, Search::Approximate);
        let s = settings(&[("method", "tsne"), ("knn", "exact")]).unwrap();
        let tsne = crate::project::tsne::TsneConfig::from_params(&s.params, 1);
        assert_eq!(tsne.knn, Search::Exact);
        let s = settings(&[("method", "isomap")]).unwrap();
        let graph =
            crate::project::manifold::config(crate::geometry::manifold::Kind::Isomap, &s.params, 1);
        assert_eq!(graph.knn, Search::Auto, "the default");
        let s = settings(&[("method", "ube"), ("knn", "approximate")]).unwrap();
        assert_eq!(
            crate::project::ube::config(&s.params, 3, 1).knn,
            Search::Approximate
        );
        let e = settings(&[("method", "tsne"), ("knn", "fast")]).unwrap_err();
        assert!(e.to_string().contains("knn"), "{e}");
    }
}
