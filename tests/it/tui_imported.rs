//! Pre-trained vectors in the workbench, end to end through `update` with
//! real background work: `i` on 3 Runs opens a file as a run of kind
//! "imported", which Neighbours, Evaluate, Projection and the A/B comparison
//! use like a trained run; the session records it by path and hash and
//! brings it back; it cannot be replayed.

use common::{key, keys, options, LONG};

use std::path::Path;

use crate::common;
use ratatui::crossterm::event::KeyCode;
use wordbench::session;
use wordbench::tui::app::Level;
use wordbench::tui::run::RunStatus;
use wordbench::tui::{Action, AppOptions, Driver, Screen, Slot};

const VECTORS: &str = "tests/fixtures/eval/vectors.txt";

fn train_small(d: &mut Driver) -> usize {
    d.act(Action::GoTo(Screen::Train));
    d.act(Action::SelectMethod("sgns".into()));
    for (k, v) in [("dim", "8"), ("epochs", "1"), ("threads", "1")] {
        d.act(Action::SetParam(k.into(), v.into()));
    }
    d.act(Action::StartTraining);
    let run = d.app.runs.len() - 1;
    assert!(d.wait_until(LONG, |a| !a.runs[run].status.is_active()));
    run
}

fn imported(d: &mut Driver, run: usize) {
    assert!(
        d.wait_until(LONG, |a| a.runs[run].status != RunStatus::Importing),
        "{}",
        d.app.status.text
    );
    assert_eq!(
        d.app.runs[run].status,
        RunStatus::Finished,
        "{}",
        d.app.status.text
    );
}

#[test]
fn imported_vectors_are_a_run_for_every_screen_and_come_back_with_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let mut d = Driver::start(&options());
    assert!(d.wait_until(LONG, |a| a.corpus.loaded.is_some()));
    let trained = train_small(&mut d);
    assert_eq!(trained, 0);

    // `i` on 3 Runs, a path, Enter: the file opens as run #2, picked as B.
    d.act(Action::GoTo(Screen::Runs));
    keys(&mut d, "i");
    keys(&mut d, VECTORS);
    key(&mut d, KeyCode::Enter);
    assert!(d
        .app
        .journal
        .contains(&Action::ImportVectors(VECTORS.into(), None)));
    assert_eq!(d.app.runs.len(), 2);
    imported(&mut d, 1);
    let run = &d.app.runs[1];
    assert!(run.is_imported());
    assert_eq!(run.method.name, "imported");
    assert_eq!(run.settings(), "vectors.txt 174x16");
    assert_eq!(d.app.picks, [Some(0), Some(1)], "A trained, B imported");
    let emb = run.embedding.clone().unwrap();
    assert_eq!((emb.len(), emb.dim()), (174, 16));
    let source = run.record().source.clone().unwrap();
    let (bytes, hash) = session::corpus_ref::hash_file(Path::new(VECTORS)).unwrap();
    assert_eq!((source.bytes, source.hash.as_str()), (bytes, hash.as_str()));
    assert_eq!(source.format.name(), "word2vec-text");

    // Neighbours: A (trained) and B (imported) answer side by side.
    d.act(Action::GoTo(Screen::Neighbors));
    d.act(Action::SetK(5));
    d.act(Action::Query("king".into()));
    assert!(d.wait_until(LONG, |a| a.neighbors.answers.iter().all(Option::is_some)));
    let b = d.app.neighbors.answers[1].clone().unwrap();
    assert_eq!(b.run, 1);
    let direct = emb
        .neighbors("king", wordbench::embedding::NeighborParams::k(5))
        .unwrap();
    assert_eq!(b.result.unwrap().neighbors, direct);

    // Evaluate: the imported run is scored like any other.
    d.act(Action::EvaluateRun(1));
    assert!(d.wait_until(LONG, |a| a.runs[1].evaluation().is_some()));

    // Projection of the imported run as A.
    d.act(Action::PickRun(Slot::A, 1));
    d.act(Action::GoTo(Screen::Projection));
    d.act(Action::SetProjectionOption("method".into(), "pca".into()));
    d.act(Action::SetProjectionOption("count".into(), "50".into()));
    d.act(Action::Project);
    assert!(
        d.wait_until(LONG, |a| a.projection.layout.is_some()),
        "{}",
        d.app.status.text
    );
    let layout = d.app.projection.layout.clone().unwrap();
    assert_eq!((layout.run, layout.words.len()), (1, 50));
    assert_eq!(layout.words[0], "the");

    // An imported run cannot be replayed.
    d.act(Action::ReplayRun(1));
    assert_eq!(d.app.status.level, Level::Error);
    assert!(d.app.status.text.contains("nothing to replay"));
    assert_eq!(d.app.runs.len(), 2);

    // The session records it by path (relative) and hash, and brings it back.
    let file = dir.path().join("s.ron");
    d.act(Action::SaveSession(file.display().to_string()));
    assert!(d.wait_until(LONG, |a| !a.session.unsaved(&a.runs)));
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("method: \"imported\""), "{text}");
    assert!(text.contains(&hash), "{text}");
    let saved = session::load(&file).unwrap();
    assert_eq!(saved.runs.len(), 2);
    assert!(saved.runs[0].source.is_none(), "trained runs are unchanged");
    let recorded = saved.runs[1].source.as_ref().unwrap();
    assert!(recorded.path.is_relative());
    assert!(saved.runs[1].evaluation.is_some());

    let mut reopened = Driver::start(&AppOptions {
        session: Some(file.clone()),
        ..options()
    });
    assert!(reopened.wait_until(LONG, |a| a.runs.len() == 2
        && a.runs.iter().all(|r| r.status != RunStatus::Importing)));
    let back = &reopened.app.runs[1];
    assert!(back.is_imported());
    assert_eq!(back.status, RunStatus::Finished);
    let back_emb = back.embedding.clone().unwrap();
    assert_eq!(back_emb.words(), emb.words());
    assert_eq!(back_emb.vectors(), emb.vectors());
    assert!(back.evaluation().is_some());
}

