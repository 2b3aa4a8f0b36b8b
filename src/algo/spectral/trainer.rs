//! The [`Trainer`] of the spectral methods: one step is one block step of
//! the Lanczos solver, its loss the worst relative residual of the wanted
//! pairs at the last check (1 until the first full basis is checked).
//!
//! The run's `total_steps` is the step budget (`max_steps`); once every
//! wanted pair has converged the trainer reports itself
//! [`finished`](Trainer::finished) and the engine ends the run there.

use std::cell::OnceCell;
use std::sync::Arc;

use ndarray::{Array2, ArrayView2};

use super::params::{Settings, Target};
use super::shared::{weighted, SharedSolve};
use crate::cooc::Claim;
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
    /// A solve an earlier run made ([`super::shared`]): its steps replayed
    /// as it reported them.
    Shared {
        /// The solve.
        solve: Arc<SharedSolve>,
        /// Steps replayed.
        at: usize,
    },
}

impl Solver {
    fn step(&mut self) -> Status {
        match self {
            Solver::Eigen(l) => l.step(),
            Solver::Svd(s) => s.step(),
            Solver::Shared { solve, at } => {
                *at = (*at + 1).min(solve.statuses.len().saturating_sub(1));
                solve.statuses[*at]
            }
        }
    }

    fn status(&self) -> Status {
        match self {
            Solver::Eigen(l) => l.status(),
            Solver::Svd(s) => s.status(),
            Solver::Shared { solve, at } => solve.statuses[*at],
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
    /// The claim on this solve's factorisation, offered to later runs when
    /// the solve ends, with the statuses they replay.
    offer: Option<(Claim, Vec<Status>)>,
}

impl SpectralTrainer {
    /// A trainer over a prepared solver; `index` names the matrix rows and
    /// `vocab_len` is the full vocabulary size (score rows beyond the
    /// matrix, words cut by `max_vocab`, are zero).
    pub fn new(solver: Solver, settings: Settings, index: WordIndex, vocab_len: usize) -> Self {
        SpectralTrainer {
            solver,
            settings,
            index,
            vocab_len,
            scores: OnceCell::new(),
            offer: None,
        }
    }

    /// The same trainer, offering its factorisation under `claim` when its
    /// solve ends.
    pub fn offering(mut self, claim: Claim) -> Self {
        self.offer = Some((claim, vec![self.solver.status()]));
        self
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
            // The solve's final scores, once its last step is replayed.
            Solver::Shared { solve, at } if *at + 1 == solve.statuses.len() => solve.scores.clone(),
            Solver::Shared { .. } => None,
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
        if let Some((_, statuses)) = &mut self.offer {
            statuses.push(after);
        }
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

    fn finished(&self) -> bool {
        self.solver.status().done
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
        let done = self.status().done;
        // What a later run's perplexity reads at its end, as this one's did.
        let final_scores = match (&self.offer, done) {
            (Some(_), true) => self
                .scores()
                .map(|v| (v.words.to_owned(), v.contexts.to_owned())),
            _ => None,
        };
        let SpectralTrainer {
            solver,
            settings,
            index,
            offer,
            ..
        } = *self;
        let (vectors, values) = match solver {
            Solver::Eigen(l) => (l.finish().vectors, Vec::new()),
            Solver::Svd(s) => {
                let svd = s.finish();
                (svd.u, svd.s)
            }
            Solver::Shared { solve, .. } => (solve.vectors.clone(), solve.values.clone()),
        };
        if let (Some((claim, statuses)), true) = (offer, done) {
            claim.fulfil(Arc::new(SharedSolve {
                statuses,
                vectors: vectors.clone(),
                values: values.clone(),
                scores: final_scores,
            }));
        }
        let vectors = match settings.target {
            Target::Svd { power } if !values.is_empty() => weighted(vectors, &values, power),
            _ => vectors,
        };
        Embedding::new(index, vectors.mapv(|x| x as f32))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::spectral::params::EIGENWORD_SCHEMA;
    use crate::linalg::Csr;
    use crate::schema::Params;

    /// A 60-word path graph with weights 1 and a negative long-range cell.
    fn trainer() -> SpectralTrainer {
        let n = 60;
        let mut t = sprs::TriMat::new((n, n));
        for i in 0..n - 1 {
            t.add_triplet(i, i + 1, 1.0 + (i % 3) as f64);
            t.add_triplet(i + 1, i, 1.0 + (i % 3) as f64);
        }
        t.add_triplet(0, n - 1, -2.0);
        t.add_triplet(n - 1, 0, -2.0);
        let a = Csr::from_sprs(&t.to_csr()).unwrap();
        let settings = Settings {
            dim: 3,
            block: 2,
            max_steps: 400,
            tol: 1e-8,
            ..Settings::eigenword(&Params::defaults(EIGENWORD_SCHEMA))
        };
        let solver = Lanczos::new(SymmetricCsr::new(a).unwrap(), settings.eigen_config(7)).unwrap();
        let words: Vec<String> = (0..n).map(|i| format!("w{i}")).collect();
        SpectralTrainer::new(
            Solver::Eigen(solver),
            settings,
            WordIndex::from_words(words),
            70,
        )
    }

    #[test]
    fn scores_appear_at_the_first_restart_and_steps_end_as_no_ops() {
        let mut t = trainer();
        assert_eq!(t.total_steps(), 400);
        assert!(t.scores().is_none());
        let first = t.step(0).unwrap();
        assert_eq!((first.loss, first.items, first.epoch), (1.0, 2, 0));
        let mut step = 1;
        while t.status().restarts == 0 && !t.status().done {
            t.step(step).unwrap();
            step += 1;
        }
        let view = t.scores().expect("Ritz vectors after the first restart");
        // Padded to the vocabulary; words = U Θ, contexts = U.
        assert_eq!(view.words.dim(), (70, 3));
        assert!(view.words.row(65).iter().all(|&x| x == 0.0));
        while !t.status().done {
            t.step(step).unwrap();
            step += 1;
        }
        let after = t.step(step).unwrap();
        assert_eq!(after.items, 0);
        assert!(after.loss <= 1e-8);
        let emb = Box::new(t).into_embedding().unwrap();
        assert_eq!((emb.len(), emb.dim()), (60, 3));
        // Unweighted eigenvectors: unit columns.
        let v = emb.vectors();
        for j in 0..3 {
            let norm: f32 = v.column(j).iter().map(|x| x * x).sum();
            assert!((norm - 1.0).abs() < 1e-5, "{norm}");
        }
    }
}
