//! Isomap, LLE and Laplacian eigenmaps as word-embedding methods
//! (`--algo isomap|lle|laplacian`; docs/methods/manifold.md, "Words"):
//! the rows of the PPMI or TF-IDF co-occurrence matrix of the `max_vocab`
//! most frequent words (contexts the same words), L2-normalised, embedded
//! by [`crate::geometry::manifold`]. Counting and weighting come from
//! [`crate::cooc`] (shared through the session's `CountCache`).

pub mod params;
pub mod trainer;

use std::time::Instant;

use ndarray::Array2;
use sprs::CsMat;

pub use params::{Input, Settings, ISOMAP_SCHEMA, LAPLACIAN_SCHEMA, LLE_SCHEMA};
pub use trainer::ManifoldTrainer;

use crate::cooc::{
    pmi, tfidf, CountConfig, LogBase, Marginals, PmiConfig, TfIdf, Weighting, Window,
};
use crate::geometry::manifold::{Embedder, Kind};
use crate::train::{Method, TrainInput, Trainer};
use crate::Result;

/// Isomap.
pub static ISOMAP: Method = Method {
    name: "isomap",
    summary: "Isomap: classical MDS of shortest paths on the kNN graph of PPMI/TF-IDF rows",
    schema: ISOMAP_SCHEMA,
    dimension: Some("dim"),
    build: build_isomap,
};

/// Locally linear embedding.
pub static LLE: Method = Method {
    name: "lle",
    summary: "LLE: bottom eigenvectors of (I-W)^T(I-W) of local reconstruction weights",
    schema: LLE_SCHEMA,
    dimension: Some("dim"),
    build: build_lle,
};

/// Laplacian eigenmaps.
pub static LAPLACIAN: Method = Method {
    name: "laplacian",
    summary:
        "Laplacian eigenmaps: heat-kernel graph, eigenvectors 2..d+1 of the random-walk Laplacian",
    schema: LAPLACIAN_SCHEMA,
    dimension: Some("dim"),
    build: build_laplacian,
};

fn build_isomap(input: &TrainInput, log: &mut dyn FnMut(String)) -> Result<Box<dyn Trainer>> {
    build(Kind::Isomap, input, log)
}

fn build_lle(input: &TrainInput, log: &mut dyn FnMut(String)) -> Result<Box<dyn Trainer>> {
    build(Kind::Lle, input, log)
}

fn build_laplacian(input: &TrainInput, log: &mut dyn FnMut(String)) -> Result<Box<dyn Trainer>> {
    build(Kind::Laplacian, input, log)
}

/// Counts, weights and normalises the rows, then prepares the run.
pub fn build(
    kind: Kind,
    input: &TrainInput,
    log: &mut dyn FnMut(String),
) -> Result<Box<dyn Trainer>> {
    let s = Settings::from_params(kind, &input.params, input.seed);
    let t = Instant::now();
    let counts = input.counts.counts(
        &input.corpus,
        &CountConfig {
            window: Window::symmetric(s.window, Weighting::Uniform),
            max_vocab: Some(s.max_vocab),
        },
    )?;
    let m = weighted(&counts, s.input)?;
    let rows = unit_rows(&m);
    let n = rows.nrows();
    log(format!(
        "{}: {n} words, window {}, {} rows (L2-normalised) in {:.1}s",
        kind.name(),
        s.window,
        match s.input {
            Input::Ppmi => "PPMI",
            Input::TfIdf => "TF-IDF",
        },
        t.elapsed().as_secs_f64()
    ));
    let embedder = Embedder::new(rows, s.config)?;
    let mut index = input.corpus.vocab().index().clone();
    index.truncate(n);
    Ok(Box::new(ManifoldTrainer::new(embedder, index)))
}

/// PPMI (base 2) or TF-IDF over contexts of the counts.
pub fn weighted(counts: &CsMat<f64>, input: Input) -> Result<CsMat<f64>> {
    match input {
        Input::Ppmi => pmi(
            counts,
            &Marginals::of(counts),
            &PmiConfig::ppmi(LogBase::Two),
        ),
        Input::TfIdf => tfidf(counts, TfIdf::OverContexts, LogBase::Two),
    }
}

/// The rows of `m` as dense unit-length `f32` rows (empty rows stay zero):
/// Euclidean distances between them are the cosine geometry of the rows.
pub fn unit_rows(m: &CsMat<f64>) -> Array2<f32> {
    let m = if m.is_csr() { m.clone() } else { m.to_csr() };
    let (n, cols) = m.shape();
    let mut out = Array2::<f32>::zeros((n, cols));
    for (i, row) in m.outer_iterator().enumerate() {
        let norm = row.iter().map(|(_, v)| v * v).sum::<f64>().sqrt();
        if norm > 0.0 {
            for (j, &v) in row.iter() {
                out[[i, j]] = (v / norm) as f32;
            }
        }
    }
    out
}
