//! UBE, unit ball embedding (docs/methods/ube.md): points of any dense
//! feature matrix placed on the unit sphere in `d` dimensions so that the
//! cosine similarities, rescaled to `[0, 1]`, match Gaussian affinities on
//! an adaptive nearest-neighbour graph.
//!
//! - [`affinity`]: the graph, each point cut at the elbow of its neighbour
//!   distances (on the exact search of [`crate::geometry::knn`]);
//! - [`objective`]: `J` and its gradient with the all-pairs repulsion
//!   collapsed through `YᵀY` and `Σ y` (exact, `O(d²)` per point);
//! - [`newton`]: the inverse Hessian kept current by rank-one updates;
//! - [`run`]: the run in steps (graph, then one sweep per step), Newton,
//!   gradient or the authors' normalised-force update;
//! - [`sphere`]: the equal-area map the plots and the workbench show;
//! - [`options`]: the options the word method and the projection share.

pub mod affinity;
pub mod init;
pub mod newton;
pub mod objective;
pub mod options;
pub mod run;
pub mod sphere;

pub use affinity::{elbow, Affinities};
pub use run::{embed, Config, Ube, Update};

#[cfg(test)]
mod tests;
