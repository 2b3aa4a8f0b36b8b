//! PSDVec against dense references: the PSD step against nalgebra's full
//! eigendecomposition, the sparse + low-rank operator against `G_t` built
//! densely, the ridge solutions against a dense solve, App. A's toy
//! matrices, monotone BCD and reproducible runs.

use nalgebra::{DMatrix, DVector, SymmetricEigen};
use ndarray::Array2;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use sprs::{CsMat, TriMat};

use super::core::{nearest_psd, CoreSolver, Iterate};
use super::input::Statistics;
use super::ridge::{mu_of, solve_block};
use super::trainer::PsdvecTrainer;
use super::{Settings, SCHEMA};
use crate::linalg::{DenseSymmetric, EigenConfig, Lanczos, SymmetricOperator, Which};
use crate::schema::Params;
use crate::train::Trainer;
use crate::words::WordIndex;

fn rng(seed: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(seed)
}

fn random_symmetric(n: usize, seed: u64, shift: f64) -> Vec<f64> {
    let mut r = rng(seed);
    let mut a = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            let v = r.random::<f64>() * 2.0 - 1.0 - if i == j { shift } else { 0.0 };
            a[i * n + j] = v;
            a[j * n + i] = v;
        }
    }
    a
}

/// The nearest PSD matrix of rank ≤ k by a full dense eigendecomposition.
fn dense_nearest_psd(a: &[f64], n: usize, k: usize) -> DMatrix<f64> {
    let e = SymmetricEigen::new(DMatrix::from_row_slice(n, n, a));
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&x, &y| e.eigenvalues[y].total_cmp(&e.eigenvalues[x]));
    let mut x = DMatrix::zeros(n, n);
    for &c in order.iter().take(k) {
        let l = e.eigenvalues[c];
        if l > 0.0 {
            let q = e.eigenvectors.column(c);
            x += l * q * q.transpose();
        }
    }
    x
}

fn gram(v: &[f64], n: usize, r: usize) -> DMatrix<f64> {
    let m = DMatrix::from_row_slice(n, r, v);
    &m * m.transpose()
}

#[test]
fn psd_step_is_the_optimal_rank_k_psd_approximation() {
    // Lanczos path (basis + block < n) and a matrix shifted so that only a
    // few of the top k eigenvalues are positive.
    for (seed, shifted) in [(1, false), (2, false), (3, true)] {
        let n = 70;
        let k = 6;
        let mut a = random_symmetric(n, seed, 0.0);
        if shifted {
            // Shift between the 3rd and 4th largest eigenvalues.
            let e = SymmetricEigen::new(DMatrix::from_row_slice(n, n, &a));
            let mut l: Vec<f64> = e.eigenvalues.iter().copied().collect();
            l.sort_by(|x, y| y.total_cmp(x));
            let shift = (l[2] + l[3]) / 2.0;
            (0..n).for_each(|i| a[i * n + i] -= shift);
        }
        let op = DenseSymmetric::new(n, a.clone()).unwrap();
        let step = nearest_psd(op, k, 1e-12, 5).unwrap();
        let ours = gram(&step.v, n, step.r);
        let reference = dense_nearest_psd(&a, n, k);
        let diff = (&ours - &reference).abs().max();
        assert!(diff < 1e-8, "seed {seed}: max difference {diff}");
        let positive = step.values.iter().filter(|&&l| l > 0.0).count();
        assert_eq!(step.r, positive);
        if shifted {
            assert_eq!(step.r, 3);
            assert!(
                step.r < k,
                "the shift leaves negative eigenvalues among the top k"
            );
        }
        // Optimality: no other rank-k PSD matrix is closer (random ones here).
        let af = DMatrix::from_row_slice(n, n, &a);
        let best = (&af - &ours).norm();
        let mut r = rng(seed + 100);
        for _ in 0..5 {
            let y = DMatrix::from_fn(n, k, |_, _| r.random::<f64>() - 0.5);
            let cand = &ours + 0.05 * (&y * y.transpose());
            assert!((&af - cand).norm() >= best);
        }
    }
}

