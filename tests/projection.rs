//! End-to-end projection: the library pipeline (select → t-SNE/PCA → export)
//! and the `wordbench project` command on a small fixture of 60 words in four
//! well-separated groups (tests/fixtures/project/).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use wordbench::embedding::Embedding;
use wordbench::project::select::{select, Groups, Selection};
use wordbench::project::tsne::{Tsne, TsneConfig};
use wordbench::words::WordIndex;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/project")
        .join(name)
}

/// word → group, from the fixture's word list.
fn groups() -> HashMap<String, String> {
    std::fs::read_to_string(fixture("groups.txt"))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once(' '))
        .map(|(w, g)| (w.to_string(), g.to_string()))
        .collect()
}

/// Fraction of points whose nearest 2-D neighbour is in the same group.
fn nearest_same_group(words: &[String], coords: &[(f64, f64)]) -> f64 {
    let g = groups();
    let hits = (0..words.len())
        .filter(|&i| {
            let j = (0..words.len())
                .filter(|&j| j != i)
                .min_by(|&a, &b| {
                    let d = |k: usize| {
                        (coords[i].0 - coords[k].0).powi(2) + (coords[i].1 - coords[k].1).powi(2)
                    };
                    d(a).total_cmp(&d(b))
                })
                .unwrap();
            g[&words[i]] == g[&words[j]]
        })
        .count();
    hits as f64 / words.len() as f64
}

fn wordbench(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_wordbench"))
        .args(args)
        .output()
        .expect("run wordbench")
}

fn read_csv(path: &Path) -> (Vec<String>, Vec<(f64, f64)>, Vec<String>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("word,x,y,group"));
    let mut out = (Vec::new(), Vec::new(), Vec::new());
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        out.0.push(f[0].to_string());
        out.1.push((f[1].parse().unwrap(), f[2].parse().unwrap()));
        out.2.push(f[3].to_string());
    }
    out
}

#[test]
fn library_pipeline_separates_the_groups() {
    let emb = Embedding::load(fixture("vectors.txt")).unwrap();
    let selected = select(&emb, &Selection::Top(60)).unwrap();
    let vectors = selected.vectors(&emb, true);
    let mut tsne = Tsne::prepare(
        WordIndex::from_words(selected.words.clone()),
        vectors.view(),
        &TsneConfig::default(),
        &mut |_| {},
    )
    .unwrap();
    let kl = tsne.run().unwrap();
    assert!(kl.is_finite() && kl > 0.0 && kl < 1.5, "KL {kl}");
    let coords: Vec<(f64, f64)> = tsne.layout().iter().map(|p| (p[0], p[1])).collect();
    assert_eq!(nearest_same_group(&selected.words, &coords), 1.0);
    // k-means on the vectors recovers the four groups exactly.
    let km = Groups::from_kmeans(&vectors, 4, 1);
    let g = groups();
    for i in 0..60 {
        for j in 0..60 {
            let same_group = g[&selected.words[i]] == g[&selected.words[j]];
            assert_eq!(km.labels[i] == km.labels[j], same_group);
        }
    }
}

#[test]
fn cli_tsne_csv_is_reproducible_and_separates_the_groups() {
    let dir = tempfile::tempdir().unwrap();
    let vectors = fixture("vectors.txt");
    let mut runs = Vec::new();
    for threads in ["1", "2"] {
        let out = dir.path().join(format!("coords{threads}.csv"));
        let o = wordbench(&[
            "project",
            vectors.to_str().unwrap(),
            "--method",
            "tsne",
            "--perplexity",
            "10",
            "--threads",
            threads,
            "--clusters",
            "4",
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        runs.push(read_csv(&out));
    }
    let (words, coords, clusters) = &runs[0];
    assert_eq!(words.len(), 60);
    assert_eq!(nearest_same_group(words, coords), 1.0);
    assert!(clusters.iter().all(|c| c.starts_with("cluster ")));
    assert_eq!(
        runs[0], runs[1],
        "same seed: same layout with 1 and 2 threads"
    );
}

#[test]
fn cli_plots_pca_and_word_lists() {
    let dir = tempfile::tempdir().unwrap();
    let vectors = fixture("vectors.txt");
    let svg = dir.path().join("pca.svg");
    let o = wordbench(&[
        "project",
        vectors.to_str().unwrap(),
        "--method",
        "pca",
        "--out",
        svg.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(
        text.contains("PCA (exact): PC1 ("),
        "title states the method"
    );
    assert!(text.contains("60 most frequent words of vectors.txt"));
    let png = dir.path().join("groups.png");
    let o = wordbench(&[
        "project",
        vectors.to_str().unwrap(),
        "--words",
        fixture("groups.txt").to_str().unwrap(),
        "--out",
        png.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr)
        .contains("1 listed words are not in the vectors (e.g. unicorn)"));
    assert_eq!(&std::fs::read(&png).unwrap()[1..4], b"PNG");
    let csv = dir.path().join("around.csv");
    let o = wordbench(&[
        "project",
        vectors.to_str().unwrap(),
        "--method",
        "pca",
        "--around",
        "cat",
        "--top",
        "5",
        "--dims",
        "3",
        "--out",
        csv.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(text.starts_with("word,x,y,z,group\ncat,"), "{text}");
    assert_eq!(text.lines().count(), 7);
}

#[test]
fn cli_errors_are_one_line() {
    let vectors = fixture("vectors.txt");
    let v = vectors.to_str().unwrap();
    for (args, expect) in [
        (
            vec!["project", v, "--out", "x.txt"],
            "expected a .png, .svg or .csv file",
        ),
        (
            vec!["project", v, "--around", "unicorn", "--out", "x.csv"],
            "word not in vocabulary: unicorn",
        ),
        (
            vec!["project", v, "--set", "theta=2", "--out", "x.csv"],
            "invalid value for theta",
        ),
        (
            vec!["project", "/no/such.vec", "--out", "x.csv"],
            "/no/such.vec",
        ),
    ] {
        let o = wordbench(&args);
        assert!(!o.status.success());
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(expect), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
}
