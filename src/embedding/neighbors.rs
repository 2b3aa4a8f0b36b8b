//! Exact cosine nearest neighbours.
//!
//! Search is brute force on matrix products: a block of queries is multiplied
//! with a block of rows (`ndarray`'s GEMM), the scores are scaled by the cached
//! inverse row norms, and each query keeps its best `k` in a bounded heap, so
//! no list of all scores is ever sorted. Blocks keep the scratch matrix near
//! cache size whatever the vocabulary. Rayon runs over query blocks; with a
//! single block of queries it runs over row blocks and merges the heaps.
//! Exact search at this cost beats trees in 100+ dimensions (see
//! docs/methods/projection.md, "Our choices": an exact tree took 9-28 s on
//! 10k points in 100-D).
//!
//! Scores come from `f32` GEMM (as gensim's and numpy's do); ties are broken
//! by the lower id, so results are deterministic.

use std::ops::Range;

use ndarray::linalg::general_mat_mul;
use ndarray::{s, Array1, Array2, ArrayView1, ArrayView2, ArrayViewMut2, Axis};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::Embedding;
use crate::topk::TopK;
use crate::{Error, Result};

/// Queries multiplied at once.
const QUERY_BLOCK: usize = 64;
/// Rows multiplied at once (64 x 4096 f32 scores = 1 MiB of scratch).
const ROW_BLOCK: usize = 4096;

/// One neighbour: a word, its id and how near it is to the query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Neighbor {
    /// The neighbouring word.
    pub word: String,
    /// Its id (row) in the embedding.
    pub id: u32,
    /// How near it is, larger is nearer: the cosine with the query for a
    /// word or `most_similar`, the 3CosMul product, or another ranking's
    /// score (the screen or command that asked knows which).
    pub score: f32,
}

/// What to search: how many neighbours, among which rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct NeighborParams {
    /// Neighbours per query.
    pub k: usize,
    /// Only the first `limit` rows (the most frequent words) are candidates.
    pub limit: Option<usize>,
}

impl Default for NeighborParams {
    fn default() -> Self {
        NeighborParams { k: 10, limit: None }
    }
}

impl NeighborParams {
    /// `k` neighbours among all rows.
    pub fn k(k: usize) -> Self {
        NeighborParams { k, limit: None }
    }
}

impl Embedding {
    /// The `k` nearest words to `word` by cosine, the word itself excluded.
    pub fn neighbors(&self, word: &str, params: NeighborParams) -> Result<Vec<Neighbor>> {
        let id = self
            .id(word)
            .ok_or_else(|| Error::UnknownWord(word.to_string()))?;
        self.neighbors_of_vector(self.row(id), params, &[id])
    }

    /// The `k` nearest words to an arbitrary vector, skipping the ids in `exclude`.
    pub fn neighbors_of_vector(
        &self,
        query: ArrayView1<'_, f32>,
        params: NeighborParams,
        exclude: &[u32],
    ) -> Result<Vec<Neighbor>> {
        let queries = query.insert_axis(Axis(0));
        let excludes = [exclude.to_vec()];
        Ok(self
            .neighbors_batch(queries, params, &excludes)?
            .pop()
            .unwrap_or_default())
    }

    /// "`a` is to `b` as `c` is to ?" by 3CosAdd: the `k` nearest words to
    /// unit(b) - unit(a) + unit(c), the three question words excluded.
    pub fn analogy(
        &self,
        a: &str,
        b: &str,
        c: &str,
        params: NeighborParams,
    ) -> Result<Vec<Neighbor>> {
        let id = |w: &str| self.id(w).ok_or_else(|| Error::UnknownWord(w.to_string()));
        let (ia, ib, ic) = (id(a)?, id(b)?, id(c)?);
        let query: Array1<f32> = &self.unit_row(ib) - &self.unit_row(ia) + self.unit_row(ic);
        self.neighbors_of_vector(query.view(), params, &[ia, ib, ic])
    }