#[test]
fn stanford_glove_header_is_imported_with_a_note_and_a_limit_is_kept() {
    let mut d = Driver::start(&options());
    assert!(d.wait_until(LONG, |a| a.corpus.loaded.is_some()));
    d.act(Action::ImportVectors(
        "tests/fixtures/pretrained/stanford-header.txt".into(),
        None,
    ));
    imported(&mut d, 0);
    assert_eq!(d.app.status.level, Level::Warn);
    assert!(
        d.app.status.text.contains("Stanford GloVe"),
        "{}",
        d.app.status.text
    );
    assert_eq!(d.app.runs[0].embedding.as_ref().unwrap().len(), 21);
    assert_eq!(d.app.picks[Slot::A.index()], Some(0));

    d.act(Action::ImportVectors(
        "tests/fixtures/pretrained/glove.txt.xz".into(),
        Some(7),
    ));
    imported(&mut d, 1);
    assert_eq!(d.app.runs[1].embedding.as_ref().unwrap().len(), 7);
    assert_eq!(d.app.runs[1].settings(), "glove.txt.xz 7x16 limit=7");
    assert_eq!(
        d.app.runs[1].record().source.as_ref().unwrap().limit,
        Some(7)
    );

    // The vocabulary browser: `/` finds a word's rank, `]` pages on.
    d.act(Action::GoTo(Screen::Runs));
    key(&mut d, KeyCode::Up);
    assert_eq!(d.app.runs_view.selected, 0, "the Stanford file");
    keys(&mut d, "/");
    keys(&mut d, "fiv");
    key(&mut d, KeyCode::Enter);
    assert_eq!(d.app.status.text, "five: rank 16 of 21");
    assert_eq!(d.app.runs_view.vocab_from, 15);
    keys(&mut d, "]");
    assert_eq!(d.app.runs_view.vocab_from, 20, "clamped to the last word");
    keys(&mut d, "[[");
    assert_eq!(d.app.runs_view.vocab_from, 0);
    d.act(Action::FindVocab("zzz".into()));
    assert_eq!(d.app.status.level, Level::Warn);

    d.act(Action::ImportVectors("no/such/file.vec".into(), None));
    assert_eq!(d.app.status.level, Level::Error);
    assert_eq!(d.app.runs.len(), 2, "a missing file adds no run");
}

#[test]
fn a_fasttext_model_answers_a_word_outside_its_vocabulary_from_subwords() {
    let mut d = Driver::start(&options());
    assert!(d.wait_until(LONG, |a| a.corpus.loaded.is_some()));
    d.act(Action::ImportVectors(
        "tests/fixtures/pretrained/fasttext.bin".into(),
        None,
    ));
    imported(&mut d, 0);
    let run = &d.app.runs[0];
    assert_eq!(run.settings(), "fasttext.bin 1763x8");
    let source = run.record().source.clone().unwrap();
    assert_eq!(source.format.name(), "fasttext-bin");
    let emb = run.embedding.clone().unwrap();
    assert!(emb.id("governmentalism").is_none());

    d.act(Action::GoTo(Screen::Neighbors));
    d.act(Action::SetK(5));
    d.act(Action::Query("governmentalism".into()));
    assert!(d.wait_until(LONG, |a| a.neighbors.answers[0].is_some()));
    let found = d.app.neighbors.answers[0].clone().unwrap().result.unwrap();
    assert!(found.note.unwrap().contains("(from subwords)"));
    let v = emb.subword_vector("governmentalism").unwrap();
    let direct = emb
        .neighbors_of_vector(v.view(), wordbench::embedding::NeighborParams::k(5), &[])
        .unwrap();
    assert_eq!(found.neighbors, direct);
}
