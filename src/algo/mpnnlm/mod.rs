//! The multi-prototype neural network language model with a distance softmax
//! (Lucas, ch. 3), `--algo mpnnlm`; the equations and our choices are written
//! out in `docs/methods/mpnnlm.md`.
//!
//! - Network ([`model`]): the `n` previous prototype vectors, concatenated,
//!   feed a `tanh` hidden layer and a `tanh` prediction layer that outputs a
//!   point `p̂` of the embedding space.
//! - Output ([`model`]): `q_k = exp(−‖p_k − p̂‖²/2)` over every prototype,
//!   `P(w) = Σ_{k∈w} q_k / Σ_k q_k`; training may estimate the denominator
//!   from a uniform sample of the other prototypes, evaluation never does.
//! - Training: one token at a time, the four backpropagation steps (target
//!   prototypes pulled, the others pushed, the network and the input
//!   prototypes updated) with momentum SGD; the target's prototype for the
//!   next input is drawn from its posterior. Sentences start from `n`
//!   start prototypes and end by predicting an end token.
//! - Prototypes ([`creation`]): a word grows a prototype when the paper's
//!   four criteria hold, placed by agglomerative clustering of its last
//!   predictions.
//! - Parallel: Hogwild over chunks of whole sentences ([`trainer`]); with
//!   one thread a run is bit-for-bit reproducible.
//! - Perplexity: the model's own, on a held-out prefix with the full
//!   normaliser ([`heldout`]), reported as `model ppl`.

pub mod cluster;
pub mod creation;
pub mod heldout;
pub mod model;
pub mod trainer;

#[cfg(test)]
mod tests;

pub use model::{Layout, Model, Shape};
pub use trainer::MpnnlmTrainer;

use crate::train::{DefaultValue, Kind, Method, ParamSpec, Params, TrainInput, Trainer};
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
    ParamSpec {
        name: "dim",
        kind: Kind::Int { min: 1, max: 1000 },
        default: DefaultValue::Int(50),
        help: "prototype dimension d (thesis: 50)",
        live: false,
    },
    ParamSpec {
        name: "context",
        kind: Kind::Int { min: 1, max: 16 },
        default: DefaultValue::Int(4),
        help: "previous prototypes fed to the network, n (thesis: 4)",
        live: false,
    },
    ParamSpec {
        name: "hidden",
        kind: Kind::Int { min: 1, max: 4096 },
        default: DefaultValue::Int(100),
        help: "hidden tanh units (thesis: 100)",
        live: false,
    },
    ParamSpec {
        name: "epochs",
        kind: Kind::Int { min: 1, max: 1000 },
        default: DefaultValue::Int(1),
        help: "passes over the training split",
        live: false,
    },
    ParamSpec {
        name: "lr",
        kind: Kind::Float {
            min: 0.0,
            max: 10.0,
        },
        default: DefaultValue::Float(0.001),
        help: "learning rate of momentum SGD (constant; the step is about lr / (1 - momentum))",
        live: true,
    },
    ParamSpec {
        name: "momentum",
        kind: Kind::Float {
            min: 0.0,
            max: 0.999,
        },
        default: DefaultValue::Float(0.9),
        help: "momentum of SGD",
        live: true,
    },
    ParamSpec {
        name: "sample",
        kind: Kind::Int {
            min: 0,
            max: 10_000_000,
        },
        default: DefaultValue::Int(1000),
        help: "other prototypes drawn for the training denominator (0 = full normaliser)",
        live: true,
    },
    ParamSpec {
        name: "prototypes",
        kind: Kind::Choice(&["log10", "one"]),
        default: DefaultValue::Choice("log10"),
        help: "at most floor(log10 count) prototypes per word, or one (single-prototype model)",
        live: false,
    },
    ParamSpec {
        name: "max_ppl",
        kind: Kind::Float {
            min: 0.0,
            max: 1e12,
        },
        default: DefaultValue::Float(400.0),
        help: "criterion 1: create prototypes only while held-out perplexity is below this",
        live: true,
    },
    ParamSpec {
        name: "min_selections",
        kind: Kind::Int {
            min: 0,
            max: 1_000_000_000,
        },
        default: DefaultValue::Int(400),
        help: "criterion 2: every prototype of the word selected at least this often",
        live: true,
    },
    ParamSpec {
        name: "min_distance",
        kind: Kind::Float { min: 0.0, max: 1e6 },
        default: DefaultValue::Float(1.0),
        help: "criterion 4: a new prototype at least this far (Euclidean) from the word's others",
        live: true,
    },
    ParamSpec {
        name: "history",
        kind: Kind::Int {
            min: 2,
            max: 10_000,
        },
        default: DefaultValue::Int(100),
        help: "last predictions per word kept for clustering (thesis: 100)",
        live: false,
    },
    ParamSpec {
        name: "min_split",
        kind: Kind::Float { min: 0.0, max: 0.5 },
        default: DefaultValue::Float(0.1),
        help:
            "smallest share of the predictions on the minor side of the chosen split (thesis: 10%)",
        live: true,
    },
    ParamSpec {
        name: "step_tokens",
        kind: Kind::Int {
            min: 1,
            max: 100_000_000,
        },
        default: DefaultValue::Int(100_000),
        help: "training tokens per step; held-out perplexity and creation are checked after each",
        live: false,
    },
    ParamSpec {
        name: "heldout_tokens",
        kind: Kind::Int {
            min: 0,
            max: 100_000_000,
        },
        default: DefaultValue::Int(1000),
        help: "held-out tokens scored for the model perplexity (0 = none)",
        live: false,
    },
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
            multi: p.choice("prototypes") == "log10",
            criteria: creation::Criteria {
                max_ppl: p.f64("max_ppl"),
                min_selections: p.usize("min_selections") as u32,
                min_distance: p.f64("min_distance"),
                min_split: p.f64("min_split"),
            },
            history: p.usize("history"),
            step_tokens: p.usize("step_tokens"),
            heldout_tokens: p.usize("heldout_tokens"),
        }
    }
}

fn build(input: &TrainInput, log: &mut dyn FnMut(String)) -> Result<Box<dyn Trainer>> {
    Ok(Box::new(MpnnlmTrainer::new(input, log)?))
}
