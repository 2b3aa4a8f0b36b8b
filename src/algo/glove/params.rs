//! `glove`'s hyperparameters, declared once, and the settings a run
//! reads from them.

use crate::cooc::{CountConfig, Weighting, Window};
use crate::schema::{bind_params, choice_names, Choice, ParamSpec, Params};
use crate::train::parallel;

/// GloVe's hyperparameters (defaults from glove.c and the paper).
pub static SCHEMA: &[ParamSpec] = &[
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
        Shuffle::NAMES,
        "once",
        "shuffle the non-zeros once (like glove's shuffle tool) or before every epoch",
    ),
    ParamSpec::choice(
        "output",
        Output::NAMES,
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

/// When the non-zeros are shuffled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shuffle {
    Once,
    Epoch,
}
choice_names!(Shuffle {
    Once = "once",
    Epoch = "epoch",
});

/// Which vectors are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Output {
    Sum,
    Word,
}
choice_names!(Output {
    Sum = "sum",
    Word = "word",
});

bind_params! {
    /// The values of [`SCHEMA`], a field per entry.
    #[derive(Debug, Clone, Copy)]
    struct Values for SCHEMA {
        dim: usize,
        epochs: usize,
        lr: f64,
        window: usize,
        x_max: f64,
        alpha: f64,
        shuffle: Shuffle,
        output: Output,
        schedule: parallel::Schedule,
    }
}

impl Settings {
    /// Reads the settings from validated parameters of [`SCHEMA`].
    pub fn from_params(p: &Params) -> Settings {
        let v = Values::from_params(p);
        Settings {
            dim: v.dim,
            epochs: v.epochs,
            lr: v.lr,
            window: v.window,
            x_max: v.x_max,
            alpha: v.alpha,
            shuffle_each_epoch: v.shuffle == Shuffle::Epoch,
            output_sum: v.output == Output::Sum,
            schedule: v.schedule,
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
