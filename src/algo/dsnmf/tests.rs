//! Checks of Algorithm 1 against a hand-computed case, a dense reference of
//! the printed formulas, Theorem 1 and the properties of `Ŝ`.

use ndarray::Array2;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use sprs::{CsMat, TriMat};

use super::heldout;
use super::model::{Model, EPS};
use super::trainer::DsnmfTrainer;
use super::Settings;
use crate::linalg::Csr;
use crate::train::Trainer;
use crate::words::WordIndex;

/// A random symmetric non-negative `n × n` matrix with zero diagonal, about
/// `density` of the off-diagonal cells set, scaled to sum `n`.
fn random_s(n: usize, density: f64, seed: u64) -> CsMat<f64> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut t = TriMat::new((n, n));
    let mut total = 0.0;
    let mut cells = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            if rng.random::<f64>() < density {
                let v = (1 + rng.random_range(0..20u32)) as f64;
                cells.push((i, j, v));
                total += 2.0 * v;
            }
        }
    }
    for (i, j, v) in cells {
        t.add_triplet(i, j, v * n as f64 / total);
        t.add_triplet(j, i, v * n as f64 / total);
    }
    t.to_csr()
}

fn csr(s: &CsMat<f64>) -> Csr {
    Csr::from_sprs(s).unwrap()
}

/// `Ŝ` as a dense matrix, straight from its definition.
fn dense_s_hat(m: &Model) -> Array2<f64> {
    let (n, r) = (m.n(), m.r());
    let s: Vec<f64> = (0..r)
        .map(|k| (0..n).map(|v| m.row(v)[k] as f64).sum())
        .collect();
    Array2::from_shape_fn((n, n), |(i, j)| {
        (0..r)
            .map(|k| m.row(i)[k] as f64 * m.row(j)[k] as f64 / s[k])
            .sum()
    })
}

/// One iteration of Algorithm 1 on dense matrices, as printed (plus EPS):
/// returns `(D(S‖Ŝ) at W, the updated W)`.
fn dense_iteration(m: &Model, s: &CsMat<f64>) -> (f64, Vec<f64>) {
    let (n, r) = (m.n(), m.r());
    let w = |i: usize, k: usize| m.row(i)[k] as f64;
    let sh = dense_s_hat(m);
    let sd = s.to_dense();
    let colsum: Vec<f64> = (0..r).map(|k| (0..n).map(|v| w(v, k)).sum()).collect();
    let mut d = 0.0;
    let mut z = Array2::<f64>::zeros((n, n));
    for i in 0..n {
        for j in 0..n {
            let x = sd[[i, j]];
            if x > 0.0 {
                z[[i, j]] = x / (sh[[i, j]] + EPS);
                d += x * (x / (sh[[i, j]] + EPS)).ln() - x;
            }
            d += sh[[i, j]];
        }
    }
    let zw = Array2::from_shape_fn((n, r), |(i, k)| {
        (0..n).map(|j| z[[i, j]] * w(j, k)).sum::<f64>()
    });
    let wzw: Vec<f64> = (0..r)
        .map(|k| (0..n).map(|i| w(i, k) * zw[[i, k]]).sum())
        .collect();
    let mut out = vec![0.0; n * r];
    for i in 0..n {
        let minus: Vec<f64> = (0..r).map(|k| 2.0 * zw[[i, k]] / colsum[k]).collect();
        let plus: Vec<f64> = (0..r).map(|k| wzw[k] / (colsum[k] * colsum[k])).collect();
        let a: f64 = (0..r).map(|l| w(i, l) / (plus[l] + EPS)).sum();
        let b: f64 = (0..r).map(|l| w(i, l) * minus[l] / (plus[l] + EPS)).sum();
        for k in 0..r {
            out[i * r + k] = w(i, k) * (minus[k] * a + 1.0) / (plus[k] * a + b + EPS);
        }
    }
    (d, out)
}

