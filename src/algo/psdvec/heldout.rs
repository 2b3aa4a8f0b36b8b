//! The model's own held-out perplexity: the window link (\[P\] eq. 8) with
//! the residuals `a` set to 0 (unknown off the training sample) and the
//! normaliser the equation leaves out,
//! `P(w | context) = u_w exp(v_w·h) / Σ_w' u_w' exp(v_w'·h)`,
//! `h = Σ_{k=1..c} v_{w_{t−k}}` (the context words within the sentence),
//! `PPL = exp(−mean ln P(w_t | h_t))`. Each token costs `|V| · N`, so a
//! fixed, evenly spaced sample of `ppl_tokens` positions (with at least one
//! context word) is scored. Words without a vector yet (noncore words
//! before their block) have `v = 0`: the unigram.

#[cfg(test)]
use ndarray::Array2;
use ndarray::ArrayView2;
use rayon::prelude::*;

use super::Settings;
use crate::corpus::{Corpus, Split};
use crate::fast::lanes::dot;
use crate::train::phase::{self, Unit};
use crate::Result;

/// Tokens per parallel task (sums are added in task order).
const TOKENS_PER_TASK: usize = 16;

/// The scored held-out positions.
#[derive(Debug, Clone, PartialEq)]
pub struct Heldout {
    /// The word at each position.
    targets: Vec<u32>,
    /// Context words of position `k`: `contexts[starts[k]..starts[k + 1]]`.
    starts: Vec<usize>,
    contexts: Vec<u32>,
}

impl Heldout {
    /// Samples up to `settings.ppl_tokens` positions of the corpus'
    /// held-out split over the first `n` words; `None` when there is none.
    pub fn new(corpus: &Corpus, settings: &Settings, n: usize) -> Result<Option<Heldout>> {
        if settings.ppl_tokens == 0 {
            return Ok(None);
        }
        let batch = corpus.encode(Split::Heldout)?;
        let sentences: Vec<Vec<u32>> = batch
            .sentences()
            .map(|s| s.iter().copied().filter(|&w| (w as usize) < n).collect())
            .collect();
        Ok(Self::from_sentences(
            &sentences,
            settings.window,
            settings.ppl_tokens,
        ))
    }

    /// Up to `limit` evenly spaced positions with a context of at most `window` words.
    pub fn from_sentences(sentences: &[Vec<u32>], window: usize, limit: usize) -> Option<Heldout> {
        let total: usize = sentences.iter().map(|s| s.len().saturating_sub(1)).sum();
        if total == 0 || limit == 0 {
            return None;
        }
        let stride = total.div_ceil(limit).max(1);
        let mut h = Heldout {
            targets: Vec::new(),
            starts: vec![0],
            contexts: Vec::new(),
        };
        let mut k = 0usize;
        for s in sentences {
            for t in 1..s.len() {
                if k.is_multiple_of(stride) {
                    h.targets.push(s[t]);
                    h.contexts
                        .extend_from_slice(&s[t.saturating_sub(window)..t]);
                    h.starts.push(h.contexts.len());
                }
                k += 1;
            }
        }
        Some(h)
    }

    /// Positions scored.
    pub fn len(&self) -> usize {
        self.targets.len()
    }

    /// Whether no position is scored.
    pub fn is_empty(&self) -> bool {
        self.targets.is_empty()
    }

    /// The perplexity of `vectors` (`n × N`) with unigram log-probabilities `log_u`.
    pub fn perplexity(&self, vectors: ArrayView2<'_, f32>, log_u: &[f64]) -> f64 {
        let m = self.len();
        let dim = vectors.ncols();
        let work = phase::begin("model perplexity", m as u64, Unit::Percent);
        let parts: Vec<f64> = (0..m.div_ceil(TOKENS_PER_TASK))
            .into_par_iter()
            .map(|task| {
                let tokens = (task * TOKENS_PER_TASK..((task + 1) * TOKENS_PER_TASK).min(m)).len();
                let mut h = vec![0f32; dim];
                let mut ll = 0.0;
                for k in task * TOKENS_PER_TASK..((task + 1) * TOKENS_PER_TASK).min(m) {
                    h.fill(0.0);
                    for &c in &self.contexts[self.starts[k]..self.starts[k + 1]] {
                        for (a, &x) in h.iter_mut().zip(vectors.row(c as usize)) {
                            *a += x;
                        }
                    }
                    let context = &self.contexts[self.starts[k]..self.starts[k + 1]];
                    ll += self.log_prob(vectors, log_u, &h, context, self.targets[k] as usize);
                }
                work.add(tokens as u64);
                ll
            })
            .collect();
        (-parts.iter().sum::<f64>() / m as f64).exp()
    }

