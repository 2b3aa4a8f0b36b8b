//! `kubwe`'s hyperparameters, declared once, and the settings a run
//! reads from them.

use super::affinity::AffinityConfig;
use super::kernel::{Kernel, Scale};
use super::update::{Decay, Update};
use crate::schema::{bind_params, choice_names, Choice, ParamSpec, Params};

const DIM: ParamSpec = ParamSpec::int("dim", 1, 10_000, 100, "vector dimension (thesis: 100)");

const fn sweeps(default: i64) -> ParamSpec {
    ParamSpec::int(
        "sweeps",
        1,
        100_000,
        default,
        "passes over the vocabulary (authors' code: 50 exact, 100 fast)",
    )
}

const LR: ParamSpec = ParamSpec::float(
    "lr",
    0.0,
    10.0,
    0.1,
    "step: radians per sweep (normalized) or gradient multiplier (gradient)",
)
.live();

const DECAY: ParamSpec = ParamSpec::choice(
    "lr_decay",
    Decay::NAMES,
    "sigmoid",
    "sigmoid: the authors' (lr to ~0.99 lr); linear: lr (1 - t/T)",
);

const P: ParamSpec = ParamSpec::int(
    "p",
    1,
    31,
    13,
    "degree of the polynomial kernel (thesis: 13 at d = 100)",
);

const KERNEL: ParamSpec = ParamSpec::choice(
    "kernel",
    Scale::NAMES,
    "half",
    "half: ((c+1)/2)^p (code); plain: (c+1)^p (eq. 3.11); same vectors under update=normalized",
);

const UPDATE: ParamSpec = ParamSpec::choice(
    "update",
    Update::NAMES,
    "normalized",
    "normalized: unit attraction - unit repulsion, step lr (code); gradient: y - lr g (thesis)",
);

const WINDOW: ParamSpec = ParamSpec::int(
    "window",
    1,
    255,
    10,
    "symmetric window; a pair at distance d counts 1/d",
);

const CDS: ParamSpec = ParamSpec::float(
    "cds",
    0.01,
    1.0,
    0.75,
    "context-distribution smoothing exponent of the PPMI",
);

const SYMMETRIC: ParamSpec = ParamSpec::flag(
    "symmetric",
    false,
    "use (A + A^T)/2 (cds makes A asymmetric; the thesis uses rows as they are)",
);

const K: ParamSpec = ParamSpec::int(
    "k",
    0,
    1_000_000,
    0,
    "nearest non-positive neighbours that repel (0: 3000 if |V| >= 100k, else max(sqrt|V|, 50))",
);

const SEARCH: ParamSpec = ParamSpec::choice(
    "search",
    SearchBound::NAMES,
    "thesis",
    "VP-tree pruning: thesis (Algorithm 2, d_min = 1 - 3/sqrt d) or exact (chord metric)",
);

const REBUILD: ParamSpec = ParamSpec::int(
    "rebuild",
    1,
    1000,
    1,
    "rebuild the VP-tree every this many sweeps",
);

const FAR_SAMPLES: ParamSpec = ParamSpec::int("far_samples", 0, 1_000_000, 2048, "words drawn per word and sweep to estimate the repulsion beyond the k nearest (0: pure k-NN as in the thesis)");

const WARM_START: ParamSpec = ParamSpec::flag("warm_start", true, "start each search from the word's k neighbours of the previous sweep (|V| k ids of memory): higher recall, fewer nodes visited");

const LOSS_SAMPLE: ParamSpec = ParamSpec::int("loss_sample", 1, 1_000_000, 1000, "rows whose exact energy estimates the loss, once per sweep (costs sample/|V| of an exact sweep)");

/// `kubwe`'s hyperparameters.
pub static SCHEMA_EXACT: &[ParamSpec] = &[
    DIM,
    sweeps(50),
    LR,
    DECAY,
    P,
    KERNEL,
    UPDATE,
    WINDOW,
    CDS,
    SYMMETRIC,
];

/// `kubwe-fast`'s hyperparameters.
pub static SCHEMA_FAST: &[ParamSpec] = &[
    DIM,
    sweeps(100),
    LR,
    DECAY,
    P,
    KERNEL,
    UPDATE,
    WINDOW,
    CDS,
    SYMMETRIC,
    K,
    SEARCH,
    REBUILD,
    WARM_START,
    FAR_SAMPLES,
    LOSS_SAMPLE,
];

