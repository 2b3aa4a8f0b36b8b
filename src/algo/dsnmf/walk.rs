//! What a trained DSNMF model offers beyond cosine, read from its vectors
//! alone (rows of `W` on the simplex, so `s_k` is the sum of column `k`):
//!
//! - [`walk_neighbors`]: words ranked by the learned similarity
//!   `Ŝ_ij = Σ_k W_ik W_jk / s_k`, the probability that a word → topic → word
//!   walk from `i` ends at `j`;
//! - [`topics`]: each topic's most probable words, `P(j | k) = W_jk / s_k`.

use crate::embedding::Embedding;
use crate::{Error, Result};

/// One ranked word: vocabulary id and its score.
pub type Scored = (u32, f64);

/// Column sums `s_k` of the vectors, in `f64`.
fn topic_mass(e: &Embedding) -> Vec<f64> {
    let mut s = vec![0f64; e.dim()];
    for row in e.vectors().rows() {
        for (a, &x) in s.iter_mut().zip(row) {
            *a += x as f64;
        }
    }
    s
}

/// Refuses vectors that cannot be rows of `W` (a negative entry), naming
/// the first such word; the message names no option, since both the walk
/// (`neighbors --by walk`) and `topics` call it.
pub fn check_simplex(e: &Embedding) -> Result<()> {
    let bad = e
        .vectors()
        .rows()
        .into_iter()
        .position(|row| row.iter().any(|&x| !(x >= 0.0)));
    match bad {
        None => Ok(()),
        Some(i) => Err(Error::param(
            "vectors",
            format!(
                "word '{}' has a negative value: the word -> topic -> word walk and topics \
                 need non-negative vectors (the rows of a dsnmf W)",
                e.words().word(i as u32)
            ),
        )),
    }
}

/// The `k` words `j ≠ i` with the largest `Ŝ_ij`, best first (scores in
/// `f64`; ties go to the lower id).
pub fn walk_neighbors(e: &Embedding, word: u32, k: usize) -> Result<Vec<Scored>> {
    check_simplex(e)?;
    if word as usize >= e.len() {
        return Err(Error::param("word", format!("id {word} out of range")));
    }
    let s = topic_mass(e);
    let query: Vec<f64> = e
        .row(word)
        .iter()
        .zip(&s)
        .map(|(&x, &m)| if m > 0.0 { x as f64 / m } else { 0.0 })
        .collect();
    let scores: Vec<f64> = e
        .vectors()
        .rows()
        .into_iter()
        .map(|row| query.iter().zip(row).map(|(q, &x)| q * x as f64).sum())
        .collect();
    Ok(best(&scores, k, Some(word)))
}

/// The `k` largest of `scores` (excluding `skip`), best first, ties to the
/// lower id; exact in `f64` (partial selection, then a sort of the kept).
fn best(scores: &[f64], k: usize, skip: Option<u32>) -> Vec<Scored> {
    let mut all: Vec<Scored> = (0..scores.len() as u32)
        .filter(|&j| Some(j) != skip)
        .map(|j| (j, scores[j as usize]))
        .collect();
    let order = |a: &Scored, b: &Scored| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    if k < all.len() {
        if k == 0 {
            return Vec::new();
        }
        all.select_nth_unstable_by(k - 1, order);
        all.truncate(k);
    }
    all.sort_by(order);
    all
}

