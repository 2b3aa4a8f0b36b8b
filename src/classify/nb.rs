//! The multinomial naive Bayes classifier: log priors and per-class word
//! log-probabilities, and the classic add-one fit (Lucas ch.2 eq. 10).

use super::counts::ClassCounts;
use super::dataset::Document;

/// A fitted classifier over a vocabulary mask.
#[derive(Debug, Clone, PartialEq)]
pub struct NaiveBayes {
    /// `ln P(c)`.
    pub log_prior: Vec<f64>,
    /// `ln θ_w^c`, `[c][w]`; words outside the vocabulary hold 0 and are
    /// skipped when scoring.
    pub log_theta: Vec<Vec<f64>>,
    /// Which word ids are in the vocabulary.
    pub in_vocab: Vec<bool>,
}

/// The class prior, chosen where the paper is silent: document fractions
/// with add-one, so a class without labelled documents keeps a chance.
pub fn log_prior(counts: &ClassCounts) -> Vec<f64> {
    let total: u64 = counts.documents.iter().sum();
    let k = counts.classes() as f64;
    counts
        .documents
        .iter()
        .map(|&d| ((d as f64 + 1.0) / (total as f64 + k)).ln())
        .collect()
}

/// Add-one MNB: `θ_w^c = (N_w^c + 1) / (T^c + |V|)` over the words in `in_vocab`.
pub fn fit_add_one(counts: &ClassCounts, in_vocab: Vec<bool>) -> NaiveBayes {
    let v = in_vocab.iter().filter(|&&b| b).count() as f64;
    let log_theta = counts
        .words
        .iter()
        .zip(&counts.tokens)
        .map(|(row, &t)| {
            let denom = (t + v).ln();
            row.iter()
                .zip(&in_vocab)
                .map(|(&n, &inv)| if inv { (n + 1.0).ln() - denom } else { 0.0 })
                .collect()
        })
        .collect();
    NaiveBayes {
        log_prior: log_prior(counts),
        log_theta,
        in_vocab,
    }
}

impl NaiveBayes {
    /// `ln P(c) + Σ_w n_dw ln θ_w^c` for every class (the joint
    /// log-likelihood; words outside the vocabulary are skipped).
    pub fn scores(&self, doc: &Document, out: &mut Vec<f64>) {
        out.clear();
        out.extend_from_slice(&self.log_prior);
        for &(w, n) in &doc.bag {
            let w = w as usize;
            if !self.in_vocab.get(w).copied().unwrap_or(false) {
                continue;
            }
            for (s, row) in out.iter_mut().zip(&self.log_theta) {
                *s += f64::from(n) * row[w];
            }
        }
    }

    /// The most likely class (the first on ties).
    pub fn predict(&self, doc: &Document) -> usize {
        let mut s = Vec::with_capacity(self.log_prior.len());
        self.scores(doc, &mut s);
        argmax(&s)
    }
}

/// Index of the largest value (the first on ties).
pub fn argmax(values: &[f64]) -> usize {
    let mut best = 0;
    for (i, &x) in values.iter().enumerate() {
        if x > values[best] {
            best = i;
        }
    }
    best
}