/// Where the repulsion comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Repulsion {
    /// Every word with `a_ij = 0` (`kubwe`).
    Exact,
    /// The `k` nearest of them (`kubwe-fast`).
    Nearest {
        /// Neighbours per word (0 = the default rule, see [`super::fast::default_k`]).
        k: usize,
        /// Pruning rule of the tree search.
        bound: SearchBound,
        /// Rebuild the tree every this many sweeps.
        rebuild: usize,
        /// Seed each search with the word's neighbours of the last sweep.
        warm: bool,
        /// Far-field draws per word and sweep (0 = off, see [`super::fast::FarField`]).
        far: usize,
    },
}

/// The tree search's pruning rule, as chosen on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchBound {
    /// Algorithm 2 (approximate).
    Thesis,
    /// Triangle inequality on the chord metric (exact).
    Exact,
}

/// The validated settings of one run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// Vector dimension.
    pub dim: usize,
    /// Sweeps over the vocabulary.
    pub sweeps: usize,
    /// Initial step (live).
    pub lr: f64,
    /// Step decay over the sweeps.
    pub decay: Decay,
    /// Repulsion kernel.
    pub kernel: Kernel,
    /// Update rule.
    pub update: Update,
    /// How `A` is built.
    pub affinity: AffinityConfig,
    /// Exact or nearest-neighbour repulsion.
    pub repulsion: Repulsion,
    /// Rows of the sampled loss (fast variant).
    pub loss_sample: usize,
}

choice_names!(Decay {
    Sigmoid = "sigmoid",
    Linear = "linear",
});
choice_names!(Scale {
    Half = "half",
    Plain = "plain",
});
choice_names!(Update {
    Normalized = "normalized",
    Gradient = "gradient",
});
choice_names!(SearchBound {
    Thesis = "thesis",
    Exact = "exact",
});

bind_params! {
    /// The values of [`SCHEMA_EXACT`], a field per entry.
    #[derive(Debug, Clone, Copy)]
    struct Exact for SCHEMA_EXACT {
        dim: usize,
        sweeps: usize,
        lr: f64,
        lr_decay: Decay,
        p: u32,
        kernel: Scale,
        update: Update,
        window: usize,
        cds: f64,
        symmetric: bool,
    }
}

bind_params! {
    /// The values of [`SCHEMA_FAST`]: [`Exact`]'s, then the search's.
    #[derive(Debug, Clone, Copy)]
    struct Fast for SCHEMA_FAST {
        dim: usize,
        sweeps: usize,
        lr: f64,
        lr_decay: Decay,
        p: u32,
        kernel: Scale,
        update: Update,
        window: usize,
        cds: f64,
        symmetric: bool,
        k: usize,
        search: SearchBound,
        rebuild: usize,
        warm_start: bool,
        far_samples: usize,
        loss_sample: usize,
    }
}

impl Exact {
    fn settings(self, repulsion: Repulsion, loss_sample: usize) -> Settings {
        Settings {
            dim: self.dim,
            sweeps: self.sweeps,
            lr: self.lr,
            decay: self.lr_decay,
            kernel: Kernel {
                p: self.p,
                scale: self.kernel,
            },
            update: self.update,
            affinity: AffinityConfig {
                window: self.window,
                cds: self.cds,
                symmetric: self.symmetric,
            },
            repulsion,
            loss_sample,
        }
    }
}

impl Settings {
    /// Reads the settings from validated parameters of [`SCHEMA_EXACT`] or
    /// [`SCHEMA_FAST`] (the fast ones exist only in the latter).
    pub fn from_params(p: &Params) -> Settings {
        if p.schema().len() != SCHEMA_FAST.len() {
            return Exact::from_params(p).settings(Repulsion::Exact, 0);
        }
        let f = Fast::from_params(p);
        let repulsion = Repulsion::Nearest {
            k: f.k,
            bound: f.search,
            rebuild: f.rebuild,
            warm: f.warm_start,
            far: f.far_samples,
        };
        let exact = Exact {
            dim: f.dim,
            sweeps: f.sweeps,
            lr: f.lr,
            lr_decay: f.lr_decay,
            p: f.p,
            kernel: f.kernel,
            update: f.update,
            window: f.window,
            cds: f.cds,
            symmetric: f.symmetric,
        };
        exact.settings(repulsion, f.loss_sample)
    }
}
