//! Text classification with multinomial naive Bayes, and MNB-FM: naive Bayes
//! whose per-word probabilities are re-estimated under the constraint that
//! they reproduce word frequencies measured on a large unlabelled corpus
//! (Lucas & Downey 2013; `docs/methods/mnbfm.md`).
//!
//! - [`dataset`]: labelled documents (fastText lines or the Reuters TSV
//!   layout) as sparse bags of words over one shared [`dataset::Lexicon`];
//! - [`marginals`]: word frequencies of an unlabelled corpus, in one pass;
//! - [`counts`]: per-class token counts of a labelled set;
//! - [`nb`]: the classifier (log-space scoring) and its add-one fit;
//! - [`fm`]: the constrained per-word maximum-likelihood fit of MNB-FM;
//! - [`metrics`]: accuracy, F1, macro-F1, R-precision;
//! - [`protocol`]: one-vs-rest tasks, seeded labelled draws, learning curves;
//! - [`study`]: one study from files to learning curve (CLI and workbench);
//! - [`options`]: the options, declared once.

pub mod counts;
pub mod dataset;
pub mod fm;
pub mod marginals;
pub mod metrics;
pub mod nb;
pub mod options;
pub mod protocol;
mod stopwords;
pub mod study;

#[cfg(test)]
mod tests;
