//! The multi-prototype neural network language model with a distance softmax
//! (Lucas, ch. 3), `--algo mpnnlm`; the equations and our choices are written
//! out in `docs/methods/mpnnlm.md`.
//!
//! - Network ([`model`]): the `n` previous prototype vectors, concatenated,
//!   feed a `tanh` hidden layer and a `tanh` prediction layer that outputs a
//!   point `p̂` of the embedding space.
//! - Output ([`model`]): `q_k = exp(−‖p_k − p̂‖²/2)` over every prototype,
//!   `P(w) = Σ_{k∈w} q_k / Σ_k q_k`; training may estimate the denominator
//!   from a sample of the other prototypes (drawn by word frequency and
//!   importance-weighted, [`proposal`]), evaluation never does.
//! - Training: one token at a time, the four backpropagation steps (the
//!   target word's prototypes pulled by their posterior share, the others
//!   pushed, the network and the input prototypes updated) with momentum
//!   SGD; a prototype drawn from the posterior is the next input. Sentences start from `n`
//!   start prototypes and end by predicting an end token.
//! - Prototypes ([`creation`]): a word grows a prototype when the paper's
//!   four criteria hold, placed by agglomerative clustering of its last
//!   predictions.
//! - Parallel: chunks of whole sentences, `schedule = deterministic`
//!   (one chunk per thread, in short rounds on replicas of the tables,
//!   merged in thread order: [`lanes`]) or `hogwild` (races on the shared tables,
//!   [`trainer`]); with one thread both are the same serial loop. Every
//!   deterministic run, and every one-thread run, is bit-for-bit
//!   reproducible.
//! - Perplexity: the model's own, on a held-out prefix with the full
//!   normaliser ([`heldout`]), reported as `model ppl`, beside unigram and
//!   Kneser-Ney baselines scored on the same tokens ([`baselines`]).

pub mod baselines;
pub mod cluster;
pub mod creation;
pub mod heldout;
pub mod lanes;
pub mod model;
pub mod proposal;
pub mod trainer;

#[cfg(test)]
mod tests;

pub use model::{Layout, Model, Shape};
pub use trainer::{MpnnlmTrainer, Target};

use crate::schema::{ParamSpec, Params};
use crate::train::parallel::{self, Schedule};
use crate::train::{Method, TrainInput, Trainer};
use crate::Result;

/// The registry entry.
pub static MPNNLM: Method = Method {
    name: "mpnnlm",
    summary: "multi-prototype neural language model with a distance softmax (Lucas ch. 3)",
    schema: SCHEMA,
    dimension: Some("dim"),
    build,
};

/// The hyperparameters (paper values where the thesis gives them, else the
/// choices in `docs/methods/mpnnlm.md`).
pub const SCHEMA: &[ParamSpec] = &[
    ParamSpec::int("dim", 1, 1000, 50, "prototype dimension d (thesis: 50)"),
    ParamSpec::int(
        "context",
        1,
        16,
        4,
        "previous prototypes fed to the network, n (thesis: 4)",
    ),
    ParamSpec::int("hidden", 1, 4096, 100, "hidden tanh units (thesis: 100)"),
    ParamSpec::int("epochs", 1, 1000, 1, "passes over the training split"),
    ParamSpec::float(
        "lr",
        0.0,
        10.0,
        0.001,
        "learning rate of momentum SGD (constant; the step is about lr / (1 - momentum))",
    )
    .live(),
    ParamSpec::float("momentum", 0.0, 0.999, 0.9, "momentum of SGD").live(),
    ParamSpec::int(
        "sample",
        0,
        10_000_000,
        1000,
        "other prototypes drawn for the training denominator (0 = full normaliser)",
    )
    .live(),
    ParamSpec::choice(
        "proposal",
        &["unigram", "unigram0.75", "uniform"],
        "unigram",
        "where the sampled denominator draws the other words: by training count (or its 0.75 power), importance-weighted (Bengio & Senecal), or uniformly among the prototypes (lets the frequent words escape most samples: model ppl stays above the unigram's)",
    ),
    ParamSpec::choice(
        "target",
        &["drawn", "posterior"],
        "posterior",
        "drawn: only the prototype drawn from the posterior trains towards the prediction, the word's others are pushed away; posterior: all of the word's prototypes move towards it, weighted by the posterior (the thesis, step 2)",
    )
    .live(),
    ParamSpec::choice(
        "prototypes",
        &["log10", "one"],
        "log10",
        "at most floor(log10 count) prototypes per word, or one (single-prototype model)",
    ),
    ParamSpec::float(
        "max_ppl",
        0.0,
        1e12,
        400.0,
        "criterion 1: create prototypes only while held-out perplexity is below this",
    )
    .live(),
    ParamSpec::int(
        "min_selections",
        0,
        1_000_000_000,
        400,
        "criterion 2: every prototype of the word selected at least this often",
    )
    .live(),
    ParamSpec::float(
        "min_distance",
        0.0,
        1e6,
        1.0,
        "criterion 4: a new prototype at least this far (Euclidean) from the word's others",
    )
    .live(),
    ParamSpec::int(
        "history",
        2,
        10_000,
        100,
        "last predictions per word kept for clustering (thesis: 100)",
    ),
    ParamSpec::float(
        "min_split",
        0.0,
        0.5,
        0.1,
        "smallest share of the predictions on the minor side of the chosen split (thesis: 10%)",
    )
    .live(),
    ParamSpec::choice(
        "placement",
        &["centroid", "shift"],
        "centroid",
        "a new prototype at its cluster's centroid of predictions (thesis), or the word's prototype shifted by the cluster's departure from the mean prediction",
    )
    .live(),
    ParamSpec::int(
        "step_tokens",
        1,
        100_000_000,
        100_000,
        "training tokens per step; held-out perplexity and creation are checked after each",
    ),
    ParamSpec::int(
        "heldout_tokens",
        0,
        100_000_000,
        1000,
        "held-out tokens scored for the model perplexity (0 = none)",
    ),
    parallel::schedule("hogwild"),
];

