//! Recall and speed of fast KUBWE's VP-tree search (Algorithm 2) against
//! exhaustive search, on unit vectors in `d` = 100.
//!
//! ```text
//! cargo run --release --example kubwe_recall -- [N] [QUERIES] [VECTORS_FILE]
//! ```
//!
//! Data sets: `uniform` (random points on the sphere), `clustered` (200
//! von-Mises-like clusters: centre + Gaussian noise, renormalised — closer
//! to trained word vectors), and, if a vectors file is given, its first `N`
//! rows normalised (e.g. a trained KUBWE embedding). For each `k`, prints one
//! JSON line per bound: recall@k of the thesis bound and of the exact bound
//! (chord metric), mean nodes visited, and microseconds per query vs brute force.

use std::time::Instant;

use ndarray::Array2;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use wordbench::algo::kubwe::vptree::{brute_force, Bound, NeighborHeap, Query, VpTree};
use wordbench::embedding::Embedding;
use wordbench::geometry::random::random_sphere;

fn clustered(n: usize, d: usize, clusters: usize, noise: f32, seed: u64) -> Array2<f32> {
    let centres = random_sphere(clusters, d, seed);
    let jitter = random_sphere(n, d, seed + 1);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed + 2);
    let mut y = Array2::zeros((n, d));
    for (i, mut row) in y.rows_mut().into_iter().enumerate() {
        let c = rng.random_range(0..clusters);
        row.assign(&(&centres.row(c) + &(&jitter.row(i) * noise)));
        let norm = row.iter().map(|v| v * v).sum::<f32>().sqrt();
        row /= norm;
    }
    y
}

fn load(path: &str, n: usize) -> anyhow::Result<Array2<f32>> {
    let emb = Embedding::load(path)?.normalized();
    let n = n.min(emb.len());
    Ok(emb.vectors().slice(ndarray::s![..n, ..]).to_owned())
}

fn measure(name: &str, y: &Array2<f32>, queries: usize) {
    let (n, d) = y.dim();
    let t = Instant::now();
    let tree = VpTree::build(y.view(), 1);
    let build = t.elapsed().as_secs_f64();
    let step = (n / queries).max(1);
    let qs: Vec<usize> = (0..n).step_by(step).take(queries).collect();
    for k in [10usize, 100, 148, 1000, 3000] {
        if k >= n {
            continue;
        }
        let t = Instant::now();
        let truth: Vec<Vec<u32>> = qs
            .iter()
            .map(|&q| {
                let query = Query {
                    point: y.row(q).to_slice().unwrap(),
                    id: Some(q as u32),
                    exclude: &[],
                };
                let mut ids: Vec<u32> = brute_force(y.view(), &query, k)
                    .iter()
                    .map(|n| n.id)
                    .collect();
                ids.sort_unstable();
                ids
            })
            .collect();
        let brute_us = t.elapsed().as_secs_f64() * 1e6 / qs.len() as f64;
        for (label, bound) in [("thesis", Bound::thesis(d)), ("exact", Bound::Exact)] {
            let mut heap = NeighborHeap::new(k);
            let (mut hits, mut visited) = (0usize, 0usize);
            let t = Instant::now();
            for (qi, &q) in qs.iter().enumerate() {
                let query = Query {
                    point: y.row(q).to_slice().unwrap(),
                    id: Some(q as u32),
                    exclude: &[],
                };
                visited += tree.search(&query, k, bound, &mut heap);
                hits += heap
                    .iter()
                    .filter(|nb| truth[qi].binary_search(&nb.id).is_ok())
                    .count();
            }
            let us = t.elapsed().as_secs_f64() * 1e6 / qs.len() as f64;
            println!(
                "{{\"data\": \"{name}\", \"n\": {n}, \"d\": {d}, \"k\": {k}, \"bound\": \"{label}\", \"recall\": {:.4}, \
                 \"visited_mean\": {:.0}, \"us_per_query\": {us:.0}, \"brute_us_per_query\": {brute_us:.0}, \"build_s\": {build:.3}}}",
                hits as f64 / (k * qs.len()) as f64,
                visited as f64 / qs.len() as f64,
            );
        }
    }
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: usize = args.first().map_or(Ok(20_000), |s| s.parse())?;
    let queries: usize = args.get(1).map_or(Ok(200), |s| s.parse())?;
    measure("uniform", &random_sphere(n, 100, 7), queries);
    measure("clustered", &clustered(n, 100, 200, 1.0, 7), queries);
    if let Some(path) = args.get(2) {
        measure(path, &load(path, n)?, queries);
    }
    Ok(())
}
