//! GloVe (Pennington, Socher & Manning 2014) as Stanford's `glove.c` trains it.
//!
//! - Counts: symmetric window (default 10 words each side, see
//!   docs/methods/glove.md, "Our choices where the paper is silent"; the
//!   GloVe demo script uses 15), a pair at distance `d` adds `1/d`, never
//!   across a sentence or 10,000-token unit; counted by [`crate::cooc`].
//! - Objective: `Σ_{X_ij>0} ½ f(X_ij)(w_i·c_j + b_i + b̃_j − ln X_ij)²` with
//!   `f(x) = min(1, (x/x_max)^0.75)`, `x_max` = 100 (the paper's and glove.c's
//!   default; the demo script uses 10).
//! - Optimiser: glove.c's AdaGrad (initial rate 0.05, squared-gradient sums
//!   starting at 1, see [`model`]); over threads by the deterministic
//!   schedule ([`strata`], the default) or Hogwild ([`crate::fast::hogwild`],
//!   `schedule=hogwild`).
//! - Order: the non-zeros are shuffled once with the run's seed before training
//!   (as glove.c's `shuffle` tool does); `shuffle=epoch` reshuffles before
//!   every epoch instead.
//! - Output: `W + C`, the word plus context vectors (glove.c's `-model 2`);
//!   `output=word` gives `W` alone. The context vectors are attached as the
//!   embedding's context matrix.
//! - Loss reported per step: mean of `½ f (…)²` over the step's cells, the
//!   quantity glove.c prints per iteration ("cost") computed on a slice.
//! - Held-out perplexity scores a pair with the model's own `ln X̂_wc =
//!   w·c + b + b̃` (augmented vectors, see [`model`]). GloVe fits only the
//!   non-zero counts, so pairs never seen together are not pushed down and
//!   the perplexity stays high on sparse counts (about 2,400 on text8-head).
//! - Numbers: parameters and squared-gradient sums are `f32` (glove.c uses
//!   `double`), dot products and losses are accumulated in `f64`; `ln X` and
//!   `f(X)` are computed once per cell, not once per cell and epoch.
//! - Steps: about a million cells each; with one thread, or any number under
//!   the deterministic schedule, a run is bit-for-bit reproducible for a
//!   given seed (and thread count).

pub mod cells;
pub mod loss;
pub mod model;
pub mod params;
pub mod strata;
pub mod trainer;

use std::time::Instant;

pub use params::*;
pub use trainer::GloveTrainer;

use crate::train::{Method, TrainInput, Trainer};
use crate::Result;

/// The registry entry.
pub static GLOVE: Method = Method {
    name: "glove",
    summary: "GloVe: weighted least squares on log co-occurrence counts (AdaGrad)",
    schema: SCHEMA,
    dimension: Some("dim"),
    build,
};

fn build(input: &TrainInput, log: &mut dyn FnMut(String)) -> Result<Box<dyn Trainer>> {
    let settings = Settings::from_params(&input.params);
    let t = Instant::now();
    let counts = input
        .counts
        .counts(&input.corpus, &settings.count_config())?;
    let mut cells = cells::cells_from_counts(&counts, settings.x_max, settings.alpha);
    drop(counts);
    cells::shuffle(&mut cells, input.seed, 0);
    log(format!(
        "glove: {} non-zero counts over {} words (window {}, harmonic) in {:.1}s",
        cells.len(),
        input.corpus.vocab().len(),
        settings.window,
        t.elapsed().as_secs_f64()
    ));
    let trainer = GloveTrainer::new(
        settings,
        input.corpus.vocab().index().clone(),
        cells,
        input.seed,
        input.threads,
    )?;
    log(format!(
        "glove: {} epochs of {} steps",
        settings.epochs,
        trainer.steps_per_epoch()
    ));
    Ok(Box::new(trainer))
}