/// The validated settings of one run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// Network shape.
    pub shape: Shape,
    /// Passes over the corpus.
    pub epochs: usize,
    /// Learning rate (live).
    pub lr: f64,
    /// Momentum (live).
    pub momentum: f64,
    /// Other prototypes sampled for the denominator; 0 = all (live).
    pub sample: usize,
    /// Power of the counts of the sampled denominator's proposal (`None`:
    /// uniform among the prototypes).
    pub proposal: Option<f64>,
    /// What the target's prototypes train towards (live).
    pub target: Target,
    /// Several prototypes per word allowed.
    pub multi: bool,
    /// Creation thresholds (live).
    pub criteria: creation::Criteria,
    /// Predictions kept per word.
    pub history: usize,
    /// Tokens per step.
    pub step_tokens: usize,
    /// Held-out tokens for the model perplexity.
    pub heldout_tokens: usize,
    /// How several threads share the updates.
    pub schedule: Schedule,
}

impl Settings {
    /// Reads the settings from validated parameters of [`SCHEMA`].
    pub fn from_params(p: &Params) -> Settings {
        Settings {
            shape: Shape {
                dim: p.usize("dim"),
                context: p.usize("context"),
                hidden: p.usize("hidden"),
            },
            epochs: p.usize("epochs"),
            lr: p.f64("lr"),
            momentum: p.f64("momentum"),
            sample: p.usize("sample"),
            proposal: match p.choice("proposal") {
                "unigram" => Some(1.0),
                "unigram0.75" => Some(0.75),
                _ => None,
            },
            target: target_of(p.choice("target")),
            multi: p.choice("prototypes") == "log10",
            criteria: creation::Criteria {
                max_ppl: p.f64("max_ppl"),
                min_selections: p.usize("min_selections") as u32,
                min_distance: p.f64("min_distance"),
                min_split: p.f64("min_split"),
                placement: placement_of(p.choice("placement")),
            },
            history: p.usize("history"),
            step_tokens: p.usize("step_tokens"),
            heldout_tokens: p.usize("heldout_tokens"),
            schedule: Schedule::from_params(p),
        }
    }
}

/// The [`Target`] named by the `target` parameter.
pub fn target_of(name: &str) -> Target {
    match name {
        "posterior" => Target::Posterior,
        _ => Target::Drawn,
    }
}

/// The [`creation::Placement`] named by the `placement` parameter.
pub fn placement_of(name: &str) -> creation::Placement {
    match name {
        "shift" => creation::Placement::Shift,
        _ => creation::Placement::Centroid,
    }
}

fn build(input: &TrainInput, log: &mut dyn FnMut(String)) -> Result<Box<dyn Trainer>> {
    Ok(Box::new(MpnnlmTrainer::new(input, log)?))
}
