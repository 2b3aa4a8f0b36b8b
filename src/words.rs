//! [`WordIndex`]: the bidirectional map between words and dense ids that both a
//! corpus vocabulary and an embedding file carry.

use rustc_hash::FxHashMap;

/// Words with dense ids `0..len`, in a fixed order (frequency order for corpus
/// vocabularies and for files written by wordbench).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WordIndex {
    words: Vec<String>,
    ids: FxHashMap<String, u32>,
}

impl WordIndex {
    /// An empty index.
    pub fn new() -> Self {
        Self::default()
    }

    /// Builds an index from words in id order. Later duplicates keep the first id
    /// (they stay in `words` so that row numbers still line up with a matrix).
    pub fn from_words(words: Vec<String>) -> Self {
        let mut ids = FxHashMap::with_capacity_and_hasher(words.len(), Default::default());
        for (i, w) in words.iter().enumerate() {
            ids.entry(w.clone()).or_insert(i as u32);
        }
        WordIndex { words, ids }
    }

    /// Appends a word and returns its id (the existing id if already present).
    pub fn push(&mut self, word: &str) -> u32 {
        if let Some(&id) = self.ids.get(word) {
            return id;
        }
        let id = self.words.len() as u32;
        self.words.push(word.to_string());
        self.ids.insert(word.to_string(), id);
        id
    }

    /// The id of `word`, if known.
    #[inline]
    pub fn id(&self, word: &str) -> Option<u32> {
        self.ids.get(word).copied()
    }

    /// The word with id `id`. Panics if out of range (ids come from this index).
    #[inline]
    pub fn word(&self, id: u32) -> &str {
        &self.words[id as usize]
    }

    /// All words in id order.
    pub fn words(&self) -> &[String] {
        &self.words
    }

    /// Number of words.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// True when there are no words.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Keeps the first `n` words.
    pub fn truncate(&mut self, n: usize) {
        if n >= self.words.len() {
            return;
        }
        for w in &self.words[n..] {
            if self.ids.get(w).is_some_and(|&id| id as usize >= n) {
                self.ids.remove(w);
            }
        }
        self.words.truncate(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_follow_insertion_order() {
        let mut ix = WordIndex::new();
        assert_eq!(ix.push("b"), 0);
        assert_eq!(ix.push("a"), 1);
        assert_eq!(ix.push("b"), 0);
        assert_eq!(ix.id("a"), Some(1));
        assert_eq!(ix.word(0), "b");
        ix.truncate(1);
        assert_eq!(ix.id("a"), None);
        assert_eq!(ix.len(), 1);
    }
}
