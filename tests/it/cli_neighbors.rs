//! End-to-end tests of `wordbench neighbors` (cosine and `--by walk`) and
//! `wordbench topics` on tiny hand-made vector files.

use crate::common;
use std::path::Path;

fn stdout_of(args: &[&str]) -> String {
    let out = common::wordbench(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Rows on the simplex (column sums 2.3 and 1.7), word2vec text format.
fn simplex_vectors(dir: &Path) -> String {
    let path = dir.join("w.txt");
    std::fs::write(&path, "4 2\na 0.9 0.1\nb 0.8 0.2\nc 0.1 0.9\nd 0.5 0.5\n").unwrap();
    path.to_str().unwrap().to_string()
}

/// The words of the indented neighbour lines, in order.
fn listed(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| l.starts_with("  "))
        .map(|l| l.split_whitespace().next().unwrap())
        .collect()
}

#[test]
fn walk_and_cosine_rankings() {
    let dir = tempfile::tempdir().unwrap();
    let v = simplex_vectors(dir.path());
    // Ŝ from a: b .3248, d .2251, c .0920.
    let walk = stdout_of(&["neighbors", &v, "a", "-k", "3", "--by", "walk"]);
    assert_eq!(listed(&walk), ["b", "d", "c"], "{walk}");
    assert!(walk.contains("3.248e-1"), "{walk}");
    // d sits in the middle, yet the walk prefers c: topic 1 is smaller
    // (s_1 = 1.7 < s_0 = 2.3), so Ŝ_dc = .2864 > Ŝ_db = .2327 > Ŝ_da = .2251.
    let walk = stdout_of(&["neighbors", &v, "d", "-k", "3", "--by", "walk"]);
    assert_eq!(listed(&walk), ["c", "b", "a"], "{walk}");
    let cos = stdout_of(&["neighbors", &v, "a", "-k", "3"]);
    assert_eq!(listed(&cos), ["b", "d", "c"], "{cos}");
}

/// A word without neighbours (not in the vocabulary, no subwords) is a
/// failure, for either ranking: the others are listed, it is named on
/// stderr, and the exit status is 1.
#[test]
fn an_absent_word_is_named_and_fails_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let v = simplex_vectors(dir.path());
    for by in ["walk", "cosine"] {
        let out = common::wordbench(&["neighbors", &v, "a", "zzz", "--by", by]);
        assert!(!out.status.success(), "{by}");
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert_eq!(listed(&stdout).len(), 3, "a is listed: {stdout}");
        assert!(
            stderr.contains("zzz:") && stderr.contains("1 of 2 word(s) have no neighbours"),
            "{by}: {stderr}"
        );
    }
}

#[test]
fn topics_list_each_topics_words_by_probability() {
    let dir = tempfile::tempdir().unwrap();
    let v = simplex_vectors(dir.path());
    let out = stdout_of(&["topics", &v, "-k", "3"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(lines[0].ends_with(": a b d"), "{out}");
    assert!(lines[1].ends_with(": c d b"), "{out}");
}

#[test]
fn negative_vectors_are_refused_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("neg.txt");
    std::fs::write(&path, "2 2\nx -1.0 2.0\ny 1.0 0.5\n").unwrap();
    let v = path.to_str().unwrap();
    for args in [vec!["neighbors", v, "x", "--by", "walk"], vec!["topics", v]] {
        let out = common::wordbench(&args);
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains("non-negative"), "{err}");
        if args[0] == "topics" {
            assert!(!err.contains("--by"), "topics has no --by: {err}");
        }
    }
    // Cosine still works on them.
    assert!(common::wordbench(&["neighbors", v, "x"]).status.success());
}

#[test]
fn similar_and_doesnt_match_answer_as_the_library_does() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v.txt");
    std::fs::write(
        &path,
        "5 3\nking 1 1 0\nqueen 1 -1 0\nman 0.2 1 0.1\nwoman 0.2 -1 0.1\napple 0 0 1\n",
    )
    .unwrap();
    let v = path.to_str().unwrap();
    let e = wordbench::embedding::Embedding::load(&path).unwrap();
    let expect = e
        .most_similar(
            &["king", "woman"],
            &["man"],
            wordbench::embedding::Combine::Add,
            wordbench::embedding::NeighborParams::k(2),
        )
        .unwrap();
    for args in [
        vec!["similar", v, "-k", "2", "king", "-man", "+woman"],
        vec!["similar", v, "-k", "2", "king -man +woman"],
        vec![
            "similar",
            v,
            "-k",
            "2",
            "--negative",
            "man",
            "king",
            "woman",
        ],
    ] {
        let text = stdout_of(&args);
        assert_eq!(
            listed(&text),
            vec![&*expect[0].word, &*expect[1].word],
            "{text}"
        );
        assert!(text.contains(&format!("{:.4}", expect[0].score)), "{text}");
    }
    assert_eq!(
        listed(&stdout_of(&[
            "similar",
            v,
            "-k",
            "1",
            "--cosmul",
            "king -man +woman"
        ]))[0],
        "queen"
    );
    let odd = stdout_of(&["doesnt-match", v, "king", "queen", "man", "woman", "apple"]);
    let words = ["king", "queen", "man", "woman", "apple"];
    let expect: Vec<String> = e
        .doesnt_match(&words)
        .unwrap()
        .into_iter()
        .map(|n| n.word)
        .collect();
    assert_eq!(listed(&odd), expect);
    let out = common::wordbench(&["similar", v, "king", "-nosuchword"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("nosuchword"));
}
