//! N-gram baselines for the model perplexity: a language model that does not
//! beat them is not learning. Each is estimated on the training split and
//! scored on exactly the held-out predictions MPNNLM scores ([`Heldout`]:
//! the same in-vocabulary tokens, out-of-vocabulary ones dropped as the
//! model drops them, and the end token `</s>` of every complete sentence).
//! The outcomes are the vocabulary and `</s>`, as the model's softmax.
//!
//! - [`Unigram`]: add-one (Laplace) counts over the outcomes; `</s>` counted
//!   once per training sentence.
//! - [`KneserNey`]: interpolated Kneser-Ney of order `n` (Chen & Goodman
//!   1999, §3.5 without the modified three discounts): the highest order
//!   from raw counts, lower orders from continuation counts (distinct left
//!   extensions), one discount per order `D = n₁ / (n₁ + 2 n₂)`, down to a
//!   uniform distribution over the outcomes. A sentence's first words see
//!   `n − 1` start symbols as their context, as the model sees its start
//!   prototypes.

use rustc_hash::FxHashMap;

use super::heldout::Heldout;
use crate::corpus::Batch;

/// Longest n-gram order [`KneserNey`] supports.
pub const MAX_ORDER: usize = 4;

/// An n-gram (left-aligned, unused places [`NONE`]).
type Key = [u32; MAX_ORDER];

/// Marks an unused place of a [`Key`].
const NONE: u32 = u32::MAX;

/// Held-out perplexities of the baselines, beside the model's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Baselines {
    /// Add-one unigram.
    pub unigram: f64,
    /// Interpolated Kneser-Ney bigram.
    pub kn2: f64,
    /// Interpolated Kneser-Ney 4-gram.
    pub kn4: f64,
}

impl Baselines {
    /// The three baselines trained on `train` (word ids below `vocab`, the
    /// end token being `vocab`) and scored on `heldout`; `None` when there
    /// is nothing to score.
    pub fn measure(train: &Batch, vocab: usize, heldout: &Heldout) -> Option<Baselines> {
        if heldout.predictions() == 0 {
            return None;
        }
        let kn = |n| perplexity(&KneserNey::train(train, vocab, n), heldout, vocab);
        Some(Baselines {
            unigram: perplexity(&Unigram::train(train, vocab), heldout, vocab),
            kn2: kn(2),
            kn4: kn(4),
        })
    }

    /// `unigram 912.3, Kneser-Ney 2-gram 540.1, 4-gram 401.7`.
    pub fn line(&self) -> String {
        format!(
            "unigram {:.1}, Kneser-Ney 2-gram {:.1}, 4-gram {:.1}",
            self.unigram, self.kn2, self.kn4
        )
    }
}

/// A model of the next word given the words before it in the sentence.
pub trait NextWord {
    /// Words of context it reads (0 for a unigram).
    fn context(&self) -> usize;

    /// `P(w | context)`, `context` holding [`NextWord::context`] ids (start
    /// symbols [`start`] before a sentence's first word).
    fn prob(&self, context: &[u32], w: u32) -> f64;
}

/// The start symbol's id for a vocabulary of `vocab` words (the end token
/// is `vocab`).
pub fn start(vocab: usize) -> u32 {
    vocab as u32 + 1
}

/// `exp(−mean ln P)` over the predictions of `heldout` (each sentence from
/// start symbols; the end token after each complete one).
pub fn perplexity(model: &impl NextWord, heldout: &Heldout, vocab: usize) -> f64 {
    let n = model.context();
    let end = vocab as u32;
    let (mut ll, mut count) = (0.0, 0usize);
    let mut window = Vec::new();
    for (sentence, complete) in &heldout.sentences {
        window.clear();
        window.resize(n, start(vocab));
        for w in sentence.iter().copied().chain(complete.then_some(end)) {
            ll += model.prob(&window, w).ln();
            count += 1;
            if n > 0 {
                window.rotate_left(1);
                window[n - 1] = w;
            }
        }
    }
    (-ll / count.max(1) as f64).exp()
}

/// Add-one unigram over the vocabulary and `</s>`.
#[derive(Debug, Clone)]
pub struct Unigram {
    counts: Vec<u64>,
    total: u64,
}

impl Unigram {
    /// Counts of `train` (ids below `vocab`), `</s>` once per sentence.
    pub fn train(train: &Batch, vocab: usize) -> Unigram {
        let mut counts = vec![0u64; vocab + 1];
        for &w in &train.ids {
            counts[w as usize] += 1;
        }
        counts[vocab] = train.sentences_len() as u64;
        let total = counts.iter().sum();
        Unigram { counts, total }
    }
}