#[test]
fn one_update_equals_the_hand_computed_case() {
    // S = [[0, 1], [1, 0]], W = [[3/4, 1/4], [1/4, 3/4]]: s = (1, 1),
    // Ŝ_12 = 3/8, Z_12 = 8/3, ZW = [[2/3, 2], [2, 2/3]], (WᵀZW)_kk = 1,
    // ∇⁻_1 = (4/3, 4), ∇⁺ = (1, 1), a_1 = 1, b_1 = 2, so
    // W_1 ← (3/4 · 7/3 / 3, 1/4 · 5 / 3) = (7/12, 5/12), and
    // D = 2 (ln(8/3) − 1) + Σ s = 2 ln(8/3).
    let s = CsMat::new((2, 2), vec![0, 1, 2], vec![1, 0], vec![1.0, 1.0]);
    let mut m = Model::from_values(2, 2, vec![0.75, 0.25, 0.25, 0.75]).unwrap();
    let e = m.evaluate(&csr(&s));
    assert!((e.divergence - 2.0 * (8.0f64 / 3.0).ln()).abs() < 1e-9);
    let close = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-9);
    assert!(
        close(&e.zw, &[2.0 / 3.0, 2.0, 2.0, 2.0 / 3.0]),
        "{:?}",
        e.zw
    );
    assert!(close(&e.diag, &[1.0, 1.0]), "{:?}", e.diag);
    m.update(&e);
    let want = [7.0 / 12.0, 5.0 / 12.0, 5.0 / 12.0, 7.0 / 12.0];
    for (x, y) in m.values().iter().zip(want) {
        assert!((*x as f64 - y).abs() < 1e-7, "{:?}", m.values());
    }
}

#[test]
fn sparse_passes_equal_the_dense_formulas() {
    let s = random_s(30, 0.2, 3);
    let mut m = Model::init(30, 4, 9);
    for _ in 0..3 {
        let (d, w) = dense_iteration(&m, &s);
        let e = m.evaluate(&csr(&s));
        assert!(
            (e.divergence - d).abs() < 1e-9 * d.abs(),
            "{} {d}",
            e.divergence
        );
        m.update(&e);
        for (x, y) in m.values().iter().zip(&w) {
            assert!((*x as f64 - y).abs() <= 1e-6 * y.abs() + 1e-12, "{x} {y}");
        }
    }
}

/// `J₀(W) + Σ_i λ_i (Σ_k W_ik − 1)`, the Lagrangian of Theorem 1 for the
/// printed gradient split (`J₀` = the divergence without `Σ Ŝ`).
fn lagrangian(m: &Model, s: &Csr, lambda: &[f64]) -> f64 {
    let e = m.evaluate(s);
    let rows: f64 = (0..m.n())
        .map(|i| lambda[i] * (m.row(i).iter().map(|&x| x as f64).sum::<f64>() - 1.0))
        .sum();
    e.fit + rows
}

/// `λ_i = (b_i − 1) / a_i` at the evaluated `W`.
fn multipliers(m: &Model, s: &Csr) -> Vec<f64> {
    let e = m.evaluate(s);
    let r = m.r();
    (0..m.n())
        .map(|i| {
            let (mut a, mut b) = (0.0, 0.0);
            for k in 0..r {
                let plus = e.diag[k] * e.inv_s[k] * e.inv_s[k] + EPS;
                let minus = 2.0 * e.zw[i * r + k] * e.inv_s[k];
                a += m.row(i)[k] as f64 / plus;
                b += m.row(i)[k] as f64 * minus / plus;
            }
            (b - 1.0) / a
        })
        .collect()
}

