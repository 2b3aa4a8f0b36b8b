//! Explicit (sparse) word representations: each word is its row of a
//! co-occurrence-derived matrix such as PPMI (Levy & Goldberg's "explicit"
//! baseline). Cosine neighbours are computed straight from the CSR rows, one
//! sparse pass over the matrix per query word, in parallel.

use rayon::prelude::*;
use sprs::CsMat;

use crate::words::WordIndex;

/// Cosine top-`k` neighbours of row `query` among all rows of `m` (CSR),
/// the query itself excluded; `(row, cosine)` pairs, best first. Rows with no
/// non-zero are never neighbours.
pub fn row_neighbors(m: &CsMat<f64>, query: usize, k: usize) -> Vec<(usize, f64)> {
    assert!(m.is_csr(), "row_neighbors expects a CSR matrix");
    let mut dense = vec![0.0f64; m.cols()];
    let Some(q) = m.outer_view(query) else {
        return Vec::new();
    };
    for (c, &v) in q.iter() {
        dense[c] = v;
    }
    let qnorm = q.iter().map(|(_, v)| v * v).sum::<f64>().sqrt();
    if qnorm == 0.0 {
        return Vec::new();
    }
    let mut scored: Vec<(usize, f64)> = (0..m.rows())
        .into_par_iter()
        .filter(|&r| r != query)
        .filter_map(|r| {
            let row = m.outer_view(r)?;
            let (mut dot, mut norm) = (0.0, 0.0);
            for (c, &v) in row.iter() {
                dot += v * dense[c];
                norm += v * v;
            }
            (norm > 0.0).then(|| (r, dot / (norm.sqrt() * qnorm)))
        })
        .collect();
    let k = k.min(scored.len());
    if k == 0 {
        return Vec::new();
    }
    scored.select_nth_unstable_by(k - 1, |a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    scored.truncate(k);
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    scored
}

/// [`row_neighbors`] by word, with words in the result.
pub fn word_neighbors(
    m: &CsMat<f64>,
    words: &WordIndex,
    word: &str,
    k: usize,
) -> Option<Vec<(String, f64)>> {
    let id = words.id(word)? as usize;
    if id >= m.rows() {
        return None;
    }
    Some(
        row_neighbors(m, id, k)
            .into_iter()
            .map(|(r, c)| (words.word(r as u32).to_string(), c))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use sprs::TriMat;

    #[test]
    fn cosine_of_sparse_rows_by_hand() {
        // rows: a = (1, 0, 1), b = (1, 0, 0), c = (0, 2, 0), d = (2, 0, 2)
        let mut t = TriMat::new((4, 3));
        for &(r, c, v) in &[
            (0, 0, 1.0),
            (0, 2, 1.0),
            (1, 0, 1.0),
            (2, 1, 2.0),
            (3, 0, 2.0),
            (3, 2, 2.0),
        ] {
            t.add_triplet(r, c, v);
        }
        let m: CsMat<f64> = t.to_csr();
        let n = row_neighbors(&m, 0, 3);
        assert_eq!(n[0].0, 3);
        assert!((n[0].1 - 1.0).abs() < 1e-12);
        assert_eq!(n[1].0, 1);
        assert!((n[1].1 - 1.0 / 2f64.sqrt()).abs() < 1e-12);
        assert_eq!((n[2].0, n[2].1), (2, 0.0));
    }
}
