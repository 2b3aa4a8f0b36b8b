//! Counts on disk: `wordbench counts` files, spilled counting through a
//! corpus, `train --counts`, and imports of Stanford GloVe `cooccur` output
//! and Spark-style part files (fixtures made by
//! tests/fixtures/counts/generate.py) matching our own counting.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use sprs::CsMat;
use wordbench::cooc::{count_corpus, CountConfig, Weighting, Window};
use wordbench::corpus::{Corpus, CorpusConfig, Format, HeldoutConfig, ReadConfig, VocabConfig};
use wordbench::counts::{self, import, Counts};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/counts")
        .join(name)
}

/// The fixture corpus as GloVe reads it: a sentence per line, every word kept.
fn open(memory_mb: u64) -> Corpus {
    let config = CorpusConfig {
        read: ReadConfig {
            format: Format::Lines,
            heldout: HeldoutConfig {
                fraction: 0.0,
                ..HeldoutConfig::default()
            },
            memory_mb,
            ..ReadConfig::default()
        },
        vocab: VocabConfig {
            min_count: 1,
            max_size: None,
        },
    };
    Corpus::open(fixture("corpus.txt"), config).unwrap()
}

fn config(size: usize, weighting: Weighting) -> CountConfig {
    CountConfig {
        window: Window::symmetric(size, weighting),
        max_vocab: None,
    }
}

/// Checks that `imported` is `ours` cell by cell, matching words by name;
/// a diagonal cell may also be `diagonal` times ours.
fn assert_same_by_word(ours: &Corpus, x: &CsMat<f64>, imported: &Counts, rel: f64, diagonal: f64) {
    let (theirs, y) = (&imported.vocab, &imported.matrix);
    assert_eq!(theirs.len(), ours.vocab().len());
    assert_eq!(y.nnz(), x.nnz());
    for (v, (i, j)) in x.iter() {
        let (wi, wj) = (ours.vocab().word(i as u32), ours.vocab().word(j as u32));
        let (a, b) = (theirs.id(wi).unwrap(), theirs.id(wj).unwrap());
        let w = *y.get(a as usize, b as usize).unwrap_or(&f64::NAN);
        let v = if i == j && (w - v * diagonal).abs() <= rel * w.abs() {
            &w
        } else {
            v
        };
        assert!((w - v).abs() <= rel * v.abs(), "({wi}, {wj}): {w} vs {v}");
    }
}

#[test]
fn counts_files_round_trip_a_counted_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = open(0);
    let config = config(4, Weighting::Harmonic);
    let out = dir.path().join("c.wbc");
    let report = counts::count_to_file(&corpus, &config, &out, |_, _| {}).unwrap();
    assert_eq!(report.tokens, corpus.stats().train_tokens_in_vocab);
    let back = counts::read(&out).unwrap();
    let x = count_corpus(&corpus, &config).unwrap();
    assert_eq!(back.matrix, x, "bit-for-bit the in-memory count");
    assert_eq!(&back.vocab, corpus.vocab());
    assert_eq!(back.meta.window, Some(config.window));
    // Opened as a corpus, the file gives its matrix to count-based methods...
    let as_corpus = Corpus::open(&out, CorpusConfig::default()).unwrap();
    assert_eq!(count_corpus(&as_corpus, &config).unwrap(), x);
    assert_eq!(as_corpus.vocab(), corpus.vocab());
    // ... refuses another window, and has no text.
    let err = count_corpus(&as_corpus, &self::config(5, Weighting::Harmonic)).unwrap_err();
    assert!(err.to_string().contains("window of 4"), "{err}");
    let err = as_corpus
        .encode(wordbench::corpus::Split::Train)
        .unwrap_err();
    assert!(err.to_string().contains("is a counts file"), "{err}");
    assert_eq!(
        as_corpus
            .encode(wordbench::corpus::Split::Heldout)
            .unwrap()
            .ids
            .len(),
        0
    );
}

#[test]
fn glove_cooccur_output_imports_to_our_harmonic_counts() {
    let corpus = open(0);
    let x = count_corpus(&corpus, &config(5, Weighting::Harmonic)).unwrap();
    let imported =
        import::glove(&fixture("glove-cooccur.bin"), &fixture("glove-vocab.txt")).unwrap();
    // GloVe adds the same weights in another order: equal to rounding.
    // Except on the diagonal of its dense block of the most frequent words
    // (here only "the"), which GloVe's output holds twice: a word next to
    // itself there weighs double (seen on this fixture: 205.8 for (the, the)
    // against 102.9 counted by hand).
    assert_same_by_word(&corpus, &x, &imported, 1e-12, 2.0);
}

