//! t-SNE's exact k nearest neighbours: the shared builder of
//! [`crate::manifold::knn`] (Isomap, LLE and Laplacian eigenmaps search the
//! same way), re-exported under its old path.

pub use crate::manifold::knn::{knn, Knn};
