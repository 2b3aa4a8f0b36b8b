//! End-to-end tests of `wordbench corpus stats`: the binary, its JSON and its errors.

use crate::common;
use std::path::PathBuf;

/// This file's fixtures, under `tests/fixtures/`.
const FIXTURES: &str = "corpus";

fn stats_json(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["corpus", "stats", "--json"];
    all.extend_from_slice(args);
    let out = common::wordbench(&all);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("valid JSON")
}

fn one_line_error(args: &[&str]) -> String {
    let out = common::wordbench(args);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "one-line error expected: {err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    err
}

#[test]
fn paragraphs_are_documents_and_counts_are_exact() {
    let p = common::fixture(FIXTURES, "paragraphs.txt");
    let j = stats_json(&[p.to_str().unwrap(), "--min-count", "1", "--heldout", "0"]);
    assert_eq!(j["format"], "text");
    assert_eq!(j["documents"], 2);
    // 12 + 5 + 6 tokens; "the" 5 times, "cat" 3 times.
    assert_eq!(j["tokens"], 23);
    assert_eq!(j["heldout_tokens"], 0);
    assert_eq!(j["top"][0], serde_json::json!(["the", 5]));
    assert_eq!(j["top"][1], serde_json::json!(["cat", 3]));
}

#[test]
fn lines_fasttext_and_compressed_inputs() {
    let lines = common::fixture(FIXTURES, "lines.txt");
    let j = stats_json(&[
        lines.to_str().unwrap(),
        "--format",
        "lines",
        "--min-count",
        "1",
        "--heldout",
        "0",
    ]);
    // The blank line is an empty document, which does not count.
    assert_eq!(
        (j["documents"].as_u64(), j["tokens"].as_u64()),
        (Some(3), Some(9))
    );
    let j = stats_json(&[
        lines.to_str().unwrap(),
        "--min-count",
        "1",
        "--heldout",
        "0",
    ]);
    assert_eq!(
        (j["format"].as_str(), j["documents"].as_u64()),
        (Some("text"), Some(2)),
        "a blank line makes paragraphs"
    );
    let j = stats_json(&[
        common::fixture(FIXTURES, "labeled.txt").to_str().unwrap(),
        "--min-count",
        "1",
        "--heldout",
        "0",
    ]);
    assert_eq!(j["format"], "fasttext");
    assert_eq!(j["tokens"], 8, "labels are not tokens");
    assert_eq!(j["top"][0], serde_json::json!(["good", 3]));
    for f in ["small.txt.gz", "small.txt.bz2"] {
        let j = stats_json(&[
            common::fixture(FIXTURES, f).to_str().unwrap(),
            "--min-count",
            "1",
        ]);
        assert_eq!(j["tokens"], 6, "{f}");
    }
}

#[test]
fn invalid_utf8_is_decoded_lossily_and_reported() {
    let j = stats_json(&[
        common::fixture(FIXTURES, "latin1.txt").to_str().unwrap(),
        "--min-count",
        "1",
        "--heldout",
        "0",
    ]);
    assert_eq!(j["utf8_replacements"], 1);
    assert_eq!(j["tokens"], 6);
}

#[test]
fn bad_inputs_give_one_line_errors() {
    let missing = one_line_error(&["corpus", "stats", "/no/such/corpus.txt"]);
    assert!(
        missing.contains("/no/such/corpus.txt") && missing.contains("No such file"),
        "{missing}"
    );
    let dir = one_line_error(&["corpus", "stats", env!("CARGO_MANIFEST_DIR")]);
    assert!(dir.contains("is a directory"), "{dir}");
    let bin = one_line_error(&["corpus", "stats", env!("CARGO_BIN_EXE_wordbench")]);
    assert!(bin.contains("binary"), "{bin}");
    let lines = common::fixture(FIXTURES, "lines.txt");
    let empty = one_line_error(&[
        "corpus",
        "stats",
        lines.to_str().unwrap(),
        "--min-count",
        "100",
    ]);
    assert!(
        empty.contains("empty vocabulary: 9 tokens of 5 types"),
        "{empty}"
    );
    let frac = one_line_error(&[
        "corpus",
        "stats",
        lines.to_str().unwrap(),
        "--heldout",
        "0.9",
    ]);
    assert!(frac.contains("heldout"), "{frac}");
}

#[test]
fn text8_head_has_the_documented_token_count() {
    let text8 = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/corpora/text8-head.txt.gz");
    let j = stats_json(&[text8.to_str().unwrap()]);
    assert_eq!(j["tokens"], 2_139_748);
    assert_eq!(j["documents"], 1);
    // 5% of the 214 pieces of 10,000 tokens are held out: pieces 19, 39, ..., 199.
    assert_eq!(j["heldout_tokens"], 100_000);
    assert_eq!(j["top"][0], serde_json::json!(["the", 128_052]));
}
