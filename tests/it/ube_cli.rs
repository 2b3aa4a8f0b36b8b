//! `wordbench project --method ube` and `wordbench cluster` end to end, on
//! the projection fixture's 60 words in four well-separated groups.

use crate::common;

/// This file's fixtures, under `tests/fixtures/`.
const FIXTURES: &str = "project";

#[test]
fn ube_writes_unit_3d_rows_and_cluster_recovers_the_groups() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("sphere.csv");
    let vectors = common::fixture(FIXTURES, "vectors.txt");
    let out = common::wordbench(&[
        "project",
        vectors.to_str().unwrap(),
        "--method",
        "ube",
        "--dim",
        "3",
        "--clusters",
        "0",
        "--set",
        "iters=60",
        "--threads",
        "1",
        "--quiet",
        "--out",
        csv.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("word,x,y,z,group"));
    let mut rows = 0;
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        let v: Vec<f64> = f[1..4].iter().map(|x| x.parse().unwrap()).collect();
        let norm: f64 = v.iter().map(|x| x * x).sum::<f64>();
        assert!((norm - 1.0).abs() < 1e-6, "{line}");
        rows += 1;
    }
    assert_eq!(rows, 60);

    let groups = common::fixture(FIXTURES, "groups.txt");
    let out = common::wordbench(&[
        "cluster",
        csv.to_str().unwrap(),
        "--k",
        "4",
        "--labels",
        groups.to_str().unwrap(),
        "--runs",
        "5",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["points"], 60);
    assert_eq!(v["nmi"].as_array().unwrap().len(), 5);
    let nmi = v["nmi_mean"].as_f64().unwrap();
    assert!(nmi > 90.0, "NMI {nmi}");

    // The raw vectors cluster too (a vectors file instead of a CSV).
    let out = common::wordbench(&["cluster", vectors.to_str().unwrap(), "--k", "4"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("k-means: 60 points in 8-d"));
}

#[test]
fn bad_cluster_and_ube_options_fail_with_one_line() {
    let vectors = common::fixture(FIXTURES, "vectors.txt");
    let v = vectors.to_str().unwrap();
    let out = common::wordbench(&["cluster", v, "--k", "0"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid value '0' for '--k <K>'"));
    let out = common::wordbench(&["cluster", v, "--k", "99"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("only 60 points"));
    let out = common::wordbench(&[
        "project", v, "--method", "lle", "--dim", "3", "--out", "x.csv",
    ]);
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("needs --method tsne or pca or ube or umap (lle lays out in 2-D)"));
    let out = common::wordbench(&[
        "project",
        v,
        "--method",
        "ube",
        "--set",
        "update=fast",
        "--out",
        "x.csv",
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("update"));
}
