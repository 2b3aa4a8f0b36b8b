//! The eigensolver and truncated SVD against dense decompositions, and the
//! three spectral methods end to end on a tiny corpus.

use std::sync::Arc;

use ndarray::Array2;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use sprs::{CsMat, TriMat};
use wordbench::algo::spectral::{matrix, Settings, EIGENWORD, SVD, SVD_NS};
use wordbench::corpus::{Corpus, CorpusConfig, HeldoutConfig, ReadConfig, VocabConfig};
use wordbench::linalg::dense::sym_eigen;
use wordbench::linalg::{
    eigen_residuals, svd_residuals, Csr, EigenConfig, Lanczos, SymmetricCsr, TruncatedSvd, Which,
};
use wordbench::train::{Event, Job, JobConfig, Method, TrainInput};

/// A random sparse symmetric matrix: about `density` of the cells, values
/// uniform in `[lo, hi)` (indefinite when `lo < 0`), plus `diag` on the diagonal.
fn random_symmetric(n: usize, density: f64, lo: f64, hi: f64, diag: f64, seed: u64) -> CsMat<f64> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut t = TriMat::new((n, n));
    for i in 0..n {
        t.add_triplet(i, i, diag + lo + (hi - lo) * rng.random::<f64>());
        for j in 0..i {
            if rng.random::<f64>() < density {
                let v = lo + (hi - lo) * rng.random::<f64>();
                t.add_triplet(i, j, v);
                t.add_triplet(j, i, v);
            }
        }
    }
    t.to_csr()
}

fn dense_of(m: &CsMat<f64>) -> Vec<f64> {
    let (r, c) = m.shape();
    let mut d = vec![0.0; r * c];
    for (i, row) in m.outer_iterator().enumerate() {
        for (j, &v) in row.iter() {
            d[i * c + j] = v;
        }
    }
    d
}

/// The reference eigenpairs of `m` in the order `which` wants them: values
/// and unit eigenvectors (one `Vec` per pair).
fn dense_wanted(m: &CsMat<f64>, which: Which) -> (Vec<f64>, Vec<Vec<f64>>) {
    let n = m.rows();
    let e = sym_eigen(&dense_of(m), n);
    let mut order: Vec<usize> = (0..n).collect();
    match which {
        Which::LargestAlgebraic => order.sort_by(|&a, &b| e.values[b].total_cmp(&e.values[a])),
        Which::LargestMagnitude => {
            order.sort_by(|&a, &b| e.values[b].abs().total_cmp(&e.values[a].abs()))
        }
    }
    let values = order.iter().map(|&j| e.values[j]).collect();
    let vectors = order
        .iter()
        .map(|&j| (0..n).map(|i| e.vectors[i * n + j]).collect())
        .collect();
    (values, vectors)
}

fn config(k: usize, which: Which, block: usize) -> EigenConfig {
    EigenConfig {
        block,
        seed: 3,
        ..EigenConfig::new(k, which)
    }
}

/// Solves, checks eigenvalues against the dense reference and the exact
/// residuals against the tolerance; returns the worst exact residual.
fn check_eigen(m: &CsMat<f64>, cfg: EigenConfig) -> f64 {
    let op = SymmetricCsr::new(Csr::from_sprs(m).unwrap()).unwrap();
    let (want, want_vectors) = dense_wanted(m, cfg.which);
    let pairs = Lanczos::new(&op, cfg).unwrap().solve(|_| {});
    assert!(pairs.converged, "{:?}", pairs.status);
    let scale = want[0].abs();
    for (i, (got, w)) in pairs.values.iter().zip(&want).enumerate() {
        assert!(
            (got - w).abs() <= 1e-8 * scale,
            "pair {i}: {got} vs dense {w} ({:?})",
            cfg.which
        );
    }
    // Eigenvectors of well-separated eigenvalues match the dense ones up to
    // sign: the angle is at most residual · |λ| / gap (Davis–Kahan).
    for i in 0..cfg.k {
        let gap = want
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i)
            .map(|(_, w)| (w - want[i]).abs())
            .fold(f64::INFINITY, f64::min);
        if gap < 1e-2 * scale {
            continue;
        }
        let cos: f64 = pairs
            .vectors
            .column(i)
            .iter()
            .zip(&want_vectors[i])
            .map(|(a, b)| a * b)
            .sum();
        let bound = 10.0 * cfg.tol * want[i].abs() / gap;
        assert!(
            1.0 - cos.abs() <= bound * bound + 1e-10,
            "pair {i}: |cos| to the dense eigenvector {} (gap {gap:.3e})",
            cos.abs()
        );
    }
    let residuals = eigen_residuals(&op, &pairs.values, pairs.vectors.view());
    let worst = residuals.iter().cloned().fold(0.0, f64::max);
    assert!(
        worst <= cfg.tol,
        "exact residual {worst:e} above {:e}",
        cfg.tol
    );
    // Orthonormal vectors.
    let g = pairs.vectors.t().dot(&pairs.vectors);
    for i in 0..cfg.k {
        for j in 0..cfg.k {
            let e = if i == j { 1.0 } else { 0.0 };
            assert!(
                (g[[i, j]] - e).abs() < 1e-10,
                "VᵀV[{i},{j}] = {}",
                g[[i, j]]
            );
        }
    }
    worst
}

