//! The PSDVec [`Trainer`]: steps `0..T` are the BCD iterations of the core
//! block, the following steps solve `block_words` noncore words each.
//!
//! The loss a step reports is that step's own objective: the core's
//! weighted residual `Σ f_ij (G*_ij − v_i·v_j)²` after a BCD iteration, the
//! block's residual to the core (both directions) plus its Tikhonov term
//! after a noncore block.

use ndarray::{s, Array2};

use super::core::CoreSolver;
use super::heldout::Heldout;
use super::input::Statistics;
use super::ridge;
use super::Settings;
use crate::embedding::Embedding;
use crate::train::phase::{self, Unit};
use crate::train::{ScoreView, StepReport, Trainer};
use crate::words::WordIndex;
use crate::{Error, Result};

/// A PSDVec run in progress.
pub struct PsdvecTrainer {
    settings: Settings,
    index: WordIndex,
    stats: Statistics,
    solver: CoreSolver,
    /// The core vectors once the BCD is done (`core × dim`).
    core_vectors: Option<Array2<f64>>,
    /// Every word's current vector (zero until solved), padded to the vocabulary.
    vectors: Array2<f32>,
    heldout: Option<Heldout>,
    log_u: Vec<f64>,
    model_perplexity: Option<f64>,
    note: Option<String>,
    start_loss: f64,
    memory: (u64, u64),
}

impl PsdvecTrainer {
    /// A trainer over the statistics; refuses when the core solve would
    /// need more than the memory budget.
    pub fn new(
        settings: Settings,
        index: WordIndex,
        vocab_len: usize,
        mut stats: Statistics,
        heldout: Option<Heldout>,
    ) -> Result<Self> {
        let (n, core) = (stats.n(), stats.core());
        if index.len() != n {
            return Err(Error::param(
                "vocabulary",
                format!("{} words for {n} rows", index.len()),
            ));
        }
        let needed = CoreSolver::memory_bytes(core, stats.core_cells.nnz(), settings.rank_at(0))
            + (vocab_len.max(n) * settings.dim * 4) as u64;
        let budget = match settings.memory_mb {
            Some(mb) => mb as u64 * (1 << 20),
            None => half_ram().unwrap_or(u64::MAX),
        };
        if needed > budget {
            return Err(Error::param(
                "memory_mb",
                format!(
                    "the core solve of {core} words at rank {} needs {} MiB, over the budget of {} MiB; lower core or dim, or raise memory_mb",
                    settings.rank_at(0),
                    needed.div_ceil(1 << 20),
                    budget >> 20
                ),
            ));
        }
        let cells = std::mem::take(&mut stats.core_cells);
        let solver = CoreSolver::new(cells, stats.background.clone());
        let start_loss = solver.loss();
        let log_u = stats.unigram.iter().map(|p| p.ln()).collect();
        let mut t = PsdvecTrainer {
            settings,
            index,
            stats,
            solver,
            core_vectors: None,
            vectors: Array2::zeros((vocab_len.max(n), settings.dim)),
            heldout,
            log_u,
            model_perplexity: None,
            note: None,
            start_loss,
            memory: (needed, budget),
        };
        t.model_perplexity = t.measure_model_perplexity();
        Ok(t)
    }

    /// One line for the log: sizes, memory and the loss at `X_0 = G*/2`.
    pub fn describe(&self) -> String {
        let budget = if self.memory.1 == u64::MAX {
            "unknown".to_string()
        } else {
            format!("{} MiB", self.memory.1 >> 20)
        };
        format!(
            "psdvec: rank {} ({} BCD iterations), {} noncore blocks of {} words; core solve ~{} MiB (budget {budget}); weighted residual at X_0 = G*/2: {:.6e}",
            self.settings.dim,
            self.settings.iterations,
            self.noncore_blocks(),
            self.settings.block_words,
            self.memory.0.div_ceil(1 << 20),
            self.start_loss
        )
    }

    /// The core's weighted residual at the start (`X_0 = G*/2`).
    pub fn start_loss(&self) -> f64 {
        self.start_loss
    }

    fn noncore_blocks(&self) -> usize {
        (self.stats.n() - self.stats.core()).div_ceil(self.settings.block_words)
    }