    /// The `k` nearest words to each row of `queries`. `exclude` is empty (exclude
    /// nothing) or holds one list of ids per query.
    pub fn neighbors_batch(
        &self,
        queries: ArrayView2<'_, f32>,
        params: NeighborParams,
        exclude: &[Vec<u32>],
    ) -> Result<Vec<Vec<Neighbor>>> {
        let hits = self.neighbor_ids_batch(queries, params, exclude)?;
        Ok(hits
            .into_iter()
            .map(|list| {
                list.into_iter()
                    .map(|(id, cosine)| Neighbor {
                        word: self.words.word(id).to_string(),
                        id,
                        score: cosine,
                    })
                    .collect()
            })
            .collect())
    }

    /// As [`neighbors_batch`](Self::neighbors_batch), but returns `(id, cosine)`
    /// pairs without word strings (for k-NN graphs over many queries).
    pub fn neighbor_ids_batch(
        &self,
        queries: ArrayView2<'_, f32>,
        params: NeighborParams,
        exclude: &[Vec<u32>],
    ) -> Result<Vec<Vec<(u32, f32)>>> {
        if queries.ncols() != self.dim() {
            return Err(Error::param(
                "query",
                format!(
                    "{} dimensions, the embedding has {}",
                    queries.ncols(),
                    self.dim()
                ),
            ));
        }
        if !exclude.is_empty() && exclude.len() != queries.nrows() {
            return Err(Error::param(
                "exclude",
                format!(
                    "{} lists for {} queries; give none or one per query",
                    exclude.len(),
                    queries.nrows()
                ),
            ));
        }
        let n_rows = params.limit.unwrap_or(usize::MAX).min(self.len());
        if params.k == 0 || n_rows == 0 {
            return Ok(vec![Vec::new(); queries.nrows()]);
        }
        let exclude: Vec<Vec<u32>> = (0..queries.nrows())
            .map(|q| {
                let mut ids = exclude.get(q).cloned().unwrap_or_default();
                ids.sort_unstable();
                ids.dedup();
                ids
            })
            .collect();
        let search = Search {
            emb: self,
            k: params.k,
            n_rows,
        };
        Ok(if queries.nrows() <= QUERY_BLOCK {
            search.over_row_blocks(queries, &exclude)
        } else {
            search.over_query_blocks(queries, &exclude)
        })
    }

    /// Scores of `queries` against rows `rows`, written to `out`
    /// (`queries.nrows()` x `rows.len()`): `out[i][j] = queries[i] . unit(row j)`.
    /// With unit-length queries these are cosines. Zero rows score 0.
    /// Panics if `out`'s shape or the query dimension does not match (a caller bug).
    pub fn cosine_block(
        &self,
        queries: ArrayView2<'_, f32>,
        rows: Range<usize>,
        mut out: ArrayViewMut2<'_, f32>,
    ) {
        let start = rows.start;
        let block = self.vectors.slice(s![rows, ..]);
        general_mat_mul(1.0, &queries, &block.t(), 0.0, &mut out);
        let inv = &self.inv_norms[start..start + block.nrows()];
        for mut line in out.axis_iter_mut(Axis(0)) {
            for (v, &s) in line.iter_mut().zip(inv) {
                *v *= s;
            }
        }
    }
}

/// One search: the embedding, `k`, and the candidate rows `0..n_rows`.
struct Search<'a> {
    emb: &'a Embedding,
    k: usize,
    n_rows: usize,
}

