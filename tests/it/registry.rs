//! The registry: every method builds from its defaults on a small corpus and
//! accepts every live hyperparameter while it runs; changes are checked
//! before a run starts.

use std::sync::Arc;

use wordbench::algo;
use wordbench::corpus::{Corpus, CorpusConfig};
use wordbench::schema::Params;
use wordbench::train::TrainInput;

const CORPUS: &str = "tests/fixtures/corpus/lee_background.txt";

#[test]
fn every_method_builds_from_its_defaults_and_takes_its_live_parameters() {
    let corpus = Arc::new(Corpus::open(CORPUS, CorpusConfig::default()).unwrap());
    for method in algo::methods() {
        let mut params = Params::defaults(method.schema);
        // Small enough for the fixture's 1,726 words.
        if let Some(dim) = method.dimension {
            params.set_text(method.name, dim, "16").unwrap();
        }
        let input = TrainInput {
            corpus: corpus.clone(),
            params: params.clone(),
            seed: 1,
            threads: 1,
            counts: Default::default(),
        };
        let mut trainer =
            (method.build)(&input, &mut |_| {}).unwrap_or_else(|e| panic!("{}: {e}", method.name));
        assert!(trainer.total_steps() > 0, "{}", method.name);
        for spec in method.schema.iter().filter(|s| s.live) {
            let value = params.get(spec.name).clone();
            method
                .check_change(spec.name, &value.to_string())
                .unwrap_or_else(|e| panic!("{}: {e}", method.name));
            let mut changed = params.clone();
            changed.set(method.name, spec.name, &value).unwrap();
            trainer
                .set(&changed)
                .unwrap_or_else(|e| panic!("{} refuses its live {}: {e}", method.name, spec.name));
        }
        for spec in method.schema.iter().filter(|s| !s.live) {
            let value = params.get(spec.name).to_string();
            let err = method.check_change(spec.name, &value).unwrap_err();
            assert!(err.to_string().contains("cannot change during"), "{err}");
        }
    }
}

#[test]
fn count_based_runs_of_a_session_count_the_corpus_once_per_window() {
    use wordbench::cooc::CountCache;
    let corpus = Arc::new(Corpus::open(CORPUS, CorpusConfig::default()).unwrap());
    let counts = Arc::new(CountCache::default());
    let build = |name: &str, sets: &[(&str, &str)]| {
        let method = algo::find(name).unwrap();
        let input = TrainInput {
            corpus: corpus.clone(),
            params: method.params(sets.iter().copied()).unwrap(),
            seed: 1,
            threads: 1,
            counts: counts.clone(),
        };
        (method.build)(&input, &mut |_| {}).unwrap();
    };
    // GloVe and KUBWE both start from harmonic counts with a window of 10.
    build("glove", &[("dim", "8")]);
    assert_eq!(counts.len(), 1);
    build("kubwe-fast", &[("dim", "8"), ("window", "10")]);
    assert_eq!(counts.len(), 1, "kubwe reused glove's counts");
    build("glove", &[("dim", "8"), ("window", "5")]);
    assert_eq!(counts.len(), 2, "another window is counted anew");
}

#[test]
fn every_dimension_names_an_integer_of_its_schema() {
    use wordbench::schema::Kind;
    for method in algo::methods() {
        let Some(name) = method.dimension else {
            continue;
        };
        let spec = method.schema.iter().find(|s| s.name == name);
        assert!(
            matches!(spec.map(|s| &s.kind), Some(Kind::Int { .. })),
            "{}: dimension {name} is not an Int of its schema",
            method.name
        );
    }
}

#[test]
fn bad_changes_and_outputs_fail_before_training() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("v.txt");
    let run = |extra: &[&str]| {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_wordbench"))
            .args(["train", CORPUS, "--algo", "sgns", "-q", "--out"])
            .arg(&out)
            .args(extra)
            .output()
            .unwrap();
        assert!(!o.status.success());
        String::from_utf8_lossy(&o.stderr).trim().to_string()
    };
    let err = run(&["--change", "3:window=2"]);
    assert!(
        err.contains("--change 3:window=2") && err.contains("live ones: lr"),
        "{err}"
    );
    let err = run(&["--change", "3:lrr=0.1"]);
    assert!(err.contains("no such hyperparameter"), "{err}");
    let err = run(&["--change", "3:lr=-1"]);
    assert!(err.contains("expected a number"), "{err}");
    let missing = dir.path().join("nowhere/s.ron");
    let err = run(&["--session-out", missing.to_str().unwrap()]);
    assert!(
        err.contains("--session-out") && err.contains("does not exist"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!out.exists(), "nothing was trained or written");
}
