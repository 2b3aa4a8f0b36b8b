//! Exact Euclidean k nearest neighbours of every row, and every neighbour
//! within a radius: the one neighbour search of t-SNE's input affinities and
//! of the graph methods (Isomap, LLE, Laplacian eigenmaps; docs/methods/manifold.md).
//!
//! t-SNE needs the `3 × perplexity` nearest neighbours of every point under
//! squared Euclidean distance. Trees are hopeless in 100+ dimensions (an exact
//! tree took 9-28 s on 10k points in 100-D, see docs/methods/projection.md,
//! "Our choices"), so this is a brute-force search on matrix products, like
//! the cosine search in
//! [`crate::embedding::neighbors`]: `‖x − y‖² = ‖x‖² + ‖y‖² − 2 x·y`, one
//! `f32` GEMM per block of queries × block of rows, each query keeping its best
//! `k` in a bounded heap. That module ranks by cosine only (it scales rows to
//! unit length), which is why this one exists: the mixture benchmark and
//! Euclidean projections need true distances. For cosine neighbourhoods the
//! caller normalises the rows first (then `‖x − y‖² = 2 − 2 cos`).
//!
//! Brute force costs `n²·d`: at 200,000 points it dominates t-SNE and UMAP.
//! [`descent`] is the approximate alternative (random-projection forest +
//! NN-descent); [`search`] is the one entry point the projections, the graph
//! methods and UBE call, and [`Search::Auto`] picks the exact search below
//! [`AUTO_FROM`] points (so small inputs, tests and shipped sessions get the
//! exact neighbours) and the approximate one from there.

use ndarray::linalg::general_mat_mul;
use ndarray::{s, Array2, ArrayView2, Axis};
use rayon::prelude::*;

use crate::schema::{choice_names, Choice, ParamSpec};
use crate::topk::TopK;

mod descent;

pub use descent::{auto_candidates, descent, Descent};

/// Points from which [`Search::Auto`] searches approximately: the brute
/// force was faster at 50,000 points and slower at 200,000 (k = 90, 100-D;
/// docs/methods/projection.md, "Approximate neighbours for large n").
pub const AUTO_FROM: usize = 150_000;

/// The `knn` option of every method that searches neighbours (t-SNE, UMAP,
/// Isomap, LLE, Laplacian eigenmaps, UBE), declared once for their schemas
/// and the workbench's projection form.
pub const KNN: ParamSpec = ParamSpec::choice(
    "knn",
    Search::NAMES,
    "auto",
    "neighbour search: auto (exact below 150,000 points), exact (brute force), approximate (NN-descent)",
);

/// How [`search`] finds the neighbours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Search {
    /// Brute force ([`knn`]): exact, `n²·d`.
    Exact,
    /// NN-descent ([`descent`], default parameters): recall ≥ 0.99 in tests.
    Approximate,
    /// Exact below [`AUTO_FROM`] points, approximate from there.
    #[default]
    Auto,
}

impl Search {
    /// Whether `n` points are searched approximately.
    pub fn approximate(self, n: usize) -> bool {
        match self {
            Search::Exact => false,
            Search::Approximate => true,
            Search::Auto => n >= AUTO_FROM,
        }
    }
}

choice_names!(Search {
    Auto = "auto",
    Exact = "exact",
    Approximate = "approximate",
});

/// The `k` nearest other rows of every row of `x`, nearest first, by the
/// search `how` picks: the entry point of every caller.
pub fn search(x: ArrayView2<'_, f32>, k: usize, how: Search) -> Knn {
    if how.approximate(x.nrows()) {
        descent(x, k, &Descent::default())
    } else {
        knn(x, k)
    }
}

/// Queries multiplied at once (the GEMM packs each row block once per query
/// block, so larger query blocks pack less: 14% of the search at 128).
const QUERY_BLOCK: usize = 512;
/// Rows multiplied at once (512 × 1024 `f32` scratch = 2 MiB).
const ROW_BLOCK: usize = 1024;
/// Candidates screened together against the worst kept distance.
const LANES: usize = 16;

/// The `k` nearest neighbours of every point, nearest first.
#[derive(Debug, Clone, PartialEq)]
pub struct Knn {
    /// Neighbours per point.
    pub k: usize,
    /// `n × k` neighbour ids, row-major.
    pub ids: Vec<u32>,
    /// `n × k` squared Euclidean distances, matching `ids`.
    pub dist2: Vec<f32>,
}

impl Knn {
    /// No points (or no neighbour to find: `k = 0`).
    pub fn empty() -> Knn {
        Knn {
            k: 0,
            ids: Vec::new(),
            dist2: Vec::new(),
        }
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.ids.len().checked_div(self.k).unwrap_or(0)
    }

