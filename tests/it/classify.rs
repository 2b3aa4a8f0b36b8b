//! `wordbench classify` and the naive Bayes fit against scikit-learn.

use crate::common;
use wordbench::classify::counts::ClassCounts;
use wordbench::classify::dataset::{Part, Reader};
use wordbench::classify::marginals::Marginals;
use wordbench::classify::{nb, protocol};

/// This file's fixtures, under `tests/fixtures/`.
const FIXTURES: &str = "classify";

/// Our add-one MNB gives scikit-learn's MultinomialNB(alpha=1) joint
/// log-likelihoods and predictions on the polarity fixture (reference values
/// from benches/compare/mnb_reference.py, stored).
#[test]
fn add_one_naive_bayes_equals_scikit_learn() {
    let reference: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(common::fixture(FIXTURES, "mnb_sklearn.json")).unwrap(),
    )
    .unwrap();
    let mut reader = Reader::new(false);
    let train = reader
        .read(&common::fixture(FIXTURES, "polarity-train.txt"), Part::All)
        .unwrap();
    let test = reader
        .read(&common::fixture(FIXTURES, "polarity-test.txt"), Part::All)
        .unwrap();
    let target = reader.labels.get("pos").unwrap();
    let marginals = Marginals::from_documents(&test);
    let labelled: Vec<_> = train.iter().collect();
    let vocab = protocol::vocabulary(&labelled, &marginals, reader.lexicon.len());
    let size = vocab.iter().filter(|&&b| b).count();
    assert_eq!(
        size as u64,
        reference["vocabulary"].as_u64().unwrap(),
        "tokenizers disagree"
    );
    let counts = ClassCounts::new(2, vocab.len(), &train, |d| usize::from(!d.has(target)));
    let model = nb::fit_add_one(&counts, vocab);
    let jll = reference["joint_log_likelihood"].as_array().unwrap();
    let predicted = reference["predicted"].as_array().unwrap();
    assert_eq!(jll.len(), test.len());
    let mut s = Vec::new();
    for (i, d) in test.iter().enumerate() {
        model.scores(d, &mut s);
        for c in 0..2 {
            let want = jll[i][c].as_f64().unwrap();
            assert!(
                (s[c] - want).abs() <= 1e-10 * want.abs(),
                "doc {i} class {c}: {} vs {want}",
                s[c]
            );
        }
        assert_eq!(
            model.predict(d) as u64,
            predicted[i].as_u64().unwrap(),
            "doc {i}"
        );
    }
}

#[test]
fn the_command_prints_a_learning_curve_as_json() {
    let train = common::fixture(FIXTURES, "polarity-train.txt");
    let test = common::fixture(FIXTURES, "polarity-test.txt");
    let args = [
        "classify",
        "--train",
        train.to_str().unwrap(),
        "--test",
        test.to_str().unwrap(),
        "--label",
        "pos",
        "--labelled",
        "10,100",
        "--resamples",
        "2",
        "--threads",
        "1",
        "--json",
    ];
    let out = common::wordbench(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let points = v["points"].as_array().unwrap();
    assert_eq!(points.len(), 4, "two sizes, two methods");
    for p in points {
        for key in ["accuracy", "f1", "macro_f1", "r_precision"] {
            let mean = p[key]["mean"].as_f64().unwrap();
            assert!((0.0..=1.0).contains(&mean), "{key}: {mean}");
        }
    }
    assert_eq!(v["tasks"], serde_json::json!(["pos"]));
    let moved = v["moved"].as_array().unwrap();
    assert_eq!(moved.len(), 20);
    let shift = |m: &serde_json::Value| {
        (m["mnb_fm"].as_f64().unwrap().ln() - m["mnb"].as_f64().unwrap().ln()).abs()
    };
    assert!(
        moved.windows(2).all(|w| shift(&w[0]) >= shift(&w[1])),
        "largest shift first"
    );
    // The same seed gives the same scores.
    let again = common::wordbench(&args);
    let strip = |bytes: &[u8]| {
        let mut v: serde_json::Value = serde_json::from_slice(bytes).unwrap();
        for p in v["points"].as_array_mut().unwrap() {
            p.as_object_mut().unwrap().remove("fit_seconds");
        }
        v
    };
    assert_eq!(strip(&out.stdout), strip(&again.stdout), "timings aside");
}

#[test]
fn bad_input_is_one_located_line() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.txt");
    std::fs::write(&bad, "__label__pos good\nno label\n").unwrap();
    let out = common::wordbench(&["classify", "--train", bad.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.txt:2:"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");

    let train = common::fixture(FIXTURES, "polarity-train.txt");
    let cases: [(&[&str], &str); 5] = [
        (&["--labelled", "500"], "labelled"),
        (&["--labelled", "10,x"], "invalid value for labelled: 'x'"),
        (&["--label", "nope"], "no document is labelled `nope`"),
        (&["--resamples", "0"], "resamples"),
        (&["--marginals", "/no/such/file"], "/no/such/file"),
    ];
    for (extra, want) in cases {
        let mut args = vec!["classify", "--train", train.to_str().unwrap()];
        args.extend_from_slice(extra);
        let out = common::wordbench(&args);
        assert!(!out.status.success(), "{extra:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{extra:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
}

/// A task label that only test documents carry is refused, not learned
/// from nothing and averaged into the scores.
#[test]
fn a_label_never_seen_in_training_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let train = dir.path().join("train.txt");
    let test = dir.path().join("test.txt");
    let lines = |labels: &[&str]| {
        (0..40)
            .map(|i| {
                format!(
                    "__label__{} word{} other{}\n",
                    labels[i % labels.len()],
                    i % 7,
                    i % 3
                )
            })
            .collect::<String>()
    };
    std::fs::write(&train, lines(&["pos", "neg"])).unwrap();
    std::fs::write(&test, lines(&["pos", "neg", "unseen"])).unwrap();
    let (train, test) = (train.to_str().unwrap(), test.to_str().unwrap());
    let base = [
        "classify",
        "--train",
        train,
        "--test",
        test,
        "--labelled",
        "10",
    ];
    let ok = common::wordbench(&[&base[..], &["--label", "pos"]].concat());
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let out = common::wordbench(&[&base[..], &["--label", "pos", "--label", "unseen"]].concat());
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no training document is labelled `unseen`"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}