impl NextWord for Unigram {
    fn context(&self) -> usize {
        0
    }

    fn prob(&self, _: &[u32], w: u32) -> f64 {
        (self.counts[w as usize] + 1) as f64 / (self.total + self.counts.len() as u64) as f64
    }
}

/// One order of [`KneserNey`]: counts of its n-grams (raw at the highest
/// order, continuation counts below), and per context the sum of those
/// counts and the number of distinct words that follow it.
#[derive(Debug, Clone, Default)]
struct Level {
    grams: FxHashMap<Key, u64>,
    contexts: FxHashMap<Key, (u64, u64)>,
    discount: f64,
}

/// Interpolated Kneser-Ney of order 1 to [`MAX_ORDER`].
#[derive(Debug, Clone)]
pub struct KneserNey {
    /// `levels[k]` holds the (k+1)-grams.
    levels: Vec<Level>,
    outcomes: usize,
}

/// The `k` ids of `seq` ending at `i` as a key.
fn key(seq: &[u32], i: usize, k: usize) -> Key {
    let mut out = [NONE; MAX_ORDER];
    out[..k].copy_from_slice(&seq[i + 1 - k..=i]);
    out
}

/// The key without its first id (the suffix, one shorter).
fn suffix(k: &Key, len: usize) -> Key {
    let mut out = [NONE; MAX_ORDER];
    out[..len - 1].copy_from_slice(&k[1..len]);
    out
}

/// The key without its last id (the context).
fn prefix(k: &Key, len: usize) -> Key {
    let mut out = *k;
    out[len - 1] = NONE;
    out
}

impl KneserNey {
    /// Order `n` (1 to [`MAX_ORDER`], clamped) trained on `train` (ids
    /// below `vocab`; every sentence from `n − 1` start symbols to `</s>`).
    pub fn train(train: &Batch, vocab: usize, n: usize) -> KneserNey {
        let n = n.clamp(1, MAX_ORDER);
        let mut levels: Vec<Level> = vec![Level::default(); n];
        let mut seq = Vec::new();
        for s in train.sentences() {
            seq.clear();
            seq.resize(n - 1, start(vocab));
            seq.extend_from_slice(s);
            seq.push(vocab as u32);
            for i in n - 1..seq.len() {
                *levels[n - 1].grams.entry(key(&seq, i, n)).or_default() += 1;
            }
        }
        // Continuation counts: each distinct (k+1)-gram adds one to its suffix.
        for k in (1..n).rev() {
            let mut lower: FxHashMap<Key, u64> = FxHashMap::default();
            for g in levels[k].grams.keys() {
                *lower.entry(suffix(g, k + 1)).or_default() += 1;
            }
            levels[k - 1].grams = lower;
        }
        for (k, level) in levels.iter_mut().enumerate() {
            let (mut n1, mut n2) = (0u64, 0u64);
            for (g, &c) in &level.grams {
                let e = level.contexts.entry(prefix(g, k + 1)).or_default();
                e.0 += c;
                e.1 += 1;
                n1 += (c == 1) as u64;
                n2 += (c == 2) as u64;
            }
            level.discount = discount(n1, n2);
        }
        KneserNey {
            levels,
            outcomes: vocab + 1,
        }
    }

    /// `P_k(w | context)` for the last `k − 1` ids of `context`.
    fn prob_at(&self, k: usize, context: &[u32], w: u32) -> f64 {
        if k == 0 {
            return 1.0 / self.outcomes as f64;
        }
        let lower = self.prob_at(k - 1, context, w);
        let h = &context[context.len() + 1 - k..];
        let mut g = [NONE; MAX_ORDER];
        g[..k - 1].copy_from_slice(h);
        let level = &self.levels[k - 1];
        let Some(&(total, distinct)) = level.contexts.get(&g) else {
            return lower;
        };
        g[k - 1] = w;
        let c = level.grams.get(&g).copied().unwrap_or(0) as f64;
        let d = level.discount;
        ((c - d).max(0.0) + d * distinct as f64 * lower) / total as f64
    }
}

/// Ney's discount `n₁ / (n₁ + 2 n₂)` from the counts of counts, 0.75 when
/// they do not give one in (0, 1).
fn discount(n1: u64, n2: u64) -> f64 {
    let d = n1 as f64 / (n1 + 2 * n2) as f64;
    if d > 0.0 && d < 1.0 {
        d
    } else {
        0.75
    }
}

impl NextWord for KneserNey {
    fn context(&self) -> usize {
        self.levels.len() - 1
    }

