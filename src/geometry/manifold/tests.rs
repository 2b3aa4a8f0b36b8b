//! The three methods on a seeded Swiss roll: each must unroll it (its
//! layout trustworthy, one axis in rank order with the roll's coordinate),
//! plus the structural properties of docs/methods/manifold.md.

use super::score::{best_axis_spearman, trustworthiness};
use super::swiss::swiss_roll;
use super::*;

const N: usize = 1500;

/// Runs `config` on the roll; returns (trustworthiness at 10, Spearman with t).
fn unroll(config: Config) -> (Embedded, f64, f64) {
    let (x, t) = swiss_roll(N, 0.05, 11);
    let e = embed(x.view(), config).unwrap();
    assert_eq!(e.coords.dim(), (N, config.dim));
    let y = e.coords.mapv(|v| v as f32);
    let tw = trustworthiness(x.view(), y.view(), 10);
    let rho = best_axis_spearman(e.coords.view(), &t);
    eprintln!(
        "{:?}: trustworthiness {tw:.4}, spearman {rho:.4}, {}",
        config.kind, e.report
    );
    (e, tw, rho)
}

#[test]
fn isomap_unrolls_the_swiss_roll() {
    let (e, tw, rho) = unroll(Config::new(Kind::Isomap, 2, 10));
    assert!(e.converged);
    assert!(tw > 0.95, "trustworthiness {tw}");
    assert!(rho > 0.95, "spearman {rho}");
    let Report::Isomap { residual_variance } = e.report else {
        panic!()
    };
    assert!(residual_variance < 0.05, "{residual_variance}");
}

#[test]
fn landmark_isomap_unrolls_the_swiss_roll() {
    let (e, tw, rho) = unroll(Config {
        landmarks: 100,
        ..Config::new(Kind::Isomap, 2, 10)
    });
    assert!(e.converged);
    assert!(tw > 0.95, "trustworthiness {tw}");
    assert!(rho > 0.95, "spearman {rho}");
}

#[test]
fn lle_unrolls_the_swiss_roll() {
    let (e, tw, rho) = unroll(Config::new(Kind::Lle, 2, 12));
    assert!(e.converged);
    assert!(tw > 0.95, "trustworthiness {tw}");
    assert!(rho > 0.95, "spearman {rho}");
    let Report::Lle { trace, .. } = e.report else {
        panic!()
    };
    assert!(trace < 1e-5, "{trace}");
}

#[test]
fn laplacian_unrolls_the_swiss_roll() {
    let (e, tw, rho) = unroll(Config::new(Kind::Laplacian, 2, 10));
    assert!(e.converged);
    // Its second axis folds the roll's width (a known trait of the method:
    // eigenvector 3 is the second harmonic of the length), hence the lower bound.
    assert!(tw > 0.87, "trustworthiness {tw}");
    assert!(rho > 0.9, "spearman {rho}");
    let dropped = e.dropped.unwrap();
    let mean = dropped.iter().sum::<f64>() / N as f64;
    let spread = dropped.iter().map(|v| (v - mean).abs()).fold(0.0, f64::max);
    assert!(spread < 1e-6 * mean.abs(), "{spread} around {mean}");
}

#[test]
fn lle_weights_sum_to_one_on_the_roll() {
    let (x, _) = swiss_roll(300, 0.05, 3);
    let g = crate::geometry::knn::knn(x.view(), 8);
    let lists: Vec<&[u32]> = (0..300).map(|i| g.row(i).0).collect();
    let w = lle::weights(x.view(), &lists, 1e-3).unwrap();
    for i in 0..300 {
        let span = w.w.indptr()[i]..w.w.indptr()[i + 1];
        assert_eq!(span.len(), 8);
        let sum: f64 = w.w.data()[span].iter().sum();
        assert!((sum - 1.0).abs() < 1e-12, "row {i}: {sum}");
    }
}

#[test]
fn a_disconnected_graph_fails_with_its_component_sizes() {
    // Two rolls far apart: 5 neighbours never bridge them.
    let (a, _) = swiss_roll(120, 0.0, 1);
    let (b, _) = swiss_roll(80, 0.0, 2);
    let mut x = ndarray::concatenate![ndarray::Axis(0), a, b];
    x.slice_mut(ndarray::s![120.., 0])
        .mapv_inplace(|v| v + 1000.0);
    for kind in [Kind::Isomap, Kind::Lle, Kind::Laplacian] {
        let e = embed(x.view(), Config::new(kind, 2, 5))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("invalid value for k: 5 leaves the neighbourhood graph in 2 components (sizes 120, 80)"),
            "{kind:?}: {e}"
        );
        assert!(e.contains("raise k"), "{e}");
    }
}

#[test]
fn bad_settings_are_one_line_errors_naming_the_parameter() {
    let (x, _) = swiss_roll(20, 0.0, 1);
    let err = |c: Config| embed(x.view(), c).unwrap_err().to_string();
    assert!(err(Config::new(Kind::Isomap, 2, 20))
        .starts_with("invalid value for k: 20 neighbours of 20 points"));
    assert!(err(Config::new(Kind::Isomap, 20, 5)).starts_with("invalid value for dim:"));
    assert!(err(Config::new(Kind::Lle, 19, 5)).starts_with("invalid value for dim:"));
    assert!(err(Config {
        landmarks: 30,
        ..Config::new(Kind::Isomap, 2, 5)
    })
    .starts_with("invalid value for landmarks"));
    assert!(err(Config {
        reg: 0.0,
        ..Config::new(Kind::Lle, 2, 5)
    })
    .starts_with("invalid value for reg"));
    assert!(err(Config {
        heat: -1.0,
        ..Config::new(Kind::Laplacian, 2, 5)
    })
    .starts_with("invalid value for heat"));
    let tiny = ndarray::array![[0.0f32], [1.0]];
    assert!(embed(tiny.view(), Config::new(Kind::Isomap, 1, 1)).is_err());
}

