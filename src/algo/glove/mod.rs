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
pub mod strata;
pub mod trainer;

use std::time::Instant;

pub use trainer::GloveTrainer;

use crate::cooc::{CountConfig, Weighting, Window};
use crate::schema::{ParamSpec, Params};
use crate::train::{parallel, Method, TrainInput, Trainer};
use crate::Result;

/// The registry entry.
pub static GLOVE: Method = Method {
    name: "glove",
    summary: "GloVe: weighted least squares on log co-occurrence counts (AdaGrad)",
    schema: SCHEMA,
    dimension: Some("dim"),
    build,
};

/// GloVe's hyperparameters (defaults from glove.c and the paper).
pub const SCHEMA: &[ParamSpec] = &[
    ParamSpec::int("dim", 1, 10_000, 100, "vector dimension"),
    ParamSpec::int(
        "epochs",
        1,
        100_000,
        15,
        "passes over the non-zero counts (GloVe demo: 15)",
    ),
    ParamSpec::float(
        "lr",
        0.0,
        10.0,
        0.05,
        "AdaGrad initial learning rate (0 freezes the vectors)",
    )
    .live(),
    ParamSpec::int(
        "window",
        1,
        255,
        10,
        "symmetric window; a pair at distance d counts 1/d",
    ),
    ParamSpec::float(
        "x_max",
        1e-6,
        1e12,
        100.0,
        "weighting cutoff: f(x) = min(1, (x/x_max)^alpha) (demo: 10)",
    ),
    ParamSpec::float("alpha", 0.0, 10.0, 0.75, "weighting exponent"),
    ParamSpec::choice(
        "shuffle",
        &["once", "epoch"],
        "once",
        "shuffle the non-zeros once (like glove's shuffle tool) or before every epoch",
    ),
    ParamSpec::choice(
        "output",
        &["sum", "word"],
        "sum",
        "vectors written: word + context (W+C) or word only (W)",
    ),
    parallel::schedule("deterministic"),
];

/// The validated settings of one run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// Vector dimension.
    pub dim: usize,
    /// Passes over the non-zeros.
    pub epochs: usize,
    /// AdaGrad initial rate (live).
    pub lr: f64,
    /// Window size `L`.
    pub window: usize,
    /// Weighting cutoff.
    pub x_max: f64,
    /// Weighting exponent.
    pub alpha: f64,
    /// Reshuffle before every epoch (else once, before training).
    pub shuffle_each_epoch: bool,
    /// Output `W + C` (else `W`).
    pub output_sum: bool,
    /// How threads share the updates.
    pub schedule: parallel::Schedule,
}

impl Settings {
    /// Reads the settings from validated parameters of [`SCHEMA`].
    pub fn from_params(p: &Params) -> Settings {
        Settings {
            dim: p.usize("dim"),
            epochs: p.usize("epochs"),
            lr: p.f64("lr"),
            window: p.usize("window"),
            x_max: p.f64("x_max"),
            alpha: p.f64("alpha"),
            shuffle_each_epoch: p.choice("shuffle") == "epoch",
            output_sum: p.choice("output") == "sum",
            schedule: parallel::Schedule::from_params(p),
        }
    }

    /// The co-occurrence counting GloVe trains on: symmetric, harmonic, window `L`.
    pub fn count_config(&self) -> CountConfig {
        CountConfig {
            window: Window::symmetric(self.window, Weighting::Harmonic),
            max_vocab: None,
        }
    }
}

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
