//! The vocabulary: frequency-sorted word ids with their training counts.

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::words::WordIndex;
use crate::{Error, Result};

/// Which words to keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct VocabConfig {
    /// Drop words seen fewer times than this in the training split.
    pub min_count: u64,
    /// Keep at most this many words (the most frequent).
    pub max_size: Option<usize>,
}

impl Default for VocabConfig {
    fn default() -> Self {
        VocabConfig {
            min_count: 5,
            max_size: None,
        }
    }
}

/// Words sorted by descending training count (ties by word, so ids are
/// deterministic), with their counts.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Vocabulary {
    index: WordIndex,
    counts: Vec<u64>,
    total: u64,
}

impl Vocabulary {
    /// Builds a vocabulary from raw counts. Errors with [`Error::EmptyVocabulary`]
    /// are produced by the caller, which knows the file; here an empty result is allowed.
    pub fn from_counts(counts: FxHashMap<String, u64>, config: VocabConfig) -> Self {
        let mut kept: Vec<(String, u64)> = counts
            .into_iter()
            .filter(|&(_, c)| c >= config.min_count.max(1))
            .collect();
        kept.sort_unstable_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        if let Some(max) = config.max_size {
            kept.truncate(max);
        }
        let counts: Vec<u64> = kept.iter().map(|k| k.1).collect();
        let total = counts.iter().sum();
        let index = WordIndex::from_words(kept.into_iter().map(|k| k.0).collect());
        Vocabulary {
            index,
            counts,
            total,
        }
    }

    /// Builds a vocabulary from `(word, count)` pairs already in id order.
    pub fn from_sorted(pairs: Vec<(String, u64)>) -> Result<Self> {
        if pairs.windows(2).any(|w| w[0].1 < w[1].1) {
            return Err(Error::param(
                "vocabulary",
                "counts must be in descending order",
            ));
        }
        let counts: Vec<u64> = pairs.iter().map(|p| p.1).collect();
        // Readers refuse totals that overflow; saturate rather than panic.
        let total = counts.iter().fold(0u64, |t, &c| t.saturating_add(c));
        let index = WordIndex::from_words(pairs.into_iter().map(|p| p.0).collect());
        Ok(Vocabulary {
            index,
            counts,
            total,
        })
    }

    /// The word ↔ id map.
    pub fn index(&self) -> &WordIndex {
        &self.index
    }

    /// Id of `word`.
    #[inline]
    pub fn id(&self, word: &str) -> Option<u32> {
        self.index.id(word)
    }

    /// Word with id `id`.
    pub fn word(&self, id: u32) -> &str {
        self.index.word(id)
    }

    /// Training count of each id.
    pub fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// Sum of the kept words' counts (in-vocabulary training tokens).
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Number of words.
    pub fn len(&self) -> usize {
        self.counts.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// word2vec's subsampling: the probability of *keeping* each occurrence of
    /// word `i`, `(sqrt(f/(t·T)) + 1) · t·T / f` capped at 1, with `f` its count
    /// and `T` the total. `t <= 0` keeps everything.
    pub fn keep_probabilities(&self, t: f64) -> Vec<f32> {
        if t <= 0.0 {
            return vec![1.0; self.len()];
        }
        let tt = t * self.total as f64;
        self.counts
            .iter()
            .map(|&f| {
                let f = f as f64;
                (((f / tt).sqrt() + 1.0) * tt / f).min(1.0) as f32
            })
            .collect()
    }

    /// The unigram distribution raised to `power` (0.75 for negative sampling),
    /// normalised to sum to one.
    pub fn unigram_power(&self, power: f64) -> Vec<f64> {
        let w: Vec<f64> = self
            .counts
            .iter()
            .map(|&c| (c as f64).powf(power))
            .collect();
        let z: f64 = w.iter().sum();
        w.into_iter().map(|x| x / z).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(pairs: &[(&str, u64)]) -> FxHashMap<String, u64> {
        pairs.iter().map(|&(w, c)| (w.to_string(), c)).collect()
    }

    #[test]
    fn sorted_by_count_then_word_with_min_count_and_max_size() {
        let c = counts(&[("b", 5), ("a", 5), ("c", 9), ("d", 1), ("e", 3)]);
        let v = Vocabulary::from_counts(
            c.clone(),
            VocabConfig {
                min_count: 2,
                max_size: None,
            },
        );
        assert_eq!(v.index().words(), &["c", "a", "b", "e"]);
        assert_eq!(v.counts(), &[9, 5, 5, 3]);
        assert_eq!(v.total(), 22);
        let v = Vocabulary::from_counts(
            c,
            VocabConfig {
                min_count: 1,
                max_size: Some(2),
            },
        );
        assert_eq!(v.index().words(), &["c", "a"]);
    }

    #[test]
    fn subsampling_matches_word2vec_formula() {
        let v = Vocabulary::from_counts(
            counts(&[("the", 1000), ("rare", 1)]),
            VocabConfig {
                min_count: 1,
                max_size: None,
            },
        );
        let p = v.keep_probabilities(1e-3);
        let tt = 1e-3 * 1001.0;
        let expect = ((1000.0f64 / tt).sqrt() + 1.0) * tt / 1000.0;
        assert!((p[0] as f64 - expect).abs() < 1e-6);
        assert_eq!(p[1], 1.0);
    }
}