    /// `ln P(target | h)` by a streaming log-sum-exp over the vocabulary.
    /// A candidate that is itself in the context leaves out its own term
    /// `‖v_w‖²` (the diagonal `X_ww`): the fit gives it weight 0, so its
    /// value says nothing about a word following itself, and it is large
    /// for a PSD approximant; it counts as independence (PMI 0) instead.
    fn log_prob(
        &self,
        vectors: ArrayView2<'_, f32>,
        log_u: &[f64],
        h: &[f32],
        context: &[u32],
        target: usize,
    ) -> f64 {
        let (mut max, mut sum) = (f64::NEG_INFINITY, 0.0);
        let mut target_score = 0.0;
        for (w, (v, &lu)) in vectors.rows().into_iter().zip(log_u).enumerate() {
            let v = v.as_slice().expect("standard layout");
            let own = context.iter().filter(|&&c| c as usize == w).count();
            let diagonal = if own > 0 {
                own as f64 * dot(v, v) as f64
            } else {
                0.0
            };
            let s = lu + dot(v, h) as f64 - diagonal;
            if w == target {
                target_score = s;
            }
            if s > max {
                sum = sum * (max - s).exp() + 1.0;
                max = s;
            } else {
                sum += (s - max).exp();
            }
        }
        target_score - (max + sum.ln())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_vectors_give_the_unigram_perplexity() {
        let sentences = vec![vec![0, 1, 2, 1], vec![2, 0]];
        let h = Heldout::from_sentences(&sentences, 3, 100).unwrap();
        assert_eq!(h.len(), 4);
        let u = [0.5f64, 0.25, 0.25];
        let log_u: Vec<f64> = u.iter().map(|p| p.ln()).collect();
        let ppl = h.perplexity(Array2::zeros((3, 2)).view(), &log_u);
        // Targets 1, 2, 1, 0: -mean ln u = (3 ln 4 + ln 2) / 4.
        let expected = ((3.0 * 4f64.ln() + 2f64.ln()) / 4.0).exp();
        assert!((ppl - expected).abs() < 1e-9, "{ppl} vs {expected}");
    }

    #[test]
    fn scores_normalise_over_the_vocabulary() {
        // One position: context word 0, target 1; v_0 = (1, 0), v_1 = (2, 0), v_2 = 0.
        let h = Heldout::from_sentences(&[vec![0, 1]], 3, 10).unwrap();
        let v = Array2::from_shape_vec((3, 2), vec![1.0, 0.0, 2.0, 0.0, 0.0, 0.0]).unwrap();
        let log_u = vec![(0.2f64).ln(), (0.3f64).ln(), (0.5f64).ln()];
        // Word 0 is the context: its own term v_0·v_0 is left out (score ln 0.2).
        let z = 0.2 + 0.3 * 2f64.exp() + 0.5;
        let p = 0.3 * 2f64.exp() / z;
        assert!((h.perplexity(v.view(), &log_u) - 1.0 / p).abs() < 1e-6);
    }

    /// The unfitted diagonal no longer decides: a context word with a long
    /// vector (‖v_0‖² = 100) once took almost all the mass itself, giving
    /// the target 1 a perplexity of about e^100 / 1.5; without its own
    /// term, the target's is its unigram-and-PMI share.
    #[test]
    fn a_context_word_does_not_predict_itself_through_its_norm() {
        let h = Heldout::from_sentences(&[vec![0, 1]], 3, 10).unwrap();
        let v = Array2::from_shape_vec((3, 2), vec![10.0, 0.0, 0.0, 0.1, 0.0, 0.0]).unwrap();
        let log_u = vec![(0.2f64).ln(), (0.3f64).ln(), (0.5f64).ln()];
        // Scores: ln 0.2 (own term left out), ln 0.3 + 0, ln 0.5 + 0.
        let ppl = h.perplexity(v.view(), &log_u);
        assert!((ppl - 1.0 / 0.3).abs() < 1e-6, "{ppl}");
        // Its repeat after itself is independent of the norm too.
        let h = Heldout::from_sentences(&[vec![0, 0]], 3, 10).unwrap();
        assert!((h.perplexity(v.view(), &log_u) - 5.0).abs() < 1e-6);
    }
}
