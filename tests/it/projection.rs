//! End-to-end projection: the library pipeline (select → t-SNE/PCA → export)
//! and the `wordbench project` command on a small fixture of 60 words in four
//! well-separated groups (tests/fixtures/project/).

use std::collections::HashMap;
use std::path::Path;

use crate::common;
use wordbench::embedding::Embedding;
use wordbench::project::select::{select, Groups, Selection};
use wordbench::project::tsne::{Tsne, TsneConfig};
use wordbench::words::WordIndex;

/// This file's fixtures, under `tests/fixtures/`.
const FIXTURES: &str = "project";

/// word → group, from the fixture's word list.
fn groups() -> HashMap<String, String> {
    std::fs::read_to_string(common::fixture(FIXTURES, "groups.txt"))
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

/// `wordbench project <fixture vectors.txt> ARGS... --out OUT`, which must
/// succeed; returns its output.
fn project_fixture(out: &Path, args: &[&str]) -> std::process::Output {
    let vectors = common::fixture(FIXTURES, "vectors.txt");
    let mut all = vec!["project", vectors.to_str().unwrap()];
    all.extend_from_slice(args);
    all.extend(["--out", out.to_str().unwrap()]);
    let o = common::wordbench(&all);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    o
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
    let emb = Embedding::load(common::fixture(FIXTURES, "vectors.txt")).unwrap();
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
    let mut runs = Vec::new();
    for threads in ["1", "2"] {
        let out = dir.path().join(format!("coords{threads}.csv"));
        project_fixture(
            &out,
            &[
                "--method",
                "tsne",
                "--perplexity",
                "10",
                "--threads",
                threads,
                "--clusters",
                "4",
                "--quiet",
            ],
        );
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
fn cli_knn_option_picks_the_neighbour_search() {
    let dir = tempfile::tempdir().unwrap();
    let mut runs = Vec::new();
    for knn in ["auto", "exact", "approximate"] {
        let out = dir.path().join(format!("{knn}.csv"));
        let set = format!("knn={knn}");
        project_fixture(
            &out,
            &[
                "--method",
                "tsne",
                "--perplexity",
                "5",
                "--set",
                &set,
                "--quiet",
            ],
        );
        runs.push(read_csv(&out));
    }
    assert_eq!(runs[0], runs[1], "auto is exact on a small input");
    let (words, coords, _) = &runs[2];
    let kept = nearest_same_group(words, coords);
    assert!(
        kept >= 0.9,
        "the approximate neighbours keep the groups apart: {kept}"
    );
}

#[test]
fn cli_plots_pca_and_word_lists() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("pca.svg");
    project_fixture(&svg, &["--method", "pca"]);
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(
        text.contains("PCA (exact): PC1 ("),
        "title states the method"
    );
    assert!(text.contains("60 most frequent words of vectors.txt"));
    let png = dir.path().join("groups.png");
    let o = project_fixture(
        &png,
        &[
            "--words",
            common::fixture(FIXTURES, "groups.txt").to_str().unwrap(),
            "--quiet",
        ],
    );
    assert!(String::from_utf8_lossy(&o.stderr)
        .contains("1 listed words are not in the vectors (e.g. unicorn)"));
    assert_eq!(&std::fs::read(&png).unwrap()[1..4], b"PNG");
    let csv = dir.path().join("around.csv");
    project_fixture(
        &csv,
        &[
            "--method", "pca", "--around", "cat", "--top", "5", "--dims", "3",
        ],
    );
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(text.starts_with("word,x,y,z,group\ncat,"), "{text}");
    assert_eq!(text.lines().count(), 7);
}

#[test]
fn tsne_and_umap_write_3d_layouts_that_keep_the_groups_apart() {
    let dir = tempfile::tempdir().unwrap();
    let groups = groups();
    for method in ["tsne", "umap"] {
        let csv = dir.path().join(format!("{method}3.csv"));
        let mut args = vec!["--method", method, "--dims", "3", "--quiet"];
        if method == "tsne" {
            args.extend(["--perplexity", "10"]);
        } else {
            args.extend(["--set", "n_neighbors=8"]);
        }
        project_fixture(&csv, &args);
        let text = std::fs::read_to_string(&csv).unwrap();
        assert!(text.starts_with("word,x,y,z"), "{method}: {text}");
        let rows: Vec<(String, [f64; 3])> = text
            .lines()
            .skip(1)
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                let p = |i: usize| f[i].parse::<f64>().unwrap();
                (f[0].to_string(), [p(1), p(2), p(3)])
            })
            .collect();
        // Each word's nearest word in 3-D shares its group (60 words, 4 groups).
        let same = rows
            .iter()
            .filter(|(w, a)| {
                let nearest = rows
                    .iter()
                    .filter(|(v, _)| v != w)
                    .min_by(|(_, b), (_, c)| {
                        let d = |x: &[f64; 3]| (0..3).map(|k| (a[k] - x[k]).powi(2)).sum::<f64>();
                        d(b).total_cmp(&d(c))
                    })
                    .unwrap();
                groups.get(w) == groups.get(&nearest.0)
            })
            .count();
        assert_eq!(rows.len(), 60);
        assert!(
            same >= 57,
            "{method}: {same}/60 nearest words in the same group"
        );
    }
}