#[test]
fn spark_part_files_import_to_our_uniform_counts() {
    let corpus = open(0);
    let x = count_corpus(&corpus, &config(5, Weighting::Uniform)).unwrap();
    let imported = import::parts(&fixture("parts"), None).unwrap();
    assert_same_by_word(&corpus, &x, &imported, 0.0, 1.0);
    // Row sums as word counts rank the words as the corpus does here? Not
    // necessarily; with the corpus's own counts as the vocabulary file the
    // ids are the corpus's.
    let dir = tempfile::tempdir().unwrap();
    let vocab = dir.path().join("vocab.txt");
    vocab_file(&corpus, &vocab);
    let imported = import::parts(&fixture("parts"), Some(&vocab)).unwrap();
    assert_eq!(&imported.vocab, corpus.vocab());
    assert_eq!(imported.matrix, x);
}

/// The fixture corpus's own vocabulary as a `word count` file.
fn vocab_file(corpus: &Corpus, path: &Path) {
    let lines: String = (0..corpus.vocab().len() as u32)
        .map(|i| {
            format!(
                "{} {}\n",
                corpus.vocab().word(i),
                corpus.vocab().counts()[i as usize]
            )
        })
        .collect();
    std::fs::write(path, lines).unwrap();
}

#[test]
fn spark_parquet_parts_import_to_our_counts() {
    // parts-parquet/: int64 counts over a snappy part (two row groups) and a
    // gzip part, beside _SUCCESS and a .crc file (generate_parquet.py).
    let corpus = open(0);
    let x = count_corpus(&corpus, &config(5, Weighting::Uniform)).unwrap();
    let imported = import::parts(&fixture("parts-parquet"), None).unwrap();
    assert_same_by_word(&corpus, &x, &imported, 0.0, 1.0);
    let dir = tempfile::tempdir().unwrap();
    let vocab = dir.path().join("vocab.txt");
    vocab_file(&corpus, &vocab);
    let imported = import::parts(&fixture("parts-parquet"), Some(&vocab)).unwrap();
    assert_eq!(&imported.vocab, corpus.vocab());
    assert_eq!(imported.matrix, x, "the same matrix as our own counting");
    // The same cells as CSV/TSV parts give the same matrix.
    let text = import::parts(&fixture("parts"), Some(&vocab)).unwrap();
    assert_eq!(text.matrix, imported.matrix);
    // Harmonic weights as doubles: Python summed each cell's 1/d in
    // another order than ours, so equal to rounding.
    let x = count_corpus(&corpus, &config(5, Weighting::Harmonic)).unwrap();
    let imported = import::parts(&fixture("parts-parquet-harmonic"), Some(&vocab)).unwrap();
    assert_eq!(&imported.vocab, corpus.vocab());
    assert_same_by_word(&corpus, &x, &imported, 1e-12, 1.0);
}

