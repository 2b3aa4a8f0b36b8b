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
pub mod params;
pub mod proposal;
pub mod trainer;

#[cfg(test)]
mod tests;

pub use model::{Draws, Layout, Model, Shape};
pub use params::*;
pub use trainer::{MpnnlmTrainer, Target};

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

fn build(input: &TrainInput, log: &mut dyn FnMut(String)) -> Result<Box<dyn Trainer>> {
    Ok(Box::new(MpnnlmTrainer::new(input, log)?))
}
