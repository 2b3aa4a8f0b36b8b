//! Word vectors: an [`Embedding`] is a [`WordIndex`] plus one `f32` row per word
//! (and optionally a context matrix, as GloVe and SGNS produce).
//!
//! Every trainer ends in an `Embedding`, and everything downstream (neighbour
//! lists, evaluation, projection, export) reads one, so this type stays small:
//! validated construction, row lookup, unit normalisation and cosine search
//! ([`neighbors`]). Row norms are computed once at construction (accumulated in
//! `f64`), so cosine search never copies or renormalises the matrix.
//!
//! Files ([`mod@format`]): word2vec text and binary, GloVe text with or
//! without a header (Stanford's `<unk>` quirk accepted), fastText `.vec` and
//! NumPy `.npy` are read with format detection, transparent gzip/bzip2/xz, an
//! optional word limit, parallel parsing of text and memory-mapped binary
//! files; fastText `.bin` models also with their subword n-grams
//! ([`subwords`]), so words outside the vocabulary get vectors; written atomically, also
//! as the Embedding Projector's TSV pair ([`paired`]). [`align`] rotates one
//! embedding onto another (orthogonal Procrustes).

pub mod align;
mod fasttext_bin;
pub mod format;
mod glove_text;
mod mapped;
pub mod neighbors;
pub mod paired;
pub mod progress;
pub mod queries;
pub mod senses;
pub mod subwords;
mod text_line;
mod text_rows;
mod word2vec_binary;
mod word2vec_text;

use std::sync::Arc;

use ndarray::{Array1, Array2, ArrayView1, ArrayView2, Axis};

pub use format::{ReadReport, VectorFormat};
pub use neighbors::{Neighbor, NeighborParams};
pub use progress::LoadProgress;
pub use queries::Combine;
pub use senses::{Sense, SenseTable};
pub use subwords::Subwords;

use crate::words::WordIndex;
use crate::{Error, Result};

/// Words and their vectors: row `i` of [`vectors`](Embedding::vectors) belongs to word id `i`.
#[derive(Debug, Clone)]
pub struct Embedding {
    words: WordIndex,
    vectors: Array2<f32>,
    context: Option<Array2<f32>>,
    /// Euclidean norm of each row of `vectors`.
    norms: Vec<f32>,
    /// `1 / norm`, or 0 for a zero row (so its cosine with anything is 0).
    inv_norms: Vec<f32>,
    /// The sense inventory of a multi-sense embedding (rows `word#j`),
    /// saved and loaded as a sidecar file next to the vectors.
    senses: Option<Arc<SenseTable>>,
    /// fastText n-gram buckets (read from a fastText `.bin`), so words
    /// outside the vocabulary still get vectors.
    subwords: Option<Arc<Subwords>>,
}

impl Embedding {
    /// Pairs `words` with `vectors` (one row per word, in id order).
    ///
    /// Fails when the number of rows differs from the number of words.
    pub fn new(words: WordIndex, vectors: Array2<f32>) -> Result<Embedding> {
        if vectors.nrows() != words.len() {
            return Err(Error::param(
                "vectors",
                format!(
                    "{} rows for {} words; need one row per word",
                    vectors.nrows(),
                    words.len()
                ),
            ));
        }
        let (norms, inv_norms) = row_norms(vectors.view());
        Ok(Embedding {
            words,
            vectors,
            context: None,
            norms,
            inv_norms,
            senses: None,
            subwords: None,
        })
    }

    /// Adds a context matrix (one row per word, same dimension as the word vectors).
    pub fn with_context(mut self, context: Array2<f32>) -> Result<Embedding> {
        if context.dim() != self.vectors.dim() {
            return Err(Error::param(
                "context",
                format!(
                    "shape {}x{} differs from the word vectors' {}x{}",
                    context.nrows(),
                    context.ncols(),
                    self.vectors.nrows(),
                    self.vectors.ncols()
                ),
            ));
        }
        self.context = Some(context);
        Ok(self)
    }

    /// Attaches a sense inventory (its sense names should be rows).
    pub fn with_senses(mut self, senses: SenseTable) -> Embedding {
        self.senses = Some(Arc::new(senses));
        self
    }

    /// Attaches fastText n-gram buckets (their dimension should be the vectors').
    pub fn with_subwords(mut self, subwords: Subwords) -> Embedding {
        self.subwords = Some(Arc::new(subwords));
        self
    }

    /// The fastText n-gram buckets, for vectors read from a fastText `.bin`.
    pub fn subwords(&self) -> Option<&Subwords> {
        self.subwords.as_deref()
    }

    /// The vector fastText computes from n-grams for a word outside the
    /// vocabulary; `None` for a vocabulary word, vectors without subwords,
    /// or a word with no n-gram.
    pub fn subword_vector(&self, word: &str) -> Option<Array1<f32>> {
        if self.id(word).is_some() {
            return None;
        }
        self.subwords.as_ref()?.vector(word)
    }

    /// The sense inventory, for a multi-sense embedding.
    pub fn senses(&self) -> Option<&SenseTable> {
        self.senses.as_deref()
    }

    /// The words, in row order.
    pub fn words(&self) -> &WordIndex {
        &self.words
    }

