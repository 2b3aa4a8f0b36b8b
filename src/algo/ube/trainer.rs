//! The `ube` trainer: the graph on step 0, then one sweep per step.

use crate::embedding::Embedding;
use crate::geometry::ube::Ube;
use crate::train::{ScoreView, StepReport, Trainer};
use crate::words::WordIndex;
use crate::Result;

/// A UBE run over word rows: the graph on step 0, one sweep per later step.
pub struct UbeTrainer {
    ube: Ube,
    index: WordIndex,
}

impl UbeTrainer {
    /// A run of `ube` over the rows of the words of `index`.
    pub fn new(ube: Ube, index: WordIndex) -> Self {
        UbeTrainer { ube, index }
    }
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
