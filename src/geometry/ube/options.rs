//! UBE's options, declared once here for the word method (`algo::ube`) and
//! the projection (`project::ube`), which put them in their schemas.

use super::Update;
use crate::schema::{Choice, ParamSpec};

/// Neighbours searched before each point's elbow cut.
pub const K_MAX: ParamSpec = ParamSpec::int(
    "k_max",
    2,
    10_000,
    50,
    "neighbours searched before each point's elbow cut (the thesis: 50)",
);

/// Where the elbow lies, in Gaussian widths.
pub const COVERAGE: ParamSpec = ParamSpec::float(
    "coverage",
    0.1,
    100.0,
    3.0,
    "the elbow lies at this many Gaussian widths (the thesis: 3)",
);

/// Sweeps over all points.
pub const ITERS: ParamSpec = ParamSpec::int(
    "iters",
    1,
    100_000,
    250,
    "sweeps over all points (the thesis: 250)",
);

/// The learning rate of the first sweep.
pub const LR: ParamSpec = ParamSpec::float(
    "lr",
    1e-9,
    100.0,
    0.3,
    "learning rate of sweep 1; sweep t uses lr / sqrt(t), or with update=authors a sigmoid down to lr/10 (the thesis and the authors' code: 0.1)",
);

/// Neighbours every point keeps, whatever its elbow.
pub const MIN_K: ParamSpec = ParamSpec::int(
    "min_k",
    1,
    10_000,
    1,
    "neighbours every point keeps at least, whatever its elbow (the thesis: 1, the elbow alone; the authors' code: 15); at most k_max",
);

/// The update rule.
pub const UPDATE: ParamSpec = ParamSpec::choice(
    "update",
    Update::NAMES,
    "normalised",
    "normalised: unit attraction minus unit repulsion, lr/sqrt(t); newton: G^-1 g (the thesis); sgd: gradient step; authors: the authors' C code (graph neighbours out of the repulsion, sigmoid lr; they ran it with lr=0.1 iters=500 k_max=90)",
);