#[test]
fn cli_errors_are_one_line() {
    let vectors = common::fixture(FIXTURES, "vectors.txt");
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
            vec!["project", v, "--set", "knn=fast", "--out", "x.csv"],
            "invalid value for knn",
        ),
        (
            vec!["project", "/no/such.vec", "--out", "x.csv"],
            "/no/such.vec",
        ),
        (
            vec!["project", v, "--top", "3", "--out", "x.csv"],
            "invalid value for words: 3 point(s); t-SNE needs at least 4",
        ),
        (
            vec![
                "project", v, "--method", "isomap", "--dims", "3", "--out", "x.csv",
            ],
            "3 needs --method tsne or pca or ube or umap (isomap lays out in 2-D)",
        ),
        (
            vec![
                "project",
                v,
                "--set",
                "gradient=fft",
                "--dims",
                "3",
                "--out",
                "x.csv",
            ],
            "invalid value for gradient: fft in 3-D",
        ),
        (
            vec!["project", v, "--out", "/no/such/dir/plot.png"],
            "/no/such/dir/plot.png: directory /no/such/dir does not exist",
        ),
    ] {
        let o = common::wordbench(&args);
        assert!(!o.status.success());
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(expect), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
}

/// Checks that `svg` is well-formed XML as plotters writes it (no comments,
/// CDATA or doctype): one root element, balanced tags, quoted attributes and
/// text with no raw `<` and only the predefined entities.
fn assert_well_formed(svg: &str) {
    let mut stack: Vec<&str> = Vec::new();
    let mut roots = 0;
    let mut rest = svg.trim();
    let text_ok = |t: &str| {
        !t.contains('<')
            && t.match_indices('&').all(|(i, _)| {
                ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"]
                    .iter()
                    .any(|e| t[i..].starts_with(e))
            })
    };
    while !rest.is_empty() {
        let open = rest.find('<').unwrap_or(rest.len());
        let text = &rest[..open];
        assert!(text_ok(text), "bad text {text:?}");
        assert!(
            !stack.is_empty() || text.trim().is_empty(),
            "text outside the root: {text:?}"
        );
        if open == rest.len() {
            break;
        }
        let close = rest[open..].find('>').expect("unclosed tag") + open;
        let tag = &rest[open + 1..close];
        rest = &rest[close + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop(), Some(name.trim()), "mismatched </{name}>");
            continue;
        }
        let empty = tag.ends_with('/');
        let body = tag.trim_end_matches('/');
        let name = body.split_whitespace().next().expect("tag name");
        // Attributes: name="value" pairs, values without '<' or a raw '"'.
        let mut attrs = body[name.len()..].trim();
        while !attrs.is_empty() {
            let eq = attrs
                .find("=\"")
                .unwrap_or_else(|| panic!("unquoted attribute in <{tag}>"));
            assert!(!attrs[..eq].trim().contains(char::is_whitespace), "<{tag}>");
            let end = attrs[eq + 2..].find('"').expect("unterminated attribute") + eq + 2;
            assert!(text_ok(&attrs[eq + 2..end]), "bad attribute in <{tag}>");
            attrs = attrs[end + 1..].trim_start();
        }
        if stack.is_empty() {
            roots += 1;
        }
        if !empty {
            stack.push(name);
        }
    }
    assert!(stack.is_empty(), "unclosed elements {stack:?}");
    assert_eq!(roots, 1, "one root element");
}

