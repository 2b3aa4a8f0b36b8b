//! The split against its definition: memberships sum to one, the senses
//! sum to the word's row, and NNDSVD equals its formula on a dense SVD.

use nalgebra::DMatrix;
use ndarray::Array2;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::nndsvd::{self, SplitSolver};
use super::split::{row, split_word};
use crate::linalg::Csr;

/// A symmetric non-negative `n × n` matrix with two blocks of words
/// (`0..n/2` and `n/2..n`) plus word 0, which co-occurs with both, and some
/// sparsity.
fn two_topic_matrix(n: usize, seed: u64) -> Csr {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut dense = vec![0.0f64; n * n];
    for i in 0..n {
        for j in i + 1..n {
            let same = (i < n / 2) == (j < n / 2) || i == 0;
            let v = if same && rng.random::<f64>() < 0.6 {
                0.5 + rng.random::<f64>()
            } else if rng.random::<f64>() < 0.05 {
                0.2 * rng.random::<f64>()
            } else {
                0.0
            };
            dense[i * n + j] = v;
            dense[j * n + i] = v;
        }
    }
    csr_of(&dense, n, n)
}

fn csr_of(dense: &[f64], rows: usize, cols: usize) -> Csr {
    let mut indptr = vec![0];
    let (mut indices, mut data) = (Vec::new(), Vec::new());
    for i in 0..rows {
        for j in 0..cols {
            let v = dense[i * cols + j];
            if v != 0.0 {
                indices.push(j as u32);
                data.push(v);
            }
        }
        indptr.push(indices.len());
    }
    Csr::new((rows, cols), indptr, indices, data).unwrap()
}

#[test]
fn memberships_sum_to_one_and_senses_sum_to_the_row() {
    let p = two_topic_matrix(60, 3);
    for (word, k) in [(0u32, 2usize), (0, 3), (5, 2), (40, 3)] {
        let s = split_word(&p, word, k, SplitSolver::default(), 11)
            .unwrap()
            .expect("enough contexts");
        let (columns, values) = row(&p, word as usize);
        assert_eq!(s.columns, columns);
        assert_eq!(s.senses.len(), k);
        assert!(s.memberships.iter().all(|&m| m >= 0.0));
        for col in s.memberships.columns() {
            assert!((col.sum() - 1.0).abs() < 1e-12, "{}", col.sum());
        }
        for (l, &p) in values.iter().enumerate() {
            let sum: f64 = s.senses.iter().map(|x| x.values[l]).sum();
            assert!((sum - p).abs() < 1e-12 * p.max(1.0), "{sum} vs {p}");
        }
        let mass: f64 = s.senses.iter().map(|x| x.mass).sum();
        assert!((mass - 1.0).abs() < 1e-12);
        assert!(s.senses.windows(2).all(|w| w[0].mass >= w[1].mass));
    }
}

#[test]
fn the_bridge_word_splits_along_the_two_topics() {
    let n = 60;
    let p = two_topic_matrix(n, 5);
    let s = split_word(&p, 0, 2, SplitSolver::default(), 1)
        .unwrap()
        .unwrap();
    // The topics' context words lean differently: NNDSVD's first row
    // (√σ_1 |v_1|) covers both topics, its second only one, so one topic's
    // words are almost all in one sense and the other's mostly in the other.
    let lean = |range: std::ops::Range<usize>| -> f64 {
        let (mut a, mut c) = (0.0, 0.0);
        for (l, &col) in s.columns.iter().enumerate() {
            if range.contains(&(col as usize)) {
                a += s.memberships[[0, l]];
                c += 1.0;
            }
        }
        a / c
    };
    let (first, second) = (lean(1..n / 2), lean(n / 2..n));
    assert!((first - second).abs() > 0.5, "{first} {second}");
    assert!(first.max(second) > 0.9, "{first} {second}");
}

#[test]
fn words_with_too_few_contexts_stay_whole_or_get_fewer_senses() {
    // Word 0 has three contexts (at most 2 senses), word 1 two (none).
    #[rustfmt::skip]
    let dense = [
        0.0, 1.0, 2.0, 1.0,
        1.0, 0.0, 0.0, 3.0,
        2.0, 0.0, 0.0, 0.0,
        1.0, 3.0, 0.0, 0.0,
    ];
    let p = csr_of(&dense, 4, 4);
    let s = split_word(&p, 0, 3, SplitSolver::default(), 1)
        .unwrap()
        .unwrap();
    assert_eq!(s.senses.len(), 2);
    assert!(split_word(&p, 1, 2, SplitSolver::default(), 1)
        .unwrap()
        .is_none());
}

