//! The DSNMF [`Trainer`]: one step is one iteration of Algorithm 1 (an
//! update from the last evaluation, then an evaluation of the new `W`).
//!
//! Algorithm 1 works on a relaxed iterate whose rows only approach the
//! simplex; the model (and the output) is its projection `W_i / Σ_k W_ik`.
//! The loss a step reports is `D(S ‖ Ŝ)` of that projection, the objective
//! of the constrained problem at the vectors the run would output: unlike
//! `D` of the relaxed iterate (logged at the end), it does not rise while
//! the rows return to the simplex. Both perplexities score the projection too.

use std::cell::OnceCell;

use ndarray::Array2;
use sprs::CsMat;

use super::heldout;
use super::model::{Evaluation, Model};
use super::Settings;
use crate::embedding::Embedding;
use crate::linalg::Csr;
use crate::schema::Params;
use crate::train::{ScoreView, StepReport, Trainer};
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
    /// `model` with its rows projected onto the simplex, and `1 / s̃_k`.
    output: (Model, Vec<f64>),
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
            return Err(Error::param("S", format!("{:?} for {n} words", s.shape())));
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
        let output = project(&model);
        let mut t = DsnmfTrainer {
            settings,
            index,
            vocab_len,
            s,
            test,
            model,
            eval,
            output,
            decrease: None,
            model_perplexity: None,
            note: None,
            scores: OnceCell::new(),
        };
        t.model_perplexity = t.measure_model_perplexity();
        Ok(t)
    }

    /// `D(S ‖ Ŝ)` of the current `W` projected onto the simplex.
    pub fn loss(&self) -> f64 {
        self.eval.feasible
    }

    /// `D(S ‖ Ŝ)` of the relaxed iterate (Algorithm 1's own objective).
    pub fn relaxed_loss(&self) -> f64 {
        self.eval.divergence
    }

    /// The current (relaxed) factor.
    pub fn model(&self) -> &Model {
        &self.model
    }

    fn measure_model_perplexity(&self) -> Option<f64> {
        let test = self.test.as_ref()?;
        heldout::perplexity(&self.output.0, test, &self.output.1)
    }

    fn converged(&self) -> bool {
        self.decrease.is_some_and(|d| d.abs() < self.settings.tol)
    }

    /// The projected rows as `f32`, padded with zeros to the vocabulary,
    /// columns scaled by `scale`.
    fn padded(&self, scale: Option<&[f64]>) -> Array2<f32> {
        let m = &self.output.0;
        let mut out = Array2::<f32>::zeros((self.vocab_len.max(m.n()), m.r()));
        for (i, mut o) in out.rows_mut().into_iter().take(m.n()).enumerate() {
            for (k, (o, &x)) in o.iter_mut().zip(m.row(i)).enumerate() {
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
        let before = self.eval.feasible;
        let decrease = (before - next.feasible) / before.abs().max(f64::MIN_POSITIVE);
        self.eval = next;
        self.output = project(&self.model);
        self.decrease = Some(decrease);
        self.model_perplexity = self.measure_model_perplexity();
        self.scores = OnceCell::new();
        if self.converged() {
            self.note = Some(format!(
                "dsnmf: converged at iteration {}: relative change of D(S||S_hat) {:+.3e} (< tol {:e}); relaxed D {:.6e}, its rows within {:.2e} of the simplex",
                step + 1,
                -decrease,
                self.settings.tol,
                self.eval.divergence,
                self.model.simplex_gap()
            ));
        }
        Ok(StepReport {
            loss: self.eval.feasible,
            items: self.s.nnz() as u64,
            epoch: step as u32,
            lr: 0.0,
        })
    }

    fn set(&mut self, params: &Params) -> Result<()> {
        self.settings.tol = Settings::from_params(params).tol;
        Ok(())
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

    /// `s(w, c) = Ŝ_wc = Σ_k W_wk W_ck / s_k` of the projected `W`: words
    /// `W`, contexts `W diag(1/s)`.
    fn scores(&self) -> Option<ScoreView<'_>> {
        if self.scores.get().is_none() {
            let built = (self.padded(None), self.padded(Some(&self.output.1)));
            let _ = self.scores.set(built);
        }
        let (words, contexts) = self.scores.get()?;
        Some(ScoreView {
            words: words.view(),
            contexts: contexts.view(),
        })
    }

    fn into_embedding(self: Box<Self>) -> Result<Embedding> {
        // Rows on the simplex: P(topic | word).
        let model = self.output.0;
        let (n, r) = (model.n(), model.r());
        let vectors = Array2::from_shape_vec((n, r), model.values().to_vec())
            .map_err(|e| Error::param("W", e.to_string()))?;
        Embedding::new(self.index, vectors)
    }
}

/// `m` with its rows projected onto the simplex, and the reciprocals of its
/// column sums.
fn project(m: &Model) -> (Model, Vec<f64>) {
    let out = m.normalized();
    let inv_s = out
        .column_sums()
        .iter()
        .map(|&x| if x > 0.0 { 1.0 / x } else { 0.0 })
        .collect();
    (out, inv_s)
}