#[test]
fn cli_tsne_svg_is_well_formed_with_a_descriptive_title() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("tsne.svg");
    project_fixture(
        &svg,
        &[
            "--method",
            "tsne",
            "--perplexity",
            "10",
            "--seed",
            "7",
            "--quiet",
        ],
    );
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg "), "{}", &text[..40]);
    assert!(text.contains("xmlns=\"http://www.w3.org/2000/svg\""));
    assert_well_formed(&text);
    assert!(text.contains(
        "t-SNE: perplexity 10, 750 iterations (250 exaggerated x12), exact gradient, PCA init, seed 7"
    ));
    assert!(text.contains("colours: k-means, 8 clusters"));
    // Every label is a text element with a font a browser can resolve.
    let texts = text.matches("<text ").count();
    // (labels that would overlap an earlier one are skipped)
    assert!(texts >= 40, "{texts} text elements for 60 words and titles");
    assert_eq!(text.matches("font-family=\"").count(), texts);
    // No temporary file is left next to the output.
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(names.len(), 1);
}

#[test]
fn well_formedness_check_catches_broken_svg() {
    for bad in [
        "<svg><text>a</svg>",
        "<svg><text>a & b</text></svg>",
        "<svg x=1></svg>",
        "<svg></svg><svg></svg>",
    ] {
        assert!(
            std::panic::catch_unwind(|| assert_well_formed(bad)).is_err(),
            "{bad}"
        );
    }
    assert_well_formed("<svg a=\"1\"><text b=\"&lt;\">x &amp; y</text><circle r=\"3\"/></svg>");
}

/// Vectors holding NaN or inf stop at read time with file:line and the word,
/// for PCA and t-SNE alike (t-SNE used to panic, PCA to write NaN coordinates).
#[test]
fn cli_non_finite_vectors_are_located_errors() {
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path().join("v.txt");
    let mut text = String::from("6 2\n");
    for i in 0..6 {
        let second = if i == 3 {
            "inf".to_string()
        } else {
            i.to_string()
        };
        text.push_str(&format!("w{i} 1 {second}\n"));
    }
    std::fs::write(&v, text).unwrap();
    let out = dir.path().join("p.csv");
    for method in ["pca", "tsne"] {
        let o = common::wordbench(&[
            "project",
            v.to_str().unwrap(),
            "--method",
            method,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(!o.status.success());
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("v.txt:5: value 2 of word 'w3' is 'inf', expected a finite number"),
            "{method}: {err}"
        );
        assert!(!out.exists());
    }
}

#[test]
fn cli_graph_methods_write_layouts_and_name_a_disconnected_graph() {
    let dir = tempfile::tempdir().unwrap();
    for method in ["isomap", "lle", "laplacian"] {
        let out = dir.path().join(format!("{method}.csv"));
        project_fixture(
            &out,
            &[
                "--method",
                method,
                "--neighbours",
                "20",
                "--threads",
                "2",
                "--quiet",
            ],
        );
        let (words, coords, _) = read_csv(&out);
        assert_eq!(words.len(), 60, "{method}");
        let kept = nearest_same_group(&words, &coords);
        assert!(kept >= 0.8, "{method}: {kept}");
    }
    // Four groups far apart: 3 neighbours leave them unconnected.
    let vectors = common::fixture(FIXTURES, "vectors.txt");
    let out = dir.path().join("bad.csv");
    let o = common::wordbench(&[
        "project",
        vectors.to_str().unwrap(),
        "--method",
        "isomap",
        "--neighbours",
        "3",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("invalid value for k: 3 leaves the neighbourhood graph in")
            && err.contains("raise k"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    // t-SNE's option is refused for a graph method, and the other way round.
    let o = common::wordbench(&[
        "project",
        vectors.to_str().unwrap(),
        "--method",
        "lle",
        "--perplexity",
        "5",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("--perplexity is a t-SNE option"));
}

/// UMAP through the registry from the command line: the groups separate,
/// `--neighbours` sets its `n_neighbors`, one thread gives the same layout
/// twice, and an option of another method is refused.
#[test]
fn cli_umap_separates_the_groups_and_one_thread_reproduces_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut runs = Vec::new();
    for k in ["a", "b"] {
        let out = dir.path().join(format!("umap-{k}.csv"));
        project_fixture(
            &out,
            &[
                "--method",
                "umap",
                "--neighbours",
                "10",
                "--set",
                "n_epochs=200",
                "--threads",
                "1",
                "--quiet",
            ],
        );
        runs.push(read_csv(&out));
    }
    let (words, coords, _) = &runs[0];
    assert_eq!(words.len(), 60);
    assert!(nearest_same_group(words, coords) >= 0.95);
    assert_eq!(runs[0], runs[1], "one thread: the same layout");
    let vectors = common::fixture(FIXTURES, "vectors.txt");
    let out = dir.path().join("x.csv");
    let o = common::wordbench(&[
        "project",
        vectors.to_str().unwrap(),
        "--method",
        "umap",
        "--perplexity",
        "5",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--perplexity is a t-SNE option"), "{err}");
}
