//! UBE as a word-embedding method (`--algo ube`; docs/methods/ube.md,
//! "Words"): the PPMI rows of the `max_vocab` most frequent words
//! (contexts the same words), L2-normalised, placed on the unit sphere by
//! [`crate::geometry::ube`]. Counting and weighting come from [`crate::cooc`]
//! through the graph methods' helpers; the loss is `J` after every sweep.

pub mod params;
pub mod trainer;

use std::time::Instant;

use crate::algo::manifold::{unit_rows, weighted, Input};
use crate::cooc::{CountConfig, Weighting, Window};
use crate::geometry::ube::{Config, Ube};
use crate::train::{Method, TrainInput, Trainer};
use crate::Result;

pub use params::*;
pub use trainer::UbeTrainer;

/// UBE on word rows.
pub static UBE: Method = Method {
    name: "ube",
    summary: "UBE: unit-sphere embedding of PPMI rows on an elbow-cut Gaussian kNN graph",
    schema: SCHEMA,
    dimension: Some("dim"),
    build,
};

fn build(input: &TrainInput, log: &mut dyn FnMut(String)) -> Result<Box<dyn Trainer>> {
    let v = Values::from_params(&input.params);
    let t = Instant::now();
    let window = v.window;
    let counts = input.counts.counts(
        &input.corpus,
        &CountConfig {
            window: Window::symmetric(window, Weighting::Uniform),
            max_vocab: Some(v.max_vocab),
        },
    )?;
    let rows = unit_rows(&weighted(&counts, Input::Ppmi)?);
    let n = rows.nrows();
    log(format!(
        "ube: {n} words, window {window}, PPMI rows (L2-normalised) in {:.1}s",
        t.elapsed().as_secs_f64()
    ));
    let config = Config {
        k_max: v.k_max,
        coverage: v.coverage,
        iters: v.iters,
        lr: v.lr,
        update: v.update,
        min_k: v.min_k,
        seed: input.seed,
        ..Config::new(v.dim)
    };
    let ube = Ube::new(rows, config)?;
    let mut index = input.corpus.vocab().index().clone();
    index.truncate(n);
    Ok(Box::new(UbeTrainer::new(ube, index)))
}
