//! Co-occurrence counting and the PMI family of transforms.
//!
//! Every count-based method in wordbench starts from the same two steps, so
//! they live here once:
//!
//! 1. [`count`]: a windowed co-occurrence matrix `X` (`n × n` CSR, `f64`)
//!    from a corpus or an in-memory [`Batch`](crate::corpus::Batch):
//!    symmetric or left-only windows, uniform or harmonic (`1/d`) weights,
//!    never crossing a sentence, counted in parallel.
//! 2. Transforms of `X`, computed on its non-zero cells (an absent cell stays
//!    0, never `−inf`), in parallel over rows, from [`Marginals`] computed
//!    once: [`pmi()`] (PMI, PPMI, shifted PPMI, thresholded PMI, each with
//!    optional context-distribution smoothing), [`jelinek_mercer`] (PSDVec's
//!    smoothed PMI), [`tfidf()`], [`sqrt_counts`] and [`log1p_counts`].
//!    [`Summary`] records nnz, signs and range of any result.
//!
//! Runs of one workbench session share their counts through a
//! [`CountCache`]: a corpus is counted once per window and weighting.
//!
//! ```
//! use wordbench::cooc::{count_batch, pmi, CountConfig, LogBase, Marginals, PmiConfig, Summary};
//! use wordbench::corpus::Batch;
//!
//! let batch = Batch { ids: vec![0, 1, 2, 0, 1], bounds: vec![0, 5], raw_tokens: 5 };
//! let x = count_batch(&batch, 3, &CountConfig::default()).unwrap();
//! let m = Marginals::of(&x);
//! let ppmi = pmi(&x, &m, &PmiConfig::ppmi(LogBase::E)).unwrap();
//! assert!(Summary::of(&ppmi).negative == 0);
//! ```

mod accum;
mod assemble;
pub mod cache;
mod cells;
pub mod count;
pub mod jm;
pub mod marginals;
pub mod pmi;
pub mod products;
pub mod progress;
mod runs;
pub mod scale;
pub mod spill;
mod stack;
pub mod summary;
pub mod tfidf;

pub use crate::window::{Weighting, Window, WindowKind, MAX_WINDOW};
pub use assemble::RowSink;
pub use cache::CountCache;
pub use count::{
    count_batch, count_corpus, count_corpus_with, count_naive, feed_corpus, CountConfig, Counter,
    Tuning,
};
pub use jm::{jelinek_mercer, unigram_probabilities, JmPmi, DEFAULT_KAPPA};
pub use marginals::Marginals;
pub use pmi::{pmi, LogBase, PmiConfig};
pub use products::{Claim, Product};
pub use progress::{CountPhase, CountProgress};
pub use scale::{log1p_counts, scaled_to_sum, sqrt_counts, without_diagonal};
pub use summary::Summary;
pub use tfidf::{tfidf, TfIdf};