    /// The word vectors (rows = words).
    pub fn vectors(&self) -> ArrayView2<'_, f32> {
        self.vectors.view()
    }

    /// The context vectors, if the trainer kept them.
    pub fn context(&self) -> Option<ArrayView2<'_, f32>> {
        self.context.as_ref().map(|c| c.view())
    }

    /// Number of words (rows).
    pub fn len(&self) -> usize {
        self.vectors.nrows()
    }

    /// True when there are no words.
    pub fn is_empty(&self) -> bool {
        self.vectors.nrows() == 0
    }

    /// Vector dimension (columns).
    pub fn dim(&self) -> usize {
        self.vectors.ncols()
    }

    /// The id of `word`, if present.
    pub fn id(&self, word: &str) -> Option<u32> {
        self.words.id(word)
    }

    /// The vector of `word`, if present.
    pub fn vector(&self, word: &str) -> Option<ArrayView1<'_, f32>> {
        self.id(word).map(|id| self.row(id))
    }

    /// The vector of word id `id`. Panics if `id` is out of range (ids come from [`words`](Self::words)).
    pub fn row(&self, id: u32) -> ArrayView1<'_, f32> {
        self.vectors.row(id as usize)
    }

    /// The unit-length vector of word id `id` (a zero row stays zero).
    pub fn unit_row(&self, id: u32) -> Array1<f32> {
        let inv = self.inv_norms[id as usize];
        self.row(id).mapv(|v| v * inv)
    }

    /// Euclidean norm of every row, in id order.
    pub fn norms(&self) -> &[f32] {
        &self.norms
    }

    /// `1 / norm` of every row, 0 for zero rows: multiply a row by it to get a unit vector.
    pub fn inv_norms(&self) -> &[f32] {
        &self.inv_norms
    }

    /// Scales every word vector to unit length; zero rows stay zero.
    /// The context matrix, if any, is left as it is.
    pub fn normalize(&mut self) {
        for (mut row, &inv) in self.vectors.axis_iter_mut(Axis(0)).zip(&self.inv_norms) {
            row.mapv_inplace(|v| v * inv);
        }
        let (norms, inv_norms) = row_norms(self.vectors.view());
        self.norms = norms;
        self.inv_norms = inv_norms;
    }

    /// A copy with unit-length word vectors (see [`normalize`](Self::normalize)).
    pub fn normalized(&self) -> Embedding {
        let mut e = self.clone();
        e.normalize();
        e
    }

    /// Cosine similarity of two word ids (0 when either row is zero), entirely in `f64`.
    pub fn cosine(&self, a: u32, b: u32) -> f64 {
        let (mut dot, mut aa, mut bb) = (0.0f64, 0.0f64, 0.0f64);
        for (&x, &y) in self.row(a).iter().zip(self.row(b).iter()) {
            let (x, y) = (f64::from(x), f64::from(y));
            dot += x * y;
            aa += x * x;
            bb += y * y;
        }
        if aa == 0.0 || bb == 0.0 {
            return 0.0;
        }
        dot / (aa * bb).sqrt()
    }

    /// Takes the embedding apart: words, word vectors and context vectors.
    pub fn into_parts(self) -> (WordIndex, Array2<f32>, Option<Array2<f32>>) {
        (self.words, self.vectors, self.context)
    }
}

/// Norms and inverse norms of the rows of `m`, accumulated in `f64`.
fn row_norms(m: ArrayView2<'_, f32>) -> (Vec<f32>, Vec<f32>) {
    m.axis_iter(Axis(0))
        .map(|row| {
            let sq: f64 = row.iter().map(|&v| f64::from(v) * f64::from(v)).sum();
            let norm = sq.sqrt();
            let inv = if norm > 0.0 && norm.is_finite() {
                1.0 / norm
            } else {
                0.0
            };
            (norm as f32, inv as f32)
        })
        .unzip()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    fn small() -> Embedding {
        let words = WordIndex::from_words(vec!["a".into(), "b".into(), "zero".into()]);
        Embedding::new(words, array![[3.0, 4.0], [1.0, 0.0], [0.0, 0.0]]).unwrap()
    }

    #[test]
    fn shape_mismatch_is_an_error_not_a_panic() {
        let words = WordIndex::from_words(vec!["a".into()]);
        let err = Embedding::new(words, Array2::zeros((2, 3))).unwrap_err();
        assert!(err.to_string().contains("2 rows for 1 words"), "{err}");
        let err = small().with_context(Array2::zeros((3, 3))).unwrap_err();
        assert!(err.to_string().contains("3x3"), "{err}");
        assert!(small().with_context(Array2::zeros((3, 2))).is_ok());
    }

    #[test]
    fn norms_lookup_and_normalisation() {
        let mut e = small();
        assert_eq!(e.norms(), &[5.0, 1.0, 0.0]);
        assert_eq!(e.inv_norms()[2], 0.0);
        assert_eq!(e.vector("a").unwrap().to_vec(), vec![3.0, 4.0]);
        assert!(e.vector("missing").is_none());
        assert_eq!(e.unit_row(0).to_vec(), vec![0.6, 0.8]);
        assert!((e.cosine(0, 1) - 0.6).abs() < 1e-7);
        assert_eq!(e.cosine(0, 2), 0.0);
        e.normalize();
        assert_eq!(e.row(0).to_vec(), vec![0.6, 0.8]);
        assert_eq!(e.row(2).to_vec(), vec![0.0, 0.0], "zero rows stay zero");
        assert!((e.norms()[0] - 1.0).abs() < 1e-7);
        assert_eq!(e.norms()[2], 0.0);
    }
}
