//! wordbench: a workbench for word embeddings.
//!
//! The library holds everything the `wordbench` binary does, so that it can be
//! scripted, tested and benchmarked without a terminal:
//!
//! - [`corpus`]: streaming readers, tokenizer, vocabulary, held-out split;
//! - [`cooc`]: windowed co-occurrence counting into CSR and the PMI family of transforms;
//! - [`embedding`]: word vectors, nearest neighbours, word2vec/GloVe file formats;
//! - [`eval`]: word similarity and analogy benchmarks.

// Numeric kernels index several arrays in lockstep (`acc[q] += a[g] * b[q]`),
// where iterator chains read worse; NaN-rejecting comparisons (`!(x > 0.0)`)
// are deliberate.
#![allow(
    clippy::needless_range_loop,
    clippy::neg_cmp_op_on_partial_ord,
    clippy::collapsible_match
)]

pub mod algo;
pub mod atomic;
pub mod cooc;
pub mod corpus;
pub mod embedding;
pub mod error;
pub mod eval;
pub mod explicit;
pub mod linalg;
pub mod project;
pub mod session;
pub mod topk;
pub mod train;
pub mod tui;
pub mod words;

pub use error::{Error, Result};