/// For every topic, its `k` most probable words `P(j | topic) = W_jk / s_k`,
/// best first (ties to the lower id; all 0 for an empty topic).
pub fn topics(e: &Embedding, k: usize) -> Result<Vec<Vec<Scored>>> {
    check_simplex(e)?;
    let s = topic_mass(e);
    let v = e.vectors();
    Ok((0..e.dim())
        .map(|t| {
            let p: Vec<f64> = v
                .column(t)
                .iter()
                .map(|&x| if s[t] > 0.0 { x as f64 / s[t] } else { 0.0 })
                .collect();
            best(&p, k, None)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use ndarray::array;

    use super::*;
    use crate::words::WordIndex;

    /// Rows on the simplex; column sums s = (2.3, 1.7).
    fn emb() -> Embedding {
        let words = ["a", "b", "c", "d"].map(String::from).to_vec();
        let v = array![[0.9f32, 0.1], [0.8, 0.2], [0.1, 0.9], [0.5, 0.5]];
        Embedding::new(WordIndex::from_words(words), v).unwrap()
    }

    /// Ŝ_ij = Σ_k W_ik W_jk / s_k, written out by hand for `emb()`.
    fn s_hat(i: usize, j: usize) -> f64 {
        let w = [[0.9, 0.1], [0.8, 0.2], [0.1, 0.9], [0.5, 0.5]];
        w[i][0] * w[j][0] / 2.3 + w[i][1] * w[j][1] / 1.7
    }

    #[test]
    fn walk_neighbours_are_the_s_hat_ranking() {
        let e = emb();
        // From a: Ŝ_ab = .72/2.3 + .02/1.7 ≈ .3248, Ŝ_ad = .45/2.3 + .05/1.7
        // ≈ .2251, Ŝ_ac = .09/2.3 + .09/1.7 ≈ .0920.
        let got = walk_neighbors(&e, 0, 3).unwrap();
        assert_eq!(got.iter().map(|x| x.0).collect::<Vec<_>>(), vec![1, 3, 2]);
        // From c: d (.1087 + .2647), then b, then a.
        let got = walk_neighbors(&e, 2, 10).unwrap();
        assert_eq!(got.iter().map(|x| x.0).collect::<Vec<_>>(), vec![3, 1, 0]);
        for i in 0..4 {
            for (j, p) in walk_neighbors(&e, i as u32, 3).unwrap() {
                // f32 inputs: agreement to f32 precision.
                assert!((p - s_hat(i, j as usize)).abs() < 1e-6, "{i} {j} {p}");
            }
        }
        // The walk never returns the word itself; k bounds the list.
        assert!(walk_neighbors(&e, 1, 3).unwrap().iter().all(|x| x.0 != 1));
        assert_eq!(walk_neighbors(&e, 1, 1).unwrap().len(), 1);
        assert!(walk_neighbors(&e, 1, 0).unwrap().is_empty());
        assert!(walk_neighbors(&e, 4, 1).is_err());
    }

    #[test]
    fn walk_rows_sum_to_one_on_the_simplex() {
        // Ŝ is doubly stochastic: with the word itself, each row sums to 1.
        let e = emb();
        for i in 0..4 {
            let rest: f64 = walk_neighbors(&e, i, 3).unwrap().iter().map(|x| x.1).sum();
            assert!((rest + s_hat(i as usize, i as usize) - 1.0).abs() < 1e-6);
        }
    }

    #[test]
    fn topics_rank_words_by_probability() {
        let t = topics(&emb(), 4).unwrap();
        assert_eq!(t.len(), 2);
        // Topic 0: a .9, b .8, d .5, c .1 over s_0 = 2.3; topic 1: c, d, b, a.
        assert_eq!(
            t[0].iter().map(|x| x.0).collect::<Vec<_>>(),
            vec![0, 1, 3, 2]
        );
        assert_eq!(
            t[1].iter().map(|x| x.0).collect::<Vec<_>>(),
            vec![2, 3, 1, 0]
        );
        assert!((t[0][0].1 - 0.9 / 2.3).abs() < 1e-6);
        assert!((t[1][0].1 - 0.9 / 1.7).abs() < 1e-6);
        for topic in &t {
            assert!((topic.iter().map(|x| x.1).sum::<f64>() - 1.0).abs() < 1e-6);
        }
        assert_eq!(topics(&emb(), 2).unwrap()[1].len(), 2);
    }

    #[test]
    fn negative_vectors_are_refused() {
        let words = ["x", "y"].map(String::from).to_vec();
        let neg = Embedding::new(
            WordIndex::from_words(words),
            array![[-1.0f32, 2.0], [1.0, 0.0]],
        )
        .unwrap();
        let err = topics(&neg, 1).unwrap_err().to_string();
        assert!(
            err.contains("word 'x' has a negative value") && !err.contains("by"),
            "topics has no --by: {err}"
        );
        let err = walk_neighbors(&neg, 1, 1).unwrap_err().to_string();
        assert!(err.contains("non-negative"), "{err}");
        let words = ["x", "y"].map(String::from).to_vec();
        let nan = Embedding::new(
            WordIndex::from_words(words),
            array![[f32::NAN, 2.0], [1.0, 0.0]],
        );
        if let Ok(nan) = nan {
            assert!(walk_neighbors(&nan, 1, 1).is_err());
        }
    }
}
