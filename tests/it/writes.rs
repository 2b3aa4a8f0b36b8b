//! No command writes over what it reads (issue 33): one test per row of
//! docs/writes.md. Each refused case checks the one-line message (naming
//! the flag and the file), the exit status, and that the file it would have
//! destroyed is byte for byte what it was.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common;
use common::{options, LONG};
use wordbench::session;
use wordbench::tui::app::{Level, Modal};
use wordbench::tui::run::RunStatus;
use wordbench::tui::{Action, AppOptions, Driver, Screen};

const VECTORS: &str = "tests/fixtures/eval/vectors.txt";

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs `args`, which must fail with one line containing `expect` and
/// leave `kept` as it was.
fn refused(args: &[&str], expect: &str, kept: &Path) {
    let before = std::fs::read(kept).unwrap();
    let o = common::wordbench(args);
    let err = stderr(&o);
    assert!(!o.status.success(), "{args:?} succeeded: {err}");
    assert!(err.contains(expect), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert_eq!(
        std::fs::read(kept).unwrap(),
        before,
        "{args:?}: {kept:?} kept"
    );
}

/// A copy of the fixture vectors (174 words x 16) in `dir`.
fn vectors(dir: &Path, name: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::copy(VECTORS, &p).unwrap();
    p
}

/// A small corpus where every word passes the default min-count.
fn corpus(dir: &Path) -> PathBuf {
    let words = ["king", "queen", "man", "woman", "child", "house"];
    let mut text = String::new();
    for i in 0..200 {
        let line: Vec<&str> = (0..6).map(|j| words[(i + j * j) % words.len()]).collect();
        text.push_str(&line.join(" "));
        text.push('\n');
    }
    let path = dir.join("corpus.txt");
    std::fs::write(&path, text).unwrap();
    path
}

fn train(c: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "train",
        s(c),
        "--algo",
        "sgns",
        "--dim",
        "4",
        "--set",
        "epochs=1",
        "--threads",
        "1",
        "-q",
    ];
    args.extend_from_slice(extra);
    common::wordbench(&args)
}