impl Search<'_> {
    /// Parallel over row blocks (few queries); per-block heaps are merged.
    fn over_row_blocks(
        &self,
        queries: ArrayView2<'_, f32>,
        exclude: &[Vec<u32>],
    ) -> Vec<Vec<(u32, f32)>> {
        let units = unit_queries(queries);
        let blocks: Vec<Range<usize>> = row_blocks(self.n_rows).collect();
        let partial: Vec<Vec<TopK>> = blocks
            .into_par_iter()
            .map(|rows| {
                let mut heaps = vec![TopK::new(self.k); units.nrows()];
                let mut scratch = Array2::zeros((units.nrows(), rows.len()));
                self.scan(units.view(), rows, exclude, &mut heaps, &mut scratch);
                heaps
            })
            .collect();
        let mut merged = vec![TopK::new(self.k); units.nrows()];
        for heaps in partial {
            for (into, from) in merged.iter_mut().zip(heaps) {
                into.absorb(from);
            }
        }
        merged.into_iter().map(best_first).collect()
    }

    /// Parallel over query blocks, each scanning all rows.
    fn over_query_blocks(
        &self,
        queries: ArrayView2<'_, f32>,
        exclude: &[Vec<u32>],
    ) -> Vec<Vec<(u32, f32)>> {
        let units = unit_queries(queries);
        let starts: Vec<usize> = (0..units.nrows()).step_by(QUERY_BLOCK).collect();
        let per_block: Vec<Vec<Vec<(u32, f32)>>> = starts
            .into_par_iter()
            .map(|q0| {
                let q1 = (q0 + QUERY_BLOCK).min(units.nrows());
                let block = units.slice(s![q0..q1, ..]);
                let mut heaps = vec![TopK::new(self.k); q1 - q0];
                let mut scratch = Array2::zeros((q1 - q0, ROW_BLOCK.min(self.n_rows)));
                for rows in row_blocks(self.n_rows) {
                    self.scan(block, rows, &exclude[q0..q1], &mut heaps, &mut scratch);
                }
                heaps.into_iter().map(best_first).collect()
            })
            .collect();
        per_block.into_iter().flatten().collect()
    }

    /// Scores `queries` against `rows` and offers every score to the heaps.
    fn scan(
        &self,
        queries: ArrayView2<'_, f32>,
        rows: Range<usize>,
        exclude: &[Vec<u32>],
        heaps: &mut [TopK],
        scratch: &mut Array2<f32>,
    ) {
        let start = rows.start;
        let mut out = scratch.slice_mut(s![.., ..rows.len()]);
        self.emb.cosine_block(queries, rows, out.view_mut());
        for ((line, heap), skip) in out.axis_iter(Axis(0)).zip(heaps).zip(exclude) {
            for (j, &score) in line.iter().enumerate() {
                let id = (start + j) as u32;
                if heap.accepts(-score, id) && skip.binary_search(&id).is_err() {
                    heap.push(-score, id);
                }
            }
        }
    }
}

/// Row ranges of at most [`ROW_BLOCK`] rows covering `0..n`.
fn row_blocks(n: usize) -> impl Iterator<Item = Range<usize>> {
    (0..n)
        .step_by(ROW_BLOCK)
        .map(move |r| r..(r + ROW_BLOCK).min(n))
}

/// Queries scaled to unit length (zero queries stay zero).
fn unit_queries(queries: ArrayView2<'_, f32>) -> Array2<f32> {
    let mut units = queries.to_owned();
    for mut row in units.axis_iter_mut(Axis(0)) {
        let sq: f64 = row.iter().map(|&v| f64::from(v) * f64::from(v)).sum();
        if sq > 0.0 && sq.is_finite() {
            let inv = (1.0 / sq.sqrt()) as f32;
            row.mapv_inplace(|v| v * inv);
        }
    }
    units
}

