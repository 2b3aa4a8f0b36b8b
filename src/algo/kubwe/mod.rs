//! KUBWE, kernelized unit-ball word embedding (Soleimani 2019, ch. 3), exact
//! and fast (VP-tree) variants.
//!
//! - Input ([`affinity`]): `A` = PPMI with context-distribution smoothing
//!   (0.75, base 2) of symmetric `1/d`-weighted co-occurrence counts over a
//!   window `L` (default 10, docs/methods/kubwe.md, "Input"), computed by
//!   [`crate::cooc`].
//!   Row `i` as is (the thesis and the authors' code do not symmetrise;
//!   `symmetric=true` averages `A` with `Aᵀ`).
//! - Vectors live on the unit sphere, drawn uniformly ([`crate::geometry::random`]). A sweep moves
//!   every word `i` by its attraction `v₁ = Σ_{P_i} a_ij y_j` (positive PPMI
//!   contexts) and repulsion `v₂ = Σ_{N_i} K(y_i·y_j) y_j` (every other word
//!   with `a_ij = 0`), `K(c) = ((c + 1)/2)^p` ([`kernel`]: the authors' code;
//!   eq. 3.11's `(c + 1)^p` is `2^p` times it, which the default update
//!   cannot see), then renormalises ([`update`]: normalised forces, step `lr`
//!   = 0.1, the code's sigmoid decay, 50 sweeps exact / 100 fast —
//!   docs/methods/kubwe.md, "Update rule").
//! - `kubwe` computes the repulsion exactly, in blocks of dense products
//!   ([`exact`], `O(n² d)` per sweep). `kubwe-fast` takes it from the `k`
//!   nearest non-positive neighbours only ([`fast`]), found with the
//!   modified vantage-point tree of Algorithm 2 ([`vptree`]) rebuilt every
//!   `rebuild` sweeps (default 1: building costs a few per cent of a sweep).
//!   Each word's search starts from its neighbours of the last sweep
//!   (`warm_start`, default on: about half the distances and higher recall;
//!   the thesis' bound alone finds 30-70% of the true `k` nearest at d = 100,
//!   not its claimed 99% — docs/benchmarks.md). Default `k` = 3000 for `|V| ≥ 100k`,
//!   else `max(√|V|, 50)` (docs/methods/kubwe.md, "Our choices where the
//!   thesis is silent or ambiguous").
//!   Beyond the `k` nearest, `far_samples` words per word and sweep (default
//!   2048; 0 = the thesis' pure k-NN) give an unbiased estimate of the rest of
//!   the repulsion ([`fast::FarField`]): at `k = √|V|` the truncated force
//!   alone loses 0.2 Spearman on WordSim-353 (docs/benchmarks.md).
//! - Loss ([`objective`]): the pseudo-energy whose gradient is the force, per
//!   word — exact for `kubwe`, on a fixed sample of `loss_sample` rows
//!   for `kubwe-fast`. Held-out perplexity through the engine scores word
//!   pairs by the cosine of their (unit) vectors.

pub mod affinity;
pub mod exact;
pub mod fast;
pub mod kernel;
pub mod objective;
pub mod trainer;
pub mod update;
pub mod vptree;

use std::time::Instant;

pub use affinity::{Affinity, AffinityConfig};
pub use kernel::{Kernel, Scale};
pub use trainer::{FastStats, KubweTrainer};
pub use update::{Decay, Update};

use crate::schema::{ParamSpec, Params};
use crate::train::{Method, TrainInput, Trainer};
use crate::Result;

/// The exact variant's registry entry.
pub static KUBWE: Method = Method {
    name: "kubwe",
    summary: "KUBWE: unit-sphere PPMI attraction + polynomial-kernel repulsion from every other word (exact, O(n²d) per sweep)",
    schema: SCHEMA_EXACT,
    dimension: Some("dim"),
    build,
};

/// The fast variant's registry entry.
pub static KUBWE_FAST: Method = Method {
    name: "kubwe-fast",
    summary: "Fast KUBWE: repulsion from the k nearest non-positive words only (modified VP-tree)",
    schema: SCHEMA_FAST,
    dimension: Some("dim"),
    build,
};

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
    &["sigmoid", "linear"],
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
    &["half", "plain"],
    "half",
    "half: ((c+1)/2)^p (code); plain: (c+1)^p (eq. 3.11); same vectors under update=normalized",
);

