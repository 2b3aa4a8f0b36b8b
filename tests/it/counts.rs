//! Counts on disk: `wordbench counts` files, spilled counting through a
//! corpus, `train --counts`, and imports of Stanford GloVe `cooccur` output
//! and Spark-style part files (fixtures made by
//! tests/fixtures/counts/generate.py) matching our own counting.

use std::path::Path;
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

use crate::common;
use sprs::CsMat;
use wordbench::cooc::{
    count_corpus, count_corpus_with, progress, CountConfig, CountPhase, Counter, RowSink, Tuning,
    Weighting, Window,
};
use wordbench::corpus::{
    Corpus, CorpusConfig, Format, HeldoutConfig, ReadConfig, Split, VocabConfig,
};
use wordbench::counts::{self, import, Counts};
use wordbench::train::{Event, Job, JobConfig, TrainInput};

/// This file's fixtures, under `tests/fixtures/`.
const FIXTURES: &str = "counts";

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
    Corpus::open(common::fixture(FIXTURES, "corpus.txt"), config).unwrap()
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
    let report = counts::count_to_file(&corpus, &config, &out, |_| {}).unwrap();
    assert_eq!(report.tokens, corpus.stats().train_tokens_in_vocab);
    let back = counts::read(&out).unwrap();
    let x = count_corpus(&corpus, &config).unwrap();
    assert_eq!(back.matrix, x, "bit-for-bit the in-memory count");
    assert_eq!(&back.vocab, corpus.vocab());
    assert_eq!(back.meta.window, Some(config.window));
    // Opened as a corpus, the file gives its matrix to count-based methods...
    let as_corpus = wordbench::counts::open(&out, CorpusConfig::default()).unwrap();
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
    let imported = import::glove(
        &common::fixture(FIXTURES, "glove-cooccur.bin"),
        &common::fixture(FIXTURES, "glove-vocab.txt"),
    )
    .unwrap();
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
    let dir = tempfile::tempdir().unwrap();
    let vocab = dir.path().join("vocab.txt");
    vocab_file(&corpus, &vocab);
    assert_parts_equal_our_counts("parts", &corpus, &x, &vocab);
}

/// The part files in fixture directory `name` import to exactly `x`, our
/// counting of `corpus`: by word without a vocabulary file (row sums then
/// rank the words), and id for id with the corpus's own `vocab` file.
fn assert_parts_equal_our_counts(name: &str, corpus: &Corpus, x: &CsMat<f64>, vocab: &Path) {
    let imported = import::parts(&common::fixture(FIXTURES, name), None).unwrap();
    assert_same_by_word(corpus, x, &imported, 0.0, 1.0);
    let imported = import::parts(&common::fixture(FIXTURES, name), Some(vocab)).unwrap();
    assert_eq!(&imported.vocab, corpus.vocab());
    assert_eq!(&imported.matrix, x, "the same matrix as our own counting");
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
    let dir = tempfile::tempdir().unwrap();
    let vocab = dir.path().join("vocab.txt");
    vocab_file(&corpus, &vocab);
    // (The same cells as CSV/TSV parts equal `x` too: the test above.)
    assert_parts_equal_our_counts("parts-parquet", &corpus, &x, &vocab);
    // Harmonic weights as doubles: Python summed each cell's 1/d in
    // another order than ours, so equal to rounding.
    let x = count_corpus(&corpus, &config(5, Weighting::Harmonic)).unwrap();
    let imported = import::parts(
        &common::fixture(FIXTURES, "parts-parquet-harmonic"),
        Some(&vocab),
    )
    .unwrap();
    assert_eq!(&imported.vocab, corpus.vocab());
    assert_same_by_word(&corpus, &x, &imported, 1e-12, 1.0);
}

