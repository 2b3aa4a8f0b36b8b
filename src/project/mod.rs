//! Projection of word vectors to 2-D: PCA and t-SNE, which words to show,
//! and export as a scatter plot (PNG, SVG) or coordinates (CSV).
//!
//! Users explore an embedding by projecting a set of words and looking, so
//! everything here serves that: [`select`] picks the words (most frequent, a
//! list, or a neighbourhood) and their colour groups ([`kmeans`] when the
//! list has none), [`pca`] and [`tsne`] place them, and [`plot`] / [`export`]
//! write the result atomically, with the bundled [`font`].

pub mod export;
pub mod font;
pub mod kmeans;
pub mod options;
pub mod pca;
pub mod plot;
pub mod select;
pub mod tsne;

#[cfg(test)]
mod testdata;
