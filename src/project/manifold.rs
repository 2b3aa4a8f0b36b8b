//! Isomap, LLE and Laplacian eigenmaps as 2-D projections of any embedding
//! ([`crate::geometry::manifold`]; docs/methods/manifold.md, "Projections"): their
//! options declared once in [`SCHEMA`] (the neighbour count is also a
//! workbench form field, [`NEIGHBOURS`]), their entries in the projection
//! registry, and one run with progress that stops between steps (the kNN
//! graph, batches of shortest paths or weights, each Lanczos step).

use ndarray::Array2;

use crate::geometry::knn::Search;
use crate::geometry::manifold::laplacian::SYMMETRISE;
use crate::geometry::manifold::{Config, Embedded, Embedder, Kind, Neighbourhood, Symmetrise};
use crate::project::projection::{go_on, Input, Laid, Loss, Progress, Projection, Tick};
use crate::schema::{bind_params, ParamSpec, Params};
use crate::{Error, Result};

/// The graph projections' loss: the eigensolver's residual.
const RESIDUAL: Option<Loss> = Some(Loss {
    short: "residual",
    title: "eigen residual",
});

/// A graph projection's registry entry.
const fn entry(
    name: &'static str,
    help: &'static str,
    run: crate::project::projection::RunFn,
) -> Projection {
    Projection {
        name,
        help,
        schema: SCHEMA,
        loss: RESIDUAL,
        step: "step",
        animates: false,
        default_dims: 2,
        max_dims: 2,
        run,
    }
}

/// Isomap's registry entry.
pub const ISOMAP: Projection = entry(
    "isomap",
    "Isomap (geodesic distances on the kNN graph, classical MDS)",
    |input, p, progress| lay_out(Kind::Isomap, input, p, progress),
);

/// LLE's registry entry.
pub const LLE: Projection = entry(
    "lle",
    "Locally linear embedding (kNN graph weights)",
    |input, p, progress| lay_out(Kind::Lle, input, p, progress),
);

/// Laplacian eigenmaps' registry entry.
pub const LAPLACIAN: Projection = entry(
    "laplacian",
    "Laplacian eigenmaps (kNN graph Laplacian)",
    |input, p, progress| lay_out(Kind::Laplacian, input, p, progress),
);

/// Lays `input` out by `kind` with the options `p`, titled by the method,
/// its neighbourhood and the run's report.
fn lay_out(kind: Kind, input: Input<'_>, p: &Params, progress: &mut dyn Progress) -> Result<Laid> {
    let config = config(kind, p, input.seed);
    let done = run(input.vectors, config, progress)?;
    Ok(Laid {
        description: format!("{}: {}", describe(&config), done.report),
        coords: done.coords,
        axes: None,
        sphere: false,
    })
}

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
    crate::geometry::knn::KNN,
];

/// A 2-D run of `kind` from the options `p`.
pub fn config(kind: Kind, p: &Params, seed: u64) -> Config {
    let v = Values::from_params(p);
    Config {
        neighbourhood: if v.epsilon > 0.0 {
            Neighbourhood::Radius(v.epsilon)
        } else {
            Neighbourhood::Knn(v.k)
        },
        landmarks: v.landmarks,
        reg: v.reg,
        heat: v.heat,
        symmetrise: v.symmetrise,
        basis: v.basis,
        seed,
        knn: v.knn,
        ..Config::new(kind, 2, v.k)
    }
}

bind_params! {
    /// The values of [`SCHEMA`], a field per entry.
    #[derive(Debug, Clone, Copy)]
    struct Values for SCHEMA {
        k: usize,
        epsilon: f64,
        landmarks: usize,
        reg: f64,
        heat: f64,
        symmetrise: Symmetrise,
        basis: usize,
        knn: Search,
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

/// Runs `config` on `vectors`, reporting every step (its phase and
/// residual) and log line to `progress`; stops with
/// [`crate::project::projection::cancelled`] as soon as `progress` says so.
pub fn run(vectors: Array2<f32>, config: Config, progress: &mut dyn Progress) -> Result<Embedded> {
    if vectors.nrows() <= 3 {
        return Err(Error::param(
            "count",
            format!(
                "{} points; a graph projection needs at least 4",
                vectors.nrows()
            ),
        ));
    }
    go_on(progress)?;
    let mut e = Embedder::new(vectors, config)?;
    let mut step = 0;
    while !e.is_done() {
        e.step()?;
        step += 1;
        progress.tick(Tick {
            step,
            total: config.max_steps,
            loss: e.loss(),
            phase: Some(e.phase()),
        });
        while let Some(line) = e.take_note() {
            progress.note(line);
        }
        go_on(progress)?;
    }
    e.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_name_the_methods_and_build_configs() {
        let p = Params::parse(SCHEMA, "isomap", [("k", "7"), ("landmarks", "50")]).unwrap();
        let c = config(Kind::Isomap, &p, 3);
        assert_eq!(c.neighbourhood, Neighbourhood::Knn(7));
        assert_eq!((c.dim, c.landmarks, c.seed), (2, 50, 3));
        assert_eq!(describe(&c), "Isomap (50 landmarks) (k = 7)");
    }

    use crate::project::registry::tests::Stopping;

    #[test]
    fn a_stopped_graph_layout_ends_cancelled_after_the_step_it_was_stopped_in() {
        let x = crate::project::testdata::gaussian_blobs(60, 5, 1, 1);
        let p = Params::parse(SCHEMA, "isomap", [("k", "8")]).unwrap();
        for kind in [Kind::Isomap, Kind::Lle, Kind::Laplacian] {
            let c = config(kind, &p, 1);
            let mut all = Stopping {
                ticks: 0,
                stop_after: u64::MAX,
            };
            run(x.clone(), c, &mut all).unwrap();
            assert!(all.ticks >= 2, "{kind:?}: {} steps", all.ticks);
            // Stopped after the kNN graph: nothing more is computed.
            let mut one = Stopping {
                ticks: 0,
                stop_after: 1,
            };
            let e = run(x.clone(), c, &mut one).unwrap_err();
            assert!(crate::project::registry::is_cancelled(&e), "{kind:?}: {e}");
            assert_eq!(one.ticks, 1, "{kind:?}");
        }
    }
}
