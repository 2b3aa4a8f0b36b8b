//! Case-insensitive word lookup within the most frequent rows.
//!
//! Benchmarks are lowercased, vector files may not be (GoogleNews vectors keep
//! "Paris" and "paris"). As gensim's `case_insensitive=True`, a dataset word
//! stands for the *first* (most frequent) row among the first `limit` whose
//! lowercase form equals it, and rows that differ only in case form one class:
//! an analogy answer counts by its class, and the question words' classes are
//! excluded. When every word of those rows is already lowercase (text8 and
//! most trained vectors) this is the plain [`WordIndex`] lookup and costs
//! nothing to build.

use rustc_hash::FxHashMap;

use crate::words::WordIndex;

/// Dataset word -> row, case-insensitively, restricted to rows `0..limit`.
#[derive(Debug)]
pub struct WordLookup<'a> {
    words: &'a WordIndex,
    limit: usize,
    folded: Option<Folded>,
}

/// Only built when some word among the first `limit` rows has upper-case letters.
#[derive(Debug)]
struct Folded {
    /// Lowercase form -> its first row.
    first: FxHashMap<String, u32>,
    /// Row -> the first row of its lowercase form (its class).
    class: Vec<u32>,
    /// Class -> its other rows, for classes with more than one row.
    others: FxHashMap<u32, Vec<u32>>,
}

impl<'a> WordLookup<'a> {
    /// A lookup over the first `limit` rows of `words` (all rows when `None`).
    pub fn new(words: &'a WordIndex, limit: Option<usize>) -> Self {
        let limit = limit.unwrap_or(usize::MAX).min(words.len());
        let head = &words.words()[..limit];
        let folded = head
            .iter()
            .any(|w| !is_lowercase(w))
            .then(|| Folded::build(head));
        WordLookup {
            words,
            limit,
            folded,
        }
    }

    /// Number of rows searched.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// The row a (lowercase) dataset word stands for.
    pub fn id(&self, word: &str) -> Option<u32> {
        match &self.folded {
            None => self.words.id(word).filter(|&id| (id as usize) < self.limit),
            Some(f) => f.first.get(word).copied(),
        }
    }

    /// The class of row `id`: the first row with the same lowercase form.
    #[inline]
    pub fn class(&self, id: u32) -> u32 {
        match &self.folded {
            None => id,
            Some(f) => f.class[id as usize],
        }
    }

    /// Rows of class `class` other than `class` itself (usually none).
    pub fn other_members(&self, class: u32) -> &[u32] {
        self.folded
            .as_ref()
            .and_then(|f| f.others.get(&class))
            .map_or(&[], Vec::as_slice)
    }
}

impl Folded {
    fn build(head: &[String]) -> Folded {
        let mut first = FxHashMap::default();
        let mut class = Vec::with_capacity(head.len());
        let mut others: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
        for (i, w) in head.iter().enumerate() {
            let i = i as u32;
            let rep = *first.entry(w.to_lowercase()).or_insert(i);
            class.push(rep);
            if rep != i {
                others.entry(rep).or_default().push(i);
            }
        }
        Folded {
            first,
            class,
            others,
        }
    }
}

/// True when lowercasing `w` would not change it.
fn is_lowercase(w: &str) -> bool {
    w.chars().all(|c| {
        let mut lower = c.to_lowercase();
        lower.next() == Some(c) && lower.next().is_none()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(words: &[&str]) -> WordIndex {
        WordIndex::from_words(words.iter().map(|w| w.to_string()).collect())
    }

    #[test]
    fn lowercase_vocabulary_is_plain_lookup_with_limit() {
        let ix = index(&["the", "of", "paris"]);
        let l = WordLookup::new(&ix, Some(2));
        assert!(l.folded.is_none());
        assert_eq!(l.id("of"), Some(1));
        assert_eq!(l.id("paris"), None, "beyond the limit");
        assert_eq!(l.class(1), 1);
        assert!(l.other_members(1).is_empty());
    }

    #[test]
    fn mixed_case_maps_to_the_most_frequent_variant() {
        let ix = index(&["the", "Paris", "PARIS", "paris", "France"]);
        let l = WordLookup::new(&ix, None);
        assert_eq!(l.id("paris"), Some(1));
        assert_eq!(l.id("france"), Some(4));
        assert_eq!(l.id("Paris"), None, "dataset words are expected lowercase");
        assert_eq!((l.class(2), l.class(3), l.class(4)), (1, 1, 4));
        assert_eq!(l.other_members(1), &[2, 3]);
        let l = WordLookup::new(&ix, Some(3));
        assert_eq!(l.other_members(1), &[2]);
    }
}
