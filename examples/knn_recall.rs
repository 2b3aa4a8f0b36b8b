//! Times the approximate neighbour search ([`wordbench::geometry::knn::descent`])
//! on a vector file and measures its recall against the exact neighbours of
//! an evenly spaced sample of query rows (docs/methods/projection.md,
//! "Approximate neighbours for large n"); `--exact` also times the exact
//! search of all rows.
//!
//! ```text
//! cargo run --release --example knn_recall -- VECTORS [--k 90] [--threads 2]
//!     [--queries 1000] [--exact] [--trees 8] [--leaf 0] [--candidates 0 (auto)]
//!     [--min-k 30] [--rounds 0] [--delta-ppm 1000]
//! ```
//! Prints one JSON line: `n`, `k`, seconds of each search, recall.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use rayon::prelude::*;
use wordbench::embedding::Embedding;
use wordbench::geometry::knn::{auto_candidates, descent, knn, Descent};

struct Args {
    input: PathBuf,
    k: usize,
    threads: usize,
    queries: usize,
    exact: bool,
    params: Descent,
}

fn parse() -> Result<Args> {
    let mut a = Args {
        input: PathBuf::new(),
        k: 90,
        threads: 2,
        queries: 1000,
        exact: false,
        params: Descent::default(),
    };
    let mut files = Vec::new();
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || -> Result<usize> {
            let v = it.next().with_context(|| format!("{arg} needs a value"))?;
            v.parse().with_context(|| format!("{arg} {v}"))
        };
        match arg.as_str() {
            "--k" => a.k = value()?,
            "--threads" => a.threads = value()?,
            "--queries" => a.queries = value()?,
            "--trees" => a.params.trees = value()?,
            "--leaf" => a.params.leaf = value()?,
            "--candidates" => a.params.candidates = value()?,
            "--min-k" => a.params.min_k = value()?,
            "--rounds" => a.params.rounds = value()?,
            "--delta-ppm" => a.params.delta = value()? as f64 * 1e-6,
            "--exact" => a.exact = true,
            _ if arg.starts_with("--") => bail!("unknown flag {arg}"),
            _ => files.push(PathBuf::from(arg)),
        }
    }
    let [input]: [PathBuf; 1] = files
        .try_into()
        .map_err(|_| anyhow::anyhow!("usage: knn_recall VECTORS [flags]"))?;
    a.input = input;
    Ok(a)
}

/// The exact `k` nearest other rows of row `q` (f64 distances, ties to the lower id).
fn exact_row(x: ndarray::ArrayView2<'_, f32>, q: usize, k: usize) -> Vec<u32> {
    let mut all: Vec<(f64, u32)> = (0..x.nrows())
        .filter(|&j| j != q)
        .map(|j| {
            let d = x
                .row(q)
                .iter()
                .zip(x.row(j))
                .map(|(&a, &b)| (f64::from(a) - f64::from(b)).powi(2))
                .sum();
            (d, j as u32)
        })
        .collect();
    let k = k.min(all.len());
    all.select_nth_unstable_by(k.saturating_sub(1), |a, b| {
        a.0.total_cmp(&b.0).then(a.1.cmp(&b.1))
    });
    all[..k].iter().map(|p| p.1).collect()
}

fn main() -> Result<()> {
    let a = parse()?;
    let emb = Embedding::load(&a.input)?;
    let x = emb.vectors();
    let n = x.nrows();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(a.threads)
        .build()?;
    let t = Instant::now();
    let got = pool.install(|| descent(x, a.k, &a.params));
    let approx_s = t.elapsed().as_secs_f64();
    let exact_s = if a.exact {
        let t = Instant::now();
        let _ = pool.install(|| knn(x, a.k));
        format!("{:.3}", t.elapsed().as_secs_f64())
    } else {
        "null".to_string()
    };
    // Queries at a fixed stride through the rows.
    let q = a.queries.min(n).max(1);
    let queries: Vec<usize> = (0..q).map(|i| i * n / q).collect();
    let hits: usize = pool.install(|| {
        queries
            .par_iter()
            .map(|&i| {
                let found = got.row(i).0;
                exact_row(x, i, got.k)
                    .iter()
                    .filter(|id| found.contains(id))
                    .count()
            })
            .sum()
    });
    println!(
        "{{\"n\": {n}, \"dim\": {}, \"k\": {}, \"threads\": {}, \"trees\": {}, \"candidates\": {}, \"approx_s\": {approx_s:.3}, \"exact_s\": {exact_s}, \"queries\": {q}, \"recall\": {:.4}}}",
        x.ncols(),
        got.k,
        a.threads,
        a.params.trees,
        match a.params.candidates {
            0 => auto_candidates(got.k.max(a.params.min_k)),
            m => m,
        },
        hits as f64 / (q * got.k) as f64
    );
    Ok(())
}
