//! wordbench: a workbench for word embeddings.
//!
//! The library holds everything the `wordbench` binary does, so that it can be
//! scripted, tested and benchmarked without a terminal:
//!
//! - [`corpus`]: streaming readers, tokenizer, vocabulary, held-out split;
//! - [`cooc`]: windowed co-occurrence counting into CSR (within a memory budget,
//!   spilling sorted runs to disk) and the PMI family of transforms;
//! - [`counts`]: the counts file (vocabulary + sparse counts on disk), opening one
//!   as a corpus ([`counts::open`]), and imports of GloVe's and Spark's counts;
//! - [`window`]: the context window (size, direction, distance weighting);
//! - [`algo`]: the training methods and the registry every front end looks them up in;
//! - [`train`]: the engine that runs a method as a background job;
//! - [`schema`]: hyperparameters and options declared once (name, type, range,
//!   default, help), for methods, corpus options, projections and classifiers;
//! - [`embedding`]: word vectors, nearest neighbours, their file formats (word2vec,
//!   GloVe, fastText `.vec`, NumPy, the Projector's TSV), senses, Procrustes alignment;
//! - [`explicit`]: sparse PPMI rows used directly as word representations;
//! - [`eval`]: word similarity and analogy benchmarks;
//! - [`classify`]: naive Bayes and MNB-FM text classification with corpus word marginals;
//! - [`project`]: PCA, t-SNE, the graph methods and UBE as projections, scatter plots
//!   and coordinate export;
//! - [`session`]: session files (RON) and their bit-for-bit replay;
//! - [`tui`]: the terminal workbench;
//! - [`geometry`]: nearest neighbours, PCA, k-means, Isomap/LLE/Laplacian
//!   eigenmaps and UBE: the cores every layout and graph method shares;
//! - [`linalg`]: the sparse eigensolver and truncated SVD behind the spectral methods;
//! - [`fast`]: every `unsafe` fast path (SIMD lanes, Hogwild rows, blocked kernels);
//! - [`stats`]: Pearson's and Spearman's correlations (as scipy computes them);
//! - [`topk`], [`words`], [`atomic`], [`error`], [`memory`], [`quote`]: bounded top-k selection, the
//!   word/id map, crash-safe file writes, the one error type, memory budgets, and
//!   escaping input quoted in messages;
//! - [`assets`]: where the bundled corpus, evaluation and labelled sets are.
// Every module that needs `unsafe` says so with `#![allow(unsafe_code)]`
// and why: the fast paths (`fast`), the kernels built on them and the
// memory maps (docs/architecture.md lists them).
#![deny(unsafe_code)]
// Numeric kernels index several arrays in lockstep (`acc[q] += a[g] * b[q]`),
// where iterator chains read worse; NaN-rejecting comparisons (`!(x > 0.0)`)
// are deliberate.
#![allow(
    clippy::needless_range_loop,
    clippy::neg_cmp_op_on_partial_ord,
    clippy::collapsible_match
)]

pub mod algo;
pub mod assets;
pub mod atomic;
pub mod classify;
pub mod cooc;
pub mod corpus;
pub mod counts;
pub mod cpu_time;
pub mod embedding;
pub mod error;
pub mod eval;
pub mod explicit;
pub mod fast;
pub mod format;
pub mod geometry;
pub mod linalg;
pub mod memory;
pub mod outputs;
pub mod project;
pub mod quote;
pub mod schema;
pub mod session;
pub mod stats;
pub mod sweep;
pub mod topk;
pub mod train;
pub mod tui;
pub mod window;
pub mod words;

pub use error::{Error, Result};
