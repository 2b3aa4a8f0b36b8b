//! Word frequencies `P_U(w)` of an unlabelled corpus: MNB-FM's only use of
//! unlabelled text, counted once and reusable for every task.

use std::path::Path;

use super::dataset::{Document, Reader};
use super::stopwords::is_stop_word;
use crate::corpus::reader::{self, HeldoutConfig, ReadConfig, Split, Visitor};
use crate::Result;

/// Token counts of an unlabelled corpus, by lexicon id.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Marginals {
    counts: Vec<f64>,
    total: f64,
    documents: u64,
}

impl Marginals {
    /// The marginals of documents already read (the transductive protocol:
    /// the test set is the unlabelled corpus).
    pub fn from_documents<'a>(docs: impl IntoIterator<Item = &'a Document>) -> Self {
        let mut m = Marginals::default();
        for doc in docs {
            for &(w, n) in &doc.bag {
                m.add(w, f64::from(n));
            }
            m.documents += 1;
        }
        m
    }

    /// The marginals of any corpus the workbench reads (text, fastText with
    /// its labels ignored, Wikipedia XML; compressed or not), in one
    /// streaming pass. New words join the reader's lexicon.
    pub fn from_corpus(path: &Path, reader: &mut Reader) -> Result<Self> {
        let config = ReadConfig {
            heldout: HeldoutConfig {
                fraction: 0.0,
                ..HeldoutConfig::default()
            },
            ..ReadConfig::default()
        };
        let mut counter = Counter {
            marginals: Marginals::default(),
            reader,
        };
        let report = reader::read(path, &config, &mut counter)?;
        let mut m = counter.marginals;
        m.documents = report.documents;
        Ok(m)
    }

    fn add(&mut self, w: u32, n: f64) {
        let w = w as usize;
        if w >= self.counts.len() {
            self.counts.resize(w + 1, 0.0);
        }
        self.counts[w] += n;
        self.total += n;
    }

    /// `P_U(w)`: 0 for a word the corpus never had.
    pub fn p(&self, w: u32) -> f64 {
        if self.total == 0.0 {
            return 0.0;
        }
        self.counts.get(w as usize).map_or(0.0, |&c| c / self.total)
    }

    /// True when the corpus had word `w`.
    pub fn has(&self, w: u32) -> bool {
        self.counts.get(w as usize).is_some_and(|&c| c > 0.0)
    }

    /// Tokens counted.
    pub fn tokens(&self) -> f64 {
        self.total
    }

    /// Documents counted.
    pub fn documents(&self) -> u64 {
        self.documents
    }
}

struct Counter<'a> {
    marginals: Marginals,
    reader: &'a mut Reader,
}

impl Visitor for Counter<'_> {
    fn token(&mut self, token: &str, _split: Split) {
        if self.reader.drops_stop_words() && is_stop_word(token) {
            return;
        }
        let id = self.reader.lexicon.intern(token);
        self.marginals.add(id, 1.0);
    }

    fn sentence_end(&mut self, _split: Split) {}
}
