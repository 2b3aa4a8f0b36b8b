//! UMAP (McInnes, Healy & Melville 2018), written to match umap-learn's
//! layouts at a fraction of its CPU time (docs/umap.md).
//!
//! The pipeline, one file per stage:
//! 1. k nearest neighbours ([`crate::geometry::knn::search`], the search
//!    t-SNE uses: exact below `AUTO_FROM` points, NN-descent from there),
//!    Euclidean or cosine;
//! 2. [`fuzzy`]: per-point `rho` and `sigma` so that each point's
//!    memberships sum to `log2(n_neighbors)`, symmetrised by the fuzzy union;
//! 3. [`curve`]: `a`, `b` of the low-dimensional curve from `min_dist` and
//!    `spread`;
//! 4. [`init`]: the spectral start (normalised Laplacian eigenvectors), or
//!    uniform noise when the graph is disconnected or the solve fails;
//! 5. [`layout`]: the SGD with edge sampling and negative samples.
//!
//! The entry point is [`umap`]; its options are declared once in
//! [`SCHEMA`] and read by [`Settings::from_params`]. Every random choice
//! comes from the seed; with one rayon thread a run is bit-for-bit
//! reproducible (more threads run the SGD Hogwild-style, like umap-learn's
//! `parallel=True`).

pub mod curve;
pub mod entry;
pub mod fuzzy;
pub mod init;
pub mod layout;

use ndarray::{Array2, ArrayView2};

use crate::geometry::knn::{search, Knn, Search};
use crate::schema::{bind_params, choice_names, Choice, ParamSpec, Params};
use crate::{Error, Result};

/// Epochs when `n_epochs = 0` for at most [`SMALL`] points (umap-learn's).
pub const EPOCHS_SMALL: usize = 500;
/// Epochs when `n_epochs = 0` for more points.
pub const EPOCHS_LARGE: usize = 200;
/// Up to this many points count as small (umap-learn: `n <= 10000`).
pub const SMALL: usize = 10_000;

/// Neighbourhood size (umap-learn's default).
pub const N_NEIGHBORS: ParamSpec = ParamSpec::int(
    "n_neighbors",
    2,
    1000,
    15,
    "size of the neighbourhood, the point itself included (umap-learn: 15)",
);

/// How tightly points pack (umap-learn's default).
pub const MIN_DIST: ParamSpec = ParamSpec::float(
    "min_dist",
    0.0,
    100.0,
    0.1,
    "how tightly points may pack in the layout (at most spread)",
);

/// Scale of the membership curve (umap-learn's default).
pub const SPREAD: ParamSpec = ParamSpec::float(
    "spread",
    1e-3,
    100.0,
    1.0,
    "scale of the layout's membership curve",
);

/// SGD epochs (umap-learn's default).
pub const N_EPOCHS: ParamSpec = ParamSpec::int(
    "n_epochs",
    0,
    100_000,
    0,
    "SGD epochs; 0 = 500 up to 10,000 points, 200 above (umap-learn's)",
);

/// Repulsive samples per attractive one (umap-learn's default).
pub const NEGATIVE_SAMPLE_RATE: ParamSpec = ParamSpec::int(
    "negative_sample_rate",
    0,
    1000,
    5,
    "repulsive samples per attractive one",
);

/// First SGD step size (umap-learn's default).
pub const LEARNING_RATE: ParamSpec = ParamSpec::float(
    "learning_rate",
    1e-6,
    1000.0,
    1.0,
    "SGD step size of the first epoch, falling linearly to 0",
);

/// Distance of the input vectors (umap-learn's default).
pub const METRIC: ParamSpec = ParamSpec::choice(
    "metric",
    Metric::NAMES,
    "euclidean",
    "distance of the input vectors",
);

/// UMAP's options (`name=value`), with umap-learn's defaults.
pub static SCHEMA: &[ParamSpec] = &[
    N_NEIGHBORS,
    MIN_DIST,
    SPREAD,
    N_EPOCHS,
    NEGATIVE_SAMPLE_RATE,
    LEARNING_RATE,
    METRIC,
    crate::geometry::knn::KNN,
];

/// Distance between input vectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// `‖x − y‖`.
    Euclidean,
    /// `1 − cos(x, y)`.
    Cosine,
}

/// Validated UMAP settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// Neighbourhood size, the point itself included.
    pub n_neighbors: usize,
    /// Smallest distance between points in the layout.
    pub min_dist: f64,
    /// Scale of the membership curve.
    pub spread: f64,
    /// Epochs; 0 = automatic ([`Settings::epochs`]).
    pub n_epochs: usize,
    /// Negative samples per positive one.
    pub negative_sample_rate: usize,
    /// First step size.
    pub learning_rate: f64,
    /// Input distance.
    pub metric: Metric,
    /// The neighbour search.
    pub knn: Search,
    /// Seed of every random choice.
    pub seed: u64,
    /// Output dimensions, 2 or 3 (the layout's, not a hyperparameter of
    /// the schema: `--dims` and the form's `dims` set it).
    pub dims: usize,
}

