//! End-to-end checks of [`super::umap`] on small Gaussian mixtures.

use super::*;
use crate::project::testdata::gaussian_blobs;

fn settings(epochs: usize) -> Settings {
    let p = Params::parse(SCHEMA, "umap", [("n_epochs", "0")]).unwrap();
    Settings {
        n_epochs: epochs,
        ..Settings::from_params(&p, 3).unwrap()
    }
}

fn one_thread<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
        .install(f)
}

/// Squared distances from row `i` to every row of `x` (`d` columns).
fn distances(x: &[f32], d: usize, i: usize) -> Vec<f32> {
    x.chunks(d)
        .map(|r| {
            r.iter()
                .zip(&x[i * d..(i + 1) * d])
                .map(|(a, b)| (a - b) * (a - b))
                .sum()
        })
        .collect()
}

/// Ids of the other points ordered by distance (ties by id).
fn ranking(x: &[f32], d: usize, i: usize) -> Vec<usize> {
    let dist = distances(x, d, i);
    let mut order: Vec<usize> = (0..dist.len()).filter(|&j| j != i).collect();
    order.sort_by(|&a, &b| dist[a].total_cmp(&dist[b]).then(a.cmp(&b)));
    order
}

/// scikit-learn's trustworthiness: 1 − penalty for 2-D neighbours that
/// are far in the input, with `k` neighbours.
fn trustworthiness(x: &[f32], d: usize, y: &[f32], k: usize) -> f64 {
    let n = x.len() / d;
    let mut penalty = 0.0;
    for i in 0..n {
        let input = ranking(x, d, i);
        let mut rank = vec![0usize; n];
        for (r, &j) in input.iter().enumerate() {
            rank[j] = r + 1;
        }
        for &j in &ranking(y, y.len() / n, i)[..k] {
            penalty += rank[j].saturating_sub(k) as f64;
        }
    }
    let (n, k) = (n as f64, k as f64);
    1.0 - 2.0 / (n * k * (2.0 * n - 3.0 * k - 1.0)) * penalty
}

#[test]
fn separates_clusters_keeps_neighbourhoods_and_one_thread_is_reproducible() {
    let (n, d) = (300, 10);
    let x = gaussian_blobs(n, d, 3, 5);
    let run = || {
        umap(x.view(), &settings(200), &mut |_, _| true)
            .unwrap()
            .unwrap()
    };
    let y = one_thread(run);
    assert_eq!(y.dim(), (n, 2));
    let flat_y = y.as_slice().unwrap();
    let flat_x = x.as_slice().unwrap();
    // Every point's nearest 2-D neighbour is in its own blob (label = i mod 3).
    let same = (0..n)
        .filter(|&i| ranking(flat_y, 2, i)[0] % 3 == i % 3)
        .count();
    assert!(
        same >= 297,
        "{same}/{n} nearest neighbours in the same blob"
    );
    // Neighbourhoods are kept: well above a random layout's (about 0.5).
    let t = trustworthiness(flat_x, d, flat_y, 10);
    assert!(t > 0.9, "trustworthiness {t}");
    let again = one_thread(run);
    assert!(
        y.iter()
            .zip(again.iter())
            .all(|(a, b)| a.to_bits() == b.to_bits()),
        "one thread, same seed: the same bits"
    );
    // Two threads run the SGD in parallel: still a good layout.
    let two = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap()
        .install(run);
    let t2 = trustworthiness(flat_x, d, two.as_slice().unwrap(), 10);
    assert!(t2 > 0.9, "two threads: trustworthiness {t2}");
}

#[test]
fn lays_out_in_3d_keeping_neighbourhoods_at_least_as_well_as_in_2d() {
    let (n, d) = (300, 10);
    let x = gaussian_blobs(n, d, 3, 5);
    let run = |dims| {
        let s = Settings {
            dims,
            ..settings(200)
        };
        one_thread(|| umap(x.view(), &s, &mut |_, _| true).unwrap().unwrap())
    };
    let (flat2, flat3) = (run(2), run(3));
    assert_eq!(flat3.dim(), (n, 3));
    let flat_x = x.as_slice().unwrap();
    let t2 = trustworthiness(flat_x, d, flat2.as_slice().unwrap(), 10);
    let t3 = trustworthiness(flat_x, d, flat3.as_slice().unwrap(), 10);
    assert!(t3 > 0.9 && t3 >= t2 - 0.01, "3-D {t3}, 2-D {t2}");
    let same = (0..n)
        .filter(|&i| ranking(flat3.as_slice().unwrap(), 3, i)[0] % 3 == i % 3)
        .count();
    assert!(
        same >= 297,
        "{same}/{n} nearest neighbours in the same blob"
    );
    let bad = Settings {
        dims: 4,
        ..settings(10)
    };
    let e = umap(x.view(), &bad, &mut |_, _| true).unwrap_err();
    assert!(e.to_string().contains("dims"), "{e}");
}

