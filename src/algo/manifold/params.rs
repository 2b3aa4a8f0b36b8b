//! Hyperparameters of `isomap`, `lle` and `laplacian`, declared once, and
//! the validated [`Settings`] a run reads from them. Defaults follow the
//! paper's best settings where it states them (docs/methods/manifold.md,
//! "Defaults"): PPMI for LLE and Laplacian eigenmaps, TF-IDF for Isomap;
//! context 2 for Isomap and Laplacian eigenmaps, 5 for LLE.

use crate::manifold::run::default_tol;
use crate::manifold::{Config, Kind as Method, Neighbourhood};
use crate::train::{DefaultValue, Kind, ParamSpec, Params};

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

impl Settings {
    /// Reads the settings of `method` from its parameters.
    pub fn from_params(method: Method, p: &Params, seed: u64) -> Settings {
        let has = |name: &str| p.schema().iter().any(|s| s.name == name);
        let epsilon = p.f64("epsilon");
        let config = Config {
            neighbourhood: if epsilon > 0.0 {
                Neighbourhood::Radius(epsilon)
            } else {
                Neighbourhood::Knn(p.usize("k"))
            },
            landmarks: if has("landmarks") {
                p.usize("landmarks")
            } else {
                0
            },
            reg: if has("reg") { p.f64("reg") } else { 1e-3 },
            heat: if has("heat") { p.f64("heat") } else { 0.0 },
            tol: p.f64("tol"),
            block: p.usize("block"),
            basis: p.usize("basis"),
            max_steps: p.usize("max_steps") as u64,
            seed,
            ..Config::new(method, p.usize("dim"), p.usize("k"))
        };
        Settings {
            config,
            input: if p.choice("input") == "tfidf" {
                Input::TfIdf
            } else {
                Input::Ppmi
            },
            window: p.usize("window"),
            max_vocab: p.usize("max_vocab"),
        }
    }
}

const DIM: ParamSpec = ParamSpec {
    name: "dim",
    kind: Kind::Int { min: 1, max: 2000 },
    default: DefaultValue::Int(50),
    help: "embedding dimension d (the paper: 50 or 200; Isomap also 1000)",
    live: false,
};

const K: ParamSpec = ParamSpec {
    name: "k",
    kind: Kind::Int {
        min: 1,
        max: 100_000,
    },
    default: DefaultValue::Int(10),
    help: "nearest neighbours per word (the paper: 10 to 500)",
    live: false,
};

const EPSILON: ParamSpec = ParamSpec {
    name: "epsilon",
    kind: Kind::Float { min: 0.0, max: 2.0 },
    default: DefaultValue::Float(0.0),
    help: "neighbours within this distance of the unit rows instead of k (0 = use k)",
    live: false,
};

const fn input(default: &'static str) -> ParamSpec {
    ParamSpec {
        name: "input",
        kind: Kind::Choice(&["ppmi", "tfidf"]),
        default: DefaultValue::Choice(default),
        help: "rows: PPMI or TF-IDF co-occurrences, L2-normalised",
        live: false,
    }
}

const fn window(default: i64) -> ParamSpec {
    ParamSpec {
        name: "window",
        kind: Kind::Int { min: 1, max: 255 },
        default: DefaultValue::Int(default),
        help: "symmetric context window (the paper: 2 or 5)",
        live: false,
    }
}

const MAX_VOCAB: ParamSpec = ParamSpec {
    name: "max_vocab",
    kind: Kind::Int {
        min: 3,
        max: 100_000,
    },
    default: DefaultValue::Int(10_000),
    help: "embed the N most frequent words (rows and contexts; the paper: 10,000)",
    live: false,
};

const fn tol(method: Method) -> ParamSpec {
    ParamSpec {
        name: "tol",
        kind: Kind::Float {
            min: 1e-14,
            max: 0.5,
        },
        default: DefaultValue::Float(default_tol(method)),
        help: "relative eigen residual every pair must reach (the run's loss)",
        live: false,
    }
}

const BLOCK: ParamSpec = ParamSpec {
    name: "block",
    kind: Kind::Int { min: 1, max: 64 },
    default: DefaultValue::Int(8),
    help: "vectors per Lanczos block",
    live: false,
};

const BASIS: ParamSpec = ParamSpec {
    name: "basis",
    kind: Kind::Int {
        min: 0,
        max: 100_000,
    },
    default: DefaultValue::Int(0),
    help: "Krylov basis size before a restart (0 = automatic: 2d + 32 for Isomap, at least 200 otherwise)",
    live: false,
};

const MAX_STEPS: ParamSpec = ParamSpec {
    name: "max_steps",
    kind: Kind::Int {
        min: 1,
        max: 10_000_000,
    },
    default: DefaultValue::Int(20_000),
    help: "eigensolver block steps allowed (the run ends when it converges)",
    live: false,
};

/// Schema of `isomap`.
pub const ISOMAP_SCHEMA: &[ParamSpec] = &[
    DIM,
    K,
    EPSILON,
    ParamSpec {
        name: "landmarks",
        kind: Kind::Int {
            min: 0,
            max: 100_000,
        },
        default: DefaultValue::Int(0),
        help: "landmark Isomap: shortest paths from this many random words only (0 = exact)",
        live: false,
    },
    input("tfidf"),
    window(2),
    MAX_VOCAB,
    tol(Method::Isomap),
    BLOCK,
    BASIS,
    MAX_STEPS,
];

/// Schema of `lle`.
pub const LLE_SCHEMA: &[ParamSpec] = &[
    DIM,
    K,
    EPSILON,
    ParamSpec {
        name: "reg",
        kind: Kind::Float {
            min: 1e-12,
            max: 10.0,
        },
        default: DefaultValue::Float(1e-3),
        help: "regulariser of the local Gram matrix, times its trace",
        live: false,
    },
    input("ppmi"),
    window(5),
    MAX_VOCAB,
    tol(Method::Lle),
    BLOCK,
    BASIS,
    MAX_STEPS,
];

/// Schema of `laplacian`.
pub const LAPLACIAN_SCHEMA: &[ParamSpec] = &[
    DIM,
    K,
    EPSILON,
    ParamSpec {
        name: "heat",
        kind: Kind::Float { min: 0.0, max: 1e9 },
        default: DefaultValue::Float(25.0),
        help:
            "heat-kernel width t of exp(-|xi-xj|^2/t) (the paper: 5, 25, 10000; 0 = unit weights)",
        live: false,
    },
    input("ppmi"),
    window(2),
    MAX_VOCAB,
    tol(Method::Laplacian),
    BLOCK,
    BASIS,
    MAX_STEPS,
];