#[test]
fn corrupt_parquet_parts_give_a_one_line_error_naming_the_file() {
    let good = std::fs::read(common::fixture(
        FIXTURES,
        "parts-parquet/part-00000-5e1f-c000.snappy.parquet",
    ))
    .unwrap();
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
    let err = import::glove(&bin, &common::fixture(FIXTURES, "glove-vocab.txt"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("c.bin") && err.contains("16-byte"), "{err}");
    std::fs::write(&bin, [0u8; 16]).unwrap();
    let err = import::glove(&bin, &common::fixture(FIXTURES, "glove-vocab.txt"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("record 0"), "{err}");
}

/// What a counts file cannot hold is refused at import, located: a word
/// listed twice in a vocabulary, a negative or non-finite count, counts
/// whose total passes 2^53 (GloVe's records too).
#[test]
fn duplicate_words_and_bad_counts_are_refused_at_import_with_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let parts = dir.path().join("parts");
    std::fs::create_dir(&parts).unwrap();
    let part = parts.join("part-0.csv");
    let vocab = dir.path().join("vocab.txt");
    std::fs::write(&part, "word,context,count\na,b,1\nb,a,1\n").unwrap();
    std::fs::write(&vocab, "a 5\nb 3\na 2\n").unwrap();
    let err = import::parts(&parts, Some(&vocab)).unwrap_err().to_string();
    assert!(
        err.starts_with(&format!(
            "{}:3: word 'a' appears again (first on line 1)",
            vocab.display()
        )),
        "{err}"
    );
    let err = import::glove(&dir.path().join("none.bin"), &vocab)
        .unwrap_err()
        .to_string();
    assert!(err.contains("vocab.txt:3: word 'a' appears again"), "{err}");
    std::fs::write(&vocab, "a 18446744073709551615\nb 3\n").unwrap();
    let err = import::parts(&parts, Some(&vocab)).unwrap_err().to_string();
    assert!(err.contains("vocab.txt:1: the counts sum past"), "{err}");
    for (cells, line, why) in [
        (
            "a,b,1\nb,a,-2\n",
            2,
            "cell (b, a): count -2 is not a finite count of 0 or more",
        ),
        (
            "a,b,1\nb,a,inf\n",
            2,
            "cell (b, a): count inf is not a finite count",
        ),
        (
            "a,b,9e15\nb,a,9e15\n",
            2,
            "cell (b, a): the counts sum past",
        ),
    ] {
        std::fs::write(&part, cells).unwrap();
        let err = import::parts(&parts, None).unwrap_err().to_string();
        assert!(
            err.starts_with(&format!("{}:{line}: {why}", part.display())),
            "{err}"
        );
    }
    // GloVe cooccur records: a negative value, located by record.
    std::fs::write(&vocab, "a 5\nb 3\n").unwrap();
    let bin = dir.path().join("cooccur.bin");
    let mut records = Vec::new();
    for (w1, w2, v) in [(1i32, 2i32, 1.0f64), (2, 1, -1.0)] {
        records.extend(w1.to_le_bytes());
        records.extend(w2.to_le_bytes());
        records.extend(v.to_le_bytes());
    }
    std::fs::write(&bin, &records).unwrap();
    let err = import::glove(&bin, &vocab).unwrap_err().to_string();
    assert!(
        err.contains("cooccur.bin: record 1: value -1 is not a finite count"),
        "{err}"
    );
}

#[test]
fn counting_reports_tokens_spilled_runs_and_merging() {
    let corpus = open(0);
    let config = config(5, Weighting::Uniform);
    let spill = tempfile::tempdir().unwrap();
    // Small buffers and no room for runs in memory: every run spills.
    let tuning = Tuning {
        dense_cells: 0,
        buffer_events: 64,
    };
    let counter = Counter::with_tuning(corpus.vocab().len(), &config, tuning)
        .unwrap()
        .spill_over(0, spill.path())
        .unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let x = progress::report_to(Box::new(move |p| sink.lock().unwrap().push(p)), || {
        count_corpus_with(&corpus, counter)
    })
    .unwrap();
    assert_eq!(x, count_corpus(&corpus, &config).unwrap());
    let seen = seen.lock().unwrap();
    let total = corpus.stats().train_tokens_in_vocab;
    let phases: Vec<CountPhase> = seen.iter().map(|p| p.phase).collect();
    assert_eq!(phases.last(), Some(&CountPhase::Done));
    assert_eq!(phases[phases.len() - 2], CountPhase::Merging);
    assert!(phases[..phases.len() - 2]
        .iter()
        .all(|&p| p == CountPhase::Reading));
    let merging = seen[seen.len() - 2];
    assert_eq!((merging.tokens, merging.total), (total, total));
    assert!(merging.spilled_runs > 0, "{merging:?}");
    assert!(merging.describe().contains("runs spilled to disk"));
    assert_eq!(std::fs::read_dir(spill.path()).unwrap().count(), 0);
}

#[test]
fn a_training_job_that_counts_sends_counting_progress_before_its_steps() {
    let mut corpus_config = *open(0).config();
    corpus_config.read.heldout.fraction = 0.0;
    let corpus =
        Arc::new(Corpus::open(common::fixture(FIXTURES, "corpus.txt"), corpus_config).unwrap());
    let method = wordbench::algo::find("svd").unwrap();
    let input = TrainInput {
        corpus: corpus.clone(),
        params: method.params([("dim", "4"), ("window", "5")]).unwrap(),
        seed: 1,
        threads: 1,
        counts: Default::default(),
    };
    let mut events = Vec::new();
    Job::spawn(method, input, JobConfig::default())
        .wait(|e| match e {
            Event::Counting(c) => events.push(format!("{:?} {}", c.phase, c.tokens)),
            Event::Progress(_) => events.push("step".into()),
            _ => {}
        })
        .unwrap();
    let total = corpus.stats().train_tokens_in_vocab;
    let first_step = events.iter().position(|e| e == "step").unwrap();
    assert_eq!(
        events[..first_step],
        [
            format!("Reading {total}"),
            format!("Merging {total}"),
            format!("Done {total}")
        ],
        "{events:?}"
    );
    assert!(events[first_step..].iter().all(|e| e == "step"));
}

fn ok(args: &[&str]) -> Output {
    let out = common::wordbench(args);
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
    let corpus = common::fixture(FIXTURES, "corpus.txt");
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
    assert!(
        log.contains("counting 100% (2486 of 2486 tokens)") && log.contains("merging counts"),
        "{log}"
    );
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
    // Options a counts file cannot apply are refused, not ignored; a file
    // that is not a counts file is refused as `--counts`.
    let train = |input: &str, extra: &[&str]| {
        let mut args = vec![
            "train", "--counts", input, "--algo", "svd", "--dim", "4", "-q",
        ];
        args.extend_from_slice(extra);
        args.extend(["--out", vectors.to_str().unwrap()]);
        common::wordbench(&args)
    };
    for (extra, named) in [
        (&["--min-count", "3"][..], "--min-count"),
        (&["--max-vocab", "10"], "--max-vocab"),
        (&["--heldout", "0.1"], "--heldout"),
        (
            &["--keep-case", "--min-count", "2"],
            "--keep-case, --min-count",
        ),
    ] {
        let o = train(large.to_str().unwrap(), extra);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{extra:?}");
        assert!(
            err.contains(&format!("large.wbc: a counts file keeps the vocabulary it was counted with, so {named} cannot apply")),
            "{extra:?}: {err}"
        );
    }
    let o = train(c, &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("corpus.txt: not a counts file"),
        "{err}"
    );
    // Training that counts shows the counting on stderr.
    let out = ok(&[
        "train",
        c,
        "--corpus-format",
        "lines",
        "--min-count",
        "1",
        "--algo",
        "svd",
        "--set",
        "window=5",
        "--dim",
        "4",
        "--out",
        vectors.to_str().unwrap(),
    ]);
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(
        log.contains("counting 100% (") && log.contains("merging counts of"),
        "{log}"
    );
    // A method that needs text says so in one line.
    let out = common::wordbench(&[
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
    let out = common::wordbench(&[
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
        common::fixture(FIXTURES, "glove-cooccur.bin")
            .to_str()
            .unwrap(),
        "--vocab",
        common::fixture(FIXTURES, "glove-vocab.txt")
            .to_str()
            .unwrap(),
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

#[test]
fn spill_files_are_removed_when_counting_fails() {
    /// A sink that fails after a few rows, as a full disk would.
    struct Failing(usize);
    impl RowSink for Failing {
        fn row(&mut self, _: &[u32], _: &[f64]) -> wordbench::Result<()> {
            self.0 += 1;
            if self.0 > 3 {
                return Err(wordbench::Error::format("out.wbc", "injected failure"));
            }
            Ok(())
        }
    }
    let corpus = open(0);
    let config = config(5, Weighting::Uniform);
    let spill = tempfile::tempdir().unwrap();
    let tuning = Tuning {
        dense_cells: 0,
        buffer_events: 64,
    };
    let mut counter = Counter::with_tuning(corpus.vocab().len(), &config, tuning)
        .unwrap()
        .spill_over(0, spill.path())
        .unwrap();
    for batch in corpus.batches(Split::Train, 1 << 20) {
        counter.add(&batch.unwrap());
    }
    assert!(counter.spilled_runs() > 0);
    let dirs = || std::fs::read_dir(spill.path()).unwrap().count();
    assert_eq!(dirs(), 1, "runs are on disk while counting");
    let err = counter.finish_into(&mut Failing(0)).unwrap_err();
    assert!(err.to_string().contains("injected failure"), "{err}");
    assert_eq!(dirs(), 0, "the error path removed the spill directory");
}

/// `wordbench counts` gets Ctrl-C (SIGINT) as soon as it has spilled runs
/// to disk, mid-count (6 million tokens under a 1 MiB budget: hundreds of
/// runs still to come and a merge): the spill directory must go and no
/// output be left.
///
/// (A first version fed the corpus through a named pipe reopened for each
/// pass; it hung: the writer could reopen the pipe before the reader had
/// seen the end of the first copy, so the vocabulary pass never ended.)
#[cfg(unix)]
#[test]
fn ctrl_c_while_counting_removes_the_spill_files() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let corpus = dir.path().join("corpus.txt");
    // 6 million tokens over 20,000 word types (skewed), 100 a line.
    let mut state = 12345u64;
    let mut text = String::with_capacity(40 << 20);
    for t in 0..6_000_000u64 {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let u = (state >> 33) as f64 / (1u64 << 31) as f64;
        let id = (20_000f64.powf(u) as u64).min(19_999);
        text.push('w');
        text.push_str(&id.to_string());
        text.push(if t % 100 == 99 { '\n' } else { ' ' });
    }
    std::fs::write(&corpus, text).unwrap();
    let out = dir.path().join("c.wbc");
    let mut child = Command::new(env!("CARGO_BIN_EXE_wordbench"))
        .args([
            "counts",
            corpus.to_str().unwrap(),
            "--corpus-format",
            "lines",
        ])
        .args(["--min-count", "1", "--heldout", "0", "--memory", "1M"])
        .args(["--window", "10", "--out", out.to_str().unwrap(), "-q"])
        .env("TMPDIR", &tmp)
        .spawn()
        .unwrap();
    let spilling = || {
        std::fs::read_dir(&tmp).unwrap().any(|d| {
            let d = d.unwrap().path();
            d.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("wordbench-spill-")
                && std::fs::read_dir(&d).is_ok_and(|mut f| f.next().is_some())
        })
    };
    while !spilling() {
        assert!(child.try_wait().unwrap().is_none(), "the count ended early");
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let pid = child.id().to_string();
    let kill = Command::new("kill").args(["-INT", &pid]).status().unwrap();
    assert!(kill.success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "exits as interrupted");
    let left = std::fs::read_dir(&tmp).unwrap().count();
    assert_eq!(left, 0, "spill directory removed");
    assert!(!out.exists());
}
