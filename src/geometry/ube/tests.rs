//! Properties of whole UBE runs.

use super::objective::{loss, Moments};
use super::*;
use crate::geometry::testdata::gaussian_blobs;
use crate::schema::Choice;

fn blobs_affinities(n: usize) -> Affinities {
    let x = gaussian_blobs(n, 8, 4, 3);
    Affinities::build(x.view(), 15, 3.0).unwrap()
}

#[test]
fn small_steps_never_increase_the_loss_and_rows_stay_unit() {
    for update in [Update::Newton, Update::Sgd] {
        let w = blobs_affinities(120);
        let config = Config {
            iters: 5,
            lr: 1e-3,
            update,
            ..Config::new(3)
        };
        let mut u = Ube::from_affinities(w, config).unwrap();
        let mut last = u.loss();
        while !u.is_done() {
            u.step().unwrap();
            assert!(
                u.loss() <= last + 1e-9 * last.abs(),
                "{update:?}: J rose from {last} to {}",
                u.loss()
            );
            last = u.loss();
            for r in u.coords().rows() {
                assert!((r.dot(&r) - 1.0).abs() < 1e-12);
            }
        }
    }
}

#[test]
fn runs_reduce_the_loss_keep_unit_rows_and_are_reproducible() {
    for &update in Update::ALL {
        let x = gaussian_blobs(150, 8, 3, 5);
        let config = Config {
            iters: 30,
            update,
            ..Config::new(3)
        };
        let (y, losses) = embed(x.clone(), config).unwrap();
        assert_eq!(losses.len(), 30);
        for r in y.rows() {
            assert!((r.dot(&r) - 1.0).abs() < 1e-12);
        }
        let w = Affinities::build(x.view(), 50, 3.0).unwrap();
        let start = super::init::random_sphere(150, 3, 1);
        let j0 = loss(
            &w,
            start.view(),
            &Moments::of(start.view()),
            w.sum_squares(),
        );
        assert!(
            losses[29] < j0,
            "{update:?}: J {j0} at the start, {} at the end",
            losses[29]
        );
        assert_eq!(embed(x, config).unwrap().0, y, "{update:?}");
    }
}

#[test]
fn well_separated_groups_end_apart_on_the_sphere() {
    let x = gaussian_blobs(120, 10, 3, 7);
    let config = Config {
        iters: 60,
        ..Config::new(3)
    };
    let (y, _) = embed(x, config).unwrap();
    // Mean cosine within a group well above the mean across groups.
    let (mut within, mut across, mut nw, mut na) = (0.0, 0.0, 0, 0);
    for i in 0..120 {
        for j in 0..i {
            let c = y.row(i).dot(&y.row(j));
            if i % 3 == j % 3 {
                within += c;
                nw += 1;
            } else {
                across += c;
                na += 1;
            }
        }
    }
    let (within, across) = (within / nw as f64, across / na as f64);
    assert!(within > across + 0.3, "within {within}, across {across}");
}

#[test]
fn bad_settings_are_refused() {
    let x = gaussian_blobs(20, 3, 2, 1);
    assert!(Ube::new(x.clone(), Config::new(1)).is_err());
    let bad_lr = Config {
        lr: 0.0,
        ..Config::new(3)
    };
    assert!(Ube::new(x.clone(), bad_lr).is_err());
    let tiny = ndarray::Array2::<f32>::zeros((2, 3));
    assert!(Ube::new(tiny, Config::new(3)).is_err());
    let floor_above_search = Config {
        k_max: 10,
        min_k: 11,
        ..Config::new(3)
    };
    let e = Ube::new(x, floor_above_search).err().unwrap().to_string();
    assert!(e.contains("min_k") && e.contains("k_max = 10"), "{e}");
}

/// Four points on the circle, edges 0–1 and 2–3 (weight ½ each way).
fn square() -> (Affinities, ndarray::Array2<f64>) {
    let w = Affinities {
        indptr: vec![0, 1, 2, 3, 4],
        ids: vec![1, 0, 3, 2],
        weights: vec![0.5; 4],
        kept: vec![1; 4],
        sigma: vec![1.0; 4],
    };
    let y = ndarray::array![[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]];
    (w, y)
}

