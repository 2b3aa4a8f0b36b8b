//! The GloVe [`Trainer`]: epochs over the shuffled non-zeros, cut into steps
//! of about [`CELLS_PER_STEP`] cells. With several threads, a step runs
//! either by the deterministic schedule ([`super::strata`]: rounds of blocks
//! that share no row, the default) or Hogwild-style (`schedule=hogwild`: one
//! contiguous part per rayon thread, as glove.c splits its shuffled file
//! between pthreads).

use ndarray::Array2;
use rayon::prelude::*;

use super::cells::{self, Cell};
use super::model::{row_width, train_part, Tables};
use super::strata::Strata;
use super::Settings;
use crate::embedding::Embedding;
use crate::fast::hogwild::Hogwild;
use crate::schema::Params;
use crate::train::parallel;
use crate::train::{ScoreView, StepReport, Trainer};
use crate::words::WordIndex;
use crate::{Error, Result};

/// Cells per step (about 0.1 s of work on one core at `dim` 100).
pub const CELLS_PER_STEP: usize = 1 << 20;

/// A GloVe run in progress.
#[derive(Debug)]
pub struct GloveTrainer {
    settings: Settings,
    seed: u64,
    index: WordIndex,
    tables: Tables,
    cells: Vec<Cell>,
    steps_per_epoch: u64,
    /// The deterministic schedule's strata (none with one lane or Hogwild).
    strata: Option<Strata>,
    /// Per step of an epoch: the offsets of its blocks within its cells.
    blocks: Vec<Vec<usize>>,
}

impl GloveTrainer {
    /// A trainer over `cells` (already in their first-epoch order) for the
    /// words of `index`, with parameters initialised from `seed`; `lanes` is
    /// the run's thread count (the deterministic schedule's lanes).
    pub fn new(
        settings: Settings,
        index: WordIndex,
        cells: Vec<Cell>,
        seed: u64,
        lanes: usize,
    ) -> Result<Self> {
        if cells.is_empty() {
            return Err(Error::param(
                "corpus",
                "no two words co-occur within the window: nothing for GloVe to fit",
            ));
        }
        let steps_per_epoch = cells.len().div_ceil(CELLS_PER_STEP) as u64;
        let tables = Tables::init(index.len(), settings.dim, seed);
        let strata = (settings.schedule == parallel::Schedule::Deterministic && lanes > 1)
            .then(|| Strata::new(&cells, index.len(), lanes));
        let mut trainer = GloveTrainer {
            settings,
            seed,
            index,
            tables,
            cells,
            steps_per_epoch,
            strata,
            blocks: Vec::new(),
        };
        trainer.arrange();
        Ok(trainer)
    }

    /// Orders each step's cells by block (deterministic schedule only).
    fn arrange(&mut self) {
        let Some(strata) = &self.strata else { return };
        self.blocks = (0..self.steps_per_epoch)
            .map(|k| {
                let range = slice(self.cells.len(), self.steps_per_epoch, k);
                strata.arrange(&mut self.cells[range])
            })
            .collect();
    }

    /// Steps in one epoch.
    pub fn steps_per_epoch(&self) -> u64 {
        self.steps_per_epoch
    }

    /// The current parameters.
    pub fn tables(&self) -> &Tables {
        &self.tables
    }

    /// Trains on the cells of step `k` of an epoch; returns the summed loss.
    fn train_step(&mut self, k: u64) -> f64 {
        let range = slice(self.cells.len(), self.steps_per_epoch, k);
        match &self.strata {
            Some(strata) => {
                let blocks = &self.blocks[k as usize];
                let cells = &self.cells[range];
                train_rounds(
                    &mut self.tables,
                    strata,
                    cells,
                    blocks,
                    self.settings.lr as f32,
                )
            }
            None => self.train_range(range),
        }
    }

