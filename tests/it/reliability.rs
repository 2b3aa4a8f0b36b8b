//! Bad input end to end (issue 14): every case with tiny inputs generated in
//! a temporary directory, each giving one clear line instead of a panic, a
//! hang or a lost file.

use crate::common;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

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
    common::wordbench(&args)
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
    let o = common::wordbench(&["replay", s.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}{}", stderr(&o));
    assert!(
        out.contains("warning: threads: 100000 is more than the"),
        "{out}"
    );
    // And a projection.
    let p = dir.path().join("p.csv");
    let o = common::wordbench(&[
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
                 (expected a number of seconds, 0 or more, or one with a unit: 90s, 30m, 2h)"
            )
        );
        assert!(!v.exists(), "refused before training");
    }
    let vectors = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/project/vectors.txt");
    for bad in ["inf", "NaN", "1e400", "-5"] {
        let o = common::wordbench(&[
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

/// `wordbench eval VECTORS --similarity/--analogy FILES...` in `dir`.
fn eval(dir: &Path, sets: &[(&str, &str, &str)]) -> Output {
    let v = dir.join("v.txt");
    std::fs::write(&v, "4 2\na 1 0\nb 0 1\nc 1 1\nd 1 2\n").unwrap();
    let mut args = vec!["eval".to_string(), v.to_str().unwrap().to_string()];
    for (flag, name, text) in sets {
        let f = dir.join(name);
        std::fs::write(&f, text).unwrap();
        args.push(format!("--{flag}"));
        args.push(f.to_str().unwrap().to_string());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    common::wordbench(&args)
}

#[test]
fn evaluation_sets_with_nothing_to_score_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display().to_string();
    // Every pair out of the vocabulary: a clear line, no NaN, and a failure.
    let o = eval(
        dir.path(),
        &[
            ("similarity", "oov.tsv", "x y 1\nz w 2\n"),
            ("analogy", "q.txt", ": s\nx y z w\n"),
        ],
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(!o.status.success());
    assert!(
        out.contains(&format!(
            "no pairs of {d}/oov.tsv are in the vocabulary (0/2)"
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!("no questions of {d}/q.txt are in the vocabulary")),
        "{out}"
    );
    assert!(!out.contains("NaN"), "{out}");
    assert!(
        stderr(&o).contains("nothing evaluated: no pair or question"),
        "{}",
        stderr(&o)
    );
    // One set scored, one not: success, and the empty one still says so.
    let o = eval(
        dir.path(),
        &[
            ("similarity", "oov.tsv", "x y 1\n"),
            ("similarity", "ok.tsv", "a b 1\na c 2\nb d 3\n"),
        ],
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}{}", stderr(&o));
    assert!(out.contains("no pairs of"), "{out}");
    assert!(out.contains("ok                   spearman"), "{out}");
    // Empty sets and a first line whose score is not finite are located errors.
    for (text, expect) in [
        ("", "empty.tsv: no word pairs"),
        ("# nothing\n", "empty.tsv: no word pairs"),
        (
            "a b nan\na c 2\n",
            "empty.tsv:1: score in column 3 is 'nan'",
        ),
        (
            "a b 1e400\na c 2\n",
            "empty.tsv:1: score in column 3 is '1e400'",
        ),
    ] {
        let o = eval(dir.path(), &[("similarity", "empty.tsv", text)]);
        assert!(!o.status.success());
        assert!(stderr(&o).contains(expect), "{text:?}: {}", stderr(&o));
        assert_eq!(stderr(&o).trim_end().lines().count(), 1);
    }
    let o = eval(
        dir.path(),
        &[("analogy", "empty.txt", ": only-a-section\n")],
    );
    assert!(
        stderr(&o).contains("empty.txt: no questions"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn spectral_dim_beyond_the_vocabulary_is_explained_in_the_users_terms() {
    let dir = tempfile::tempdir().unwrap();
    let c = corpus(dir.path());
    let v = dir.path().join("v.txt");
    let cases = [
        (
            "8",
            None,
            "invalid value for dim: 8 dimensions from a vocabulary of 8 words: \
             dim must be smaller than the number of words (at most 7)",
        ),
        (
            "5",
            Some("max_vocab=5"),
            "invalid value for dim: 5 dimensions from the 5 words kept by max_vocab (of 8): \
             dim must be smaller than the number of words (at most 4)",
        ),
        (
            "1",
            Some("max_vocab=1"),
            "corpus.txt: 1 word in the vocabulary (max_vocab 1); a spectral method needs at least 2",
        ),
        ("50", None, "invalid value for dim: 50 is larger than the vocabulary (8 words)"),
    ];
    for algo in ["svd", "eigenword", "svd-ns"] {
        for (dim, set, expect) in cases {
            let mut args = vec![
                "train",
                c.to_str().unwrap(),
                "--algo",
                algo,
                "--dim",
                dim,
                "-q",
                "--out",
                v.to_str().unwrap(),
            ];
            if let Some(s) = set {
                args.extend(["--set", s]);
            }
            let o = common::wordbench(&args);
            assert!(!o.status.success());
            let err = stderr(&o);
            assert!(err.contains(expect), "{algo} {dim}: {err}");
            assert!(!err.contains("expected 1 to"), "{err}");
            assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        }
    }
}

#[test]
fn outputs_that_would_clobber_inputs_or_each_other_are_refused_before_training() {
    let dir = tempfile::tempdir().unwrap();
    let c = corpus(dir.path());
    let before = std::fs::read(&c).unwrap();
    let p = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let same_dir = format!("{}/./corpus.txt", dir.path().display());
    let cases: Vec<(Vec<String>, String)> = vec![
        (
            vec!["--out".into(), c.to_str().unwrap().into()],
            "is the training corpus; refusing to overwrite it".into(),
        ),
        (
            vec!["--out".into(), same_dir],
            "is the training corpus; refusing to overwrite it".into(),
        ),
        (
            vec![
                "--out".into(),
                p("v.txt"),
                "--metrics-out".into(),
                c.to_str().unwrap().into(),
            ],
            "--metrics-out".into(),
        ),
        (
            vec![
                "--out".into(),
                p("v.txt"),
                "--session-out".into(),
                p("v.txt"),
            ],
            format!("--out and --session-out are the same file {}", p("v.txt")),
        ),
        (
            vec![
                "--out".into(),
                p("v.txt"),
                "--session-out".into(),
                p("s.ron"),
                "--metrics-out".into(),
                p("sub/../s.ron"),
            ],
            "--session-out and --metrics-out are the same file".into(),
        ),
        (
            vec!["--out".into(), p("nowhere/v.txt")],
            format!(
                "--out: {}: directory {} does not exist",
                p("nowhere/v.txt"),
                p("nowhere")
            ),
        ),
        (
            vec!["--out".into(), "/dev/null".into()],
            "--out: /dev/null: is a character device, not a regular file; refusing to replace it"
                .into(),
        ),
    ];
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    for (extra, expect) in cases {
        let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
        let o = train(&c, &extra);
        assert!(!o.status.success(), "{extra:?}");
        let err = stderr(&o);
        assert!(err.contains(&expect), "{extra:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert_eq!(
            std::fs::read(&c).unwrap(),
            before,
            "the corpus is untouched"
        );
        for f in ["v.txt", "s.ron"] {
            assert!(!dir.path().join(f).exists(), "{extra:?}: nothing written");
        }
    }
}

#[cfg(unix)]
#[test]
fn outputs_through_symlinks_keep_the_link_and_the_mode_and_unwritable_folders_are_named() {
    use std::os::unix::fs::{symlink, PermissionsExt};
    let dir = tempfile::tempdir().unwrap();
    let c = corpus(dir.path());
    // A link to the corpus is the corpus.
    let link = dir.path().join("link.txt");
    symlink(&c, &link).unwrap();
    let o = train(&c, &["--out", link.to_str().unwrap()]);
    assert!(
        stderr(&o).contains("is the training corpus"),
        "{}",
        stderr(&o)
    );
    // A link to an earlier output: the target is replaced, the link stays, 0600 stays.
    let real = dir.path().join("real.txt");
    std::fs::write(&real, "1 2\nold 0.5 0.5\n").unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o600)).unwrap();
    let out = dir.path().join("out.txt");
    symlink("real.txt", &out).unwrap();
    let o = train(&c, &["--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::symlink_metadata(&out)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(std::fs::read_to_string(&real).unwrap().starts_with("8 4\n"));
    let mode = std::fs::metadata(&real).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    // A folder that does not accept files is named before training.
    let ro = dir.path().join("ro");
    std::fs::create_dir(&ro).unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
    if std::fs::write(ro.join("probe"), "").is_err() {
        let o = train(&c, &["--out", ro.join("v.txt").to_str().unwrap()]);
        assert!(!o.status.success());
        assert!(
            stderr(&o).contains(&format!("directory {} is not writable", ro.display())),
            "{}",
            stderr(&o)
        );
    }
}

/// SIGTERM (and SIGINT) end a run with status 130 and leave no temporary
/// file behind.
#[cfg(unix)]
#[test]
fn a_terminated_run_exits_130_and_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("long.txt");
    let line = "king queen man woman child house tree river\n";
    std::fs::write(&corpus, line.repeat(20_000)).unwrap();
    let out = dir.path().join("v.txt");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_wordbench"))
        .args([
            "train",
            corpus.to_str().unwrap(),
            "--algo",
            "sgns",
            "--dim",
            "8",
        ])
        .args(["--set", "epochs=1000", "--threads", "1", "-q", "--out"])
        .arg(&out)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(700));
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "{status:?}");
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// A pipe cannot be sniffed and then read from its start: auto-detection
/// says to give the format, and with one every token is read.
#[cfg(unix)]
#[test]
fn a_pipe_needs_a_format_and_is_read_whole_with_one() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    // 100k lines: more than the 64 KiB detection would have eaten.
    let text = "alpha beta gamma delta\n".repeat(100_000);
    let stats = |extra: &[&str]| {
        let writer = {
            let (fifo, text) = (fifo.clone(), text.clone());
            std::thread::spawn(move || {
                // The reader may refuse without opening: don't block forever.
                let f = std::fs::OpenOptions::new().write(true).open(&fifo);
                if let Ok(mut f) = f {
                    let _ = std::io::Write::write_all(&mut f, text.as_bytes());
                }
            })
        };
        let mut args = vec!["corpus", "stats", fifo.to_str().unwrap(), "--json"];
        args.extend_from_slice(extra);
        let out = common::wordbench(&args);
        if !out.status.success() {
            // Unblock the writer by opening the read end once.
            let _ = std::fs::File::open(&fifo);
        }
        writer.join().unwrap();
        out
    };
    let refused = stats(&[]);
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains("--format"),
        "{}",
        stderr(&refused)
    );
    let read = stats(&["--format", "lines"]);
    assert!(read.status.success(), "{}", stderr(&read));
    let v: serde_json::Value = serde_json::from_slice(&read.stdout).unwrap();
    assert_eq!(v["tokens"], 400_000);
    // Training reads its corpus several times: a pipe is refused up front.
    let out = common::wordbench(&[
        "train",
        fifo.to_str().unwrap(),
        "--algo",
        "svd",
        "--corpus-format",
        "lines",
        "--out",
        "x.txt",
    ]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("save it to a file first"),
        "{}",
        stderr(&out)
    );
}

/// `corpus stats FILE --min-count 1`: its stderr, and whether it succeeded.
fn stats(file: &Path) -> (bool, String) {
    let out = common::wordbench(&[
        "corpus",
        "stats",
        file.to_str().unwrap(),
        "--min-count",
        "1",
    ]);
    (out.status.success(), stderr(&out))
}

#[test]
fn input_that_does_not_look_like_text_is_read_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    // Random bytes with no NUL (a NUL is an error of its own).
    let mut x = 7u32;
    let random: Vec<u8> = (0..100_000)
        .map(|_| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            ((x >> 16) as u8).max(1)
        })
        .collect();
    let path = dir.path().join("random.dat");
    std::fs::write(&path, random).unwrap();
    let (ok, err) = stats(&path);
    assert!(ok, "{err}");
    assert!(
        err.starts_with("warning: ") && err.contains("random.dat: does not look like text"),
        "{err}"
    );
    // A plain corpus gives no warning.
    let (ok, err) = stats(&corpus(dir.path()));
    assert!(ok && err.is_empty(), "{err}");
}

#[test]
fn a_run_without_whitespace_is_cut_into_words_with_one_warning() {
    let dir = tempfile::tempdir().unwrap();
    // 5 MB without whitespace in the middle of line 2 (a 200 MB one behaves alike).
    let text = format!(
        "a short first line\nsome words {} and more\n",
        "x".repeat(5 << 20)
    );
    let path = dir.path().join("long-token.txt");
    std::fs::write(&path, text).unwrap();
    let (ok, err) = stats(&path);
    assert!(ok, "{err}");
    let warnings: Vec<&str> = err.lines().filter(|l| l.starts_with("warning:")).collect();
    assert_eq!(warnings.len(), 1, "{err}");
    assert!(
        warnings[0].contains("long-token.txt:2: a run of more than 2 MB without whitespace (byte ")
            && warnings[0].contains("of the file)")
            && warnings[0].contains("2 cuts in all"),
        "{err}"
    );
}

#[test]
fn xml_that_is_not_a_wikipedia_dump_is_read_as_text_with_a_warning() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let xml = "<?xml version=\"1.0\"?>\n<catalog>\n<book>a tale of two cities</book>\n<book>moby dick</book>\n</catalog>\n";
    let path = dir.path().join("books.xml.bz2");
    let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
    bz.write_all(xml.as_bytes()).unwrap();
    std::fs::write(&path, bz.finish().unwrap()).unwrap();
    let (ok, err) = stats(&path);
    assert!(ok, "{err}");
    assert!(
        err.contains("books.xml.bz2: looks like XML but is not a MediaWiki dump"),
        "{err}"
    );
    // With the format given, nothing to guess and nothing to say.
    let out = common::wordbench(&[
        "corpus",
        "stats",
        path.to_str().unwrap(),
        "--min-count",
        "1",
        "--format",
        "lines",
    ]);
    assert!(
        out.status.success() && stderr(&out).is_empty(),
        "{}",
        stderr(&out)
    );
}

#[test]
fn decompression_errors_name_the_file_and_where() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let text = "the quick brown fox jumps over the lazy dog\n".repeat(20_000);
    let gz = {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(text.as_bytes()).unwrap();
        e.finish().unwrap()
    };
    let bz = {
        let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
        e.write_all(text.as_bytes()).unwrap();
        e.finish().unwrap()
    };
    let xz = {
        let mut e = xz2::write::XzEncoder::new(Vec::new(), 1);
        e.write_all(text.as_bytes()).unwrap();
        e.finish().unwrap()
    };
    for (name, bytes) in [("c.txt.gz", gz), ("c.txt.bz2", bz), ("c.txt.xz", xz)] {
        let kind = name.rsplit('.').next().unwrap();
        let kind = match kind {
            "gz" => "gzip",
            "bz2" => "bzip2",
            other => other,
        };
        let cut = dir.path().join(format!("cut-{name}"));
        std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
        let mut damaged = bytes.clone();
        let mid = damaged.len() / 2;
        for b in &mut damaged[mid..mid + 16] {
            *b ^= 0x5a;
        }
        let bad = dir.path().join(format!("bad-{name}"));
        std::fs::write(&bad, damaged).unwrap();
        for file in [cut, bad] {
            let (ok, err) = stats(&file);
            assert!(!ok, "{name}: {err}");
            let line = err.trim_end();
            assert_eq!(line.lines().count(), 1, "{line}");
            let expected = format!(
                "wordbench: {}: {kind} data is damaged or cut short after ",
                file.display()
            );
            assert!(
                line.starts_with(&expected)
                    && line
                        .contains("bytes of decompressed output (compressed file read up to byte "),
                "{line}"
            );
        }
    }
}