/// One sweep of the authors' update at lr 0.1, by hand. Point 0, (1, 0):
/// attraction ½ y₁ → unit (0, 1); repulsion without its neighbour 1: only
/// y₃ with s = ½ (y₂ has s = 0) → unit (0, −1); direction (0, 2) → (0, 1);
/// y₀ ← (1, 0.1)/√1.01. Point 1, (0, 1): attraction ½ y₀ → unit y₀; its
/// repulsion: y₂ with s = ½ (y₃ has s = 0) → (−1, 0); direction
/// y₀ + (1, 0) = (1.99504, 0.09950) → unit (0.99876, 0.04981);
/// y₁ ← ((0, 1) + 0.1 · that)/‖·‖ = (0.09889, 0.99510). Points 2 and 3 the
/// same way, on the moved points.
#[test]
fn one_authors_sweep_matches_a_hand_computation() {
    let (w, mut y) = square();
    let mut mom = Moments::of(y.view());
    run::sweep(&w, &mut y, &mut mom, Update::Authors, 0.1);
    let want = [
        [0.995_037_190_209_989_3, 0.099_503_719_020_998_93],
        [0.098_893_636_407_608_26, 0.995_098_009_584_020_7],
        [-0.995_101_507_463_163, -0.098_858_433_350_628_08],
        [-0.098_003_266_848_606, -0.995_186_092_993_165_3],
    ];
    for (i, row) in want.iter().enumerate() {
        for (a, &v) in row.iter().enumerate() {
            assert!(
                (y[[i, a]] - v).abs() < 1e-12,
                "y[{i}][{a}] = {}, want {v}",
                y[[i, a]]
            );
        }
    }
    // The moments followed the moves.
    let fresh = Moments::of(y.view());
    for (a, b) in mom.gram.iter().zip(&fresh.gram) {
        assert!((a - b).abs() < 1e-12);
    }
    // `normalised` keeps neighbour 0 in point 1's repulsion: y₀ pushes
    // back (s = ½(y₀·y₁ + 1) > 0), so point 1 moves less towards it.
    let (w, mut y) = square();
    let mut mom = Moments::of(y.view());
    run::sweep(&w, &mut y, &mut mom, Update::Normalised, 0.1);
    assert!((y[[0, 1]] - 0.099_503_719_020_998_93).abs() < 1e-12);
    assert!((y[[1, 0]] - 0.050_626_929_703_057_93).abs() < 1e-12);
}

/// The authors' schedule: `ALPHA_INIT` 0.1 for the first sweep, then their
/// sigmoid, 0.0999 at sweep 2, 0.0787 half-way, 0.0108 at sweep 500
/// (values from their loop run for 500 sweeps).
#[test]
fn the_authors_learning_rate_falls_along_their_sigmoid() {
    let c = Config {
        update: Update::Authors,
        lr: 0.1,
        iters: 500,
        ..Config::new(3)
    };
    let want = [
        (1, 0.1),
        (2, 0.099_916_065_904_534_56),
        (250, 0.078_738_312_858_566_33),
        (500, 0.010_830_225_549_033_921),
    ];
    for (t, v) in want {
        assert!((c.lr_at(t) - v).abs() < 1e-12, "sweep {t}: {}", c.lr_at(t));
    }
    let sqrt = Config {
        lr: 0.1,
        ..Config::new(3)
    };
    assert!((sqrt.lr_at(4) - 0.05).abs() < 1e-15);
}

#[test]
fn a_floor_keeps_at_least_min_k_neighbours() {
    let x = gaussian_blobs(120, 8, 4, 3);
    let a = Affinities::build_with_floor(x.view(), 60, 45, 3.0, crate::geometry::knn::Search::Auto)
        .unwrap();
    assert!(a.kept.iter().all(|&k| k >= 45), "{:?}", a.kept);
    let b = Affinities::build(x.view(), 60, 3.0).unwrap();
    assert!(b.kept.iter().any(|&k| k < 45), "{:?}", b.kept);
    assert!(a.mean_kept() > b.mean_kept());
}
