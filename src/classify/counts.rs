//! Per-class token counts of a labelled set: the sufficient statistics of
//! both naive Bayes fits.

use super::dataset::Document;

/// Token counts per class over a vocabulary of `n_words` ids.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassCounts {
    /// `words[c][w]`: tokens of word `w` in class-`c` documents.
    pub words: Vec<Vec<f64>>,
    /// Tokens per class (`T^c`).
    pub tokens: Vec<f64>,
    /// Documents per class.
    pub documents: Vec<u64>,
}

impl ClassCounts {
    /// Counts `docs`, each in the class `class_of` gives it.
    pub fn new<'a>(
        classes: usize,
        n_words: usize,
        docs: impl IntoIterator<Item = &'a Document>,
        class_of: impl Fn(&Document) -> usize,
    ) -> Self {
        let mut c = ClassCounts {
            words: vec![vec![0.0; n_words]; classes],
            tokens: vec![0.0; classes],
            documents: vec![0; classes],
        };
        for doc in docs {
            let k = class_of(doc);
            c.documents[k] += 1;
            for &(w, n) in &doc.bag {
                c.words[k][w as usize] += f64::from(n);
                c.tokens[k] += f64::from(n);
            }
        }
        c
    }

    /// Number of classes.
    pub fn classes(&self) -> usize {
        self.tokens.len()
    }

    /// Vocabulary size the counts are over.
    pub fn n_words(&self) -> usize {
        self.words.first().map_or(0, Vec::len)
    }

    /// True when any class has a token of word `w`.
    pub fn seen(&self, w: usize) -> bool {
        self.words.iter().any(|c| c[w] > 0.0)
    }
}