    fn prob(&self, context: &[u32], w: u32) -> f64 {
        self.prob_at(self.levels.len(), context, w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn batch(sentences: &[&[u32]]) -> Batch {
        Batch::of_sentences(sentences)
    }

    fn heldout(sentences: &[(&[u32], bool)]) -> Heldout {
        Heldout {
            sentences: sentences.iter().map(|(s, e)| (s.to_vec(), *e)).collect(),
        }
    }

    #[test]
    fn unigram_perplexity_by_hand() {
        // Vocabulary {0, 1, 2}, end 3. Counts: 0 ×3, 1 ×1, 2 ×0, </s> ×2
        // (two sentences): total 6, add-one over 4 outcomes → /10.
        let train = batch(&[&[0, 0, 1], &[0]]);
        let u = Unigram::train(&train, 3);
        let p = [0.4, 0.2, 0.1, 0.3];
        for (w, &pw) in p.iter().enumerate() {
            assert!((u.prob(&[], w as u32) - pw).abs() < 1e-12);
        }
        // Held-out "0 2 </s>" and the cut-short "1": P = .4, .1, .3, .2.
        let h = heldout(&[(&[0, 2], true), (&[1], false)]);
        let want = (-(0.4f64.ln() + 0.1f64.ln() + 0.3f64.ln() + 0.2f64.ln()) / 4.0).exp();
        assert!((perplexity(&u, &h, 3) - want).abs() < 1e-9);
    }

    #[test]
    fn kneser_ney_sums_to_one_for_every_context() {
        let train = batch(&[&[0, 1, 2, 0, 1], &[1, 2, 2, 3], &[4, 0, 1, 2], &[0, 1, 3]]);
        let vocab = 5;
        let s = start(vocab);
        for n in 1..=MAX_ORDER {
            let kn = KneserNey::train(&train, vocab, n);
            let contexts: [[u32; 3]; 5] = [
                [s, s, s],
                [s, 0, 1],
                [0, 1, 2],
                [4, 4, 4], // never seen
                [2, 2, 3],
            ];
            for c in contexts {
                let ctx = &c[3 - kn.context()..];
                let sum: f64 = (0..=vocab as u32).map(|w| kn.prob(ctx, w)).sum();
                assert!((sum - 1.0).abs() < 1e-12, "order {n}, {c:?}: {sum}");
                assert!((0..=vocab as u32).all(|w| kn.prob(ctx, w) > 0.0));
            }
        }
    }

    #[test]
    fn kneser_ney_bigram_by_hand() {
        // One sentence "0 1 0 1" over vocabulary {0, 1}, end 2, start 3:
        // bigrams (3,0) (0,1) (1,0) (0,1) (1,2): (0,1) twice, the rest once,
        // so n1 = 3, n2 = 1, D = 3/5. Continuation counts of the unigrams:
        // 0 ← {3, 1}: 2; 1 ← {0}: 1; 2 ← {1}: 1; total 4 over 3 types,
        // n1 = 2, n2 = 1, D1 = 2/4 = 0.5.
        let train = batch(&[&[0, 1, 0, 1]]);
        let kn = KneserNey::train(&train, 2, 2);
        let uniform = 1.0 / 3.0;
        let p1 = |c: f64| ((c - 0.5) + 0.5 * 3.0 * uniform) / 4.0;
        assert!((kn.prob_at(1, &[], 0) - p1(2.0)).abs() < 1e-12);
        // P(1 | 0): c(0,1) = 2, c(0) = 2, one distinct follower.
        let d = 0.6;
        let want = ((2.0 - d) + d * 1.0 * p1(1.0)) / 2.0;
        assert!((kn.prob(&[0], 1) - want).abs() < 1e-12);
        // P(0 | 0) has no bigram count: only the back-off mass.
        assert!((kn.prob(&[0], 0) - d * p1(2.0) / 2.0).abs() < 1e-12);
    }

    #[test]
    fn higher_orders_fit_a_repeated_text_better() {
        let s: Vec<u32> = (0..200).map(|i| [0, 1, 2, 3, 1, 0][i % 6]).collect();
        let train = batch(&[&s]);
        let h = heldout(&[(&s[..60], false)]);
        let uni = perplexity(&Unigram::train(&train, 4), &h, 4);
        let kn2 = perplexity(&KneserNey::train(&train, 4, 2), &h, 4);
        let kn4 = perplexity(&KneserNey::train(&train, 4, 4), &h, 4);
        assert!(kn4 < kn2 && kn2 < uni, "{kn4} {kn2} {uni}");
        let b = Baselines::measure(&train, 4, &h).unwrap();
        assert_eq!((b.unigram, b.kn2, b.kn4), (uni, kn2, kn4));
        assert!(Baselines::measure(&train, 4, &Heldout::default()).is_none());
    }
}