#[test]
fn eigenpairs_match_a_dense_decomposition_on_random_matrices() {
    // Indefinite (values in [-1, 1)), nearly PSD-shifted, and sparse/dense mixes;
    // blocks 1 and 3 take the GEMM path, 4 and 8 the AVX kernels where available.
    let cases = [
        (300, 0.05, -1.0, 1.0, 0.0, 1),
        (260, 0.2, -1.0, 1.0, 0.0, 2),
        (240, 0.05, 0.0, 1.0, 2.0, 3),
        (320, 0.02, -2.0, 1.0, -1.0, 4),
    ];
    for (case, &(n, density, lo, hi, diag, seed)) in cases.iter().enumerate() {
        let m = random_symmetric(n, density, lo, hi, diag, seed);
        for which in [Which::LargestAlgebraic, Which::LargestMagnitude] {
            for block in [1, 3, 4, 8] {
                let worst = check_eigen(&m, config(10, which, block));
                eprintln!("case {case} n={n} {which:?} block {block}: worst exact relative residual {worst:.2e}");
            }
        }
    }
}

#[test]
fn tight_tolerances_and_small_bases_still_converge() {
    let m = random_symmetric(400, 0.03, -1.0, 1.0, 0.0, 9);
    let cfg = EigenConfig {
        tol: 1e-10,
        basis: Some(40),
        keep: Some(24),
        ..config(16, Which::LargestAlgebraic, 4)
    };
    let worst = check_eigen(&m, cfg);
    eprintln!("tol 1e-10, basis 40: worst exact residual {worst:.2e}");
}

#[test]
fn low_rank_matrices_deflate_and_repeated_eigenvalues_are_found() {
    // Rank 6: the Krylov space is exhausted after a few blocks, so blocks
    // deflate and random directions replace them; the zero eigenvalue has
    // multiplicity n - 6 but only the non-zero ones are asked for.
    let n = 200;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let mut dense = vec![0.0; n * n];
    for (r, weight) in [5.0, 4.0, 3.0, -2.0, 1.5, -1.0].into_iter().enumerate() {
        let u: Vec<f64> = (0..n).map(|_| rng.random::<f64>() - 0.5).collect();
        let norm: f64 = u.iter().map(|x| x * x).sum::<f64>().sqrt();
        let _ = r;
        for i in 0..n {
            for j in 0..n {
                dense[i * n + j] += weight * u[i] * u[j] / (norm * norm);
            }
        }
    }
    let mut t = TriMat::new((n, n));
    for i in 0..n {
        for j in 0..n {
            let (a, b) = (dense[i * n + j], dense[j * n + i]);
            t.add_triplet(i, j, 0.5 * (a + b));
        }
    }
    let low_rank: CsMat<f64> = t.to_csr();
    // The rank-1 parts are not orthogonal, so the eigenvalues are only known densely.
    check_eigen(&low_rank, config(4, Which::LargestMagnitude, 4));
    check_eigen(&low_rank, config(3, Which::LargestAlgebraic, 8));

    // A diagonal with each value repeated three times.
    let mut t = TriMat::new((150, 150));
    for i in 0..150 {
        t.add_triplet(i, i, (i / 3) as f64 + 1.0);
    }
    let repeated: CsMat<f64> = t.to_csr();
    let op = SymmetricCsr::new(Csr::from_sprs(&repeated).unwrap()).unwrap();
    let pairs = Lanczos::new(&op, config(6, Which::LargestAlgebraic, 4))
        .unwrap()
        .solve(|_| {});
    let want = [50.0, 50.0, 50.0, 49.0, 49.0, 49.0];
    for (g, w) in pairs.values.iter().zip(want) {
        assert!((g - w).abs() < 1e-8, "{:?}", pairs.values);
    }
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let m = random_symmetric(300, 0.05, -1.0, 1.0, 0.0, 11);
    let solve = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let op = SymmetricCsr::new(Csr::from_sprs(&m).unwrap()).unwrap();
            Lanczos::new(&op, config(8, Which::LargestAlgebraic, 4))
                .unwrap()
                .solve(|_| {})
        })
    };
    let (a, b) = (solve(1), solve(3));
    assert_eq!(a.values, b.values);
    assert_eq!(a.vectors, b.vectors);
}

