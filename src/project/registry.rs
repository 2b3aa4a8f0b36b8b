//! The projection registry: every way wordbench lays words out, one
//! [`Projection`] descriptor each, looked up by name by the command line,
//! the workbench form and session records (as training methods are in
//! [`crate::algo`]).
//!
//! A descriptor carries what callers used to dispatch on by name: the
//! method's own options ([`Projection::schema`]), the name of the loss it
//! reports, whether its layout animates, its output dimensions and the
//! [`Projection::run`] adapter that lays vectors out. Adding a projection is
//! a file with its adapter and one line in [`PROJECTIONS`].
//!
//! Every layout reports through a [`Progress`] sink and stops as soon as the
//! sink says so ([`Progress::stopped`]): before it starts and after every
//! step (t-SNE iterations, graph phases and Lanczos steps, UBE sweeps). A
//! stopped layout ends with the [`CANCELLED`] error, never a partial layout.

use ndarray::{Array2, ArrayView2};

pub use super::projection::{
    cancelled, go_on, is_cancelled, Input, Laid, Loss, Progress, Projection, RunFn, Silent, Tick,
    CANCELLED,
};
use crate::schema::Params;
use crate::{Error, Result};

const LIST: &[Projection] = &[
    crate::project::tsne::layout::TSNE,
    crate::project::pca::PCA,
    crate::project::manifold::ISOMAP,
    crate::project::manifold::LLE,
    crate::project::manifold::LAPLACIAN,
    crate::project::ube::UBE,
    crate::project::umap::entry::UMAP,
];

/// Every projection, in menu order.
pub static PROJECTIONS: &[Projection] = LIST;

/// Their names, in the same order (the form's `method` choice).
pub static NAMES: [&str; LIST.len()] = names(LIST);

const fn names<const N: usize>(list: &[Projection]) -> [&'static str; N] {
    let mut out = [""; N];
    let mut i = 0;
    while i < N {
        out[i] = list[i].name;
        i += 1;
    }
    out
}

/// Looks a projection up by its `--method` name.
pub fn find(name: &str) -> Result<&'static Projection> {
    PROJECTIONS.iter().find(|p| p.name == name).ok_or_else(|| {
        Error::param(
            "method",
            format!("'{name}' (expected one of: {})", NAMES.join(", ")),
        )
    })
}

/// Lays `input` out by `projection` with its options `params`: stops before
/// starting when `progress` says so, and checks the dimensions and that the
/// vectors are finite.
pub fn lay_out(
    projection: &Projection,
    input: Input<'_>,
    params: &Params,
    progress: &mut dyn Progress,
) -> Result<Laid> {
    go_on(progress)?;
    if !(1..=projection.max_dims).contains(&input.dims) {
        return Err(Error::param(
            "dims",
            format!(
                "{} ({} lays out in at most {} dimensions)",
                input.dims, projection.name, projection.max_dims
            ),
        ));
    }
    crate::geometry::check_finite(input.vectors.view(), Some(input.words))?;
    (projection.run)(input, params, progress)
}

/// The matrix of `n` rows of 2-D points.
pub fn rows(points: &[[f64; 2]]) -> Array2<f64> {
    Array2::from_shape_fn((points.len(), 2), |(i, d)| points[i][d])
}

/// The 2-D points of a matrix's first two columns.
pub fn points(coords: ArrayView2<'_, f64>) -> Vec<[f64; 2]> {
    coords.rows().into_iter().map(|r| [r[0], r[1]]).collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found_and_unknown_ones_list_the_choices() {
        let mut names = NAMES.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), PROJECTIONS.len());
        for p in PROJECTIONS {
            assert_eq!(find(p.name).unwrap().name, p.name);
            assert!((1..=p.max_dims).contains(&p.default_dims), "{}", p.name);
        }
        let e = find("umap?").unwrap_err().to_string();
        assert!(
            e.contains("'umap?' (expected one of: tsne, pca, isomap, lle, laplacian, ube, umap)"),
            "{e}"
        );
    }

    /// A test sink: counts ticks and stops after `stop_after` of them.
    pub(crate) struct Stopping {
        pub(crate) ticks: u64,
        pub(crate) stop_after: u64,
    }

    impl Progress for Stopping {
        fn tick(&mut self, _: Tick) {
            self.ticks += 1;
        }
        fn stopped(&self) -> bool {
            self.ticks >= self.stop_after
        }
    }

    #[test]
    fn every_projection_lays_out_small_input_and_stops_when_told() {
        // One blob: the graph methods need a connected kNN graph.
        let x = crate::project::testdata::gaussian_blobs(40, 5, 1, 1);
        let words: Vec<String> = (0..40).map(|i| format!("w{i}")).collect();
        let input = |dims| Input {
            vectors: x.clone(),
            words: &words,
            dims,
            seed: 1,
        };
        for p in PROJECTIONS {
            let params = Params::defaults(p.schema);
            let laid = lay_out(p, input(p.default_dims), &params, &mut Silent)
                .unwrap_or_else(|e| panic!("{}: {e}", p.name));
            assert_eq!(laid.coords.dim(), (40, p.default_dims), "{}", p.name);
            assert_eq!(laid.flat().dim(), (40, 2), "{}", p.name);
            assert!(laid.coords.iter().all(|v| v.is_finite()), "{}", p.name);
            // Stopped before it starts: no step at all.
            let mut s = Stopping {
                ticks: 0,
                stop_after: 0,
            };
            let e = lay_out(p, input(p.default_dims), &params, &mut s).unwrap_err();
            assert!(is_cancelled(&e), "{}: {e}", p.name);
            assert_eq!(s.ticks, 0, "{}", p.name);
            // Stopped after its first step: one step, then cancelled.
            let mut s = Stopping {
                ticks: 0,
                stop_after: 1,
            };
            match lay_out(p, input(p.default_dims), &params, &mut s) {
                Err(e) => assert!(is_cancelled(&e) && s.ticks == 1, "{}: {e}", p.name),
                // PCA has no steps to stop between.
                Ok(_) => assert_eq!(p.name, "pca"),
            }
        }
    }
}
