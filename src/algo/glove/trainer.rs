//! The GloVe [`Trainer`]: epochs over the shuffled non-zeros, cut into steps
//! of about [`CELLS_PER_STEP`] cells; each step's cells are split into one
//! contiguous part per rayon thread, trained Hogwild-style (as glove.c splits
//! its shuffled file between pthreads).

use ndarray::Array2;
use rayon::prelude::*;

use super::cells::{self, Cell};
use super::model::{row_width, train_part, Tables};
use super::Settings;
use crate::embedding::Embedding;
use crate::fast::hogwild::Hogwild;
use crate::train::{ScoreView, StepReport, Trainer, Value};
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
}

impl GloveTrainer {
    /// A trainer over `cells` (already in their first-epoch order) for the
    /// words of `index`, with parameters initialised from `seed`.
    pub fn new(settings: Settings, index: WordIndex, cells: Vec<Cell>, seed: u64) -> Result<Self> {
        if cells.is_empty() {
            return Err(Error::param(
                "corpus",
                "no two words co-occur within the window: nothing for GloVe to fit",
            ));
        }
        let steps_per_epoch = cells.len().div_ceil(CELLS_PER_STEP) as u64;
        let tables = Tables::init(index.len(), settings.dim, seed);
        Ok(GloveTrainer {
            settings,
            seed,
            index,
            tables,
            cells,
            steps_per_epoch,
        })
    }

    /// Steps in one epoch.
    pub fn steps_per_epoch(&self) -> u64 {
        self.steps_per_epoch
    }

    /// The current parameters.
    pub fn tables(&self) -> &Tables {
        &self.tables
    }

    /// The cells of slice `k` of an epoch.
    fn slice(&self, k: u64) -> std::ops::Range<usize> {
        let (n, s) = (self.cells.len() as u128, self.steps_per_epoch as u128);
        let at = |k: u64| (n * k as u128 / s) as usize;
        at(k)..at(k + 1)
    }

    /// Trains on `range` with one part per rayon thread; returns the summed loss.
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

impl Trainer for GloveTrainer {
    fn total_steps(&self) -> u64 {
        self.settings.epochs as u64 * self.steps_per_epoch
    }

    fn step(&mut self, step: u64) -> Result<StepReport> {
        let (epoch, k) = (step / self.steps_per_epoch, step % self.steps_per_epoch);
        if k == 0 && epoch > 0 && self.settings.shuffle_each_epoch {
            cells::shuffle(&mut self.cells, self.seed, epoch);
        }
        let range = self.slice(k);
        let items = range.len() as u64;
        let loss = self.train_range(range);
        Ok(StepReport {
            loss: loss / items.max(1) as f64,
            items,
            epoch: epoch as u32,
            lr: self.settings.lr,
        })
    }

    fn set(&mut self, name: &str, value: &Value) -> Result<()> {
        match (name, value) {
            ("lr", Value::Float(lr)) => {
                self.settings.lr = *lr;
                Ok(())
            }
            _ => Err(Error::param(name, "cannot be changed during a run")),
        }
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