#[test]
fn progress_reports_steps_restarts_and_a_falling_residual() {
    let m = random_symmetric(400, 0.03, -1.0, 1.0, 0.0, 12);
    let op = SymmetricCsr::new(Csr::from_sprs(&m).unwrap()).unwrap();
    let mut seen = Vec::new();
    let pairs = Lanczos::new(&op, config(10, Which::LargestAlgebraic, 4))
        .unwrap()
        .solve(|s| seen.push(*s));
    assert_eq!(seen.len() as u64, pairs.status.steps);
    assert!(seen
        .windows(2)
        .all(|w| w[1].steps == w[0].steps + 1 && w[1].matvecs == w[0].matvecs + 4));
    // Before the first check the residual reads 1; the last one is converged.
    assert_eq!(seen[0].worst_residual, 1.0);
    let last = seen.last().unwrap();
    assert!(last.done && last.worst_residual <= 1e-6 && last.converged == 10);
    let checks: Vec<f64> = seen
        .windows(2)
        .filter(|w| w[1].restarts != w[0].restarts)
        .map(|w| w[1].worst_residual)
        .collect();
    assert!(checks.len() >= 2, "{checks:?}");
    assert!(
        checks.last().unwrap() < checks.first().unwrap(),
        "{checks:?}"
    );
}

#[test]
fn truncated_svd_matches_dense_singular_values() {
    // Non-symmetric (Gram route) and symmetric indefinite (eigen route).
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(21);
    let (r, c) = (220, 180);
    let mut t = TriMat::new((r, c));
    for i in 0..r {
        for j in 0..c {
            if rng.random::<f64>() < 0.06 {
                t.add_triplet(i, j, rng.random::<f64>() * 2.0 - 0.5);
            }
        }
    }
    let rect: CsMat<f64> = t.to_csr();
    let square = random_symmetric(250, 0.05, -1.0, 1.0, 0.0, 22);
    for (name, m) in [("rectangular", &rect), ("symmetric", &square)] {
        let a = Csr::from_sprs(m).unwrap();
        let svd = TruncatedSvd::new(a.clone(), config(8, Which::LargestAlgebraic, 4))
            .unwrap()
            .solve(|_| {});
        let dense = nalgebra::DMatrix::from_row_slice(m.rows(), m.cols(), &dense_of(m));
        let mut want: Vec<f64> = dense.singular_values().iter().copied().collect();
        want.sort_by(|x, y| y.total_cmp(x));
        for (g, w) in svd.s.iter().zip(&want) {
            assert!((g - w).abs() <= 1e-8 * want[0], "{name}: {g} vs {w}");
        }
        let res = svd_residuals(&a, svd.u.view(), &svd.s, svd.v.view());
        let worst = res.iter().cloned().fold(0.0, f64::max);
        eprintln!("{name}: worst exact SVD residual {worst:.2e}");
        assert!(worst <= 1e-6, "{name}: {res:?}");
    }
}