#[test]
fn max_vocab_zero_means_no_limit() {
    let dir = tempfile::tempdir().unwrap();
    let c = corpus(dir.path());
    for (max, vocabulary) in [("0", 8), ("3", 3)] {
        let out = common::wordbench(&[
            "corpus",
            "stats",
            c.to_str().unwrap(),
            "--max-vocab",
            max,
            "--json",
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(json["vocabulary"], vocabulary, "--max-vocab {max}");
    }
}

/// Issue 33: files that are read whole (vectors, evaluation sets, labelled
/// text, vocabularies) are regular files. A FIFO without a writer, which
/// would block for ever, a pipe, whose start format detection would eat,
/// and a device are refused at once, naming what they are; a regular file
/// without line ends is refused after a bounded line.
#[test]
fn pipes_devices_and_endless_lines_are_refused_not_waited_on() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let f = fifo.to_str().unwrap();
    let parts = dir.path().join("parts");
    std::fs::create_dir(&parts).unwrap();
    std::fs::write(parts.join("part-0.tsv"), "a\tb\t1\n").unwrap();
    let out = dir.path().join("c.wbc");
    let vectors = dir.path().join("v.txt");
    std::fs::write(&vectors, "2 2\na 1 0\nb 0 1\n").unwrap();
    let v = vectors.to_str().unwrap();
    // No writer ever opens the FIFO: each command must refuse, not wait.
    for args in [
        vec!["eval", f],
        vec!["neighbors", f, "a"],
        vec!["convert", f, "x.txt"],
        vec!["eval", v, "--similarity", f],
        vec!["classify", "--train", f],
        vec![
            "counts",
            "--from-parts",
            parts.to_str().unwrap(),
            "--vocab",
            f,
            "--out",
            out.to_str().unwrap(),
        ],
        vec!["cluster", v, "--k", "2", "--labels", f],
    ] {
        let o = common::wordbench(&args);
        assert!(!o.status.success(), "{args:?}");
        assert!(
            stderr(&o).contains("pipe: is a pipe (FIFO)"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
    let o = common::wordbench(&["eval", "/dev/zero"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("/dev/zero: is a character device"),
        "{}",
        stderr(&o)
    );
    // 20 MB without a line end: refused at line 1, not buffered whole.
    let endless = dir.path().join("endless.txt");
    std::fs::write(&endless, vec![b'7'; 20 << 20]).unwrap();
    let o = common::wordbench(&["eval", endless.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("endless.txt:1: line longer than 17 MB"),
        "{}",
        stderr(&o)
    );
    // A directory is said to be one (not "not found").
    let o = common::wordbench(&["eval", dir.path().to_str().unwrap()]);
    assert!(stderr(&o).contains("is a directory"), "{}", stderr(&o));
}

/// Issue 33: what an error quotes of a file (a word, a header) and the file
/// name itself reach the terminal escaped: a file cannot clear the screen,
/// retitle the window or stop the output through an error.
#[test]
fn errors_escape_every_control_character_they_quote() {
    let dir = tempfile::tempdir().unwrap();
    let evil = dir.path().join("v\x1b[2J.txt");
    let cases: [&[u8]; 4] = [
        b"2 2\n\x1b]0;pwned\x07 1 x\nb 0 1\n",
        b"\x1b[2J\x13 1 2\nb 1\n",
        b"\x1b[31m 1 2\n\x1b[31m 3 4\n",
        b"huge\x1b[H header\n",
    ];
    for bytes in cases {
        std::fs::write(&evil, bytes).unwrap();
        for cmd in ["eval", "convert"] {
            let args = match cmd {
                "eval" => vec!["eval", evil.to_str().unwrap()],
                _ => vec!["convert", evil.to_str().unwrap(), "out.txt"],
            };
            let o = common::wordbench(&args);
            assert!(!o.status.success());
            let err = stderr(&o);
            let line = err.trim_end();
            assert!(
                !line.chars().any(|c| c.is_control()),
                "a control character reached the terminal: {line:?}"
            );
            assert!(line.contains("v\\u{1b}[2J.txt"), "{line:?}");
        }
    }
}

/// Issue 33: a matrix that cannot fit in memory is refused before it is
/// allocated, with its size and the budget: here a gzipped `.npy` whose
/// header declares 10^11 x 1000 values (its size cannot be checked against
/// the file's), and a gzipped word2vec binary header.
#[test]
fn a_matrix_beyond_the_memory_budget_is_refused_up_front() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let gz = |path: &Path, bytes: &[u8]| {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(bytes).unwrap();
        std::fs::write(path, e.finish().unwrap()).unwrap();
    };
    let dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (100000000000, 1000), }";
    let mut npy = b"\x93NUMPY\x01\x00".to_vec();
    npy.extend((dict.len() as u16).to_le_bytes());
    npy.extend(dict.as_bytes());
    npy.extend([0u8; 64]);
    let npy_gz = dir.path().join("m.npy.gz");
    gz(&npy_gz, &npy);
    let bin_gz = dir.path().join("w.bin.gz");
    gz(&bin_gz, b"100000000000 1000\nx \x01\x02\x03\x04");
    for path in [&npy_gz, &bin_gz] {
        let o = common::wordbench(&["eval", path.to_str().unwrap()]);
        assert!(!o.status.success());
        let err = stderr(&o);
        assert!(
            err.contains(
                "the header's matrix of 100000000000 x 1000 values would need about 400.0 TB"
            ) && err.contains("more than the budget of")
                && err.contains("--limit"),
            "{err}"
        );
    }
}

/// Issue 33: an output path is checked before the work: a folder name
/// (`--out DIR/missing/`) and a compressed name for a file written plain
/// are refused up front; a compressed name for vectors is compressed.
#[test]
fn output_names_are_checked_before_training_and_compressed_names_compress() {
    let dir = tempfile::tempdir().unwrap();
    let c = corpus(dir.path());
    let missing = format!("{}/missing/", dir.path().display());
    let o = train(&c, &["--out", &missing]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("names a folder"), "{}", stderr(&o));
    let npy_gz = dir.path().join("v.npy.gz");
    let o = train(&c, &["--out", npy_gz.to_str().unwrap(), "--format", "npy"]);
    assert!(
        stderr(&o).contains("written uncompressed"),
        "{}",
        stderr(&o)
    );
    let o = train(&c, &["--out", "v.txt", "--session-out", "s.ron.xz"]);
    assert!(
        stderr(&o).contains("--session-out s.ron.xz"),
        "{}",
        stderr(&o)
    );
    // Nothing was trained: every refusal came first.
    assert!(!stderr(&o).contains("loss"), "{}", stderr(&o));
    let v = dir.path().join("v.txt");
    assert!(train(&c, &["--out", v.to_str().unwrap()]).status.success());
    for name in ["v.txt.xz", "v.txt.bz2", "v.bin.gz"] {
        let out = dir.path().join(name);
        let o = common::wordbench(&["convert", v.to_str().unwrap(), out.to_str().unwrap()]);
        assert!(o.status.success(), "{}", stderr(&o));
        let head = std::fs::read(&out).unwrap();
        assert!(
            head.starts_with(&[0xfd, b'7'])
                || head.starts_with(b"BZh")
                || head.starts_with(&[0x1f, 0x8b]),
            "{name}"
        );
        assert!(
            common::wordbench(&["neighbors", out.to_str().unwrap(), "king"])
                .status
                .success()
        );
    }
}

/// Issue 33: file names that are not UTF-8 are read, named in messages
/// (lossily, one line), and refused up front where they cannot be stored:
/// a session records paths as text.
#[test]
fn non_utf8_file_names_are_read_and_refused_only_where_they_cannot_be_stored() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let good = corpus(dir.path());
    let odd = dir.path().join(OsStr::from_bytes(b"c\xff.txt"));
    std::fs::rename(&good, &odd).unwrap();
    let run = |args: &[&OsStr]| {
        Command::new(env!("CARGO_BIN_EXE_wordbench"))
            .args(args)
            .output()
            .unwrap()
    };
    let o = run(&["corpus".as_ref(), "stats".as_ref(), odd.as_os_str()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = dir.path().join("v.txt");
    let s = dir.path().join("s.ron");
    let o = run(&[
        "train".as_ref(),
        odd.as_os_str(),
        "--algo".as_ref(),
        "sgns".as_ref(),
        "--out".as_ref(),
        v.as_os_str(),
        "--session-out".as_ref(),
        s.as_os_str(),
    ]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("c\u{fffd}.txt: the name is not UTF-8"),
        "{err}"
    );
    assert!(!v.exists() && !s.exists(), "refused before training");
    let o = run(&["eval".as_ref(), odd.as_os_str()]);
    assert!(!o.status.success());
    assert_eq!(stderr(&o).trim_end().lines().count(), 1, "{}", stderr(&o));
}