#[test]
fn counts_never_writes_over_its_inputs_or_into_the_parts_folder() {
    let dir = tempfile::tempdir().unwrap();
    let c = corpus(dir.path());
    let expect = format!(
        "--out {}: is the corpus; refusing to overwrite it",
        c.display()
    );
    refused(&["counts", s(&c), "--out", s(&c)], &expect, &c);
    // GloVe's files.
    let bin = dir.path().join("cooccur.bin");
    let vocab = dir.path().join("vocab.txt");
    std::fs::copy("tests/fixtures/counts/glove-cooccur.bin", &bin).unwrap();
    std::fs::copy("tests/fixtures/counts/glove-vocab.txt", &vocab).unwrap();
    for (out, what) in [
        (&bin, "the --from-glove file"),
        (&vocab, "the --vocab file"),
    ] {
        refused(
            &[
                "counts",
                "--from-glove",
                s(&bin),
                "--vocab",
                s(&vocab),
                "--out",
                s(out),
            ],
            &format!(
                "--out {}: is {what}; refusing to overwrite it",
                out.display()
            ),
            out,
        );
    }
    // A parts folder: neither a part nor a new file inside it.
    let parts = dir.path().join("parts");
    std::fs::create_dir(&parts).unwrap();
    for f in ["part-00000.tsv", "part-00001.csv.gz"] {
        std::fs::copy(
            Path::new("tests/fixtures/counts/parts").join(f),
            parts.join(f),
        )
        .unwrap();
    }
    let part = parts.join("part-00000.tsv");
    let inside = format!("is inside --from-parts {}", parts.display());
    refused(
        &["counts", "--from-parts", s(&parts), "--out", s(&part)],
        &inside,
        &part,
    );
    let fresh = parts.join("c.wbc");
    let o = common::wordbench(&["counts", "--from-parts", s(&parts), "--out", s(&fresh)]);
    assert!(stderr(&o).contains(&inside), "{}", stderr(&o));
    assert!(!fresh.exists());
    // A file that is not a counts file is not replaced; a counts file is.
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "my notes\n").unwrap();
    refused(
        &["counts", s(&c), "--out", s(&notes)],
        "exists and is not a counts file; refusing to replace it",
        &notes,
    );
    let out = dir.path().join("c.wbc");
    for _ in 0..2 {
        let o = common::wordbench(&["counts", s(&c), "--out", s(&out), "-q"]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
}

#[test]
fn convert_and_align_never_write_over_their_inputs_or_their_companions() {
    let dir = tempfile::tempdir().unwrap();
    let v = vectors(dir.path(), "v.txt");
    refused(
        &["convert", s(&v), s(&v), "--limit", "3"],
        &format!(
            "OUTPUT {}: is the vectors being converted; refusing to overwrite it",
            v.display()
        ),
        &v,
    );
    // The output's companion is the input: `w.npy` writes `w.vocab.txt`.
    let w = vectors(dir.path(), "w.vocab.txt");
    let npy = dir.path().join("w.npy");
    refused(
        &["convert", s(&w), s(&npy)],
        &format!(
            "OUTPUT {}: its vocabulary file {} is the vectors being converted",
            npy.display(),
            w.display()
        ),
        &w,
    );
    assert!(!npy.exists());
    // The input's companion is the output: a `.npy` reads `m.vocab.txt`.
    let m = dir.path().join("m.npy");
    let o = common::wordbench(&["convert", s(&v), s(&m)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mv = dir.path().join("m.vocab.txt");
    refused(
        &["convert", s(&m), s(&mv)],
        "is the vocabulary of the vectors being converted",
        &mv,
    );
    // Projector pair: `p.tsv` writes `p.metadata.tsv`.
    let meta = vectors(dir.path(), "p.metadata.tsv");
    refused(
        &["convert", s(&meta), s(&dir.path().join("p.tsv"))],
        "its metadata file",
        &meta,
    );
    // A file that is not vectors.
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "my notes\n").unwrap();
    refused(
        &["convert", s(&v), s(&notes)],
        "exists and is not a vectors file; refusing to replace it",
        &notes,
    );
    // Vectors over vectors are replaced.
    let old = vectors(dir.path(), "old.txt");
    let o = common::wordbench(&["convert", s(&v), s(&old), "--limit", "3"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::read_to_string(&old).unwrap().starts_with("3 16\n"));
    // align: neither A nor B.
    let b = vectors(dir.path(), "b.txt");
    for out in [&v, &b] {
        refused(
            &["align", s(&v), s(&b), "--out", s(out)],
            "; refusing to overwrite it",
            out,
        );
    }
}

#[test]
fn project_and_cluster_never_write_over_their_inputs_or_other_files() {
    let dir = tempfile::tempdir().unwrap();
    let v = vectors(dir.path(), "v.txt");
    refused(
        &[
            "project",
            s(&v),
            "--method",
            "pca",
            "--out",
            s(&dir.path().join("v.txt")),
        ],
        "expected a .png, .svg or .csv file",
        &v,
    );
    let csv = vectors(dir.path(), "v.csv");
    refused(
        &["project", s(&csv), "--method", "pca", "--out", s(&csv)],
        "is the vectors file being projected; refusing to overwrite it",
        &csv,
    );
    let table = dir.path().join("table.csv");
    std::fs::write(&table, "name,age\nann,3\n").unwrap();
    refused(
        &["project", s(&v), "--method", "pca", "--out", s(&table)],
        "exists and is not a CSV table starting `word,`",
        &table,
    );
    let png = dir.path().join("photo.png");
    std::fs::write(&png, "not a png").unwrap();
    refused(
        &["project", s(&v), "--method", "pca", "--out", s(&png)],
        "exists and is not a PNG or SVG image",
        &png,
    );
    let labels = dir.path().join("labels.csv");
    std::fs::write(&labels, "word,cluster\nthe 1\n").unwrap();
    refused(
        &[
            "cluster",
            s(&v),
            "--k",
            "2",
            "--labels",
            s(&labels),
            "--out",
            s(&labels),
        ],
        "is the --labels file; refusing to overwrite it",
        &labels,
    );
    refused(
        &["cluster", s(&v), "--k", "2", "--out", s(&table)],
        "exists and is not a CSV table starting `word,`",
        &table,
    );
}

#[test]
fn train_refuses_other_kinds_and_appends_to_an_existing_session() {
    let dir = tempfile::tempdir().unwrap();
    let c = corpus(dir.path());
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "my notes\n").unwrap();
    let v = dir.path().join("v.txt");
    for (flag, expect) in [
        ("--out", "exists and is not a vectors file"),
        ("--session-out", "exists and is not a wordbench session"),
        (
            "--metrics-out",
            "exists and is not a CSV table starting `step,`",
        ),
    ] {
        let mut args = vec![
            "train",
            s(&c),
            "--algo",
            "sgns",
            "--dim",
            "4",
            "-q",
            "--out",
            s(&v),
        ];
        if flag == "--out" {
            args.truncate(7);
        }
        args.extend([flag, s(&notes)]);
        refused(
            &args,
            &format!("{flag} {}: {expect}", notes.display()),
            &notes,
        );
    }
    // Two runs into one session file: the second is appended.
    let file = dir.path().join("s.ron");
    for seed in ["1", "2"] {
        let o = train(
            &c,
            &["--seed", seed, "--out", s(&v), "--session-out", s(&file)],
        );
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let saved = session::load(&file).unwrap();
    let seeds: Vec<u64> = saved.runs.iter().map(|r| r.seed).collect();
    assert_eq!(seeds, [1, 2], "the first run is kept");
}

#[test]
fn replay_never_writes_over_the_files_its_session_names() {
    let dir = tempfile::tempdir().unwrap();
    let c = corpus(dir.path());
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    // The run's own vectors are where replay --out would put its copy.
    let recorded = out.join("run1-sgns.txt");
    let file = dir.path().join("s.ron");
    let o = train(&c, &["--out", s(&recorded), "--session-out", s(&file)]);
    assert!(o.status.success(), "{}", stderr(&o));
    refused(
        &["replay", s(&file), "--out", s(&out)],
        "is the vectors the session records for run 1; refusing to overwrite it",
        &recorded,
    );
}

#[test]
fn the_key_trace_is_never_an_input_of_the_workbench() {
    let dir = tempfile::tempdir().unwrap();
    let c = corpus(dir.path());
    refused(
        &["tui", s(&c), "--key-trace", s(&c)],
        &format!(
            "--key-trace {}: is the corpus; refusing to overwrite it",
            c.display()
        ),
        &c,
    );
}

/// The workbench with the fixture vectors open as run #1.
fn with_imported(dir: &Path) -> (Driver, PathBuf) {
    let v = vectors(dir, "v.txt");
    let mut d = Driver::start(&options());
    assert!(d.wait_until(LONG, |a| a.corpus.loaded.is_some()));
    d.act(Action::GoTo(Screen::Runs));
    d.act(Action::ImportVectors(s(&v).into(), None));
    assert!(d.wait_until(LONG, |a| a.runs[0].status != RunStatus::Importing));
    assert!(d.app.runs[0].embedding.is_some(), "{}", d.app.status.text);
    (d, v)
}

/// The open question's yes, if a question is open.
fn question(d: &Driver) -> Option<(String, Action)> {
    match &d.app.modal {
        Some(Modal::Confirm { question, yes, .. }) => Some((question.clone(), yes.clone())),
        _ => None,
    }
}

#[test]
fn workbench_exports_refuse_inputs_and_other_files_and_ask_before_replacing() {
    let dir = tempfile::tempdir().unwrap();
    let (mut d, v) = with_imported(dir.path());
    let corpus = PathBuf::from(common::CORPUS);
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "my notes\n").unwrap();
    for (file, why) in [
        (&corpus, "is the open corpus; refusing to overwrite it"),
        (&v, "is the vectors run #1 opened; refusing to overwrite it"),
        (
            &notes,
            "exists and is not a vectors file; refusing to replace it",
        ),
    ] {
        let before = std::fs::read(file).unwrap();
        d.act(Action::ExportRun(0, s(file).into()));
        assert_eq!(d.app.status.level, Level::Error, "{}", d.app.status.text);
        assert!(
            d.app
                .status
                .text
                .starts_with(&format!("export {}: {why}", file.display())),
            "{}",
            d.app.status.text
        );
        assert!(question(&d).is_none());
        assert_eq!(std::fs::read(file).unwrap(), before);
    }
    // Existing vectors: asked first; yes replaces them.
    let old = vectors(dir.path(), "old.glove");
    std::fs::write(&old, "a 1 2\nb 3 4\n").unwrap();
    d.act(Action::ExportRun(0, s(&old).into()));
    let (text, yes) = question(&d).expect("asks before replacing");
    assert!(
        text.contains(&format!("{} exists", old.display())),
        "{text}"
    );
    assert_eq!(
        std::fs::read_to_string(&old).unwrap(),
        "a 1 2\nb 3 4\n",
        "not yet"
    );
    d.act(Action::Yes);
    assert!(d.app.journal.contains(&yes), "the answer is journaled");
    assert!(d.wait_until(LONG, |a| a.runs[0].exported.as_deref()
        == Some(old.as_path())));
    assert_eq!(std::fs::read_to_string(&old).unwrap().lines().count(), 174);

    // The projection's export: the same rules.
    d.act(Action::PickRun(wordbench::tui::Slot::A, 0));
    d.act(Action::GoTo(Screen::Projection));
    d.act(Action::SetProjectionOption("method".into(), "pca".into()));
    d.act(Action::SetProjectionOption("count".into(), "30".into()));
    d.act(Action::Project);
    assert!(d.wait_until(LONG, |a| a.projection.layout.is_some()));
    let table = dir.path().join("table.csv");
    std::fs::write(&table, "name,age\n").unwrap();
    d.act(Action::ExportPlot(s(&table).into()));
    assert_eq!(d.app.status.level, Level::Error);
    assert!(
        d.app.status.text.contains("exists and is not a CSV table"),
        "{}",
        d.app.status.text
    );
    let csv = dir.path().join("p.csv");
    d.act(Action::ExportPlot(s(&csv).into()));
    assert!(d.wait_until(LONG, |_| csv.exists()));
    d.act(Action::ExportPlot(s(&csv).into()));
    assert!(
        question(&d).is_some(),
        "asks before replacing its own export"
    );
    d.act(Action::Cancel);
    assert_eq!(std::fs::read_to_string(&table).unwrap(), "name,age\n");
}

#[test]
fn a_session_file_changed_on_disk_is_not_overwritten_without_asking() {
    let dir = tempfile::tempdir().unwrap();
    let (mut d, _) = with_imported(dir.path());
    let file = dir.path().join("s.ron");
    d.act(Action::SaveSession(s(&file).into()));
    assert!(d.wait_until(LONG, |a| !a.session.unsaved(&a.runs)));
    // Another workbench (or a hand edit) writes the file meanwhile.
    let mut theirs = session::load(&file).unwrap();
    theirs.runs[0].label = Some("theirs".into());
    session::save(&theirs, &file).unwrap();
    let on_disk = std::fs::read(&file).unwrap();
    d.act(Action::RenameRun(0, "mine".into()));
    d.act(Action::SaveSession(s(&file).into()));
    assert!(
        d.wait_until(LONG, |a| matches!(a.modal, Some(Modal::Confirm { .. }))),
        "{}",
        d.app.status.text
    );
    let (text, _) = question(&d).unwrap();
    assert!(text.contains("changed on disk"), "{text}");
    assert_eq!(std::fs::read(&file).unwrap(), on_disk, "theirs is kept");
    // Save elsewhere: the changed file stays, the runs go to the new one.
    d.act(Action::No);
    assert!(matches!(d.app.modal, Some(Modal::Prompt { .. })));
    d.act(Action::Cancel);
    let mine = dir.path().join("mine.ron");
    d.act(Action::SaveSession(s(&mine).into()));
    assert!(d.wait_until(LONG, |a| !a.session.unsaved(&a.runs)));
    assert_eq!(std::fs::read(&file).unwrap(), on_disk);
    assert_eq!(
        session::load(&mine).unwrap().runs[0].label.as_deref(),
        Some("mine")
    );
    // Two workbenches on one file: the second one's save asks.
    let mut other = Driver::start(&AppOptions {
        session: Some(mine.clone()),
        ..options()
    });
    assert!(other.wait_until(LONG, |a| a.runs.len() == 1
        && a.runs[0].status != RunStatus::Importing));
    other.act(Action::RenameRun(0, "other".into()));
    other.act(Action::SaveSessionPrompt);
    assert!(other.wait_until(LONG, |a| !a.session.unsaved(&a.runs)));
    d.act(Action::RenameRun(0, "mine again".into()));
    d.act(Action::SaveSessionPrompt);
    assert!(d.wait_until(LONG, |a| matches!(a.modal, Some(Modal::Confirm { .. }))));
    assert_eq!(
        session::load(&mine).unwrap().runs[0].label.as_deref(),
        Some("other"),
        "the other workbench's save is kept"
    );
    // Overwrite: the user's answer.
    d.act(Action::Yes);
    assert!(d.wait_until(LONG, |a| !a.session.unsaved(&a.runs)));
    assert_eq!(
        session::load(&mine).unwrap().runs[0].label.as_deref(),
        Some("mine again")
    );
}