#[test]
fn cosine_uses_directions_only() {
    let x = gaussian_blobs(120, 6, 3, 2);
    // Scaling rows changes no cosine distance, so no part of the run
    // (powers of 2 scale exactly, so the unit rows are the same bits).
    let mut scaled = x.clone();
    for (i, mut row) in scaled.rows_mut().into_iter().enumerate() {
        row.mapv_inplace(|v| v * (1 << (i % 4)) as f32);
    }
    let s = Settings {
        metric: Metric::Cosine,
        ..settings(50)
    };
    let a = one_thread(|| umap(x.view(), &s, &mut |_, _| true).unwrap().unwrap());
    let b = one_thread(|| umap(scaled.view(), &s, &mut |_, _| true).unwrap().unwrap());
    assert_eq!(a, b, "cosine layouts of scaled rows differ");
    let e = Settings {
        metric: Metric::Euclidean,
        ..s
    };
    let c = one_thread(|| umap(scaled.view(), &e, &mut |_, _| true).unwrap().unwrap());
    assert_ne!(a, c, "euclidean distances see the scale");
}

#[test]
fn cancelling_stops_after_the_epoch_that_asked() {
    // One blob: a connected graph, so a spectral start.
    let x = gaussian_blobs(60, 4, 1, 1);
    let mut seen = Vec::new();
    let out = umap(x.view(), &settings(100), &mut |e, total| {
        seen.push((e, total));
        e < 5
    })
    .unwrap();
    assert!(out.is_none());
    assert_eq!(seen, (1..=5).map(|e| (e, 100)).collect::<Vec<_>>());
    let mut notes = Vec::new();
    let done = umap_noted(x.view(), &settings(10), &mut |_, _| true, &mut |l| {
        notes.push(l)
    })
    .unwrap();
    assert!(done.is_some());
    assert!(
        notes.iter().any(|l| l.starts_with("spectral start")),
        "{notes:?}"
    );
}

#[test]
fn options_and_bad_input_give_one_line_errors() {
    let s = Settings::default();
    assert_eq!(
        (
            s.n_neighbors,
            s.min_dist,
            s.spread,
            s.n_epochs,
            s.negative_sample_rate
        ),
        (15, 0.1, 1.0, 0, 5)
    );
    assert_eq!(
        (s.learning_rate, s.metric, s.seed),
        (1.0, Metric::Euclidean, 1)
    );
    assert_eq!((s.epochs(10_000), s.epochs(10_001)), (500, 200));
    assert!(s
        .describe(100)
        .starts_with("UMAP: 15 neighbours (euclidean)"));
    let p = Params::parse(SCHEMA, "umap", [("min_dist", "2"), ("spread", "1")]).unwrap();
    let e = Settings::from_params(&p, 1).unwrap_err().to_string();
    assert_eq!(
        e,
        "invalid value for min_dist: 2 (expected 0 to spread = 1)"
    );
    assert!(Params::parse(SCHEMA, "umap", [("metric", "manhattan")]).is_err());

    let x = gaussian_blobs(15, 3, 1, 1);
    let e = umap(x.view(), &s, &mut |_, _| true)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "invalid value for n_neighbors: 15 with 15 point(s); UMAP needs more points than n_neighbors"
    );
    let mut bad = gaussian_blobs(40, 3, 1, 1);
    bad[[7, 2]] = f32::NAN;
    let e = umap(bad.view(), &s, &mut |_, _| true)
        .unwrap_err()
        .to_string();
    assert!(e.contains("row 8, value 3 is NaN"), "{e}");
    let mut zero = gaussian_blobs(40, 3, 1, 1);
    zero.row_mut(4).fill(0.0);
    let cosine = Settings {
        metric: Metric::Cosine,
        ..s
    };
    let e = umap(zero.view(), &cosine, &mut |_, _| true)
        .unwrap_err()
        .to_string();
    assert!(e.contains("row 5 is zero"), "{e}");
    // The smallest run: 3 points, 2 neighbours (random start, said so).
    let tiny = Settings {
        n_neighbors: 2,
        ..settings(20)
    };
    let mut notes = Vec::new();
    let y = umap_noted(
        x.slice(ndarray::s![..3, ..]),
        &tiny,
        &mut |_, _| true,
        &mut |l| notes.push(l),
    )
    .unwrap()
    .unwrap();
    assert!(y.iter().all(|v| v.is_finite()));
    assert!(notes
        .iter()
        .any(|l| l == "3 points: random start instead of spectral"));
    let empty = Array2::<f32>::zeros((40, 0));
    assert!(umap(empty.view(), &s, &mut |_, _| true).is_err());
}
