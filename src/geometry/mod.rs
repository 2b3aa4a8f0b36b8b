//! Geometry: points in a space and the methods that place them, below every
//! front end. What a layout or a graph method needs and nothing above it:
//!
//! - [`finite`]: the check every method runs on its input first;
//! - [`random`]: standard normals and points uniform on the sphere;
//! - [`knn`]: nearest neighbours, exact on matrix products or approximate
//!   (random-projection forest + NN-descent) for large inputs;
//! - [`pca`]: principal components (dense or randomized);
//! - [`kmeans`]: k-means++ with restarts (colour groups, `wordbench cluster`);
//! - [`manifold`]: Isomap, LLE and Laplacian eigenmaps on one neighbourhood graph;
//! - [`ube`]: unit-ball (sphere) embedding on elbow-cut Gaussian affinities.
//!
//! These cores import only the ground floor, [`crate::linalg`] and
//! [`crate::fast`]; the training methods (`algo/`) and the projections
//! (`project/`) are thin adapters over them (rows of a matrix in, an
//! embedding in).

pub mod finite;
pub mod kmeans;
pub mod knn;
pub mod manifold;
pub mod pca;
pub mod random;
pub mod ube;

#[cfg(test)]
pub(crate) mod testdata;

pub use finite::check_finite;
