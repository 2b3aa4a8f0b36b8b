//! Graph spectral embeddings: Isomap, locally linear embedding (LLE) and
//! Laplacian eigenmaps (docs/methods/manifold.md), for word vectors
//! (`--algo isomap|lle|laplacian`, rows of PPMI or TF-IDF) and as 2-D
//! projections of any embedding.
//!
//! All three start from one neighbourhood graph ([`graph`], on the exact
//! blocked search of [`crate::geometry::knn`], which t-SNE shares) and end in a sparse or
//! operator eigensolve on [`crate::linalg`]'s block Lanczos:
//!
//! - [`isomap`]: Dijkstra from every node ([`paths`]), classical MDS on the
//!   squared geodesic distances as an operator; landmarks for large `n`;
//! - [`lle`]: local weights, bottom eigenvectors of `(I − W)ᵀ(I − W)`
//!   through the shifted operator;
//! - [`laplacian`]: heat weights, top eigenvectors of `D^-½ W D^-½`.
//!
//! [`Embedder`] runs one of them in small steps (graph, paths, one Lanczos
//! block per step) so that the training engine can show it live; [`embed`]
//! runs it to the end. [`score`] holds the quality measures the tests and
//! benchmarks use (trustworthiness, Spearman against a known coordinate).

pub mod graph;
pub mod isomap;
pub mod laplacian;
pub mod lle;
pub mod paths;
pub mod run;
pub mod score;
pub mod swiss;

pub use graph::{Graph, Neighbourhood};
pub use laplacian::Symmetrise;
pub use run::{embed, Config, Embedded, Embedder, Kind, Phase, Report};

#[cfg(test)]
mod tests;