    /// True when there are no points.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Neighbour ids and squared distances of point `i`.
    pub fn row(&self, i: usize) -> (&[u32], &[f32]) {
        let r = i * self.k..(i + 1) * self.k;
        (&self.ids[r.clone()], &self.dist2[r])
    }
}

/// The `k` nearest other rows of every row of `x` (squared Euclidean
/// distance, ties to the lower id). `k` is capped at `n − 1`.
pub fn knn(x: ArrayView2<'_, f32>, k: usize) -> Knn {
    let n = x.nrows();
    let k = k.min(n.saturating_sub(1));
    if k == 0 {
        return Knn::empty();
    }
    let x = x.as_standard_layout();
    let sq = square_norms(x.view());
    let starts: Vec<usize> = (0..n).step_by(QUERY_BLOCK).collect();
    let blocks: Vec<Vec<(u32, f32)>> = starts
        .into_par_iter()
        .map(|q0| {
            let q1 = (q0 + QUERY_BLOCK).min(n);
            let queries = x.slice(s![q0..q1, ..]);
            let mut heaps = vec![TopK::new(k); q1 - q0];
            let mut scratch = Array2::<f32>::zeros((q1 - q0, ROW_BLOCK.min(n)));
            for r0 in (0..n).step_by(ROW_BLOCK) {
                let r1 = (r0 + ROW_BLOCK).min(n);
                let mut dots = scratch.slice_mut(s![.., ..r1 - r0]);
                general_mat_mul(1.0, &queries, &x.slice(s![r0..r1, ..]).t(), 0.0, &mut dots);
                let sq_rows = &sq[r0..r1];
                for (qi, (line, heap)) in dots.axis_iter(Axis(0)).zip(&mut heaps).enumerate() {
                    let q = q0 + qi;
                    let base = sq[q];
                    // Hot loop: one compare per pair against the worst kept distance;
                    // the heap (with its tie rule) only sees the few candidates that pass.
                    // Lanes of LANES pairs are tested branch-free first (this vectorises).
                    let mut worst = heap.worst_key().max(0.0);
                    let line = line.as_slice().expect("rows of a standard-layout array");
                    for (c, (dots, sqs)) in
                        line.chunks(LANES).zip(sq_rows.chunks(LANES)).enumerate()
                    {
                        let mut any = false;
                        for (&dot, &s) in dots.iter().zip(sqs) {
                            any |= base + s - 2.0 * dot <= worst;
                        }
                        if !any {
                            continue;
                        }
                        for (j, (&dot, &s)) in dots.iter().zip(sqs).enumerate() {
                            let d2 = base + s - 2.0 * dot;
                            if d2 <= worst {
                                let (id, d2) = (r0 + c * LANES + j, d2.max(0.0));
                                if id != q && heap.accepts(d2, id as u32) {
                                    heap.push(d2, id as u32);
                                    worst = heap.worst_key().max(0.0);
                                }
                            }
                        }
                    }
                }
            }
            heaps.into_iter().flat_map(TopK::into_sorted).collect()
        })
        .collect();
    let mut ids = Vec::with_capacity(n * k);
    let mut dist2 = Vec::with_capacity(n * k);
    for (id, d2) in blocks.into_iter().flatten() {
        ids.push(id);
        dist2.push(d2);
    }
    Knn { k, ids, dist2 }
}

/// Every other row within squared distance `radius2` of every row (the
/// epsilon-ball graph), as compressed rows, nearest first within a row.
#[derive(Debug, Clone, PartialEq)]
pub struct Ball {
    /// Row `i`'s neighbours are `ids[indptr[i]..indptr[i + 1]]`.
    pub indptr: Vec<usize>,
    /// Neighbour ids.
    pub ids: Vec<u32>,
    /// Squared Euclidean distances, matching `ids`.
    pub dist2: Vec<f32>,
}

impl Ball {
    /// Neighbour ids and squared distances of point `i`.
    pub fn row(&self, i: usize) -> (&[u32], &[f32]) {
        let r = self.indptr[i]..self.indptr[i + 1];
        (&self.ids[r.clone()], &self.dist2[r])
    }
}

