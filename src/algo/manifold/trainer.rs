//! The [`Trainer`] of the graph methods: one step of the staged
//! [`Embedder`] per engine step (the graph, a batch of shortest-path
//! sources, or one Lanczos block); the loss is the worst eigen residual
//! (1 until the solver's first check), the notes say when the graph is
//! built, the paths are done and, at the end, the closed-form report.

use crate::embedding::Embedding;
use crate::geometry::manifold::{Embedder, Phase};
use crate::train::{ScoreView, StepReport, Trainer};
use crate::words::WordIndex;
use crate::Result;

/// A graph-embedding run over word rows.
pub struct ManifoldTrainer {
    embedder: Embedder,
    index: WordIndex,
    total: u64,
}

impl ManifoldTrainer {
    /// A trainer over a prepared embedder; `index` names its rows.
    pub fn new(embedder: Embedder, index: WordIndex) -> Self {
        // Graph + at most one step per source + the solver's budget.
        let total = 1 + index.len() as u64 + embedder.config().max_steps;
        ManifoldTrainer {
            embedder,
            index,
            total,
        }
    }
}

impl Trainer for ManifoldTrainer {
    fn total_steps(&self) -> u64 {
        self.total
    }

    fn step(&mut self, _step: u64) -> Result<StepReport> {
        let items = self.embedder.step()?;
        let epoch = match self.embedder.phase() {
            Phase::Graph => 0,
            Phase::Paths { .. } => 1,
            Phase::Eigen(s) => 2 + s.restarts,
            Phase::Done => 2,
        };
        Ok(StepReport {
            loss: self.embedder.loss(),
            items,
            epoch,
            lr: 0.0,
        })
    }

    fn finished(&self) -> bool {
        self.embedder.is_done()
    }

    fn take_note(&mut self) -> Option<String> {
        self.embedder.take_note()
    }

    /// No held-out perplexity: the coordinates score no word–context pair
    /// (docs/methods/manifold.md, "Report values").
    fn scores(&self) -> Option<ScoreView<'_>> {
        None
    }

    fn into_embedding(self: Box<Self>) -> Result<Embedding> {
        let done = self.embedder.stop()?;
        Embedding::new(self.index, done.coords.mapv(|v| v as f32))
    }
}