#[test]
fn the_lagrangian_and_the_feasible_loss_never_increase_on_random_inputs() {
    for seed in 0..4 {
        let n = 40 + 10 * seed as usize;
        let s = csr(&random_s(n, 0.15, seed));
        let mut m = Model::init(n, 3 + seed as usize, seed + 100);
        let mut e = m.evaluate(&s);
        let mut feasible = m.normalized().evaluate(&s).divergence;
        for it in 0..400 {
            // Theorem 1: L(W_new, λ) <= L(W, λ) with λ_i = (b_i − 1) / a_i at W.
            let lambda = multipliers(&m, &s);
            let before = lagrangian(&m, &s, &lambda);
            m.update(&e);
            let after = lagrangian(&m, &s, &lambda);
            assert!(
                after <= before + 1e-9 * before.abs(),
                "seed {seed} iteration {it}: Lagrangian {before} -> {after}"
            );
            // D at the rows projected onto the simplex (the output) decreases
            // up to f32 rounding of W.
            let next = m.normalized().evaluate(&s).divergence;
            // The pass computes the same number without projecting W (up to
            // the f32 rounding of the projected rows).
            let one_pass = m.evaluate(&s).feasible;
            assert!((one_pass - next).abs() < 1e-7 * next, "{one_pass} {next}");
            assert!(
                next <= feasible * (1.0 + 1e-7),
                "seed {seed} iteration {it}: D(normalised W) {feasible} -> {next}"
            );
            feasible = next;
            // D of the relaxed iterate itself is not monotone: it dips while
            // rows leave the simplex and rises as they return (up to 2.6e-4
            // relative on seed 0; docs/methods/dsnmf.md).
            e = m.evaluate(&s);
        }
    }
}

#[test]
fn rows_approach_the_simplex_from_off_simplex_starts() {
    let n = 50;
    let s = csr(&random_s(n, 0.2, 11));
    let init = Model::init(n, 4, 5);
    // Rows scaled by factors between 0.5 and 2.
    let values: Vec<f32> = init
        .values()
        .chunks(4)
        .enumerate()
        .flat_map(|(i, row)| {
            let f = 0.5 + 1.5 * (i % 7) as f32 / 6.0;
            row.iter().map(move |x| x * f).collect::<Vec<_>>()
        })
        .collect();
    let mut m = Model::from_values(n, 4, values).unwrap();
    let start = m.simplex_gap();
    assert!(start > 0.9, "{start}");
    let mut gaps = Vec::new();
    for _ in 0..300 {
        let e = m.evaluate(&s);
        m.update(&e);
        gaps.push(m.simplex_gap());
    }
    assert!(gaps[9] < start / 2.0, "{start} -> {}", gaps[9]);
    assert!(gaps[299] < 1e-3, "{:?}", &gaps[290..]);
}

#[test]
fn s_hat_is_symmetric_and_doubly_stochastic_on_the_simplex() {
    let n = 30;
    let s = csr(&random_s(n, 0.2, 21));
    let mut m = Model::init(n, 5, 2);
    for _ in 0..50 {
        let e = m.evaluate(&s);
        m.update(&e);
    }
    // Off the simplex: row i of Ŝ sums to Σ_k W_ik exactly, and Ŝ is symmetric.
    let sh = dense_s_hat(&m);
    for i in 0..n {
        let row: f64 = sh.row(i).sum();
        let wsum: f64 = m.row(i).iter().map(|&x| x as f64).sum();
        assert!((row - wsum).abs() < 1e-12, "{row} {wsum}");
    }
    // On the simplex (the rows normalised, as the output is): doubly stochastic.
    let m = m.normalized();
    assert!(m.simplex_gap() < 1e-6);
    let sh = dense_s_hat(&m);
    for i in 0..n {
        for j in 0..n {
            assert!((sh[[i, j]] - sh[[j, i]]).abs() < 1e-15);
        }
        assert!((sh.row(i).sum() - 1.0).abs() < 1e-6);
        assert!((sh.column(i).sum() - 1.0).abs() < 1e-6);
    }
    // The sparse pass computes the same Ŝ.
    let e = m.evaluate(&s);
    assert!((m.similarity(3, 7, &e.inv_s) - sh[[3, 7]]).abs() < 1e-12);
}