#[test]
fn appendix_a_toy_matrices() {
    let m1 = vec![1.4, 0.8, 0.0, 0.8, 2.6, 0.0, 0.0, 0.0, 2.0];
    let m2 = vec![0.2, -1.6, 0.0, -1.6, -2.2, 0.0, 0.0, 0.0, 2.0];
    // Eigen (PSD) embeddings at rank 2: s1, s2 parallel for M1, opposite for M2.
    let s1_dot_s2 = |m: &[f64]| {
        let step = nearest_psd(DenseSymmetric::new(3, m.to_vec()).unwrap(), 2, 1e-12, 0).unwrap();
        assert_eq!(step.r, 2);
        let v = &step.v;
        (v[0] * v[2] + v[1] * v[3], step)
    };
    let (d1, _) = s1_dot_s2(&m1);
    let (d2, step2) = s1_dot_s2(&m2);
    assert!(
        d1 > 0.0,
        "M1: s1 and s2 should be positively correlated ({d1})"
    );
    assert!(
        d2 < 0.0,
        "M2: s1 and s2 should be negatively correlated ({d2})"
    );
    // The paper's V(2) = [[-0.89, 0.45, 0], [0, 0, 1.41]] up to signs: our
    // rows are words, columns eigenvalues 2 and 1 (descending).
    assert!((step2.values[0] - 2.0).abs() < 1e-9 && (step2.values[1] - 1.0).abs() < 1e-9);
    let v = &step2.v;
    let expect = [[0.0, 0.894], [0.0, 0.447], [1.414, 0.0]];
    for (i, row) in expect.iter().enumerate() {
        for (c, &e) in row.iter().enumerate() {
            assert!(
                (v[i * 2 + c].abs() - e).abs() < 0.01,
                "V[{i},{c}] = {}",
                v[i * 2 + c]
            );
        }
    }
    // The SVD route keeps |λ| = 3, 2 on M2: its vectors make s1, s2 parallel.
    let mut config = EigenConfig::new(2, Which::LargestMagnitude);
    config.tol = 1e-12;
    let svd = Lanczos::new(DenseSymmetric::new(3, m2).unwrap(), config)
        .unwrap()
        .solve(|_| {});
    assert!((svd.values[0] + 3.0).abs() < 1e-9);
    let u = &svd.vectors;
    let parallel: f64 = (0..2).map(|c| u[[0, c]] * u[[1, c]]).sum();
    assert!(
        parallel > 0.0,
        "SVD embeddings of s1, s2 point the same way"
    );
}

/// A random problem: `n` words, every cell present with probability
/// `density`, counts 1..50; the word counts decrease with the id.
fn random_counts(n: usize, density: f64, seed: u64) -> (CsMat<f64>, Vec<u64>) {
    let mut r = rng(seed);
    let mut t = TriMat::new((n, n));
    for i in 0..n {
        for j in 0..n {
            // Frequent words (small ids) co-occur more.
            let p = density * (1.0 + 3.0 / (1.0 + (i + j) as f64 / 10.0));
            if r.random::<f64>() < p {
                t.add_triplet(i, j, (1 + r.random_range(0..50u32)) as f64);
            }
        }
    }
    let counts = (0..n as u64).map(|i| 10_000 / (i + 1)).collect();
    (t.to_csr(), counts)
}

fn settings(dim: usize, core: usize) -> Settings {
    let mut s = Settings::from_params(&Params::defaults(SCHEMA));
    s.dim = dim;
    s.core = core;
    s.iterations = 5;
    s.anneal = false;
    s.eig_tol = 1e-12;
    s.block_words = 7;
    s.ppl_tokens = 0;
    s
}

/// `(G_t + G_tᵀ)/2` of the definition, densely, for the solver's iterate.
fn dense_target(stats: &Statistics, solver: &CoreSolver) -> DMatrix<f64> {
    let n = stats.core();
    let mut g = DMatrix::zeros(n, n);
    let mut w = DMatrix::zeros(n, n);
    for i in 0..n {
        for j in 0..n {
            g[(i, j)] = stats.background[i];
        }
        let (cols, ws, gs) = stats.core_cells.row(i);
        for ((&j, &wv), &gv) in cols.iter().zip(ws).zip(gs) {
            g[(i, j as usize)] = gv;
            w[(i, j as usize)] = wv;
        }
    }
    let x = match solver.iterate() {
        Iterate::Start => &g / 2.0,
        Iterate::Factor { v, r } => gram(v, n, *r),
    };
    let gt = w.component_mul(&g) + (DMatrix::from_element(n, n, 1.0) - &w).component_mul(&x);
    (&gt + gt.transpose()) / 2.0
}

