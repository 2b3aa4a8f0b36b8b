//! Held-out perplexity, comparable across methods (docs/methods/perplexity.md).
//!
//! A bounded sample of (word, context) pairs is drawn once from the held-out
//! split (which is never counted or trained on). A model's score `s(w, c)`
//! becomes a distribution over the whole vocabulary by a softmax with one
//! inverse temperature `β`: `p(c | w) = exp(β s(w,c)) / Σ_c' exp(β s(w,c'))`.
//! `β` is fitted by Newton's method (the negative log-likelihood is convex in
//! `β`) on the first half of the sample, and the perplexity `exp(mean NLL)` is
//! reported on the second half, so that methods with unit-norm vectors and
//! methods with free-scale vectors are measured on the same footing.

use ndarray::linalg::general_mat_mul;
use ndarray::{s, Array2, ArrayView2, Axis};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;

use super::trainer::ScoreView;
use crate::corpus::{Batch, Corpus, Split};
use crate::Result;

/// Window used to draw held-out pairs (word2vec's default).
const PAIR_WINDOW: usize = 5;

/// Rows of the fitting half that first bring `β` near its optimum; the full
/// half then needs only a Newton step or two (each step is a pass of
/// exponentials over `rows × |V|` scores).
const WARM_ROWS: usize = 32;

/// What a held-out perplexity over the vocabulary compares with: guessing
/// every word alike gives the vocabulary's size; guessing by frequency
/// alone (the training split's unigram), `unigram` on the same pairs. A
/// model that uses the word it is given beats the unigram.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    /// Words in the vocabulary: the perplexity of the uniform guess.
    pub words: usize,
    /// The unigram's perplexity on the reported half of the sample.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unigram: Option<f64>,
}

/// A fixed sample of held-out (word, context) pairs and the fitted temperature.
#[derive(Debug, Clone)]
pub struct HeldoutSample {
    words: Vec<u32>,
    contexts: Vec<u32>,
    beta: f64,
}

impl HeldoutSample {
    /// Draws up to `pairs` pairs from the corpus' held-out split; `None` when
    /// the split yields no pair.
    pub fn from_corpus(corpus: &Corpus, pairs: usize, seed: u64) -> Result<Option<Self>> {
        let heldout = corpus.encode(Split::Heldout)?;
        Ok(Self::from_batch(&heldout, pairs, seed))
    }

    /// Draws up to `pairs` pairs from encoded sentences.
    pub fn from_batch(batch: &Batch, pairs: usize, seed: u64) -> Option<Self> {
        let usable: Vec<usize> = (0..batch.sentences_len())
            .filter(|&i| batch.sentence(i).len() >= 2)
            .collect();
        if usable.is_empty() || pairs < 2 {
            return None;
        }
        let weights: Vec<usize> = usable.iter().map(|&i| batch.sentence(i).len()).collect();
        let total: usize = weights.iter().sum();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x9e37_79b9_7f4a_7c15);
        let (mut words, mut contexts) = (Vec::with_capacity(pairs), Vec::with_capacity(pairs));
        while words.len() < pairs {
            // A uniform token position, then a uniform context within the window.
            let mut pos = rng.random_range(0..total);
            let mut k = 0;
            while pos >= weights[k] {
                pos -= weights[k];
                k += 1;
            }
            let sent = batch.sentence(usable[k]);
            let lo = pos.saturating_sub(PAIR_WINDOW);
            let hi = (pos + PAIR_WINDOW).min(sent.len() - 1);
            let mut c = rng.random_range(lo..hi);
            if c >= pos {
                c += 1;
            }
            words.push(sent[pos]);
            contexts.push(sent[c]);
        }
        Some(HeldoutSample {
            words,
            contexts,
            beta: 1.0,
        })
    }

    /// Number of pairs.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// True when empty (never, for a constructed sample).
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The perplexity of the unigram `counts` (training counts by word
    /// id) on the half of the sample that perplexity is reported on:
    /// `exp(−mean ln (n_c / N))`; `None` when a context was never counted.
    pub fn unigram_perplexity(&self, counts: &[u64]) -> Option<f64> {
        let total: u64 = counts.iter().sum();
        let half = self.len() / 2;
        let reported = &self.contexts[half..];
        let mut nll = 0.0;
        for &c in reported {
            let n = *counts.get(c as usize)?;
            if n == 0 || total == 0 {
                return None;
            }
            nll -= (n as f64 / total as f64).ln();
        }
        (!reported.is_empty()).then(|| (nll / reported.len() as f64).exp())
    }

    /// The uniform and unigram baselines for a vocabulary with `counts`.
    pub fn baseline(&self, counts: &[u64]) -> Baseline {
        Baseline {
            words: counts.len(),
            unigram: self.unigram_perplexity(counts),
        }
    }

    /// The inverse temperature fitted last.
    pub fn beta(&self) -> f64 {
        self.beta
    }

    /// Fits `β` on the first half and returns the perplexity on the second.
    pub fn perplexity(&mut self, view: ScoreView<'_>) -> Option<f64> {
        let scores = self.scores(view);
        let half = self.len() / 2;
        let fit = scores.slice(s![..half, ..]);
        let target: Vec<u32> = self.contexts.clone();
        // Always from β = 1 (warmed up on a few rows), never from the last
        // fit: a measurement then depends only on the vectors, not on which
        // earlier steps happened to be measured (that depends on the clock),
        // so replays match.
        let warm = half.min(WARM_ROWS);
        let rough = fit_beta(fit.slice(s![..warm, ..]), &target[..warm], 1.0);
        self.beta = fit_beta(fit, &target[..half], rough);
        let nll = mean_nll(scores.slice(s![half.., ..]), &target[half..], self.beta);
        nll.is_finite().then(|| nll.exp())
    }

    /// `scores[k, c] = s(words[k], c)` for every context `c`: one matrix
    /// product (sampled word vectors times the context matrix), in fixed
    /// column blocks of the vocabulary so each block's product reads its
    /// contexts once and the result does not depend on the thread count.
    fn scores(&self, view: ScoreView<'_>) -> Array2<f32> {
        const BLOCK: usize = 2048;
        let n = view.contexts.nrows();
        let words = view.words.select(Axis(0), &self.word_rows());
        let mut out = Array2::<f32>::zeros((self.len(), n));
        out.axis_chunks_iter_mut(Axis(1), BLOCK)
            .into_par_iter()
            .zip(
                view.contexts
                    .axis_chunks_iter(Axis(0), BLOCK)
                    .into_par_iter(),
            )
            .for_each(|(mut block, contexts)| {
                general_mat_mul(1.0, &words, &contexts.t(), 0.0, &mut block);
            });
        out
    }

    fn word_rows(&self) -> Vec<usize> {
        self.words.iter().map(|&w| w as usize).collect()
    }
}

