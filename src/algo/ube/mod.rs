//! UBE as a word-embedding method (`--algo ube`; docs/methods/ube.md,
//! "Words"): the PPMI rows of the `max_vocab` most frequent words
//! (contexts the same words), L2-normalised, placed on the unit sphere by
//! [`crate::geometry::ube`]. Counting and weighting come from [`crate::cooc`]
//! through the graph methods' helpers; the loss is `J` after every sweep.

use std::time::Instant;

use crate::algo::manifold::{unit_rows, weighted, Input};
use crate::cooc::{CountConfig, Weighting, Window};
use crate::embedding::Embedding;
use crate::geometry::ube::{Config, Ube, Update};
use crate::schema::ParamSpec;
use crate::train::{Method, ScoreView, StepReport, TrainInput, Trainer};
use crate::words::WordIndex;
use crate::Result;

/// UBE on word rows.
pub static UBE: Method = Method {
    name: "ube",
    summary: "UBE: unit-sphere embedding of PPMI rows on an elbow-cut Gaussian kNN graph",
    schema: SCHEMA,
    dimension: Some("dim"),
    build,
};

/// Hyperparameters of `ube`.
pub const SCHEMA: &[ParamSpec] = &[
    ParamSpec::int(
        "dim",
        2,
        2000,
        50,
        "dimension of the sphere's space (the thesis: about 50 for word vectors)",
    ),
    crate::project::ube::K_MAX,
    crate::project::ube::COVERAGE,
    crate::project::ube::ITERS,
    crate::project::ube::LR,
    crate::project::ube::UPDATE,
    ParamSpec::int(
        "window",
        1,
        255,
        5,
        "symmetric context window of the counts",
    ),
    ParamSpec::int(
        "max_vocab",
        3,
        100_000,
        2000,
        "embed the N most frequent words (rows and contexts; dense N x N rows)",
    ),
];

fn build(input: &TrainInput, log: &mut dyn FnMut(String)) -> Result<Box<dyn Trainer>> {
    let p = &input.params;
    let t = Instant::now();
    let window = p.usize("window");
    let counts = input.counts.counts(
        &input.corpus,
        &CountConfig {
            window: Window::symmetric(window, Weighting::Uniform),
            max_vocab: Some(p.usize("max_vocab")),
        },
    )?;
    let rows = unit_rows(&weighted(&counts, Input::Ppmi)?);
    let n = rows.nrows();
    log(format!(
        "ube: {n} words, window {window}, PPMI rows (L2-normalised) in {:.1}s",
        t.elapsed().as_secs_f64()
    ));
    let config = Config {
        k_max: p.usize("k_max"),
        coverage: p.f64("coverage"),
        iters: p.usize("iters"),
        lr: p.f64("lr"),
        update: Update::from_name(p.choice("update")).unwrap_or(Update::Normalised),
        seed: input.seed,
        ..Config::new(p.usize("dim"))
    };
    let ube = Ube::new(rows, config)?;
    let mut index = input.corpus.vocab().index().clone();
    index.truncate(n);
    Ok(Box::new(UbeTrainer { ube, index }))
}

/// A UBE run over word rows: the graph on step 0, one sweep per later step.
pub struct UbeTrainer {
    ube: Ube,
    index: WordIndex,
}

impl Trainer for UbeTrainer {
    fn total_steps(&self) -> u64 {
        self.ube.total_steps()
    }

    fn step(&mut self, _step: u64) -> Result<StepReport> {
        let items = self.ube.step()?;
        let sweep = self.ube.sweeps();
        Ok(StepReport {
            loss: self.ube.loss(),
            items,
            epoch: sweep as u32,
            lr: if sweep == 0 {
                0.0
            } else {
                self.ube.config().lr_at(sweep)
            },
        })
    }

    fn finished(&self) -> bool {
        self.ube.is_done()
    }

    fn take_note(&mut self) -> Option<String> {
        self.ube.take_note()
    }

    /// No held-out perplexity: `s_ij` scores word pairs of the graph, not
    /// word–context predictions (docs/methods/ube.md, "Report values").
    fn scores(&self) -> Option<ScoreView<'_>> {
        None
    }

    fn into_embedding(self: Box<Self>) -> Result<Embedding> {
        let y = self.ube.into_coords().mapv(|v| v as f32);
        Embedding::new(self.index, y)
    }
}
