//! UBE as a projection of any embedding ([`crate::geometry::ube`];
//! docs/methods/ube.md, "Projection"): its options declared once in
//! [`SCHEMA`], its entry in the projection registry, one run with progress
//! that stops between sweeps, and the 2-D picture of the sphere (the Hammer
//! equal-area map) that plots and the workbench show.

use ndarray::Array2;

use crate::geometry::knn::{Search, KNN};
use crate::geometry::ube::options::{COVERAGE, ITERS, K_MAX, LR, MIN_K, UPDATE};
use crate::geometry::ube::{sphere, Config, Ube, Update};
use crate::project::projection::{go_on, Input, Laid, Loss, Progress, Projection, Tick};
use crate::schema::{bind_params, Choice, ParamSpec, Params};
use crate::Result;

/// UBE's registry entry: points on a sphere, 3-D unless asked otherwise.
pub const UBE: Projection = Projection {
    name: "ube",
    help: "Unit ball embedding: points on a sphere (3-D by default)",
    schema: SCHEMA,
    loss: Some(Loss {
        short: "J",
        title: "UBE loss J",
    }),
    step: "step",
    animates: false,
    default_dims: 3,
    max_dims: 3,
    run: lay_out,
};

/// Lays `input` out on the unit sphere of `input.dims` dimensions; the 3-D
/// sphere is titled as shown, through its equal-area map.
fn lay_out(input: Input<'_>, p: &Params, progress: &mut dyn Progress) -> Result<Laid> {
    let config = config(p, input.dims, input.seed);
    let mut description = describe(&config);
    if input.dims == 3 {
        description.push_str("; Hammer equal-area map of the sphere");
    }
    Ok(Laid {
        coords: run(input.vectors, config, progress)?,
        description,
        axes: None,
        sphere: input.dims == 3,
    })
}

/// UBE's projection options (`wordbench project --method ube --set name=value`),
/// each declared once and shared with the word method `--algo ube`.
pub static SCHEMA: &[ParamSpec] = &[K_MAX, COVERAGE, ITERS, LR, UPDATE, MIN_K, KNN];

/// A run of dimension `dim` from the options `p`.
pub fn config(p: &Params, dim: usize, seed: u64) -> Config {
    let v = Values::from_params(p);
    Config {
        k_max: v.k_max,
        coverage: v.coverage,
        iters: v.iters,
        lr: v.lr,
        update: v.update,
        min_k: v.min_k,
        seed,
        knn: v.knn,
        ..Config::new(dim)
    }
}

bind_params! {
    /// The values of [`SCHEMA`], a field per entry.
    #[derive(Debug, Clone, Copy)]
    struct Values for SCHEMA {
        k_max: usize,
        coverage: f64,
        iters: usize,
        lr: f64,
        update: Update,
        min_k: usize,
        knn: Search,
    }
}

/// A title for the plot.
pub fn describe(c: &Config) -> String {
    format!(
        "UBE ({}-d sphere, k_max = {}, {} sweeps, {} update)",
        c.dim,
        c.k_max,
        c.iters,
        c.update.name()
    )
}

/// Runs `config` on `vectors`, reporting every step (the graph, then each
/// sweep, with `J`) and log line to `progress`; the unit rows. Stops with
/// [`crate::project::projection::cancelled`] as soon as `progress` says so.
pub fn run(
    vectors: Array2<f32>,
    config: Config,
    progress: &mut dyn Progress,
) -> Result<Array2<f64>> {
    go_on(progress)?;
    let mut u = Ube::new(vectors, config)?;
    let total = u.total_steps();
    let mut step = 0;
    while !u.is_done() {
        u.step()?;
        step += 1;
        progress.tick(Tick {
            step,
            total,
            loss: u.loss(),
            phase: None,
        });
        while let Some(line) = u.take_note() {
            progress.note(line);
        }
        go_on(progress)?;
    }
    Ok(u.into_coords())
}

/// The 2-D picture of 3-D unit rows (the Hammer equal-area map); other
/// dimensions keep their first two coordinates.
pub fn picture(coords: &Array2<f64>) -> Array2<f64> {
    if coords.ncols() == 3 {
        sphere::hammer_map(coords.view())
    } else {
        coords.slice(ndarray::s![.., ..2]).to_owned()
    }
}

/// The Hammer map of 3-D unit rows after the view's turn `t`
/// ([`sphere::turn`]): the identity gives [`picture`].
pub fn picture_turned(coords: ndarray::ArrayView2<'_, f64>, t: &sphere::Matrix3) -> Array2<f64> {
    sphere::hammer_map_in(coords, &sphere::turned_frame(coords, t))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::projection::Tick;

    /// Keeps the ticks and counts the notes; stops after `stop_after` ticks.
    #[derive(Default)]
    struct Seen {
        ticks: Vec<Tick>,
        notes: usize,
        stop_after: Option<usize>,
    }

    impl Progress for Seen {
        fn tick(&mut self, tick: Tick) {
            self.ticks.push(tick);
        }
        fn note(&mut self, _: String) {
            self.notes += 1;
        }
        fn stopped(&self) -> bool {
            self.stop_after.is_some_and(|n| self.ticks.len() >= n)
        }
    }

    #[test]
    fn options_build_configs_and_runs_report_progress() {
        let p = Params::parse(SCHEMA, "ube", [("iters", "4"), ("update", "newton")]).unwrap();
        let c = config(&p, 3, 7);
        assert_eq!((c.dim, c.iters, c.k_max, c.seed), (3, 4, 50, 7));
        assert_eq!(c.min_k, 1, "the thesis' elbow alone by default");
        let authors = Params::parse(SCHEMA, "ube", [("min_k", "15"), ("k_max", "90")]).unwrap();
        assert_eq!(config(&authors, 3, 7).min_k, 15);
        assert_eq!(c.update, Update::Newton);
        assert!(describe(&c).contains("newton"));
        let x = crate::project::testdata::gaussian_blobs(40, 5, 2, 1);
        let mut seen = Seen::default();
        let y = run(x.clone(), c, &mut seen).unwrap();
        assert_eq!(seen.ticks.len(), 5);
        assert_eq!(seen.ticks[4].step, 5);
        assert_eq!(seen.ticks[4].total, 5);
        assert!(seen.notes >= 1);
        // Stopped after its second step (the graph and one sweep): no rows.
        let mut stopping = Seen {
            stop_after: Some(2),
            ..Seen::default()
        };
        let e = run(x, c, &mut stopping).unwrap_err();
        assert!(crate::project::registry::is_cancelled(&e), "{e}");
        assert_eq!(stopping.ticks.len(), 2, "no sweep after the stop");
        let map = picture(&y);
        assert_eq!(map.dim(), (40, 2));
        assert_eq!(picture_turned(y.view(), &sphere::IDENTITY), map);
        assert!(map.iter().all(|v| v.is_finite()));
    }
}
