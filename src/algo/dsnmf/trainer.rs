//! The DSNMF [`Trainer`]: one step is one iteration of Algorithm 1 (an
//! update from the last evaluation, then an evaluation of the new `W`), so
//! the loss a step reports is `D(S ‖ Ŝ)` of the `W` it produced.

use std::cell::OnceCell;

use ndarray::Array2;
use sprs::CsMat;

use super::heldout;
use super::model::{Evaluation, Model};
use super::Settings;
use crate::embedding::Embedding;
use crate::linalg::Csr;
use crate::train::{ScoreView, StepReport, Trainer, Value};
use crate::words::WordIndex;
use crate::{Error, Result};

/// A DSNMF run in progress.
pub struct DsnmfTrainer {
    settings: Settings,
    index: WordIndex,
    vocab_len: usize,
    s: Csr,
    test: Option<Csr>,
    model: Model,
    eval: Evaluation,
    /// Relative decrease of `D` in the last step (`None` before the first);
    /// negative when `D` rose (it may, slightly, while rows return to the simplex).
    decrease: Option<f64>,
    model_perplexity: Option<f64>,
    note: Option<String>,
    /// `(W, W diag(1/s))` padded to the vocabulary, for the engine's
    /// perplexity (`s(w, c) = Ŝ_wc`); rebuilt after every step.
    scores: OnceCell<(Array2<f32>, Array2<f32>)>,
}

impl DsnmfTrainer {
    /// A trainer for the similarity `s` (`n × n`, `n = index.len()`) with
    /// optional held-out counts `test` over the same words; `W` starts from
    /// `seed`. `vocab_len` is the full vocabulary size (score rows beyond
    /// `n` are zero).
    pub fn new(
        settings: Settings,
        index: WordIndex,
        vocab_len: usize,
        s: &CsMat<f64>,
        test: Option<&CsMat<f64>>,
        seed: u64,
    ) -> Result<Self> {
        let n = index.len();
        if s.rows() != n || s.cols() != n {
            return Err(Error::param(
                "S",
                format!("{:?} for {n} words", s.shape()),
            ));
        }
        if settings.dim > n {
            return Err(Error::param(
                "dim",
                format!("{} topics for {n} words; lower dim", settings.dim),
            ));
        }
        let s = Csr::from_sprs(s)?;
        let test = test.map(Csr::from_sprs).transpose()?;
        let model = Model::init(n, settings.dim, seed);
        let eval = model.evaluate(&s);
        let mut t = DsnmfTrainer {
            settings,
            index,
            vocab_len,
            s,
            test,
            model,
            eval,
            decrease: None,
            model_perplexity: None,
            note: None,
            scores: OnceCell::new(),
        };
        t.model_perplexity = t.measure_model_perplexity();
        Ok(t)
    }

    /// `D(S ‖ Ŝ)` of the current `W`.
    pub fn loss(&self) -> f64 {
        self.eval.divergence
    }

    /// The current factor.
    pub fn model(&self) -> &Model {
        &self.model
    }

    fn measure_model_perplexity(&self) -> Option<f64> {
        let test = self.test.as_ref()?;
        heldout::perplexity(&self.model, test, &self.eval.inv_s)
    }

    fn converged(&self) -> bool {
        self.decrease.is_some_and(|d| d.abs() < self.settings.tol)
    }

    /// `x` as `f32` rows padded with zeros to the vocabulary, columns scaled by `scale`.
    fn padded(&self, scale: Option<&[f64]>) -> Array2<f32> {
        let r = self.model.r();
        let mut out = Array2::<f32>::zeros((self.vocab_len.max(self.model.n()), r));
        for (i, mut o) in out.rows_mut().into_iter().take(self.model.n()).enumerate() {
            for (k, (o, &x)) in o.iter_mut().zip(self.model.row(i)).enumerate() {
                *o = (x as f64 * scale.map_or(1.0, |s| s[k])) as f32;
            }
        }
        out
    }
}

impl Trainer for DsnmfTrainer {
    fn total_steps(&self) -> u64 {
        self.settings.iterations
    }

    fn step(&mut self, step: u64) -> Result<StepReport> {
        self.model.update(&self.eval);
        let next = self.model.evaluate(&self.s);
        let before = self.eval.divergence;
        let decrease = (before - next.divergence) / before.abs().max(f64::MIN_POSITIVE);
        self.eval = next;
        self.decrease = Some(decrease);
        self.model_perplexity = self.measure_model_perplexity();
        self.scores = OnceCell::new();
        if self.converged() {
            self.note = Some(format!(
                "dsnmf: converged at iteration {}: relative change of D(S||S_hat) {:+.3e} (< tol {:e}); rows of W within {:.2e} of the simplex",
                step + 1,
                -decrease,
                self.settings.tol,
                self.model.simplex_gap()
            ));
        }
        Ok(StepReport {
            loss: self.eval.divergence,
            items: self.s.nnz() as u64,
            epoch: step as u32,
            lr: 0.0,
        })
    }

    fn set(&mut self, name: &str, value: &Value) -> Result<()> {
        match (name, value) {
            ("tol", Value::Float(tol)) => {
                self.settings.tol = *tol;
                Ok(())
            }
            _ => Err(Error::param(name, "cannot be changed during a run")),
        }
    }

    fn finished(&self) -> bool {
        self.converged()
    }

    fn take_note(&mut self) -> Option<String> {
        self.note.take()
    }

    fn model_perplexity(&self) -> Option<f64> {
        self.model_perplexity
    }

    /// `s(w, c) = Ŝ_wc = Σ_k W_wk W_ck / s_k`: words `W`, contexts `W diag(1/s)`.
    fn scores(&self) -> Option<ScoreView<'_>> {
        if self.scores.get().is_none() {
            let built = (self.padded(None), self.padded(Some(&self.eval.inv_s)));
            let _ = self.scores.set(built);
        }
        let (words, contexts) = self.scores.get()?;
        Some(ScoreView {
            words: words.view(),
            contexts: contexts.view(),
        })
    }

    fn into_embedding(self: Box<Self>) -> Result<Embedding> {
        // Rows on the simplex exactly: P(topic | word).
        let model = self.model.normalized();
        let (n, r) = (model.n(), model.r());
        let vectors = Array2::from_shape_vec((n, r), model.values().to_vec())
            .map_err(|e| Error::param("W", e.to_string()))?;
        Embedding::new(self.index, vectors)
    }
}