#[test]
fn corrupt_parquet_parts_give_a_one_line_error_naming_the_file() {
    let good = std::fs::read(fixture("parts-parquet/part-00000-5e1f-c000.snappy.parquet")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let parts = dir.path().join("parts");
    std::fs::create_dir(&parts).unwrap();
    let part = parts.join("part-00007.snappy.parquet");
    let import_error = |bytes: &[u8]| {
        std::fs::write(&part, bytes).unwrap();
        let err = import::parts(&parts, None).unwrap_err().to_string();
        assert!(err.contains("part-00007.snappy.parquet"), "{err}");
        assert!(!err.contains('\n'), "one line: {err}");
        err
    };
    // Truncated: the footer is gone.
    let err = import_error(&good[..good.len() / 2]);
    assert!(err.contains("Parquet"), "{err}");
    // The footer's length points outside the file.
    let mut bad = good.clone();
    let n = bad.len();
    bad[n - 8..n - 4].copy_from_slice(&u32::MAX.to_le_bytes());
    import_error(&bad);
    // Page bytes overwritten (the footer intact): every such file fails to
    // decode or gives words that are not in the (given) vocabulary.
    let vocab = dir.path().join("vocab.txt");
    vocab_file(&open(0), &vocab);
    for start in (4..n / 2).step_by(97) {
        let mut bad = good.clone();
        for b in &mut bad[start..start + 40] {
            *b = b.wrapping_mul(31).wrapping_add(7);
        }
        std::fs::write(&part, &bad).unwrap();
        if let Err(e) = import::parts(&parts, Some(&vocab)) {
            let err = e.to_string();
            assert!(!err.contains('\n'), "one line: {err}");
            assert!(err.contains("part-00007") || err.contains("vocab"), "{err}");
        }
    }
    // Named .parquet but not Parquet.
    let err = import_error(b"word,context,count\n");
    assert!(err.contains("PAR1"), "{err}");
}

#[test]
fn bad_imports_name_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let parts = dir.path().join("parts");
    std::fs::create_dir(&parts).unwrap();
    std::fs::write(parts.join("part-0.tsv"), "a\tb\t1\nb\ta\tx\n").unwrap();
    let err = import::parts(&parts, None).unwrap_err().to_string();
    assert!(
        err.contains("part-0.tsv:2") && err.contains("not a number"),
        "{err}"
    );
    let bin = dir.path().join("c.bin");
    std::fs::write(&bin, [0u8; 20]).unwrap();
    let err = import::glove(&bin, &fixture("glove-vocab.txt"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("c.bin") && err.contains("16-byte"), "{err}");
    std::fs::write(&bin, [0u8; 16]).unwrap();
    let err = import::glove(&bin, &fixture("glove-vocab.txt"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("record 0"), "{err}");
}

fn wordbench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wordbench"))
        .args(args)
        .env("TMPDIR", std::env::temp_dir())
        .output()
        .expect("run wordbench")
}

fn ok(args: &[&str]) -> Output {
    let out = wordbench(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

#[test]
fn the_cli_counts_with_a_tiny_budget_and_trains_from_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let spill_parent = dir.path().join("tmp");
    std::fs::create_dir(&spill_parent).unwrap();
    let corpus = fixture("corpus.txt");
    let c = corpus.to_str().unwrap();
    let small = dir.path().join("small.wbc");
    let large = dir.path().join("large.wbc");
    // Uniform weights: counts are integers, so a smaller budget (which also
    // shrinks the counter's buffers) still gives the same bits.
    let common = [
        "--corpus-format",
        "lines",
        "--min-count",
        "1",
        "--window",
        "5",
    ];
    let run = |out: &Path, memory: &str| {
        let mut args = vec![
            "counts",
            c,
            "--out",
            out.to_str().unwrap(),
            "--memory",
            memory,
        ];
        args.extend(common);
        let o = Command::new(env!("CARGO_BIN_EXE_wordbench"))
            .args(&args)
            .env("TMPDIR", &spill_parent)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    // 1 MiB leaves 512 KiB for runs: this corpus fits; 1K (rounded up to 1
    // MiB) is the smallest budget the option takes, so the spilling itself
    // is tested in the library (cooc::count) with budgets of bytes.
    let log = run(&large, "2G");
    assert!(log.contains("0 runs spilled"), "{log}");
    run(&small, "1M");
    assert_eq!(
        std::fs::read(&small).unwrap(),
        std::fs::read(&large).unwrap()
    );
    assert_eq!(std::fs::read_dir(&spill_parent).unwrap().count(), 0);
    let vectors = dir.path().join("v.txt");
    let session = dir.path().join("s.ron");
    ok(&[
        "train",
        "--counts",
        large.to_str().unwrap(),
        "--algo",
        "svd",
        "--set",
        "window=5",
        "--dim",
        "4",
        "--threads",
        "1",
        "--out",
        vectors.to_str().unwrap(),
        "--session-out",
        session.to_str().unwrap(),
        "-q",
    ]);
    let text = std::fs::read_to_string(&vectors).unwrap();
    assert!(text.starts_with("58 4\n"), "{}", &text[..20]);
    let recorded = std::fs::read_to_string(&session).unwrap();
    assert!(
        recorded.contains("large.wbc"),
        "the session names the counts file"
    );
    // A method that needs text says so in one line.
    let out = wordbench(&[
        "train",
        "--counts",
        large.to_str().unwrap(),
        "--algo",
        "sgns",
        "--dim",
        "4",
        "--out",
        vectors.to_str().unwrap(),
        "-q",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is a counts file"), "{err}");
    // A window other than the file's is refused.
    let out = wordbench(&[
        "train",
        "--counts",
        large.to_str().unwrap(),
        "--algo",
        "svd",
        "--set",
        "window=3",
        "--dim",
        "4",
        "--out",
        vectors.to_str().unwrap(),
        "-q",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("window of 5"),
        "{err}"
    );
    // Imports through the CLI.
    let g = dir.path().join("g.wbc");
    ok(&[
        "counts",
        "--from-glove",
        fixture("glove-cooccur.bin").to_str().unwrap(),
        "--vocab",
        fixture("glove-vocab.txt").to_str().unwrap(),
        "--window",
        "5",
        "--weighting",
        "harmonic",
        "--out",
        g.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(counts::read(&g).unwrap().vocab.len(), 58);
}
