//! The [`Trainer`] of the spectral methods: one step is one block step of
//! the Lanczos solver, its loss the worst relative residual of the wanted
//! pairs at the last check (1 until the first full basis is checked).
//!
//! A closed-form method has no learning curve to cut short: the run's
//! `total_steps` is the step budget (`max-steps`) and the steps after
//! convergence return at once with the final residual and no work.

use std::cell::OnceCell;

use ndarray::{Array2, ArrayView2};

use super::params::{Settings, Target};
use crate::embedding::Embedding;
use crate::linalg::{Lanczos, Status, SymmetricCsr, TruncatedSvd};
use crate::train::{ScoreView, StepReport, Trainer};
use crate::words::WordIndex;
use crate::Result;

/// The running solve.
pub enum Solver {
    /// EigenWord: algebraically largest eigenpairs.
    Eigen(Lanczos<SymmetricCsr>),
    /// SVD and SVD-NS: leading singular triplets.
    Svd(TruncatedSvd),
}

impl Solver {
    fn step(&mut self) -> Status {
        match self {
            Solver::Eigen(l) => l.step(),
            Solver::Svd(s) => s.step(),
        }
    }

    fn status(&self) -> Status {
        match self {
            Solver::Eigen(l) => l.status(),
            Solver::Svd(s) => s.status(),
        }
    }
}

/// A spectral run in progress.
pub struct SpectralTrainer {
    solver: Solver,
    settings: Settings,
    index: WordIndex,
    vocab_len: usize,
    /// Word and context vectors for perplexity, built on demand from the
    /// Ritz vectors of the last restart (cleared at every restart).
    scores: OnceCell<(Array2<f32>, Array2<f32>)>,
}

impl SpectralTrainer {
    /// A trainer over a prepared solver; `index` names the matrix rows and
    /// `vocab_len` is the full vocabulary size (score rows beyond the
    /// matrix, words cut by `max-vocab`, are zero).
    pub fn new(solver: Solver, settings: Settings, index: WordIndex, vocab_len: usize) -> Self {
        SpectralTrainer {
            solver,
            settings,
            index,
            vocab_len,
            scores: OnceCell::new(),
        }
    }

    /// The solver's status.
    pub fn status(&self) -> Status {
        self.solver.status()
    }

    /// `(words, contexts)` from the current Ritz vectors: `U Θ` and `U` for
    /// EigenWord (`M ≈ U Θ Uᵀ`), `U Σ` and `V` for the SVDs.
    fn build_scores(&self) -> Option<(Array2<f32>, Array2<f32>)> {
        match &self.solver {
            Solver::Eigen(l) => {
                let (theta, u) = l.current()?;
                Some((self.padded(u, Some(theta)), self.padded(u, None)))
            }
            Solver::Svd(s) => {
                let (theta, u) = s.current()?;
                let sigma = s.singular_values(theta);
                let v = s.right_vectors(u, theta);
                Some((self.padded(u, Some(&sigma)), self.padded(v.view(), None)))
            }
        }
    }

    /// `x diag(scale)` as `f32`, with zero rows up to the vocabulary size.
    fn padded(&self, x: ArrayView2<'_, f64>, scale: Option<&[f64]>) -> Array2<f32> {
        let mut out = Array2::<f32>::zeros((self.vocab_len.max(x.nrows()), x.ncols()));
        for (mut o, row) in out.rows_mut().into_iter().zip(x.rows()) {
            for (j, (o, &v)) in o.iter_mut().zip(row.iter()).enumerate() {
                *o = (v * scale.map_or(1.0, |s| s[j])) as f32;
            }
        }
        out
    }
}

impl Trainer for SpectralTrainer {
    fn total_steps(&self) -> u64 {
        self.settings.max_steps
    }

    fn step(&mut self, _step: u64) -> Result<StepReport> {
        let before = self.solver.status();
        let after = self.solver.step();
        if after.restarts != before.restarts || after.done != before.done {
            self.scores = OnceCell::new();
        }
        Ok(StepReport {
            loss: after.worst_residual,
            items: after.matvecs - before.matvecs,
            epoch: after.restarts,
            lr: 0.0,
        })
    }

    fn scores(&self) -> Option<ScoreView<'_>> {
        if self.scores.get().is_none() {
            let built = self.build_scores()?;
            let _ = self.scores.set(built);
        }
        let (words, contexts) = self.scores.get()?;
        Some(ScoreView {
            words: words.view(),
            contexts: contexts.view(),
        })
    }

    fn into_embedding(self: Box<Self>) -> Result<Embedding> {
        let SpectralTrainer {
            solver,
            settings,
            index,
            ..
        } = *self;
        let vectors = match (solver, settings.target) {
            (Solver::Eigen(l), _) => l.finish().vectors,
            (Solver::Svd(s), Target::Svd { power }) => {
                let svd = s.finish();
                let mut u = svd.u;
                for (mut col, &sigma) in u.columns_mut().into_iter().zip(&svd.s) {
                    let w = if power == 0.0 { 1.0 } else { sigma.powf(power) };
                    col.mapv_inplace(|x| x * w);
                }
                u
            }
            (Solver::Svd(s), Target::Eigen) => s.finish().u,
        };
        Embedding::new(index, vectors.mapv(|x| x as f32))
    }
}