/// The rows within squared distance `radius2` of every row of `x`, on the
/// same blocked products as [`knn`].
pub fn within(x: ArrayView2<'_, f32>, radius2: f32) -> Ball {
    let n = x.nrows();
    let x = x.as_standard_layout();
    let sq = square_norms(x.view());
    let starts: Vec<usize> = (0..n).step_by(QUERY_BLOCK).collect();
    let blocks: Vec<Vec<Vec<(f32, u32)>>> = starts
        .into_par_iter()
        .map(|q0| {
            let q1 = (q0 + QUERY_BLOCK).min(n);
            let queries = x.slice(s![q0..q1, ..]);
            let mut found = vec![Vec::new(); q1 - q0];
            let mut scratch = Array2::<f32>::zeros((q1 - q0, ROW_BLOCK.min(n)));
            for r0 in (0..n).step_by(ROW_BLOCK) {
                let r1 = (r0 + ROW_BLOCK).min(n);
                let mut dots = scratch.slice_mut(s![.., ..r1 - r0]);
                general_mat_mul(1.0, &queries, &x.slice(s![r0..r1, ..]).t(), 0.0, &mut dots);
                for (qi, (line, out)) in dots.axis_iter(Axis(0)).zip(&mut found).enumerate() {
                    let base = sq[q0 + qi];
                    for (j, (&dot, &s)) in line.iter().zip(&sq[r0..r1]).enumerate() {
                        let d2 = (base + s - 2.0 * dot).max(0.0);
                        if d2 <= radius2 && r0 + j != q0 + qi {
                            out.push((d2, (r0 + j) as u32));
                        }
                    }
                }
            }
            for row in &mut found {
                row.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            }
            found
        })
        .collect();
    let mut ball = Ball {
        indptr: vec![0],
        ids: Vec::new(),
        dist2: Vec::new(),
    };
    for row in blocks.into_iter().flatten() {
        for (d2, id) in row {
            ball.ids.push(id);
            ball.dist2.push(d2);
        }
        ball.indptr.push(ball.ids.len());
    }
    ball
}

/// Squared norms of the rows, summed in `f64`.
fn square_norms(x: ArrayView2<'_, f32>) -> Vec<f32> {
    x.axis_iter(Axis(0))
        .map(|r| r.iter().map(|&v| f64::from(v) * f64::from(v)).sum::<f64>() as f32)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::random::gaussian;
    use rand::SeedableRng;

    fn gaussian_blobs(n: usize, d: usize, k: usize, seed: u64) -> Array2<f32> {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
        let centres = Array2::from_shape_simple_fn((k, d), || 4.0 * gaussian(&mut rng));
        Array2::from_shape_fn((n, d), |(i, j)| {
            (centres[[i % k, j]] + gaussian(&mut rng)) as f32
        })
    }

    #[test]
    fn matches_brute_force_across_blocks() {
        // More rows than one row block, more queries than one query block.
        let x = gaussian_blobs(2500, 7, 3, 5);
        let got = knn(x.view(), 6);
        assert_eq!(got.len(), 2500);
        for i in [
            0usize, 1, 127, 128, 511, 512, 1023, 1024, 1999, 2047, 2048, 2499,
        ] {
            let mut all: Vec<(f64, u32)> = (0..2500u32)
                .filter(|&j| j as usize != i)
                .map(|j| {
                    let d: f64 = x
                        .row(i)
                        .iter()
                        .zip(x.row(j as usize))
                        .map(|(&a, &b)| (f64::from(a) - f64::from(b)).powi(2))
                        .sum();
                    (d, j)
                })
                .collect();
            all.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap().then(a.1.cmp(&b.1)));
            let (ids, d2) = got.row(i);
            let want: Vec<u32> = all.iter().take(6).map(|p| p.1).collect();
            assert_eq!(ids, &want[..], "point {i}");
            for (d, w) in d2.iter().zip(&all) {
                assert!(
                    (f64::from(*d) - w.0).abs() < 1e-3 * (1.0 + w.0),
                    "{d} vs {}",
                    w.0
                );
            }
        }
    }

    #[test]
    fn the_ball_holds_exactly_the_rows_within_the_radius() {
        let x = gaussian_blobs(700, 3, 2, 9);
        let ball = within(x.view(), 2.0);
        for i in [0usize, 350, 511, 512, 699] {
            let mut want: Vec<u32> = (0..700u32)
                .filter(|&j| j as usize != i)
                .filter(|&j| {
                    let d: f32 = x
                        .row(i)
                        .iter()
                        .zip(x.row(j as usize))
                        .map(|(a, b)| (a - b) * (a - b))
                        .sum();
                    d <= 2.0
                })
                .collect();
            let (ids, d2) = ball.row(i);
            let mut got = ids.to_vec();
            got.sort_unstable();
            want.sort_unstable();
            assert_eq!(got, want, "point {i}");
            assert!(d2.windows(2).all(|w| w[0] <= w[1]));
        }
    }

    #[test]
    fn k_is_capped_and_tiny_inputs_work() {
        let x = ndarray::array![[0.0f32, 0.0], [3.0, 4.0], [1.0, 0.0]];
        let got = knn(x.view(), 10);
        assert_eq!(got.k, 2);
        assert_eq!(got.row(0), (&[2u32, 1][..], &[1.0f32, 25.0][..]));
        assert_eq!(got.row(1).0, &[2, 0]);
        let one = ndarray::array![[1.0f32]];
        assert!(knn(one.view(), 3).is_empty());
    }
}
