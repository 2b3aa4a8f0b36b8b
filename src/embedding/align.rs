//! Aligning two embeddings by orthogonal Procrustes on their shared words,
//! so they can be compared word by word: which words moved most between two
//! runs, or between a trained run and pre-trained vectors.
//!
//! Two runs of one method, or two methods, place words in different bases:
//! any rotation of a space keeps every cosine. Procrustes finds the rotation
//! `W` (orthogonal) that best maps the first space onto the second over the
//! shared words: with `X` and `Y` the unit-length rows of the shared words,
//! `W = argmin ‖X W − Y‖_F` subject to `WᵀW = I` is `U Vᵀ`, where
//! `U Σ Vᵀ` is the SVD of `Xᵀ Y` (Schönemann 1966). Rows are scaled to unit
//! length first so that frequent words with long vectors do not dominate,
//! and so that after alignment the cosine of a word's two vectors measures how
//! far it moved. When the dimensions differ, the smaller space is padded with
//! zero columns (the rotation then also chooses which of the larger space's
//! directions the smaller one lies in).

use ndarray::{Array2, Axis};

use super::Embedding;
use crate::{Error, Result};

/// The rotation found and how far each shared word moved.
#[derive(Debug, Clone)]
pub struct Alignment {
    /// `D x D` orthogonal matrix, `D` the larger of the two dimensions:
    /// unit rows of the first embedding (zero-padded) times it approximate
    /// those of the second.
    pub rotation: Array2<f64>,
    /// Shared words used, as (id in the first, id in the second).
    pub shared: Vec<(u32, u32)>,
    /// Every shared word with the cosine of its two vectors after alignment,
    /// lowest (moved most) first.
    pub moved: Vec<Moved>,
    /// Mean of those cosines.
    pub mean_cosine: f64,
}

/// A shared word and how well its two vectors agree after alignment.
#[derive(Debug, Clone, PartialEq)]
pub struct Moved {
    /// The word.
    pub word: String,
    /// Cosine of its aligned first vector with its second vector.
    pub cosine: f64,
}

/// Aligns `a` onto `b` over the words they share among the first `top`
/// words of `a` (all of them when `None`; files list frequent words first).
///
/// Fails when fewer than two words are shared.
pub fn procrustes(a: &Embedding, b: &Embedding, top: Option<usize>) -> Result<Alignment> {
    let take = top.unwrap_or(a.len()).min(a.len());
    let shared: Vec<(u32, u32)> = (0..take as u32)
        .filter_map(|i| b.id(a.words().word(i)).map(|j| (i, j)))
        .collect();
    if shared.len() < 2 {
        return Err(Error::param(
            "align",
            format!(
                "the two embeddings share {} word(s) among the first {take}; alignment needs at least 2",
                shared.len()
            ),
        ));
    }
    let dim = a.dim().max(b.dim());
    let x = unit_rows(a, shared.iter().map(|&(i, _)| i), dim);
    let y = unit_rows(b, shared.iter().map(|&(_, j)| j), dim);
    let rotation = rotation(&x, &y)?;
    let aligned = x.dot(&rotation);
    let mut moved: Vec<Moved> = shared
        .iter()
        .zip(aligned.axis_iter(Axis(0)).zip(y.axis_iter(Axis(0))))
        .map(|(&(i, _), (u, v))| Moved {
            word: a.words().word(i).to_string(),
            cosine: cosine(u.as_slice().expect("row"), v.as_slice().expect("row")),
        })
        .collect();
    let mean_cosine = moved.iter().map(|m| m.cosine).sum::<f64>() / moved.len() as f64;
    moved.sort_by(|p, q| p.cosine.total_cmp(&q.cosine).then(p.word.cmp(&q.word)));
    Ok(Alignment {
        rotation,
        shared,
        moved,
        mean_cosine,
    })
}

impl Alignment {
    /// Every word of `a` mapped into the second embedding's space: unit rows
    /// (zero-padded to the larger dimension) times the rotation, keeping the
    /// columns of the second embedding (`dim`).
    pub fn apply(&self, a: &Embedding, dim: usize) -> Result<Embedding> {
        let d = self.rotation.nrows();
        let x = unit_rows(a, 0..a.len() as u32, d);
        let mapped = x.dot(&self.rotation);
        let out = mapped
            .slice(ndarray::s![.., ..dim.min(d)])
            .mapv(|v| v as f32);
        Embedding::new(a.words().clone(), out)
    }
}

/// The unit-length rows `ids` of `e`, in `f64`, zero-padded to `dim` columns.
fn unit_rows(e: &Embedding, ids: impl Iterator<Item = u32>, dim: usize) -> Array2<f64> {
    let ids: Vec<u32> = ids.collect();
    let mut m = Array2::zeros((ids.len(), dim));
    for (mut row, &id) in m.axis_iter_mut(Axis(0)).zip(&ids) {
        let inv = f64::from(e.inv_norms()[id as usize]);
        for (o, &v) in row.iter_mut().zip(e.row(id).iter()) {
            *o = f64::from(v) * inv;
        }
    }
    m
}

/// `U Vᵀ` from the SVD of `xᵀ y`.
fn rotation(x: &Array2<f64>, y: &Array2<f64>) -> Result<Array2<f64>> {
    let m = x.t().dot(y);
    let d = m.nrows();
    let nm = nalgebra::DMatrix::from_fn(d, d, |r, c| m[[r, c]]);
    let svd = nm.svd(true, true);
    let (Some(u), Some(v_t)) = (svd.u, svd.v_t) else {
        return Err(Error::param(
            "align",
            "the SVD of the cross-covariance failed",
        ));
    };
    let w = u * v_t;
    Ok(Array2::from_shape_fn((d, d), |(r, c)| w[(r, c)]))
}