/// Per-row sums needed by the likelihood and its derivatives at `beta`:
/// (log-sum-exp, E[s], Var[s]).
fn row_moments(row: &[f32], beta: f64) -> (f64, f64, f64) {
    let max = row.iter().fold(f32::NEG_INFINITY, |m, &x| m.max(x)) as f64;
    let (mut z, mut s1, mut s2) = (0.0f64, 0.0f64, 0.0f64);
    for &x in row {
        let x = x as f64;
        let e = (beta * (x - max)).exp();
        z += e;
        s1 += e * x;
        s2 += e * x * x;
    }
    let mean = s1 / z;
    (beta * max + z.ln(), mean, (s2 / z - mean * mean).max(0.0))
}

/// Mean negative log-likelihood of the targets.
fn mean_nll(scores: ArrayView2<'_, f32>, targets: &[u32], beta: f64) -> f64 {
    let total: f64 = per_row(scores, |k, row| {
        row_moments(row, beta).0 - beta * row[targets[k] as usize] as f64
    })
    .iter()
    .sum();
    total / scores.nrows() as f64
}

/// `f(k, row k)` for every row, in parallel, in row order. Sums over the
/// rows are then taken in that order: a parallel reduction would add in an
/// order that depends on how the threads split the work, and a measurement
/// must give the same bits on every replay.
fn per_row<T: Send>(scores: ArrayView2<'_, f32>, f: impl Fn(usize, &[f32]) -> T + Sync) -> Vec<T> {
    (0..scores.nrows())
        .into_par_iter()
        .map(|k| {
            let row = scores.row(k);
            f(k, row.as_slice().expect("standard layout"))
        })
        .collect()
}