#[test]
fn svd_and_eigen_disagree_on_the_psdvec_appendix_matrix() {
    // docs/methods/spectral.md, "A test case: the PSDVec appendix matrices":
    // M2 = [[.2, -1.6, 0], [-1.6, -2.2, 0], [0, 0, 2]] has
    // eigenvalues (-3, 2, 1). Rank-2 SVD keeps -3 and 2: words 1 and 2 get
    // parallel vectors; the top-2 eigenvectors keep 2 and 1: opposite ones.
    let m2 = Csr::new(
        (3, 3),
        vec![0, 2, 4, 5],
        vec![0, 1, 0, 1, 2],
        vec![0.2, -1.6, -1.6, -2.2, 2.0],
    )
    .unwrap();
    let cos = |w: &Array2<f64>| {
        let (a, b) = (w.row(0), w.row(1));
        a.dot(&b) / (a.dot(&a).sqrt() * b.dot(&b).sqrt())
    };
    let svd = TruncatedSvd::new(m2.clone(), config(2, Which::LargestMagnitude, 1))
        .unwrap()
        .solve(|_| {});
    assert!((svd.s[0] - 3.0).abs() < 1e-12 && (svd.s[1] - 2.0).abs() < 1e-12);
    assert!((cos(&svd.u) - 1.0).abs() < 1e-12);
    let eig = Lanczos::new(
        SymmetricCsr::new(m2).unwrap(),
        config(2, Which::LargestAlgebraic, 1),
    )
    .unwrap()
    .solve(|_| {});
    assert!((eig.values[0] - 2.0).abs() < 1e-12 && (eig.values[1] - 1.0).abs() < 1e-12);
    assert!((cos(&eig.vectors) + 1.0).abs() < 1e-12);
}

// ---------------------------------------------------------------- methods

fn fixture_corpus() -> Arc<Corpus> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/spectral/topics.txt"
    );
    let config = CorpusConfig {
        vocab: VocabConfig {
            min_count: 1,
            max_size: None,
        },
        read: ReadConfig {
            heldout: HeldoutConfig {
                fraction: 0.1,
                max_unit_tokens: 200,
            },
            ..Default::default()
        },
    };
    Arc::new(Corpus::open(path, config).unwrap())
}

struct Run {
    vectors: Array2<f64>,
    losses: Vec<f64>,
    perplexity: Option<f64>,
    logs: Vec<String>,
}

fn train(method: &'static Method, corpus: &Arc<Corpus>, sets: &[(&str, &str)]) -> Run {
    let input = TrainInput {
        corpus: corpus.clone(),
        params: method.params(sets.iter().copied()).unwrap(),
        seed: 1,
        threads: 2,
        counts: Default::default(),
    };
    let (mut losses, mut perplexity, mut logs) = (Vec::new(), None, Vec::new());
    let emb = Job::spawn(method, input, JobConfig::default())
        .wait(|e| match e {
            Event::Progress(p) => {
                losses.push(p.loss);
                perplexity = p.perplexity.or(perplexity);
            }
            Event::Log(l) => logs.push(l.clone()),
            _ => {}
        })
        .unwrap();
    Run {
        vectors: emb.vectors().mapv(|x| x as f64),
        losses,
        perplexity,
        logs,
    }
}

/// The method's matrix, built the way the method builds it, as a dense array.
fn method_matrix(corpus: &Corpus, settings: &Settings) -> (usize, Vec<f64>) {
    let x = matrix::counts(corpus, settings).unwrap();
    let m = matrix::transform(&x, settings).unwrap();
    (m.rows(), dense_of(&m))
}

const SMALL: &[(&str, &str)] = &[("dim", "5"), ("block", "2"), ("tol", "1e-8")];

#[test]
fn eigenword_maximises_the_trace_objective() {
    let corpus = fixture_corpus();
    let run = train(&EIGENWORD, &corpus, SMALL);
    let n = corpus.vocab().len();
    assert_eq!(run.vectors.dim(), (n, 5));
    let params = EIGENWORD.params(SMALL.iter().copied()).unwrap();
    let (_, m) = method_matrix(&corpus, &Settings::eigenword(&params));
    // Tr(Wᵀ M W) = sum of the 5 algebraically largest eigenvalues, WᵀW = I.
    let mm = Array2::from_shape_vec((n, n), m.clone()).unwrap();
    let objective = run.vectors.t().dot(&mm.dot(&run.vectors)).diag().sum();
    let mut values = sym_eigen(&m, n).values;
    values.sort_by(|a, b| b.total_cmp(a));
    let best: f64 = values[..5].iter().sum();
    assert!(
        (objective - best).abs() < 1e-4 * best.abs(),
        "{objective} vs {best}"
    );
    // Indefinite: the thresholded PMI keeps negative cells.
    assert!(values[n - 1] < 0.0);
    assert!(
        run.logs
            .iter()
            .any(|l| l.contains("M^tau, tau = -2.5 bits")),
        "{:?}",
        run.logs
    );
    // Progress: the loss is the worst residual, 1 until the first full basis.
    assert_eq!(run.losses[0], 1.0);
    assert!(*run.losses.last().unwrap() <= 1e-8);
    // The rank-5 model U Θ Uᵀ predicts held-out contexts better than a uniform guess.
    let p = run.perplexity.expect("held-out perplexity");
    eprintln!("eigenword: held-out perplexity {p:.1} (uniform: {n})");
    assert!(p.is_finite() && p > 1.0 && p < n as f64, "{p}");
}