choice_names!(Metric {
    Euclidean = "euclidean",
    Cosine = "cosine",
});

bind_params! {
    /// The values of [`SCHEMA`], a field per entry.
    #[derive(Debug, Clone, Copy)]
    struct Values for SCHEMA {
        n_neighbors: usize,
        min_dist: f64,
        spread: f64,
        n_epochs: usize,
        negative_sample_rate: usize,
        learning_rate: f64,
        metric: Metric,
        knn: Search,
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings::from_params(&Params::defaults(SCHEMA), 1).expect("the defaults are valid")
    }
}

impl Settings {
    /// Settings from schema-validated parameters; refuses `min_dist > spread`.
    pub fn from_params(p: &Params, seed: u64) -> Result<Settings> {
        let v = Values::from_params(p);
        let s = Settings {
            n_neighbors: v.n_neighbors,
            min_dist: v.min_dist,
            spread: v.spread,
            n_epochs: v.n_epochs,
            negative_sample_rate: v.negative_sample_rate,
            learning_rate: v.learning_rate,
            metric: v.metric,
            knn: v.knn,
            seed,
            dims: 2,
        };
        s.check()?;
        Ok(s)
    }

    /// Fails on values the schema cannot express alone.
    pub fn check(&self) -> Result<()> {
        if self.n_neighbors < 2 {
            return Err(Error::param(
                "n_neighbors",
                format!("{} (expected at least 2)", self.n_neighbors),
            ));
        }
        if !(self.spread > 0.0 && self.spread.is_finite()) {
            return Err(Error::param(
                "spread",
                format!("{} (expected > 0)", self.spread),
            ));
        }
        if !(self.min_dist >= 0.0 && self.min_dist <= self.spread) {
            return Err(Error::param(
                "min_dist",
                format!("{} (expected 0 to spread = {})", self.min_dist, self.spread),
            ));
        }
        if !(2..=3).contains(&self.dims) {
            return Err(Error::param(
                "dims",
                format!("{} (UMAP lays out in 2 or 3 dimensions)", self.dims),
            ));
        }
        if !(self.learning_rate > 0.0 && self.learning_rate.is_finite()) {
            return Err(Error::param(
                "learning_rate",
                format!("{} (expected > 0)", self.learning_rate),
            ));
        }
        Ok(())
    }

    /// The epochs run on `n` points.
    pub fn epochs(&self, n: usize) -> usize {
        match self.n_epochs {
            0 if n <= SMALL => EPOCHS_SMALL,
            0 => EPOCHS_LARGE,
            e => e,
        }
    }

    /// A one-line description for titles and logs.
    pub fn describe(&self, n: usize) -> String {
        format!(
            "UMAP: {} neighbours ({}), min_dist {}, spread {}, {} epochs, seed {}",
            self.n_neighbors,
            match self.metric {
                Metric::Euclidean => "euclidean",
                Metric::Cosine => "cosine",
            },
            self.min_dist,
            self.spread,
            self.epochs(n),
            self.seed
        )
    }
}

