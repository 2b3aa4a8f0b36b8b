//! t-SNE's k nearest neighbours: the shared builders of
//! [`crate::geometry::knn`] (UMAP, Isomap, LLE, Laplacian eigenmaps and UBE
//! search the same way), re-exported under their old path.

pub use crate::geometry::knn::{knn, search, Knn, Search};