fn apply_dense(op: &impl SymmetricOperator) -> DMatrix<f64> {
    let n = op.size();
    let mut eye = vec![0.0; n * n];
    (0..n).for_each(|i| eye[i * n + i] = 1.0);
    let mut y = vec![0.0; n * n];
    op.apply(&eye, &mut y, n);
    DMatrix::from_row_slice(n, n, &y)
}

#[test]
fn bcd_operator_equals_dense_target_and_the_loss_never_rises() {
    let (x, counts) = random_counts(60, 0.15, 11);
    let s = settings(4, 60);
    let stats = Statistics::new(&x, &counts, &s).unwrap();
    let mut solver = CoreSolver::new(stats.core_cells.clone(), stats.background.clone());
    let mut losses = vec![];
    for t in 0..8 {
        let op = solver.target_operator().unwrap();
        let diff = (apply_dense(&op) - dense_target(&stats, &solver))
            .abs()
            .max();
        assert!(diff < 1e-10, "iteration {t}: operator differs by {diff}");
        let it = solver.iterate_once(4, 1e-12, t).unwrap();
        assert!((it.loss - solver.loss()).abs() <= 1e-12 * it.loss);
        losses.push(it.loss);
    }
    for w in losses.windows(2) {
        assert!(w[1] <= w[0] * (1.0 + 1e-10), "loss rose: {losses:?}");
    }
    assert!(losses[7] < losses[0], "BCD made no progress: {losses:?}");
}

#[test]
fn statistics_split_and_weights_by_hand() {
    // x = [[5, 4, 0], [1, 0, 9], [2, 0, 0]]; counts sorted by frequency.
    let x = CsMat::new(
        (3, 3),
        vec![0, 2, 4, 5],
        vec![0, 1, 0, 2, 0],
        vec![5.0, 4.0, 1.0, 9.0, 2.0],
    );
    let mut s = settings(1, 2);
    s.iterations = 1;
    s.cut_quantile = 0.3; // off-diagonal counts 9, 4, 2, 1: index 1 of the descending order = 4
    let st = Statistics::new(&x, &[10, 6, 3], &s).unwrap();
    assert_eq!(st.c_cut, 2.0);
    // Core block rows 0, 1 over columns 0, 1: (0,0) diag w = 0, (0,1) w = min(2/2, 1) = 1, (1,0) w = 1/2.
    assert_eq!(st.core_cells.indices, vec![0, 1, 0]);
    assert_eq!(st.core_cells.w, vec![0.0, 1.0, 0.5]);
    // Noncore word 2: before core word 0 (count 2), after core word 1 (count 9).
    assert_eq!(st.out_cells.row(0).0, &[0]);
    assert!((st.out_cells.row(0).1[0] - 2f64.sqrt() / 2.0).abs() < 1e-15);
    assert_eq!(st.in_cells.row(0).0, &[1]);
    assert_eq!(st.in_cells.row(0).1, &[1.0]);
    // G*_12 = log((1-κ) x_12/x_1* + κ u_2) - log u_2 with u = counts / 19.
    let (k, u2): (f64, f64) = (0.02, 3.0 / 19.0);
    let g = ((1.0 - k) * 9.0 / 10.0 + k * u2).ln() - u2.ln();
    assert!((st.in_cells.row(0).2[0] - g).abs() < 1e-12);
    assert_eq!(st.background, vec![k.ln(), k.ln()]);
}

