//! Projection of word vectors to 2-D (or a 3-D sphere): PCA, t-SNE, the
//! graph methods (Isomap, LLE, Laplacian eigenmaps) and UBE, which words to
//! show, and export as a scatter plot (PNG, SVG) or coordinates (CSV).
//!
//! Users explore an embedding by projecting a set of words and looking, so
//! everything here serves that: [`select`] picks the words (most frequent, a
//! list, or a neighbourhood) and their colour groups (k-means,
//! [`crate::geometry::kmeans`], when the list has none), the methods of the
//! [`registry`] ([`pca`], [`tsne`], [`manifold`], [`ube`], [`umap`]) place
//! them (the cores they adapt live in [`crate::geometry`]), [`pipeline`]
//! runs the two steps for the command line and the workbench alike, and
//! [`plot`] / [`export`]
//! write the result atomically, with the bundled [`font`].

pub mod export;
pub mod font;
pub mod layout;
pub mod manifold;
pub mod options;
pub mod pca;
pub mod pipeline;
pub mod plot;
pub mod projection;
pub mod registry;
pub mod select;
pub mod tsne;
pub mod ube;
pub mod umap;

#[cfg(test)]
pub(crate) mod testdata;