#[test]
fn svd_ns_takes_the_largest_singular_values_and_svd_weights_them() {
    let corpus = fixture_corpus();
    let n = corpus.vocab().len();
    for (method, extra, power) in [
        (&SVD_NS, vec![], 0.0),
        (&SVD_NS, vec![("pmi_shift", "true")], 0.0),
        (&SVD, vec![("power", "1")], 1.0),
        (&SVD, vec![("input", "sppmi"), ("cds", "0.75")], 0.0),
    ] {
        let sets: Vec<(&str, &str)> = SMALL.iter().copied().chain(extra.iter().copied()).collect();
        let run = train(method, &corpus, &sets);
        let params = method.params(sets.iter().copied()).unwrap();
        let settings = if method.name == "svd" {
            Settings::svd(&params)
        } else {
            Settings::svd_ns(&params)
        };
        let (_, m) = method_matrix(&corpus, &settings);
        let dense = nalgebra::DMatrix::from_row_slice(n, n, &m);
        let mut sigma: Vec<f64> = dense.singular_values().iter().copied().collect();
        sigma.sort_by(|a, b| b.total_cmp(a));
        // ‖Mᵀ U‖ per column is σ; with power 1 the vectors are U Σ.
        let mm = Array2::from_shape_vec((n, n), m).unwrap();
        for j in 0..5 {
            let col = run.vectors.column(j);
            let scale = sigma[j].powf(power);
            let norm = col.dot(&col).sqrt();
            assert!(
                (norm - scale).abs() < 1e-5 * scale,
                "{}: |w_{j}| {norm} vs {scale}",
                method.name
            );
            let s = mm.t().dot(&col).dot(&mm.t().dot(&col)).sqrt() / norm;
            assert!(
                (s - sigma[j]).abs() < 1e-5 * sigma[0],
                "{} {extra:?}: {s} vs {}",
                method.name,
                sigma[j]
            );
        }
        let p = run.perplexity.expect("held-out perplexity");
        eprintln!(
            "{} {extra:?}: held-out perplexity {p:.1} (uniform: {n})",
            method.name
        );
        // SPPMI keeps few cells of a tiny corpus (PMI > log 5): its rank-5
        // model is near uniform, so only the other matrices must beat it.
        let bound = if extra.contains(&("input", "sppmi")) {
            1.05
        } else {
            1.0
        };
        assert!(
            p.is_finite() && p < bound * n as f64,
            "{}: perplexity {p}",
            method.name
        );
        assert!(*run.losses.last().unwrap() <= 1e-8, "{}", method.name);
        if extra.contains(&("cds", "0.75")) {
            assert!(
                run.logs.iter().any(|l| l.contains("A A^T")),
                "{:?}",
                run.logs
            );
        }
    }
}

#[test]
fn max_vocab_and_the_count_inputs() {
    let corpus = fixture_corpus();
    let run = train(
        &SVD,
        &corpus,
        &[("dim", "3"), ("max_vocab", "40"), ("input", "sqrt")],
    );
    assert_eq!(run.vectors.nrows(), 40);
    let run = train(&SVD, &corpus, &[("dim", "3"), ("input", "log")]);
    assert_eq!(run.vectors.nrows(), corpus.vocab().len());
    let run = train(&SVD, &corpus, &[("dim", "3"), ("input", "counts")]);
    assert!(run.vectors.iter().all(|x| x.is_finite()));
}

#[test]
fn eigenword_psd_fix_makes_every_eigenvalue_non_negative() {
    let corpus = fixture_corpus();
    let sets = [("dim", "3"), ("psd_fix", "true")];
    let params = EIGENWORD.params(sets.iter().copied()).unwrap();
    let (n, m) = method_matrix(&corpus, &Settings::eigenword(&params));
    let values = sym_eigen(&m, n).values;
    assert!(values[0] >= -1e-9 * values[n - 1], "{}", values[0]);
    let run = train(&EIGENWORD, &corpus, &sets);
    assert_eq!(run.vectors.ncols(), 3);
}
