//! Hyperparameters of `isomap`, `lle` and `laplacian`, declared once, and
//! the validated [`Settings`] a run reads from them. Defaults are the best
//! cells of the paper's grid (k from 10 to 500, d 50 and 200) as measured
//! on the bundled corpus by WordSim-353 (docs/methods/manifold.md,
//! "Defaults"): d = 200 for all three; k = 50 for Isomap and LLE, 200 for
//! Laplacian eigenmaps; PPMI rows for all three (the paper found TF-IDF
//! better for Isomap; here it loses 0.10-0.15 at every k and d); context 2
//! for Isomap and Laplacian eigenmaps, 5 for LLE, as the paper found.

use crate::geometry::manifold::laplacian::SYMMETRISE;
use crate::geometry::manifold::run::default_tol;
use crate::geometry::manifold::{Config, Kind as Method, Neighbourhood, Symmetrise};
use crate::linalg::params::BLOCK;
use crate::schema::{bind_params, choice_names, Choice, ParamSpec, Params};

/// The rows embedded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// Positive PMI (base 2).
    Ppmi,
    /// TF-IDF with the idf over contexts (the row-wise reading is a per-row
    /// scale, which the L2 normalisation removes; docs/methods/cooc.md, "TF-IDF").
    TfIdf,
}

/// The validated settings of one run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// The embedding itself.
    pub config: Config,
    /// Row weighting.
    pub input: Input,
    /// Symmetric window size.
    pub window: usize,
    /// The most frequent words embedded.
    pub max_vocab: usize,
}

choice_names!(Input {
    Ppmi = "ppmi",
    TfIdf = "tfidf",
});

bind_params! {
    /// The values of [`ISOMAP_SCHEMA`], a field per entry.
    #[derive(Debug, Clone, Copy)]
    struct IsomapValues for ISOMAP_SCHEMA {
        dim: usize,
        k: usize,
        epsilon: f64,
        landmarks: usize,
        input: Input,
        window: usize,
        max_vocab: usize,
        tol: f64,
        block: usize,
        basis: usize,
        max_steps: u64,
    }
}

bind_params! {
    /// The values of [`LLE_SCHEMA`], a field per entry.
    #[derive(Debug, Clone, Copy)]
    struct LleValues for LLE_SCHEMA {
        dim: usize,
        k: usize,
        epsilon: f64,
        reg: f64,
        input: Input,
        window: usize,
        max_vocab: usize,
        tol: f64,
        block: usize,
        basis: usize,
        max_steps: u64,
    }
}

bind_params! {
    /// The values of [`LAPLACIAN_SCHEMA`], a field per entry.
    #[derive(Debug, Clone, Copy)]
    struct LaplacianValues for LAPLACIAN_SCHEMA {
        dim: usize,
        k: usize,
        epsilon: f64,
        heat: f64,
        symmetrise: Symmetrise,
        input: Input,
        window: usize,
        max_vocab: usize,
        tol: f64,
        block: usize,
        basis: usize,
        max_steps: u64,
    }
}

/// The entries every graph method has, and what only one has.
macro_rules! settings_of {
    ($v:expr, $method:expr, $seed:expr, { $($extra:tt)* }) => {{
        let v = $v;
        Settings {
            config: Config {
                neighbourhood: if v.epsilon > 0.0 {
                    Neighbourhood::Radius(v.epsilon)
                } else {
                    Neighbourhood::Knn(v.k)
                },
                tol: v.tol,
                block: v.block,
                basis: v.basis,
                max_steps: v.max_steps,
                seed: $seed,
                $($extra)*
                ..Config::new($method, v.dim, v.k)
            },
            input: v.input,
            window: v.window,
            max_vocab: v.max_vocab,
        }
    }};
}

impl Settings {
    /// Reads the settings of `method` from its parameters.
    pub fn from_params(method: Method, p: &Params, seed: u64) -> Settings {
        match method {
            Method::Isomap => {
                let v = IsomapValues::from_params(p);
                settings_of!(v, method, seed, { landmarks: v.landmarks, })
            }
            Method::Lle => {
                let v = LleValues::from_params(p);
                settings_of!(v, method, seed, { reg: v.reg, })
            }
            Method::Laplacian => {
                let v = LaplacianValues::from_params(p);
                settings_of!(v, method, seed, { heat: v.heat, symmetrise: v.symmetrise, })
            }
        }
    }
}