/// NNDSVD by its definition from a dense SVD (nalgebra).
fn nndsvd_reference(c: &DMatrix<f64>, k: usize) -> Array2<f64> {
    let svd = c.clone().svd(true, true);
    let mut order: Vec<usize> = (0..svd.singular_values.len()).collect();
    order.sort_by(|&a, &b| svd.singular_values[b].total_cmp(&svd.singular_values[a]));
    let (u, vt) = (svd.u.unwrap(), svd.v_t.unwrap());
    let n = c.ncols();
    let mut h = Array2::zeros((k, n));
    for (j, &o) in order.iter().take(k).enumerate() {
        let sigma = svd.singular_values[o];
        let uj: Vec<f64> = u.column(o).iter().copied().collect();
        let vj: Vec<f64> = vt.row(o).iter().copied().collect();
        if j == 0 {
            for i in 0..n {
                h[[0, i]] = sigma.sqrt() * vj[i].abs();
            }
            continue;
        }
        let pos = |x: &[f64], s: f64| x.iter().map(|v| (s * v).max(0.0)).collect::<Vec<_>>();
        let norm = |x: &[f64]| x.iter().map(|v| v * v).sum::<f64>().sqrt();
        let (up, un, vp, vn) = (pos(&uj, 1.0), pos(&uj, -1.0), pos(&vj, 1.0), pos(&vj, -1.0));
        let (mp, mn) = (norm(&up) * norm(&vp), norm(&un) * norm(&vn));
        let (v, m) = if mp >= mn { (vp, mp) } else { (vn, mn) };
        let vnorm = norm(&v);
        for i in 0..n {
            h[[j, i]] = (sigma * m).sqrt() * v[i] / vnorm;
        }
    }
    h
}

#[test]
fn nndsvd_matches_its_definition_on_a_dense_svd() {
    let (m, n, k) = (9, 14, 3);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
    let dense: Vec<f64> = (0..m * n)
        .map(|_| {
            if rng.random::<f64>() < 0.3 {
                0.0
            } else {
                rng.random::<f64>()
            }
        })
        .collect();
    let c = DMatrix::from_row_slice(m, n, &dense);
    let expect = nndsvd_reference(&c, k);
    let solver = SplitSolver {
        tol: 1e-12,
        ..SplitSolver::default()
    };
    let svd = nndsvd::svd(csr_of(&dense, m, n), k, solver, 4).unwrap();
    let h = nndsvd::h_factor(&svd);
    assert_eq!(h.dim(), (k, n));
    for (a, b) in h.iter().zip(expect.iter()) {
        assert!((a - b).abs() < 1e-8, "{a} vs {b}\n{h}\n{expect}");
    }
    // A sign flip of a pair (u_j, v_j) changes nothing.
    let mut flipped = svd.clone();
    flipped.u.column_mut(1).mapv_inplace(|x| -x);
    flipped.v.column_mut(1).mapv_inplace(|x| -x);
    assert_eq!(nndsvd::h_factor(&flipped), h);
}

#[test]
fn nmf_refinement_keeps_factors_non_negative_and_lowers_the_error() {
    let (m, n, k) = (12, 20, 3);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
    let dense: Vec<f64> = (0..m * n)
        .map(|_| {
            if rng.random::<f64>() < 0.4 {
                0.0
            } else {
                rng.random::<f64>()
            }
        })
        .collect();
    let c = csr_of(&dense, m, n);
    let svd = nndsvd::svd(c.clone(), k, SplitSolver::default(), 1).unwrap();
    let (mut w, mut h) = nndsvd::factors(&svd);
    assert_eq!(h, nndsvd::h_factor(&svd));
    let error = |w: &Array2<f64>, h: &Array2<f64>| {
        let wh = w.dot(h);
        (0..m * n)
            .map(|i| (dense[i] - wh[[i / n, i % n]]).powi(2))
            .sum::<f64>()
    };
    let before = error(&w, &h);
    nndsvd::refine(&c, &mut w, &mut h, 30);
    let after = error(&w, &h);
    assert!(after < before, "{after} vs {before}");
    assert!(w.iter().chain(h.iter()).all(|&x| x >= 0.0));
}