    fn measure_model_perplexity(&self) -> Option<f64> {
        let h = self.heldout.as_ref()?;
        let n = self.stats.n();
        Some(h.perplexity(self.vectors.slice(s![..n, ..]), &self.log_u))
    }

    fn core_step(&mut self, t: usize) -> Result<StepReport> {
        let rank = self.settings.rank_at(t);
        // The eigensolver runs until its residual is small: no known total.
        let work = phase::begin("BCD: nearest PSD matrix (eigenpairs)", 0, Unit::Count);
        let it = self
            .solver
            .iterate_once(rank, self.settings.eig_tol, t as u64)?;
        drop(work);
        let v = self.solver.vectors(self.settings.dim);
        for (i, row) in v.rows().into_iter().enumerate() {
            for (o, &x) in self.vectors.row_mut(i).iter_mut().zip(row) {
                *o = x as f32;
            }
        }
        self.note = Some(format!(
            "psdvec: BCD iteration {}/{}: rank {rank}, {} positive eigenvalues kept (smallest {:.4}), weighted residual {:.6e}, {} products, eigen-residual {:.1e}",
            t + 1,
            self.settings.iterations,
            it.kept,
            it.smallest,
            it.loss,
            it.matvecs,
            it.residual
        ));
        if t + 1 == self.settings.iterations {
            self.core_vectors = Some(v);
        }
        Ok(StepReport {
            loss: it.loss,
            items: self.solver.n() as u64,
            epoch: t as u32,
            lr: 0.0,
        })
    }

    fn noncore_step(&mut self, b: usize) -> Result<StepReport> {
        let core_vectors = self
            .core_vectors
            .as_ref()
            .ok_or_else(|| Error::param("core", "noncore block before the core was solved"))?;
        let (core, n) = (self.stats.core(), self.stats.n());
        let bw = self.settings.block_words;
        let rows = b * bw..((b + 1) * bw).min(n - core);
        let work = phase::begin("ridge regression of the block", 0, Unit::Count);
        let block = ridge::solve_block(&self.stats, core_vectors, rows.clone(), self.settings.mu);
        drop(work);
        for (r, row) in block.vectors.rows().into_iter().enumerate() {
            for (o, &x) in self
                .vectors
                .row_mut(core + rows.start + r)
                .iter_mut()
                .zip(row)
            {
                *o = x as f32;
            }
        }
        self.note = Some(format!(
            "psdvec: noncore block {}/{}: words {}..{}, weighted residual + Tikhonov {:.6e} ({:.4} per word)",
            b + 1,
            self.noncore_blocks(),
            core + rows.start,
            core + rows.end,
            block.loss,
            block.loss / rows.len().max(1) as f64
        ));
        Ok(StepReport {
            loss: block.loss,
            items: rows.len() as u64,
            epoch: (self.settings.iterations + b) as u32,
            lr: 0.0,
        })
    }
}

impl Trainer for PsdvecTrainer {
    fn total_steps(&self) -> u64 {
        (self.settings.iterations + self.noncore_blocks()) as u64
    }

    fn step(&mut self, step: u64) -> Result<StepReport> {
        let step = step as usize;
        let report = if step < self.settings.iterations {
            self.core_step(step)?
        } else {
            self.noncore_step(step - self.settings.iterations)?
        };
        self.model_perplexity = self.measure_model_perplexity();
        Ok(report)
    }

    fn take_note(&mut self) -> Option<String> {
        self.note.take()
    }

    fn model_perplexity(&self) -> Option<f64> {
        self.model_perplexity
    }

    /// `s(w, c) = v_w · v_c`: the model's bigram score without the unigram prior.
    fn scores(&self) -> Option<ScoreView<'_>> {
        Some(ScoreView {
            words: self.vectors.view(),
            contexts: self.vectors.view(),
        })
    }

    fn into_embedding(self: Box<Self>) -> Result<Embedding> {
        let n = self.stats.n();
        let vectors = self.vectors.slice(s![..n, ..]).to_owned();
        Embedding::new(self.index, vectors)
    }
}

/// Half of `MemTotal` from `/proc/meminfo`, when it can be read.
fn half_ram() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024 / 2)
}