const UPDATE: ParamSpec = ParamSpec::choice(
    "update",
    &["normalized", "gradient"],
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
    &["thesis", "exact"],
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
pub const SCHEMA_EXACT: &[ParamSpec] = &[
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
pub const SCHEMA_FAST: &[ParamSpec] = &[
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
        /// Neighbours per word (0 = the default rule, see [`fast::default_k`]).
        k: usize,
        /// Pruning rule of the tree search.
        bound: SearchBound,
        /// Rebuild the tree every this many sweeps.
        rebuild: usize,
        /// Seed each search with the word's neighbours of the last sweep.
        warm: bool,
        /// Far-field draws per word and sweep (0 = off, see [`fast::FarField`]).
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

impl Settings {
    /// Reads the settings from validated parameters of [`SCHEMA_EXACT`] or
    /// [`SCHEMA_FAST`] (the fast ones exist only in the latter).
    pub fn from_params(p: &Params) -> Settings {
        let has = |name: &str| p.schema().iter().any(|s| s.name == name);
        let repulsion = if has("k") {
            Repulsion::Nearest {
                k: p.usize("k"),
                bound: match p.choice("search") {
                    "exact" => SearchBound::Exact,
                    _ => SearchBound::Thesis,
                },
                rebuild: p.usize("rebuild"),
                warm: p.bool("warm_start"),
                far: p.usize("far_samples"),
            }
        } else {
            Repulsion::Exact
        };
        Settings {
            dim: p.usize("dim"),
            sweeps: p.usize("sweeps"),
            lr: p.f64("lr"),
            decay: match p.choice("lr_decay") {
                "linear" => Decay::Linear,
                _ => Decay::Sigmoid,
            },
            kernel: Kernel {
                p: p.usize("p") as u32,
                scale: match p.choice("kernel") {
                    "plain" => Scale::Plain,
                    _ => Scale::Half,
                },
            },
            update: match p.choice("update") {
                "gradient" => Update::Gradient,
                _ => Update::Normalized,
            },
            affinity: AffinityConfig {
                window: p.usize("window"),
                cds: p.f64("cds"),
                symmetric: p.bool("symmetric"),
            },
            repulsion,
            loss_sample: if has("loss_sample") {
                p.usize("loss_sample")
            } else {
                0
            },
        }
    }
}

/// Builds either variant (the schema tells them apart).
fn build(input: &TrainInput, log: &mut dyn FnMut(String)) -> Result<Box<dyn Trainer>> {
    let settings = Settings::from_params(&input.params);
    let t = Instant::now();
    let counts = input
        .counts
        .counts(&input.corpus, &settings.affinity.count_config())?;
    let (a, line) = Affinity::from_counts(&counts, &settings.affinity)?;
    drop(counts);
    log(format!("{line} in {:.1}s", t.elapsed().as_secs_f64()));
    let trainer = KubweTrainer::new(
        settings,
        input.corpus.vocab().index().clone(),
        a,
        input.seed,
    )?;
    let n = trainer.affinity().len();
    let what = match settings.repulsion {
        Repulsion::Exact => "exact repulsion".to_string(),
        Repulsion::Nearest {
            k,
            bound,
            rebuild,
            warm,
            far,
        } => format!(
            "repulsion from the {} nearest ({:?} bound, {} search, tree rebuilt every {rebuild} sweep(s)) + {} far-field draws, loss on {} sampled rows",
            trainer::resolve_k(k, n),
            bound,
            if warm { "warm" } else { "cold" },
            far.min(n),
            settings.loss_sample.min(n)
        ),
    };
    log(format!(
        "kubwe: {n} words, p = {}, {what}; {} sweeps of {} steps ({} words each)",
        settings.kernel.p,
        settings.sweeps,
        trainer.steps_per_sweep(),
        trainer.rows_per_step()
    ));
    Ok(Box::new(trainer))
}