#[test]
fn isomap_past_the_memory_limit_is_refused_with_its_size() {
    // 200,000 points: 200k² f32 = 160 GB of all-pairs geodesic distances.
    let n = 200_000;
    let budget = 12_000_000_000;
    let exact = Config::new(Kind::Isomap, 2, 10).check_memory(n, budget);
    let msg = exact.unwrap_err().to_string();
    assert_eq!(
        msg,
        "invalid value for landmarks: 0 (exact Isomap) on 200000 points: all-pairs geodesic \
         distances (200000 x 200000 f32) would need about 160.0 GB, more than the budget of \
         12.0 GB (half of this machine's memory); set landmarks (e.g. --set landmarks=1000)"
    );
    assert!(!msg.contains('\n'));
    // Landmarks: 1,000 x 200,000 f32 = 800 MB fits; 20,000 (16 GB) does not.
    let with = |landmarks| Config {
        landmarks,
        ..Config::new(Kind::Isomap, 2, 10)
    };
    assert!(with(1000).check_memory(n, budget).is_ok());
    assert!(with(20_000)
        .check_memory(n, budget)
        .unwrap_err()
        .to_string()
        .contains("(20000 x 200000 f32) would need about 16.0 GB"));
    // Exactly at the limit is allowed; LLE and Laplacian are linear in n.
    assert!(Config::new(Kind::Isomap, 2, 10)
        .check_memory(1000, 4_000_000)
        .is_ok());
    assert!(Config::new(Kind::Isomap, 2, 10)
        .check_memory(1001, 4_000_000)
        .is_err());
    for kind in [Kind::Lle, Kind::Laplacian] {
        assert!(Config::new(kind, 2, 10).check_memory(n, 1).is_ok());
    }
}

#[test]
fn one_thread_runs_are_reproducible_bit_for_bit() {
    let (x, _) = swiss_roll(400, 0.05, 5);
    for kind in [Kind::Isomap, Kind::Lle, Kind::Laplacian] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let a = pool.install(|| embed(x.view(), Config::new(kind, 2, 10)).unwrap());
        let b = embed(x.view(), Config::new(kind, 2, 10)).unwrap();
        let c = pool.install(|| embed(x.view(), Config::new(kind, 2, 10)).unwrap());
        assert_eq!(a.coords, c.coords, "{kind:?}");
        // Parallel sums are in a fixed order too.
        assert_eq!(a.coords, b.coords, "{kind:?}");
    }
}

/// Ten points in the plane, `k = 4` with `symmetrise=mean`: the graph is
/// `(A + Aᵀ)/2` of each point's 4 nearest counting itself (4 of its 15
/// edges weigh ½), and the layout is eigenvectors 2 and 3 of
/// `D^-½ W D^-½` divided by `√D`. The reference columns are scikit-learn
/// 1.9's `SpectralEmbedding(n_components=2, n_neighbors=4)` on these points,
/// equal to 2e-16 to numpy's dense `eigh` of that matrix (its eigenvalues
/// 1, 0.7595, 0.4654, ... are well apart); ours are the same vectors times
/// `√(Σ D) = √30`.
#[test]
fn mean_symmetrised_laplacian_matches_a_dense_reference() {
    let x = ndarray::array![
        [0.0f32, 0.0],
        [1.0, 0.3],
        [2.2, 0.1],
        [3.1, 0.9],
        [3.3, 2.4],
        [2.0, 2.9],
        [0.6, 2.2],
        [-0.5, 1.2],
        [1.5, 1.4],
        [4.5, 1.0]
    ];
    let reference = [
        [-0.2238471882, -0.1311518396],
        [-0.1468234831, -0.1979919059],
        [0.0518921013, -0.2101778719],
        [0.2522539636, -0.1052167365],
        [0.246543436, 0.1312434103],
        [0.0331695641, 0.3564017318],
        [-0.1307312346, 0.2859691863],
        [-0.2253963539, 0.0479809403],
        [-0.1056574391, -0.00514418],
        [0.276350417, -0.0679574877],
    ];
    let config = Config {
        symmetrise: Symmetrise::Mean,
        ..Config::new(Kind::Laplacian, 2, 4)
    };
    let e = embed(x.view(), config).unwrap();
    assert!(e.converged);
    let scale = 30f64.sqrt();
    for (i, row) in reference.iter().enumerate() {
        for (j, &want) in row.iter().enumerate() {
            let got = e.coords[[i, j]] / scale;
            assert!((got - want).abs() < 1e-9, "[{i}, {j}]: {got} vs {want}");
        }
    }
    let lambda = [1.0 - 0.7595334298, 1.0 - 0.4653630661];
    for (got, want) in e.eigenvalues.iter().zip(lambda) {
        assert!((got - want).abs() < 1e-9, "{got} vs {want}");
    }
    // The paper's union graph weighs those 4 edges 1 and lists 4 others:
    // another layout.
    let union = embed(x.view(), Config::new(Kind::Laplacian, 2, 4)).unwrap();
    assert!((union.coords[[0, 0]] / scale - reference[0][0]).abs() > 1e-3);
    let one = Config {
        symmetrise: Symmetrise::Mean,
        ..Config::new(Kind::Laplacian, 2, 1)
    };
    assert!(embed(x.view(), one)
        .unwrap_err()
        .to_string()
        .starts_with("invalid value for k: 1 with symmetrise=mean"));
}
