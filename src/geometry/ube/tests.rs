//! Properties of whole UBE runs.

use super::objective::{loss, Moments};
use super::*;
use crate::geometry::testdata::gaussian_blobs;

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
    for update in Update::ALL {
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
    assert!(Ube::new(x, bad_lr).is_err());
    let tiny = ndarray::Array2::<f32>::zeros((2, 3));
    assert!(Ube::new(tiny, Config::new(3)).is_err());
}