/// Highest cosine first: the selection keeps the smallest `-score`.
fn best_first(heap: TopK) -> Vec<(u32, f32)> {
    heap.into_sorted()
        .into_iter()
        .map(|(id, key)| (id, -key))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::words::WordIndex;
    use ndarray::array;

    fn words(n: usize) -> WordIndex {
        WordIndex::from_words((0..n).map(|i| format!("w{i}")).collect())
    }

    /// Brute force reference: all cosines, fully sorted.
    fn reference(
        e: &Embedding,
        q: ArrayView1<'_, f32>,
        k: usize,
        limit: usize,
        skip: &[u32],
    ) -> Vec<u32> {
        let qn: f64 = q.iter().map(|&v| f64::from(v).powi(2)).sum::<f64>().sqrt();
        let mut all: Vec<(f64, u32)> = (0..limit as u32)
            .filter(|i| !skip.contains(i))
            .map(|i| {
                let dot: f64 = e
                    .row(i)
                    .iter()
                    .zip(q)
                    .map(|(&a, &b)| f64::from(a) * f64::from(b))
                    .sum();
                (dot * f64::from(e.inv_norms()[i as usize]) / qn, i)
            })
            .collect();
        all.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap().then(a.1.cmp(&b.1)));
        all.into_iter().take(k).map(|x| x.1).collect()
    }

    /// Deterministic pseudo-random matrix (no ties in practice).
    fn matrix(n: usize, d: usize, seed: u64) -> Array2<f32> {
        let mut s = seed;
        Array2::from_shape_fn((n, d), |_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 33) as f32 / (1u64 << 31) as f32) - 0.5
        })
    }

    #[test]
    fn hand_computed_neighbours_with_exclusion_and_ties() {
        // a=(1,0); b=(2,0) same direction; c=(1,1) at 45 degrees; d=(0,1); e=(-1,0).
        let e = Embedding::new(
            WordIndex::from_words(["a", "b", "c", "d", "e"].map(String::from).to_vec()),
            array![[1.0, 0.0], [2.0, 0.0], [1.0, 1.0], [0.0, 1.0], [-1.0, 0.0]],
        )
        .unwrap();
        let n = e.neighbors("a", NeighborParams::k(3)).unwrap();
        let got: Vec<(&str, f32)> = n.iter().map(|x| (x.word.as_str(), x.score)).collect();
        assert_eq!(got[0], ("b", 1.0));
        assert_eq!(got[1].0, "c");
        assert!((got[1].1 - std::f32::consts::FRAC_1_SQRT_2).abs() < 1e-6);
        assert_eq!(got[2], ("d", 0.0));
        // Tie between a and b (both cosine 1 with the query): lower id first.
        let q = array![3.0f32, 0.0];
        let n = e
            .neighbors_of_vector(q.view(), NeighborParams::k(2), &[])
            .unwrap();
        assert_eq!((n[0].id, n[1].id), (0, 1));
        // Restriction to the first 2 rows, and exclusion.
        let params = NeighborParams {
            k: 5,
            limit: Some(2),
        };
        let n = e.neighbors_of_vector(q.view(), params, &[0]).unwrap();
        assert_eq!(n.iter().map(|x| x.id).collect::<Vec<_>>(), vec![1]);
        assert!(matches!(
            e.neighbors("zzz", NeighborParams::k(1)),
            Err(Error::UnknownWord(_))
        ));
    }

    #[test]
    fn batched_search_matches_brute_force() {
        // More rows than one block and more queries than one block, with a limit.
        let e = Embedding::new(words(5000), matrix(5000, 7, 1)).unwrap();
        let queries = matrix(150, 7, 2);
        let exclude: Vec<Vec<u32>> = (0..150u32).map(|q| vec![q, q * 3]).collect();
        for (limit, qs) in [(4500, 150), (5000, 3)] {
            let params = NeighborParams {
                k: 6,
                limit: Some(limit),
            };
            let got = e
                .neighbor_ids_batch(queries.slice(s![..qs, ..]), params, &exclude[..qs])
                .unwrap();
            for (q, hits) in got.iter().enumerate() {
                let ids: Vec<u32> = hits.iter().map(|h| h.0).collect();
                assert_eq!(
                    ids,
                    reference(&e, queries.row(q), 6, limit, &exclude[q]),
                    "query {q}"
                );
                assert!(hits.windows(2).all(|w| w[0].1 >= w[1].1));
            }
        }
    }

    #[test]
    fn analogy_by_offset() {
        // king - man + woman = queen on a toy 3-D layout.
        let e = Embedding::new(
            WordIndex::from_words(
                ["man", "woman", "king", "queen", "apple"]
                    .map(String::from)
                    .to_vec(),
            ),
            array![
                [1.0, 0.0, 0.1],
                [0.0, 1.0, 0.1],
                [1.0, 0.0, 1.0],
                [0.0, 1.0, 1.0],
                [0.5, 0.5, -1.0]
            ],
        )
        .unwrap();
        let n = e
            .analogy("man", "king", "woman", NeighborParams::k(1))
            .unwrap();
        assert_eq!(n[0].word, "queen");
    }

    #[test]
    fn bad_queries_are_errors() {
        let e = Embedding::new(words(3), matrix(3, 4, 3)).unwrap();
        assert!(e
            .neighbor_ids_batch(matrix(2, 5, 1).view(), NeighborParams::k(1), &[])
            .is_err());
        assert!(e
            .neighbor_ids_batch(matrix(2, 4, 1).view(), NeighborParams::k(1), &[vec![]])
            .is_err());
        let none = e
            .neighbor_ids_batch(matrix(2, 4, 1).view(), NeighborParams::k(0), &[])
            .unwrap();
        assert_eq!(none, vec![vec![], vec![]]);
    }
}