fn cosine(u: &[f64], v: &[f64]) -> f64 {
    let (mut dot, mut uu, mut vv) = (0.0, 0.0, 0.0);
    for (&p, &q) in u.iter().zip(v) {
        dot += p * q;
        uu += p * p;
        vv += q * q;
    }
    if uu == 0.0 || vv == 0.0 {
        0.0
    } else {
        dot / (uu * vv).sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::words::WordIndex;
    use rand::{RngExt, SeedableRng};

    fn random(n: usize, d: usize, seed: u64) -> Array2<f32> {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
        Array2::from_shape_fn((n, d), |_| rng.random::<f32>() - 0.5)
    }

    /// A random rotation: the Q of a QR decomposition of a random matrix.
    fn random_rotation(d: usize, seed: u64) -> Array2<f64> {
        let r = random(d, d, seed);
        let m = nalgebra::DMatrix::from_fn(d, d, |i, j| f64::from(r[[i, j]]));
        let q = m.qr().q();
        Array2::from_shape_fn((d, d), |(i, j)| q[(i, j)])
    }

    fn words(n: usize) -> WordIndex {
        WordIndex::from_words((0..n).map(|i| format!("w{i}")).collect())
    }

    #[test]
    fn recovers_a_rotation_and_lists_the_word_that_moved() {
        let (n, d) = (60, 8);
        let a = random(n, d, 1);
        let q = random_rotation(d, 2);
        let mut b = a.mapv(f64::from).dot(&q).mapv(|v| v as f32);
        // One word moves: its vector in b is replaced by another direction.
        b.row_mut(17).assign(&random(1, d, 3).row(0));
        let ea = Embedding::new(words(n), a).unwrap();
        let eb = Embedding::new(words(n), b).unwrap();
        let al = procrustes(&ea, &eb, None).unwrap();
        assert_eq!(al.shared.len(), n);
        let err = (&al.rotation - &q)
            .mapv(f64::abs)
            .fold(0.0f64, |m, &v| m.max(v));
        assert!(err < 0.3, "rotation recovered up to the moved word: {err}");
        assert_eq!(al.moved[0].word, "w17");
        assert!(al.moved[0].cosine < 0.8, "{:?}", al.moved[0]);
        assert!(al.moved[1].cosine > 0.95, "{:?}", al.moved[1]);
        // Orthogonal: WᵀW = I.
        let wtw = al.rotation.t().dot(&al.rotation);
        for ((i, j), v) in wtw.indexed_iter() {
            assert!((v - f64::from(u8::from(i == j))).abs() < 1e-9);
        }
        let mapped = al.apply(&ea, d).unwrap();
        assert_eq!((mapped.len(), mapped.dim()), (n, d));
    }

    #[test]
    fn exact_rotation_and_shared_words_in_any_order() {
        let (n, d) = (30, 5);
        let a = random(n, d, 4);
        let q = random_rotation(d, 5);
        let b = a.mapv(f64::from).dot(&q).mapv(|v| v as f32);
        // b lists the words in reverse order, and has two of its own.
        let mut rows: Vec<f32> = Vec::new();
        let mut names = vec!["x".to_string(), "y".to_string()];
        rows.extend(random(2, d, 6).iter());
        for i in (0..n).rev() {
            names.push(format!("w{i}"));
            rows.extend(b.row(i).iter());
        }
        let eb = Embedding::new(
            WordIndex::from_words(names),
            Array2::from_shape_vec((n + 2, d), rows).unwrap(),
        )
        .unwrap();
        let ea = Embedding::new(words(n), a).unwrap();
        let al = procrustes(&ea, &eb, None).unwrap();
        let err = (&al.rotation - &q)
            .mapv(f64::abs)
            .fold(0.0f64, |m, &v| m.max(v));
        assert!(err < 1e-5, "{err}");
        assert!((al.mean_cosine - 1.0).abs() < 1e-6);
        let top = procrustes(&ea, &eb, Some(10)).unwrap();
        assert_eq!(top.shared.len(), 10);
        let e = procrustes(&ea, &eb, Some(1)).unwrap_err();
        assert!(e.to_string().contains("share 1 word(s)"), "{e}");
    }

    #[test]
    fn different_dimensions_are_padded() {
        let (n, d) = (40, 6);
        let a = random(n, d, 7);
        // b: a's vectors embedded in 9 dimensions, then rotated.
        let mut wide = Array2::<f64>::zeros((n, 9));
        wide.slice_mut(ndarray::s![.., ..d])
            .assign(&a.mapv(f64::from));
        let q = random_rotation(9, 8);
        let b = wide.dot(&q).mapv(|v| v as f32);
        let ea = Embedding::new(words(n), a).unwrap();
        let eb = Embedding::new(words(n), b).unwrap();
        let al = procrustes(&ea, &eb, None).unwrap();
        assert_eq!(al.rotation.dim(), (9, 9));
        assert!(al.mean_cosine > 1.0 - 1e-6, "{}", al.mean_cosine);
        let mapped = al.apply(&ea, 9).unwrap();
        assert_eq!(mapped.dim(), 9);
        for i in 0..n as u32 {
            let c = super::cosine(
                &mapped.row(i).mapv(f64::from).to_vec(),
                &eb.row(i).mapv(f64::from).to_vec(),
            );
            assert!(c > 1.0 - 1e-5);
        }
    }
}