    /// Trains on `range` with one part per rayon thread (Hogwild); returns
    /// the summed loss.
    fn train_range(&mut self, range: std::ops::Range<usize>) -> f64 {
        let lr = self.settings.lr as f32;
        let dim = self.tables.dim;
        let cells = &self.cells[range];
        let parts = rayon::current_num_threads().clamp(1, cells.len().max(1));
        if parts == 1 {
            return self.tables.train_serial(cells, lr);
        }
        let width = row_width(dim);
        let words = Hogwild::new(
            self.tables.words.as_slice_mut().expect("standard layout"),
            width,
        );
        let contexts = Hogwild::new(
            self.tables
                .contexts
                .as_slice_mut()
                .expect("standard layout"),
            width,
        );
        let losses: Vec<f64> = (0..parts)
            .into_par_iter()
            .map(|p| {
                let part = &cells[cells.len() * p / parts..cells.len() * (p + 1) / parts];
                train_part(&words, &contexts, dim, part, lr)
            })
            .collect();
        losses.iter().sum()
    }
}

/// The cells of slice `k` of an epoch of `n` cells in `steps` slices.
fn slice(n: usize, steps: u64, k: u64) -> std::ops::Range<usize> {
    let (n, s) = (n as u128, steps as u128);
    let at = |k: u64| (n * k as u128 / s) as usize;
    at(k)..at(k + 1)
}

/// The deterministic schedule on one step's `cells`, arranged in blocks at
/// `offsets`: `lanes` rounds, each training one block per lane in parallel;
/// returns the loss summed round by round in lane order.
fn train_rounds(
    tables: &mut Tables,
    strata: &Strata,
    cells: &[Cell],
    offsets: &[usize],
    lr: f32,
) -> f64 {
    let (dim, width) = (tables.dim, row_width(tables.dim));
    let words = Hogwild::new(tables.words.as_slice_mut().expect("standard layout"), width);
    let contexts = Hogwild::new(
        tables.contexts.as_slice_mut().expect("standard layout"),
        width,
    );
    let mut loss = 0.0;
    for round in 0..strata.lanes() {
        let losses: Vec<f64> = (0..strata.lanes())
            .into_par_iter()
            .map(|lane| {
                let b = strata.round_block(round, lane);
                // The lanes' blocks share no word row and no context row
                // (`Strata`), so the shared handles see no race here.
                train_part(
                    &words,
                    &contexts,
                    dim,
                    &cells[offsets[b]..offsets[b + 1]],
                    lr,
                )
            })
            .collect();
        loss += losses.iter().sum::<f64>();
    }
    loss
}

impl Trainer for GloveTrainer {
    fn total_steps(&self) -> u64 {
        self.settings.epochs as u64 * self.steps_per_epoch
    }

    fn step(&mut self, step: u64) -> Result<StepReport> {
        let (epoch, k) = (step / self.steps_per_epoch, step % self.steps_per_epoch);
        if k == 0 && epoch > 0 && self.settings.shuffle_each_epoch {
            cells::shuffle(&mut self.cells, self.seed, epoch);
            self.arrange();
        }
        let items = slice(self.cells.len(), self.steps_per_epoch, k).len() as u64;
        let loss = self.train_step(k);
        Ok(StepReport {
            loss: loss / items.max(1) as f64,
            items,
            epoch: epoch as u32,
            lr: self.settings.lr,
        })
    }

    fn set(&mut self, params: &Params) -> Result<()> {
        self.settings.lr = Settings::from_params(params).lr;
        Ok(())
    }

    /// The model's own estimate of `ln X_wc`, `w·c + b + b̃` (as augmented
    /// vectors): its softmax over contexts is `X̂_wc^β / Σ_c' X̂_wc'^β`.
    fn scores(&self) -> Option<ScoreView<'_>> {
        let (words, contexts) = self.tables.augmented();
        Some(ScoreView { words, contexts })
    }

    fn into_embedding(self: Box<Self>) -> Result<Embedding> {
        let contexts: Array2<f32> = self.tables.context_vectors().to_owned();
        let mut vectors: Array2<f32> = self.tables.word_vectors().to_owned();
        if self.settings.output_sum {
            vectors += &contexts;
        }
        Embedding::new(self.index, vectors)?.with_context(contexts)
    }
}
