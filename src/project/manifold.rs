//! Isomap, LLE and Laplacian eigenmaps as 2-D projections of any embedding
//! ([`crate::manifold`]; docs/methods/manifold.md, "Projections"): their
//! options declared once in [`SCHEMA`] (the neighbour count is also a
//! workbench form field, [`NEIGHBOURS`]), and one run with progress.

use ndarray::Array2;

use crate::manifold::laplacian::SYMMETRISE;
use crate::manifold::{Config, Embedded, Embedder, Kind, Neighbourhood, Phase, Symmetrise};
use crate::train::{ParamSpec, Params};
use crate::{Error, Result};

/// Neighbours per point, declared once for [`SCHEMA`] and the workbench's
/// projection form.
pub const NEIGHBOURS: ParamSpec = ParamSpec::int(
    "k",
    1,
    10_000,
    10,
    "isomap/lle/laplacian: nearest neighbours per point in the graph",
);

/// The graph projections' options (`wordbench project --set name=value`).
pub static SCHEMA: &[ParamSpec] = &[
    NEIGHBOURS,
    ParamSpec::float(
        "epsilon",
        0.0,
        1e9,
        0.0,
        "neighbours within this distance instead of k (0 = use k)",
    ),
    ParamSpec::int(
        "landmarks",
        0,
        1_000_000,
        0,
        "isomap: shortest paths from this many random points only (0 = exact)",
    ),
    ParamSpec::float(
        "reg",
        1e-12,
        10.0,
        1e-3,
        "lle: regulariser of the local Gram matrix, times its trace",
    ),
    ParamSpec::float(
        "heat",
        0.0,
        1e9,
        0.0,
        "laplacian: heat-kernel width t (0 = unit weights on every edge)",
    ),
    SYMMETRISE,
    ParamSpec::int("basis", 0, 100_000, 0, "Lanczos basis size (0 = automatic)"),
];

/// The method named `name` (`isomap`, `lle`, `laplacian`), if it is one.
pub fn kind(name: &str) -> Option<Kind> {
    [Kind::Isomap, Kind::Lle, Kind::Laplacian]
        .into_iter()
        .find(|k| k.name() == name)
}

/// A 2-D run of `kind` from the options `p`.
pub fn config(kind: Kind, p: &Params, seed: u64) -> Config {
    let epsilon = p.f64("epsilon");
    Config {
        neighbourhood: if epsilon > 0.0 {
            Neighbourhood::Radius(epsilon)
        } else {
            Neighbourhood::Knn(p.usize("k"))
        },
        landmarks: p.usize("landmarks"),
        reg: p.f64("reg"),
        heat: p.f64("heat"),
        symmetrise: Symmetrise::from_name(p.choice("symmetrise")),
        basis: p.usize("basis"),
        seed,
        ..Config::new(kind, 2, p.usize("k"))
    }
}

/// A title for the plot: the method and its neighbourhood.
pub fn describe(config: &Config) -> String {
    let name = match config.kind {
        Kind::Isomap if config.landmarks > 0 => {
            format!("Isomap ({} landmarks)", config.landmarks)
        }
        Kind::Isomap => "Isomap".to_string(),
        Kind::Lle => "LLE".to_string(),
        Kind::Laplacian => "Laplacian eigenmaps".to_string(),
    };
    match config.neighbourhood {
        Neighbourhood::Knn(k) => format!("{name} (k = {k})"),
        Neighbourhood::Radius(r) => format!("{name} (epsilon = {r})"),
    }
}

/// Runs `config` on `vectors`, calling `progress(phase, loss)` after every
/// step and `note` with each log line.
pub fn run(
    vectors: Array2<f32>,
    config: Config,
    progress: &mut dyn FnMut(Phase, f64),
    note: &mut dyn FnMut(String),
) -> Result<Embedded> {
    if vectors.nrows() <= 3 {
        return Err(Error::param(
            "count",
            format!(
                "{} points; a graph projection needs at least 4",
                vectors.nrows()
            ),
        ));
    }
    let mut e = Embedder::new(vectors, config)?;
    while !e.is_done() {
        e.step()?;
        progress(e.phase(), e.loss());
        while let Some(line) = e.take_note() {
            note(line);
        }
    }
    e.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_name_the_methods_and_build_configs() {
        assert_eq!(kind("lle"), Some(Kind::Lle));
        assert_eq!(kind("tsne"), None);
        let p = Params::parse(SCHEMA, "isomap", [("k", "7"), ("landmarks", "50")]).unwrap();
        let c = config(Kind::Isomap, &p, 3);
        assert_eq!(c.neighbourhood, Neighbourhood::Knn(7));
        assert_eq!((c.dim, c.landmarks, c.seed), (2, 50, 3));
        assert_eq!(describe(&c), "Isomap (50 landmarks) (k = 7)");
    }
}