#[test]
fn model_perplexity_is_the_normalised_row_likelihood() {
    let n = 20;
    let m = Model::init(n, 3, 4);
    let test = random_s(n, 0.3, 8);
    let e = m.evaluate(&csr(&random_s(n, 0.3, 9)));
    let sh = dense_s_hat(&m);
    let (mut ll, mut mass) = (0.0, 0.0);
    for (&t, (i, j)) in test.iter() {
        ll += t * (sh[[i, j]] / sh.row(i).sum() + EPS).ln();
        mass += t;
    }
    let want = (-ll / mass).exp();
    let got = heldout::perplexity(&m, &csr(&test), &e.inv_s).unwrap();
    assert!((got - want).abs() < 1e-9 * want, "{got} {want}");
    // A uniform W predicts every word equally: perplexity N.
    let flat = Model::from_values(n, 3, vec![1.0 / 3.0; n * 3]).unwrap();
    let e = flat.evaluate(&csr(&test));
    let ppl = heldout::perplexity(&flat, &csr(&test), &e.inv_s).unwrap();
    assert!((ppl - n as f64).abs() < 1e-6, "{ppl}");
}

fn trainer(n: usize, threads: usize, tol: f64) -> DsnmfTrainer {
    let s = random_s(n, 0.2, 31);
    let test = random_s(n, 0.1, 32);
    let words: Vec<String> = (0..n).map(|i| format!("w{i}")).collect();
    let settings = Settings {
        dim: 4,
        window: 8,
        max_vocab: None,
        iterations: 500,
        tol,
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        DsnmfTrainer::new(
            settings,
            WordIndex::from_words(words),
            n + 5,
            &s,
            Some(&test),
            7,
        )
        .unwrap()
    })
}

#[test]
fn runs_are_bit_for_bit_whatever_the_thread_count() {
    // More rows than one parallel block, so blocks really run concurrently.
    let run = |threads: usize| {
        let mut t = trainer(300, threads, 0.0);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let curve: Vec<(u64, u64)> = pool.install(|| {
            (0..5)
                .map(|step| {
                    let r = t.step(step).unwrap();
                    (r.loss.to_bits(), t.model_perplexity().unwrap().to_bits())
                })
                .collect()
        });
        (curve, t.model().clone())
    };
    let (a, ma) = run(1);
    let (b, mb) = run(1);
    let (c, mc) = run(2);
    assert_eq!(a, b);
    assert_eq!(ma, mb);
    assert_eq!(a, c);
    assert_eq!(ma, mc);
}

#[test]
fn the_trainer_stops_at_the_tolerance_and_pads_scores() {
    let mut t = trainer(40, 1, 1e-4);
    let mut losses = vec![t.loss()];
    let mut step = 0;
    while !t.finished() && step < t.total_steps() {
        losses.push(t.step(step).unwrap().loss);
        step += 1;
    }
    assert!(t.finished(), "no convergence in {step} steps");
    assert!(step > 2 && step < 500, "{step}");
    let n = losses.len();
    assert!((losses[n - 2] - losses[n - 1]) / losses[n - 2] < 1e-4);
    assert!(t.take_note().unwrap().contains("converged at iteration"));
    // Scores: Ŝ_wc = words[w] · contexts[c]; rows past the matrix are zero.
    let view = t.scores().unwrap();
    assert_eq!(view.words.nrows(), 45);
    let projected = t.model().normalized();
    let e = projected.evaluate(&csr(&random_s(40, 0.2, 31)));
    let dot: f32 = view.words.row(2).dot(&view.contexts.row(9));
    assert!((dot as f64 - projected.similarity(2, 9, &e.inv_s)).abs() < 1e-7);
    assert!(view.words.row(42).iter().all(|&x| x == 0.0));
    let emb = Box::new(t).into_embedding().unwrap();
    assert_eq!((emb.len(), emb.dim()), (40, 4));
}