/// Newton's method on the convex NLL(β), started from `start`, kept in [0, 1e4].
fn fit_beta(scores: ArrayView2<'_, f32>, targets: &[u32], start: f64) -> f64 {
    let m = scores.nrows() as f64;
    let mut beta = if start.is_finite() && start > 0.0 {
        start
    } else {
        1.0
    };
    for _ in 0..30 {
        let (g, h) = per_row(scores, |k, row| {
            let (_, mean, var) = row_moments(row, beta);
            (mean - row[targets[k] as usize] as f64, var)
        })
        .iter()
        .fold((0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1));
        let (g, h) = (g / m, h / m);
        if h <= 1e-12 {
            break;
        }
        let next = (beta - g / h)
            .clamp(beta / 4.0, beta * 4.0 + 1e-3)
            .clamp(0.0, 1e4);
        let done = (next - beta).abs() <= 1e-5 * beta.max(1e-3);
        beta = next;
        if done {
            break;
        }
    }
    beta
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    fn brute_nll(scores: &Array2<f32>, targets: &[u32], beta: f64) -> f64 {
        let mut total = 0.0;
        for (k, row) in scores.rows().into_iter().enumerate() {
            let z: f64 = row.iter().map(|&x| (beta * x as f64).exp()).sum();
            total += z.ln() - beta * row[targets[k] as usize] as f64;
        }
        total / scores.nrows() as f64
    }

    #[test]
    fn the_unigram_baseline_is_the_frequency_guess_on_the_reported_half() {
        let sample = HeldoutSample {
            words: vec![0; 4],
            // Fitting half: 2, 2; reported half: 0 (p = 1/2), 1 (p = 1/4).
            contexts: vec![2, 2, 0, 1],
            beta: 1.0,
        };
        let counts = [4, 2, 2];
        let b = sample.baseline(&counts);
        assert_eq!(b.words, 3);
        // exp(-(ln 1/2 + ln 1/4) / 2) = exp(1.5 ln 2) = 2^1.5.
        assert!((b.unigram.unwrap() - 2f64.powf(1.5)).abs() < 1e-12);
        assert_eq!(sample.unigram_perplexity(&[4, 0, 2]), None);
    }

    #[test]
    fn nll_matches_brute_force() {
        let s = array![[1.0f32, 2.0, 0.5], [0.0, -1.0, 3.0]];
        let t = [1u32, 2];
        for beta in [0.0, 0.5, 2.0] {
            assert!((mean_nll(s.view(), &t, beta) - brute_nll(&s, &t, beta)).abs() < 1e-12);
        }
    }

    #[test]
    fn fitted_beta_minimises_the_nll() {
        let s = array![
            [1.0f32, 2.0, 0.5, 0.1],
            [0.0, -1.0, 3.0, 1.0],
            [2.0, 0.0, 0.0, 1.5]
        ];
        let t = [1u32, 2, 3];
        let b = fit_beta(s.view(), &t, 1.0);
        let f = |x| brute_nll(&s, &t, x);
        assert!(
            f(b) <= f(b * 1.01) + 1e-12 && f(b) <= f(b * 0.99) + 1e-12,
            "beta {b}"
        );
    }

    #[test]
    fn uninformative_scores_give_vocabulary_size() {
        let words = Array2::<f32>::zeros((50, 4));
        let mut sample = HeldoutSample {
            words: (0..40).map(|i| i % 50).collect(),
            contexts: (0..40).map(|i| (i * 7) % 50).collect(),
            beta: 1.0,
        };
        let ppl = sample
            .perplexity(ScoreView {
                words: words.view(),
                contexts: words.view(),
            })
            .unwrap();
        assert!((ppl - 50.0).abs() < 1e-6, "{ppl}");
    }

    #[test]
    fn blocked_scores_equal_dot_products_and_measurements_have_no_memory() {
        // More contexts than one block, words and contexts of different scale.
        let (n, d) = (5000, 6);
        let words = Array2::from_shape_fn((n, d), |(i, j)| ((i * 7 + j * 3) % 11) as f32 / 11.0);
        let contexts =
            Array2::from_shape_fn((n, d), |(i, j)| ((i * 5 + j) % 13) as f32 / 6.5 - 1.0);
        let mut sample = HeldoutSample {
            words: (0..64).map(|i| (i * 97) % n as u32).collect(),
            contexts: (0..64).map(|i| (i * 31 + 5) % n as u32).collect(),
            beta: 1.0,
        };
        let view = ScoreView {
            words: words.view(),
            contexts: contexts.view(),
        };
        let scores = sample.scores(view);
        for (k, &w) in sample.words.iter().enumerate() {
            for c in [0, 1, 2047, 2048, 4999] {
                let dot: f32 = words.row(w as usize).dot(&contexts.row(c));
                assert!((scores[[k, c]] - dot).abs() < 1e-5);
            }
        }
        let fresh = sample.perplexity(view).unwrap();
        let flat = Array2::<f32>::zeros((n, d));
        sample.perplexity(ScoreView {
            words: flat.view(),
            contexts: flat.view(),
        });
        assert_eq!(sample.perplexity(view).unwrap(), fresh);
    }

    #[test]
    fn pairs_come_from_within_the_window_of_one_sentence() {
        let batch = Batch {
            ids: (0..30).collect(),
            bounds: vec![0, 20, 21, 30],
            raw_tokens: 30,
        };
        let s = HeldoutSample::from_batch(&batch, 200, 7).unwrap();
        for (&w, &c) in s.words.iter().zip(&s.contexts) {
            let same = (w < 20) == (c < 20);
            assert!(
                same && w != c && w.abs_diff(c) as usize <= PAIR_WINDOW,
                "{w} {c}"
            );
            assert_ne!(w, 20, "one-word sentences give no pair");
        }
    }
}