const DIM: ParamSpec = ParamSpec::int(
    "dim",
    1,
    2000,
    200,
    "embedding dimension d (the paper: 50 or 200; Isomap also 1000)",
);

const fn k(default: i64) -> ParamSpec {
    ParamSpec::int(
        "k",
        1,
        100_000,
        default,
        "nearest neighbours per word (the paper: 10 to 500)",
    )
}

const EPSILON: ParamSpec = ParamSpec::float(
    "epsilon",
    0.0,
    2.0,
    0.0,
    "neighbours within this distance of the unit rows instead of k (0 = use k)",
);

const INPUT: ParamSpec = ParamSpec::choice(
    "input",
    Input::NAMES,
    "ppmi",
    "rows: PPMI or TF-IDF co-occurrences, L2-normalised",
);

const fn window(default: i64) -> ParamSpec {
    ParamSpec::int(
        "window",
        1,
        255,
        default,
        "symmetric context window (the paper: 2 or 5)",
    )
}

const MAX_VOCAB: ParamSpec = ParamSpec::int(
    "max_vocab",
    3,
    100_000,
    10_000,
    "embed the N most frequent words (rows and contexts; the paper: 10,000)",
);

const fn tol(method: Method) -> ParamSpec {
    ParamSpec::float(
        "tol",
        1e-14,
        0.5,
        default_tol(method),
        "relative eigen residual every pair must reach (the run's loss)",
    )
}

const BASIS: ParamSpec = crate::linalg::params::basis("Krylov basis size before a restart (0 = automatic: 2d + 32 for Isomap, at least 200 for LLE, 64 for Laplacian eigenmaps)");

const MAX_STEPS: ParamSpec = ParamSpec::int(
    "max_steps",
    1,
    10_000_000,
    20_000,
    "eigensolver block steps allowed (the run ends when it converges)",
);

/// Schema of `isomap`.
pub static ISOMAP_SCHEMA: &[ParamSpec] = &[
    DIM,
    k(50),
    EPSILON,
    ParamSpec::int(
        "landmarks",
        0,
        100_000,
        0,
        "landmark Isomap: shortest paths from this many random words only (0 = exact)",
    ),
    INPUT,
    window(2),
    MAX_VOCAB,
    tol(Method::Isomap),
    BLOCK,
    BASIS,
    MAX_STEPS,
];

/// Schema of `lle`.
pub static LLE_SCHEMA: &[ParamSpec] = &[
    DIM,
    k(50),
    EPSILON,
    ParamSpec::float(
        "reg",
        1e-12,
        10.0,
        1e-3,
        "regulariser of the local Gram matrix, times its trace",
    ),
    INPUT,
    window(5),
    MAX_VOCAB,
    tol(Method::Lle),
    BLOCK,
    BASIS,
    MAX_STEPS,
];

/// Schema of `laplacian`.
pub static LAPLACIAN_SCHEMA: &[ParamSpec] = &[
    DIM,
    k(200),
    EPSILON,
    ParamSpec::float(
        "heat",
        0.0,
        1e9,
        25.0,
        "heat-kernel width t of exp(-|xi-xj|^2/t) (the paper: 5, 25, 10000; 0 = unit weights)",
    ),
    SYMMETRISE,
    INPUT,
    window(2),
    MAX_VOCAB,
    tol(Method::Laplacian),
    BLOCK,
    BASIS,
    MAX_STEPS,
];

#[cfg(test)]
mod tests {
    use super::*;

    fn defaults(method: Method, schema: &'static [ParamSpec]) -> Settings {
        Settings::from_params(method, &Params::defaults(schema), 1)
    }

    #[test]
    fn defaults_are_the_best_cells_of_the_measured_grid() {
        let cases = [
            (Method::Isomap, ISOMAP_SCHEMA, 50, 2),
            (Method::Lle, LLE_SCHEMA, 50, 5),
            (Method::Laplacian, LAPLACIAN_SCHEMA, 200, 2),
        ];
        for (method, schema, k, window) in cases {
            let s = defaults(method, schema);
            assert_eq!(s.config.neighbourhood, Neighbourhood::Knn(k), "{method:?}");
            assert_eq!((s.config.dim, s.window), (200, window), "{method:?}");
            assert_eq!(s.input, Input::Ppmi, "{method:?}");
        }
    }
}