#[test]
fn ridge_equals_a_dense_solve() {
    let (x, counts) = random_counts(90, 0.12, 5);
    let s = settings(12, 40);
    let stats = Statistics::new(&x, &counts, &s).unwrap();
    let mut r = rng(9);
    let core = Array2::from_shape_fn((40, 12), |_| r.random::<f64>() - 0.5);
    let (mut primal, mut dual) = (0, 0);
    for mu in [2.0, 0.0] {
        let block = solve_block(&stats, &core, 0..50, mu);
        let mut loss = 0.0;
        for rr in 0..50 {
            let i = 40 + rr;
            let mu_i = mu_of(i, 40, mu);
            let mut a = DMatrix::<f64>::identity(12, 12) * mu_i;
            let mut b = DVector::<f64>::zeros(12);
            let mut m = 0;
            let mut fbar = [0.0; 40];
            let mut fg = [0.0; 40];
            for cells in [&stats.out_cells, &stats.in_cells] {
                let (js, ws, gs) = cells.row(rr);
                for ((&j, &w), &g) in js.iter().zip(ws).zip(gs) {
                    fbar[j as usize] += w;
                    fg[j as usize] += w * g;
                }
            }
            for j in 0..40 {
                if fbar[j] > 0.0 {
                    m += 1;
                    let v = DVector::from_iterator(12, core.row(j).iter().copied());
                    a += fbar[j] * &v * v.transpose();
                    b += fg[j] * &v;
                }
            }
            let ours = DVector::from_iterator(12, block.vectors.row(rr).iter().copied());
            if m < 12 {
                dual += 1;
            } else {
                primal += 1;
            }
            if mu == 0.0 {
                // Singular or ill-conditioned without Tikhonov: ours (the
                // minimum-norm limit) solves the normal equations.
                let res = (&a * &ours - &b).norm();
                assert!(res < 1e-6 * b.norm().max(1.0), "word {i}: residual {res}");
                continue;
            }
            let reference = a.clone().lu().solve(&b).unwrap();
            let diff = (&ours - &reference).abs().max();
            assert!(
                diff < 1e-6 * reference.abs().max().max(1.0),
                "word {i} (m = {m}, mu = {mu_i}): {diff}"
            );
            // The reported loss is the weighted residual plus Tikhonov.
            for cells in [&stats.out_cells, &stats.in_cells] {
                let (js, ws, gs) = cells.row(rr);
                for ((&j, &w), &g) in js.iter().zip(ws).zip(gs) {
                    let e = g - core.row(j as usize).dot(&block.vectors.row(rr));
                    loss += w * e * e;
                }
            }
            loss += mu_i * ours.norm_squared();
        }
        if mu > 0.0 {
            assert!((loss - block.loss).abs() < 1e-9 * loss);
        }
    }
    assert!(
        primal > 0 && dual > 0,
        "both forms exercised: {primal} primal, {dual} dual"
    );
}

#[test]
fn tikhonov_bands_scale_with_the_core() {
    assert_eq!(mu_of(24_999, 25_000, 2.0), 0.0);
    assert_eq!(mu_of(25_000, 25_000, 2.0), 2.0);
    assert_eq!(mu_of(79_999, 25_000, 2.0), 2.0);
    assert_eq!(mu_of(80_000, 25_000, 2.0), 4.0);
    assert_eq!(mu_of(130_000, 25_000, 2.0), 8.0);
}

fn run(threads: usize) -> (Vec<f32>, Vec<f64>) {
    let (x, counts) = random_counts(80, 0.1, 3);
    let mut s = settings(5, 30);
    s.anneal = true;
    s.iterations = 3;
    s.eig_tol = 1e-8;
    let stats = Statistics::new(&x, &counts, &s).unwrap();
    let words: Vec<String> = (0..80).map(|i| format!("w{i}")).collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        let mut t = PsdvecTrainer::new(s, WordIndex::from_words(words), 80, stats, None).unwrap();
        let mut losses = vec![];
        for step in 0..t.total_steps() {
            losses.push(t.step(step).unwrap().loss);
        }
        let e = Box::new(t).into_embedding().unwrap();
        (e.vectors().iter().copied().collect(), losses)
    })
}

#[test]
fn runs_are_bit_for_bit_reproducible() {
    let (a, la) = run(1);
    let (b, lb) = run(1);
    let (c, lc) = run(2);
    assert_eq!(a, b);
    assert_eq!(la, lb);
    assert_eq!(a, c, "thread count changed the vectors");
    assert_eq!(la, lc);
    assert_eq!(la.len(), 3 + 50usize.div_ceil(7));
    assert!(a.iter().any(|&v| v != 0.0));
}

#[test]
fn memory_budget_is_refused_with_the_parameter_name() {
    let (x, counts) = random_counts(40, 0.2, 1);
    let mut s = settings(4, 30);
    // 0 MiB is below anything (the schema's 0 means "half the RAM").
    s.memory_mb = Some(0);
    let stats = Statistics::new(&x, &counts, &s).unwrap();
    let words: Vec<String> = (0..40).map(|i| format!("w{i}")).collect();
    let err = PsdvecTrainer::new(s, WordIndex::from_words(words), 40, stats, None)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("memory_mb") && err.contains("MiB"), "{err}");
}