/// The layout of the rows of `x` (`n × 2`), or `None` when
/// `progress(epoch, n_epochs)`, called after each SGD epoch, returned
/// false (the run stops there).
pub fn umap(
    x: ArrayView2<'_, f32>,
    settings: &Settings,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<Option<Array2<f32>>> {
    umap_noted(x, settings, progress, &mut |_| {})
}

/// [`umap`], with a line for `note` after each stage (times, the kind of
/// start and why a spectral one was not possible).
pub fn umap_noted(
    x: ArrayView2<'_, f32>,
    settings: &Settings,
    progress: &mut dyn FnMut(usize, usize) -> bool,
    note: &mut dyn FnMut(String),
) -> Result<Option<Array2<f32>>> {
    umap_watched(
        x,
        settings,
        &mut |epoch, epochs, _| progress(epoch, epochs),
        note,
    )
}

/// [`umap_noted`], whose progress callback can also copy the layout so far
/// ([`layout::Watch`]): the workbench shows UMAP forming as t-SNE does.
pub fn umap_watched(
    x: ArrayView2<'_, f32>,
    settings: &Settings,
    progress: &mut layout::Watch<'_>,
    note: &mut dyn FnMut(String),
) -> Result<Option<Array2<f32>>> {
    settings.check()?;
    let (n, d) = x.dim();
    if d == 0 {
        return Err(Error::param("vectors", "vectors of dimension 0"));
    }
    if n <= settings.n_neighbors {
        return Err(Error::param(
            "n_neighbors",
            format!(
                "{} with {n} point(s); UMAP needs more points than n_neighbors",
                settings.n_neighbors
            ),
        ));
    }
    crate::geometry::check_finite(x, None)?;
    let t = std::time::Instant::now();
    let graph = neighbours(x, settings)?;
    note(format!(
        "{} nearest neighbours of {n} points: {:.2}s",
        settings.n_neighbors - 1,
        t.elapsed().as_secs_f64()
    ));
    let t = std::time::Instant::now();
    let m = graph.k;
    let dist: Vec<f32> = match settings.metric {
        Metric::Euclidean => graph.dist2.iter().map(|v| v.sqrt()).collect(),
        // Unit rows: ‖x − y‖² = 2 − 2 cos.
        Metric::Cosine => graph.dist2.iter().map(|v| v / 2.0).collect(),
    };
    let smooth = fuzzy::smooth_distances(&dist, m, settings.n_neighbors);
    let w = fuzzy::memberships(&dist, m, &smooth);
    let p = fuzzy::fuzzy_union(n, &graph.ids, &w, m)?;
    let epochs = settings.epochs(n);
    let p = prune(&p, epochs)?;
    note(format!(
        "fuzzy graph: {} edges, {:.2}s",
        p.nnz(),
        t.elapsed().as_secs_f64()
    ));
    let t = std::time::Instant::now();
    let dims = settings.dims;
    let (mut y, how) = init::start(&p, dims, settings.seed)?;
    note(match how {
        init::Start::Spectral => format!("spectral start: {:.2}s", t.elapsed().as_secs_f64()),
        init::Start::Disconnected(c) => {
            format!("the neighbour graph has {c} components: random start instead of spectral")
        }
        init::Start::Unconverged => {
            "the spectral start's eigensolver did not converge: random start instead".into()
        }
        init::Start::TooFew => format!("{n} points: random start instead of spectral"),
    });
    rescale(&mut y, dims);
    let edges = edges(&p, epochs);
    let sgd = layout::Sgd {
        curve: curve::fit(settings.min_dist, settings.spread),
        negative_sample_rate: settings.negative_sample_rate,
        learning_rate: settings.learning_rate,
        n_epochs: epochs,
        seed: settings.seed,
        threads: rayon::current_num_threads(),
    };
    note(settings.describe(n));
    let t = std::time::Instant::now();
    if !layout::optimize(&mut y, dims, &edges, &sgd, progress) {
        return Ok(None);
    }
    note(format!(
        "{epochs} epochs: {:.2}s",
        t.elapsed().as_secs_f64()
    ));
    Ok(Some(
        Array2::from_shape_vec((n, dims), y).expect("n × dims coordinates"),
    ))
}

/// The `n_neighbors − 1` nearest other points (unit rows for cosine).
fn neighbours(x: ArrayView2<'_, f32>, s: &Settings) -> Result<Knn> {
    let k = s.n_neighbors - 1;
    Ok(match s.metric {
        Metric::Euclidean => search(x, k, s.knn),
        Metric::Cosine => {
            let mut unit = x.to_owned();
            for (i, mut row) in unit.rows_mut().into_iter().enumerate() {
                let norm = row.dot(&row).sqrt();
                if norm == 0.0 {
                    return Err(Error::param(
                        "vectors",
                        format!(
                            "row {} is zero; cosine distance needs non-zero vectors",
                            i + 1
                        ),
                    ));
                }
                row.mapv_inplace(|v| v / norm);
            }
            search(unit.view(), k, s.knn)
        }
    })
}

/// Drops the edges lighter than `max / n_epochs` (sampled less than once
/// in the run), as umap-learn does before the start and the SGD.
fn prune(p: &crate::linalg::Csr, n_epochs: usize) -> Result<crate::linalg::Csr> {
    let max = p.data().iter().copied().fold(0.0f64, f64::max);
    let floor = max / n_epochs as f64;
    let n = p.shape().0;
    let mut indptr = Vec::with_capacity(n + 1);
    let (mut indices, mut data) = (Vec::with_capacity(p.nnz()), Vec::with_capacity(p.nnz()));
    indptr.push(0);
    for i in 0..n {
        let r = p.indptr()[i]..p.indptr()[i + 1];
        for (&j, &v) in p.indices()[r.clone()].iter().zip(&p.data()[r]) {
            if v >= floor {
                indices.push(j);
                data.push(v);
            }
        }
        indptr.push(indices.len());
    }
    crate::linalg::Csr::new((n, n), indptr, indices, data)
}

/// Every stored entry of `p` as a directed edge, row by row.
fn edges(p: &crate::linalg::Csr, n_epochs: usize) -> layout::Edges {
    let n = p.shape().0;
    let head = (0..n)
        .flat_map(|i| std::iter::repeat_n(i as u32, p.indptr()[i + 1] - p.indptr()[i]))
        .collect();
    layout::Edges {
        head,
        tail: p.indices().to_vec(),
        period: layout::epochs_per_sample(p.data(), n_epochs),
    }
}

/// Scales each coordinate of the row-major `n × dims` layout to `[0, 10]`
/// (umap-learn does this to every start before the SGD).
fn rescale(y: &mut [f32], dims: usize) {
    for c in 0..dims {
        let (lo, hi) = y
            .iter()
            .skip(c)
            .step_by(dims)
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &v| {
                (lo.min(v), hi.max(v))
            });
        let span = hi - lo;
        for v in y.iter_mut().skip(c).step_by(dims) {
            *v = if span > 0.0 {
                10.0 * (*v - lo) / span
            } else {
                0.0
            };
        }
    }
}

#[cfg(test)]
mod tests;
