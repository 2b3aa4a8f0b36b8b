//! Bad input end to end (issue 14): every case with tiny inputs generated in
//! a temporary directory, each giving one clear line instead of a panic, a
//! hang or a lost file.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn wordbench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wordbench"))
        .args(args)
        .output()
        .expect("run wordbench")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A small corpus where every word passes the default min-count.
fn corpus(dir: &Path) -> PathBuf {
    let words = [
        "king", "queen", "man", "woman", "child", "house", "tree", "river",
    ];
    let mut text = String::new();
    for i in 0..300 {
        let line: Vec<&str> = (0..8)
            .map(|j| words[(i * 3 + j * j) % words.len()])
            .collect();
        text.push_str(&line.join(" "));
        text.push('\n');
    }
    let path = dir.join("corpus.txt");
    std::fs::write(&path, text).unwrap();
    path
}

/// `wordbench train CORPUS --algo sgns` with a tiny model, plus `extra`.
fn train(corpus: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "train",
        corpus.to_str().unwrap(),
        "--algo",
        "sgns",
        "--dim",
        "4",
        "--set",
        "epochs=1",
        "-q",
    ];
    args.extend_from_slice(extra);
    wordbench(&args)
}

#[test]
fn threads_beyond_the_cpus_are_capped_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let c = corpus(dir.path());
    let v = dir.path().join("v.txt");
    let s = dir.path().join("s.ron");
    let o = train(
        &c,
        &[
            "--threads",
            "100000",
            "--out",
            v.to_str().unwrap(),
            "--session-out",
            s.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("warning: --threads 100000 is more than the"),
        "{}",
        stderr(&o)
    );
    // A session asking for more threads than this machine has is capped too.
    let text = std::fs::read_to_string(&s).unwrap();
    let recorded = text
        .lines()
        .find(|l| l.trim_start().starts_with("threads: "))
        .unwrap()
        .to_string();
    std::fs::write(&s, text.replace(&recorded, "    threads: 100000,")).unwrap();
    let o = wordbench(&["replay", s.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}{}", stderr(&o));
    assert!(
        out.contains("warning: threads: 100000 is more than the"),
        "{out}"
    );
    // And a projection.
    let p = dir.path().join("p.csv");
    let o = wordbench(&[
        "project",
        v.to_str().unwrap(),
        "--method",
        "pca",
        "--threads",
        "100000",
        "--out",
        p.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("warning: --threads 100000 is more than the"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn durations_and_float_flags_are_validated_not_panicking() {
    let dir = tempfile::tempdir().unwrap();
    let c = corpus(dir.path());
    let v = dir.path().join("v.txt");
    for bad in ["inf", "NaN", "-1", "1e400"] {
        let o = train(&c, &["--autosave-secs", bad, "--out", v.to_str().unwrap()]);
        assert!(!o.status.success());
        assert_eq!(
            stderr(&o).trim_end(),
            format!(
                "wordbench: invalid value for --autosave-secs: '{bad}' \
                 (expected a number of seconds, 0 or more)"
            )
        );
        assert!(!v.exists(), "refused before training");
    }
    let vectors = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/project/vectors.txt");
    for bad in ["inf", "NaN", "1e400", "-5"] {
        let o = wordbench(&[
            "project",
            vectors.to_str().unwrap(),
            "--perplexity",
            bad,
            "--out",
            dir.path().join("p.csv").to_str().unwrap(),
        ]);
        assert!(!o.status.success());
        let err = stderr(&o);
        assert!(
            err.contains(&format!(
                "invalid value for perplexity: '{bad}' (expected a number in"
            )),
            "{err}"
        );
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
}
