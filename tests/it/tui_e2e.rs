//! End-to-end: the workbench driven by user-level actions (and by keys)
//! through `update`, with real background work: load the fixture corpus,
//! train a small SGNS, watch loss points arrive, look up neighbours, export
//! and evaluate the vectors, save the session and open it again.

use common::{key, keys, options, CORPUS, LONG};

use std::path::PathBuf;
use std::time::Duration;

use crate::common;
use ratatui::crossterm::event::KeyCode;
use wordbench::embedding::Embedding;
use wordbench::session;
use wordbench::tui::msg::Query;
use wordbench::tui::run::RunStatus;
use wordbench::tui::{Action, AppOptions, Driver, Msg, Screen, Slot};

#[test]
fn load_train_query_export_evaluate_save_and_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let mut d = Driver::start(&options());
    assert!(d.wait_until(LONG, |a| a.corpus.loaded.is_some()));
    let vocab = d.app.corpus.loaded.as_ref().unwrap().corpus.vocab().len();
    assert_eq!(vocab, 1726, "min-count 5 on the fixture");

    d.act(Action::GoTo(Screen::Train));
    d.act(Action::SelectMethod("sgns".into()));
    for (k, v) in [
        ("dim", "16"),
        ("epochs", "2"),
        ("threads", "1"),
        ("seed", "3"),
    ] {
        d.act(Action::SetParam(k.into(), v.into()));
    }
    d.act(Action::StartTraining);
    assert_eq!(d.app.runs.len(), 1);
    assert_eq!(
        d.app.picks[Slot::A.index()],
        Some(0),
        "the first run is picked as A"
    );
    // Loss points arrive while it trains, then it finishes.
    assert!(d.wait_until(LONG, |a| !a.runs[0].metrics().is_empty()));
    assert!(d.wait_until(LONG, |a| !a.runs[0].status.is_active()));
    let run = &d.app.runs[0];
    assert_eq!(run.status, RunStatus::Finished, "{:?}", run.log);
    let metrics = run.metrics();
    let last = metrics.last().unwrap();
    assert_eq!(last.step, last.total_steps);
    assert!(metrics.iter().all(|p| p.loss.is_finite() && p.loss > 0.0));
    assert!(
        last.perplexity.is_some(),
        "the last step measures perplexity"
    );
    let emb = run.embedding.clone().expect("vectors");
    assert_eq!((emb.len(), emb.dim()), (vocab, 16));

    // Neighbours: the answer lists k words with cosines in decreasing order.
    d.act(Action::GoTo(Screen::Neighbors));
    d.act(Action::SetK(5));
    d.act(Action::Query("government".into()));
    assert!(d.wait_until(LONG, |a| a.neighbors.answers[0].is_some()));
    let answer = d.app.neighbors.answers[0].clone().unwrap();
    assert_eq!(answer.query, Query::Word("government".into()));
    let list = answer.result.unwrap().neighbors;
    assert_eq!(list.len(), 5);
    assert!(list.windows(2).all(|w| w[0].score >= w[1].score));
    assert!(list.iter().all(|n| n.word != "government"));
    let direct = emb
        .neighbors("government", wordbench::embedding::NeighborParams::k(5))
        .unwrap();
    assert_eq!(list, direct, "the workbench shows the library's answer");

    // Export, and the file reads back as the same vectors.
    let vectors = dir.path().join("run1.txt");
    d.act(Action::ExportRun(0, vectors.display().to_string()));
    assert!(d.wait_until(LONG, |a| a.runs[0].exported.is_some()));
    let back = Embedding::load(&vectors).unwrap();
    assert_eq!((back.len(), back.dim()), (vocab, 16));
    assert_eq!(back.words().word(0), emb.words().word(0));

    // Evaluate on the fixture datasets.
    d.act(Action::EvaluateRun(0));
    assert!(d.wait_until(LONG, |a| a.runs[0].evaluation().is_some()));
    let report = d.app.runs[0].evaluation().unwrap().clone();
    assert_eq!(report.similarity.len(), 1);
    assert!(report.analogy.is_some());

    // Project: PCA exported as a PNG, then a t-SNE whose KL arrives live.
    d.act(Action::GoTo(Screen::Projection));
    d.act(Action::SetProjectionOption("method".into(), "pca".into()));
    d.act(Action::SetProjectionOption("count".into(), "200".into()));
    d.act(Action::Project);
    assert!(
        d.wait_until(LONG, |a| a.projection.layout.is_some()),
        "{}",
        d.app.status.text
    );
    let layout = d.app.projection.layout.clone().unwrap();
    assert_eq!(layout.words.len(), 200);
    assert!(layout.description.starts_with("PCA"));
    let png = dir.path().join("pca.png");
    d.act(Action::ExportPlot(png.display().to_string()));
    assert!(
        d.wait_until(LONG, |a| a.projection.exported.is_some()),
        "{}",
        d.app.status.text
    );
    let plots = &d.app.runs[0].record().plots;
    assert_eq!(plots.len(), 1);
    assert_eq!(
        (plots[0].path.as_path(), plots[0].method.as_str()),
        (png.as_path(), "pca")
    );
    assert_eq!(plots[0].settings["count"], "200");
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    d.act(Action::SetProjectionOption("method".into(), "tsne".into()));
    d.act(Action::SetProjectionOption(
        "focus".into(),
        "government".into(),
    ));
    d.act(Action::SetProjectionOption("count".into(), "40".into()));
    d.act(Action::Project);
    assert!(
        d.wait_until(LONG, |a| a.projection.pending.is_none()),
        "{}",
        d.app.status.text
    );
    let layout = d.app.projection.layout.clone().unwrap();
    assert_eq!(layout.words[0], "government");
    assert_eq!(layout.words.len(), 40);
    assert!(
        !d.app.projection.kl.is_empty(),
        "KL points arrived while it ran"
    );

    // Save the session; a new workbench opens it with the same run.
    let file = dir.path().join("s.ron");
    d.act(Action::SaveSession(file.display().to_string()));
    assert!(d.wait_until(LONG, |a| !a.session.unsaved(&a.runs)));
    let saved = session::load(&file).unwrap();
    assert_eq!(saved.runs.len(), 1);
    assert_eq!(saved.runs[0].metrics, d.app.runs[0].metrics());
    // Stored relative to the session's folder (here the same folder).
    assert_eq!(
        saved.runs[0].vectors.as_deref(),
        Some(std::path::Path::new("run1.txt"))
    );
    // (Debug text: the fixture analogy set answers nothing, and NaN != NaN.)
    assert_eq!(
        format!("{:?}", saved.runs[0].evaluation),
        format!("{:?}", Some(&report))
    );

    let mut reopened = Driver::start(&AppOptions {
        session: Some(file.clone()),
        ..options()
    });
    assert!(reopened.wait_until(LONG, |a| a.corpus.loaded.is_some()
        && a.runs.first().is_some_and(|r| r.embedding.is_some())));
    let r = &reopened.app.runs[0];
    assert_eq!(r.metrics(), d.app.runs[0].metrics());
    assert_eq!(r.params, d.app.runs[0].params);
    assert_eq!(r.status_text(), "finished");
    assert_eq!(r.corpus().unwrap().name(), "lee_background.txt");

    // The journal holds what the user did, and replaying it on a fresh
    // workbench trains the same run bit for bit (one thread, same seed).
    let journal: Vec<Action> = d
        .app
        .journal
        .iter()
        .filter(|a| {
            matches!(
                a,
                Action::SelectMethod(_) | Action::SetParam(..) | Action::StartTraining
            )
        })
        .cloned()
        .collect();
    let mut again = Driver::start(&options());
    assert!(again.wait_until(LONG, |a| a.corpus.loaded.is_some()));
    again.replay(&journal, Duration::ZERO);
    assert!(again.wait_until(LONG, |a| a
        .runs
        .first()
        .is_some_and(|r| !r.status.is_active())));
    let losses = |ms: &[wordbench::train::Progress]| ms.iter().map(|p| p.loss).collect::<Vec<_>>();
    assert_eq!(
        losses(again.app.runs[0].metrics()),
        losses(d.app.runs[0].metrics())
    );
}

#[test]
fn keys_produce_the_same_user_level_actions() {
    let mut d = Driver::start(&options());
    assert!(d.wait_until(LONG, |a| a.corpus.loaded.is_some()));
    key(&mut d, KeyCode::Char('2'));
    assert_eq!(d.app.screen, Screen::Train);
    // Edit dim as a new user would: Enter, type 16 (it replaces 100), Enter.
    key(&mut d, KeyCode::Enter);
    keys(&mut d, "16");
    key(&mut d, KeyCode::Enter);
    // An invalid value shows its error and keeps training from starting;
    // after a cursor key, typing appends (End, then x: 5 → 5x).
    key(&mut d, KeyCode::Down);
    key(&mut d, KeyCode::Enter);
    key(&mut d, KeyCode::End);
    keys(&mut d, "x");
    key(&mut d, KeyCode::Enter);
    assert!(d.app.train.form().error(1).is_some());
    key(&mut d, KeyCode::Char('s'));
    assert!(d.app.runs.is_empty());
    assert!(
        d.app.status.text.starts_with("fix window first"),
        "{}",
        d.app.status.text
    );
    // Choosing a method from the list.
    key(&mut d, KeyCode::Tab);
    key(&mut d, KeyCode::Down);
    let user: Vec<&Action> = d.app.journal.iter().filter(|a| a.is_user_level()).collect();
    assert_eq!(
        user,
        vec![
            &Action::GoTo(Screen::Train),
            &Action::SetParam("dim".into(), "16".into()),
            &Action::SetParam("window".into(), "5x".into()),
            &Action::StartTraining,
            &Action::SelectMethod("cbow".into()),
        ]
    );
}

#[test]
fn a_live_change_reaches_the_run_and_is_marked_on_its_record() {
    let mut d = Driver::start(&options());
    assert!(d.wait_until(LONG, |a| a.corpus.loaded.is_some()));
    d.act(Action::GoTo(Screen::Train));
    for (k, v) in [("dim", "8"), ("epochs", "300"), ("threads", "1")] {
        d.act(Action::SetParam(k.into(), v.into()));
    }
    d.act(Action::StartTraining);
    assert!(d.wait_until(LONG, |a| !a.runs[0].metrics().is_empty()));
    d.act(Action::Pause);
    assert!(d.wait_until(LONG, |a| a.runs[0].status == RunStatus::Paused));
    d.act(Action::SetParam("lr".into(), "0.01".into()));
    d.act(Action::SetParam("dim".into(), "9".into()));
    assert!(d.app.status.text.contains("applies to the next run"));
    assert!(d.wait_until(LONG, |a| !a.runs[0].changes().is_empty()));
    let (step, change) = d.app.runs[0].changes()[0].clone();
    assert_eq!(change, "lr=0.01");
    d.act(Action::Resume);
    assert!(d.wait_until(LONG, |a| a.runs[0]
        .last()
        .is_some_and(|p| p.step > step + 1)));
    d.act(Action::StopTraining);
    assert!(d.wait_until(LONG, |a| !a.runs[0].status.is_active()));
    let r = &d.app.runs[0];
    assert!(
        matches!(r.status, RunStatus::Stopped(s) if s >= step),
        "{:?}",
        r.status
    );
    assert!(r.embedding.is_some(), "a stopped run keeps its vectors");
    // Replaying it applies the change at the same step and stops at the same step.
    d.act(Action::ReplayRun(0));
    assert!(d.wait_until(LONG, |a| a.runs.len() == 2 && !a.runs[1].status.is_active()));
    assert_eq!(d.app.runs[1].changes(), d.app.runs[0].changes());
    assert_eq!(d.app.runs[1].status, d.app.runs[0].status);
    let loss = |i: usize| {
        d.app.runs[i]
            .metrics()
            .iter()
            .map(|p| p.loss)
            .collect::<Vec<_>>()
    };
    assert_eq!(loss(1), loss(0), "one thread: the replay is bit for bit");
}

#[test]
fn training_autosaves_the_session_while_it_runs() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("auto.ron");
    let mut d = Driver::start(&options());
    assert!(d.wait_until(LONG, |a| a.corpus.loaded.is_some()));
    d.act(Action::SaveSession(file.display().to_string()));
    assert!(d.wait_until(LONG, |_| file.is_file()));
    for (k, v) in [("dim", "8"), ("epochs", "1000"), ("threads", "1")] {
        d.act(Action::SetParam(k.into(), v.into()));
    }
    d.act(Action::StartTraining);
    // Autosaves come every two seconds of ticks while the run trains.
    let recorded = |f: &std::path::Path| {
        session::load(f)
            .ok()
            .and_then(|s| s.runs.first().map(|r| (r.outcome.clone(), r.metrics.len())))
    };
    assert!(d.wait_until(LONG, |_| recorded(&file).is_some_and(|(_, n)| n > 0)));
    let (outcome, _) = recorded(&file).unwrap();
    assert_eq!(outcome, session::Outcome::Running);
    assert!(d.app.runs[0].status.is_active());
    d.act(Action::StopTraining);
    assert!(d.wait_until(LONG, |a| !a.runs[0].status.is_active()));
    // The end of the run is saved too.
    assert!(d.wait_until(LONG, |_| recorded(&file)
        .is_some_and(|(o, _)| o == session::Outcome::Finished)));
    assert!(d.wait_until(LONG, |a| !a.session.unsaved(&a.runs)));
    assert_eq!(
        session::load(&file).unwrap().runs[0].metrics,
        d.app.runs[0].metrics()
    );
}

/// Trains a tiny SGNS run on the loaded corpus and waits for its end.
fn train_small(d: &mut Driver, epochs: &str) -> usize {
    d.act(Action::GoTo(Screen::Train));
    d.act(Action::SelectMethod("sgns".into()));
    for (k, v) in [("dim", "8"), ("epochs", epochs), ("threads", "1")] {
        d.act(Action::SetParam(k.into(), v.into()));
    }
    d.act(Action::StartTraining);
    let run = d.app.runs.len() - 1;
    assert!(d.wait_until(LONG, |a| !a.runs[run].status.is_active()));
    run
}

fn load_corpus(d: &mut Driver, path: &std::path::Path) {
    d.act(Action::SetCorpusOption(
        "path".into(),
        path.display().to_string(),
    ));
    d.act(Action::LoadCorpus);
    assert!(d.wait_until(LONG, |a| a.corpus.loading.is_none()
        && a.corpus
            .loaded
            .as_ref()
            .is_some_and(|l| l.reference.path == path)));
}

fn replay_check(file: &std::path::Path) -> (bool, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_wordbench"))
        .args(["replay", "--check"])
        .arg(file)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[test]
fn each_run_keeps_its_own_corpus_and_replays_on_it() {
    let dir = tempfile::tempdir().unwrap();
    // A second corpus: the first half of the fixture's lines.
    let text = std::fs::read_to_string(CORPUS).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let half = dir.path().join("half.txt");
    std::fs::write(&half, lines[..lines.len() / 2].join("\n")).unwrap();

    let mut d = Driver::start(&options());
    assert!(d.wait_until(LONG, |a| a.corpus.loaded.is_some()));
    let first = train_small(&mut d, "1");
    let vectors = dir.path().join("v1.txt");
    d.act(Action::ExportRun(first, vectors.display().to_string()));
    assert!(d.wait_until(LONG, |a| a.runs[first].exported.is_some()));
    load_corpus(&mut d, &half);
    let second = train_small(&mut d, "1");
    assert_eq!(
        d.app.runs[first].corpus().unwrap().name(),
        "lee_background.txt"
    );
    assert_eq!(d.app.runs[second].corpus().unwrap().name(), "half.txt");

    std::fs::create_dir(dir.path().join("sessions")).unwrap();
    let file = dir.path().join("sessions/s.ron");
    d.act(Action::SaveSession(file.display().to_string()));
    assert!(d.wait_until(LONG, |a| !a.session.unsaved(&a.runs)));
    let saved = session::load(&file).unwrap();
    let corpora: Vec<String> = saved
        .runs
        .iter()
        .map(|r| r.corpus.as_ref().unwrap().name())
        .collect();
    assert_eq!(corpora, ["lee_background.txt", "half.txt"]);
    assert_eq!(saved.corpus.path, PathBuf::from("../half.txt"));
    assert_eq!(saved.runs[0].vectors, Some(PathBuf::from("../v1.txt")));

    // The headless replay trains each run on its own corpus: bit for bit.
    let (ok, text) = replay_check(&file);
    assert!(ok, "{text}");
    assert!(
        text.contains("run 1: sgns on ../lee_background.txt")
            || text.contains("lee_background.txt"),
        "{text}"
    );
    assert_eq!(text.matches("ended alike: finished").count(), 2, "{text}");

    // Reopened, each run shows its corpus, and run 1's vectors are found
    // next to the session (not in the working directory).
    let mut reopened = Driver::start(&AppOptions {
        session: Some(file.clone()),
        ..options()
    });
    assert!(reopened.wait_until(LONG, |a| a.runs.len() == 2
        && a.runs[0].embedding.is_some()
        && a.corpus.loaded.is_some()));
    assert_eq!(reopened.app.runs[1].corpus().unwrap().name(), "half.txt");
    // `R` on run 1 replays it on its own corpus, read for the replay (the
    // Corpus screen keeps half.txt), and judges it as `wordbench replay` does.
    reopened.act(Action::ReplayRun(0));
    assert_eq!(reopened.app.runs.len(), 3, "{}", reopened.app.status.text);
    assert_eq!(reopened.app.runs[2].status_text(), "reading corpus");
    assert_eq!(reopened.app.runs[2].replay_of, Some(0));
    assert!(reopened.wait_until(LONG, |a| a.runs[2].verdict.is_some()));
    let r = &reopened.app.runs[2];
    assert_eq!(r.verdict, Some(session::Verdict::Identical), "{:?}", r.log);
    assert_eq!(r.corpus().unwrap().name(), "lee_background.txt");
    let losses = |r: &wordbench::tui::run::RunEntry| -> Vec<f64> {
        r.metrics().iter().map(|p| p.loss).collect()
    };
    assert_eq!(losses(r), losses(&reopened.app.runs[0]));
    assert_eq!(
        reopened.app.status.text,
        "replay #3 of run #1: identical to the recording (bit for bit)"
    );
    let loaded = reopened.app.corpus.loaded.as_ref().unwrap();
    assert_eq!(loaded.reference.name(), "half.txt");
}

#[test]
fn a_stopped_run_comes_back_stopped_and_replays_to_the_same_step() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("stop.ron");
    let mut d = Driver::start(&options());
    assert!(d.wait_until(LONG, |a| a.corpus.loaded.is_some()));
    d.act(Action::GoTo(Screen::Train));
    d.act(Action::SelectMethod("glove".into()));
    for (k, v) in [("dim", "8"), ("epochs", "1000"), ("threads", "1")] {
        d.act(Action::SetParam(k.into(), v.into()));
    }
    d.act(Action::StartTraining);
    assert!(d.wait_until(LONG, |a| a.runs[0].metrics().len() >= 3));
    d.act(Action::StopTraining);
    assert!(d.wait_until(LONG, |a| !a.runs[0].status.is_active()));
    let RunStatus::Stopped(step) = d.app.runs[0].status else {
        panic!("{:?}", d.app.runs[0].status)
    };
    d.act(Action::SaveSession(file.display().to_string()));
    assert!(d.wait_until(LONG, |a| !a.session.unsaved(&a.runs)));

    let mut reopened = Driver::start(&AppOptions {
        session: Some(file.clone()),
        ..options()
    });
    assert!(reopened.wait_until(LONG, |a| a.runs.len() == 1));
    assert_eq!(
        reopened.app.runs[0].status_text(),
        format!("stopped@{step}")
    );
    let (ok, text) = replay_check(&file);
    assert!(ok, "{text}");
    assert!(
        text.contains(&format!("ended alike: stopped at step {step}")),
        "{text}"
    );
}

#[test]
fn quitting_while_a_run_trains_leaves_it_out_of_the_session_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("quit.ron");
    let mut d = Driver::start(&options());
    assert!(d.wait_until(LONG, |a| a.corpus.loaded.is_some()));
    let kept = train_small(&mut d, "1");
    d.act(Action::SaveSession(file.display().to_string()));
    assert!(d.wait_until(LONG, |a| !a.session.unsaved(&a.runs)));
    d.act(Action::SetParam("epochs".into(), "1000".into()));
    d.act(Action::StartTraining);
    // The autosave while it trains holds it...
    let runs = |f: &std::path::Path| session::load(f).map_or(0, |s| s.runs.len());
    assert!(d.wait_until(LONG, |_| runs(&file) == 2));
    // ...and quitting (q, then y to discard it) saves the session without it.
    d.act(Action::Quit);
    assert!(matches!(
        d.app.modal,
        Some(wordbench::tui::app::Modal::Confirm { .. })
    ));
    d.act(Action::Yes);
    assert!(d.wait_until(LONG, |a| a.quit), "{}", d.app.status.text);
    let saved = session::load(&file).unwrap();
    assert_eq!(saved.runs.len(), 1);
    assert_eq!(saved.runs[0].metrics, d.app.runs[kept].metrics());
}

#[test]
fn a_file_that_is_not_a_session_is_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let notes = dir.path().join("notes.ron");
    std::fs::write(&notes, "my notes, not a session\n").unwrap();
    let mut d = Driver::start(&AppOptions {
        session: Some(notes.clone()),
        ..options()
    });
    assert!(d.wait_until(LONG, |a| a.corpus.loaded.is_some()));
    assert_eq!(d.app.session.path, None);
    // Why it was not opened stays on the line once the corpus is read.
    assert_eq!(
        d.app.status.level,
        wordbench::tui::app::Level::Error,
        "{}",
        d.app.status.text
    );
    assert!(d.app.status.text.contains("will not be written"));
    train_small(&mut d, "1");
    d.send(Msg::Tick);
    d.act(Action::Quit);
    d.act(Action::Yes);
    assert_eq!(
        std::fs::read_to_string(&notes).unwrap(),
        "my notes, not a session\n"
    );
}

/// The README's "first minute" walk, key for key (on the small fixture
/// corpus, and with `government` for `king`, which the fixture lacks): if
/// this test needs other keys, the README must change with it.
#[test]
fn the_readme_first_minute_walk_works_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let exports = dir.path().join("exports");
    let mut d = Driver::start(&AppOptions {
        exports: exports.clone(),
        ..options()
    });
    assert!(d.wait_until(LONG, |a| a.corpus.loaded.is_some()));
    // `2`, Enter on `dim`, type 50, Enter, `s`.
    key(&mut d, KeyCode::Char('2'));
    key(&mut d, KeyCode::Enter);
    keys(&mut d, "50");
    key(&mut d, KeyCode::Enter);
    key(&mut d, KeyCode::Char('s'));
    assert_eq!(d.app.runs.len(), 1, "{}", d.app.status.text);
    assert!(d.wait_until(LONG, |a| !a.runs[0].status.is_active()));
    // Tab, ↓↓, Enter picks GloVe; dim 50 and epochs 10; `s`.
    key(&mut d, KeyCode::Tab);
    key(&mut d, KeyCode::Down);
    key(&mut d, KeyCode::Down);
    key(&mut d, KeyCode::Enter);
    assert_eq!(d.app.train.method().name, "glove");
    key(&mut d, KeyCode::Enter);
    keys(&mut d, "50");
    key(&mut d, KeyCode::Enter);
    key(&mut d, KeyCode::Down);
    key(&mut d, KeyCode::Enter);
    keys(&mut d, "10");
    key(&mut d, KeyCode::Enter);
    key(&mut d, KeyCode::Char('s'));
    assert_eq!(d.app.runs.len(), 2, "{}", d.app.status.text);
    assert_eq!(d.app.runs[1].settings(), "dim=50 epochs=10");
    assert!(d.wait_until(LONG, |a| !a.runs[1].status.is_active()));
    // `4`, Enter, a word, Enter: both runs answer side by side.
    key(&mut d, KeyCode::Char('4'));
    key(&mut d, KeyCode::Enter);
    keys(&mut d, "government");
    key(&mut d, KeyCode::Enter);
    assert!(d.wait_until(LONG, |a| a
        .neighbors
        .answers
        .iter()
        .all(|x| x.as_ref().is_some_and(|x| x.result.is_ok()))));
    // `6`, `p`, `e`, Enter writes the plot into the exports folder.
    key(&mut d, KeyCode::Char('6'));
    key(&mut d, KeyCode::Char('p'));
    assert!(d.wait_until(LONG, |a| a.projection.layout.is_some()
        && a.projection.pending.is_none()));
    key(&mut d, KeyCode::Char('e'));
    key(&mut d, KeyCode::Enter);
    let png = exports.join("run1-tsne.png");
    assert!(
        d.wait_until(LONG, |_| png.is_file()),
        "{}",
        d.app.status.text
    );
}

#[test]
fn a_run_started_while_another_trains_is_queued_and_starts_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("queue.ron");
    let mut d = Driver::start(&options());
    assert!(d.wait_until(LONG, |a| a.corpus.loaded.is_some()));
    d.act(Action::SaveSession(file.display().to_string()));
    d.act(Action::GoTo(Screen::Train));
    for (k, v) in [("dim", "8"), ("epochs", "40"), ("threads", "1")] {
        d.act(Action::SetParam(k.into(), v.into()));
    }
    d.act(Action::StartTraining);
    d.act(Action::SetParam("epochs".into(), "1".into()));
    d.act(Action::StartTraining);
    assert_eq!(d.app.runs[1].status, RunStatus::Queued);
    assert!(
        d.app.status.text.contains("queued"),
        "{}",
        d.app.status.text
    );
    assert_eq!(d.app.train.shown, Some(0), "Train keeps the run training");
    // A queued run is not in the session file until it starts.
    let saved_now = wordbench::tui::update::session::snapshot(&d.app).unwrap();
    assert_eq!(saved_now.runs.len(), 1);
    assert!(d.wait_until(LONG, |a| a
        .runs
        .iter()
        .all(|r| !r.status.is_active() && r.status != RunStatus::Queued)));
    assert_eq!(d.app.runs[0].status, RunStatus::Finished);
    assert_eq!(d.app.runs[1].status, RunStatus::Finished);
    assert_eq!(d.app.runs[1].params.usize("epochs"), 1);
    // Named, then the first deleted: the second keeps its number #2 and
    // its name, and the session file says so.
    d.act(Action::RenameRun(1, "short".into()));
    assert_eq!(d.app.runs[1].label(), "#2 short (sgns)");
    d.act(Action::DeleteRun(0));
    assert_eq!(d.app.runs.len(), 1);
    assert_eq!(d.app.runs[0].label(), "#2 short (sgns)");
    assert_eq!(d.app.picks, [None, Some(0)]);
    d.act(Action::SaveSession(file.display().to_string()));
    assert!(d.wait_until(LONG, |a| !a.session.unsaved(&a.runs)));
    let saved = session::load(&file).unwrap();
    assert_eq!(saved.runs.len(), 1);
    assert_eq!(saved.runs[0].label.as_deref(), Some("short"));
    assert_eq!(saved.runs[0].number, 2);
    // `FILE#2` on the command line names the same run.
    use wordbench::session::store::{run_reference, run_vectors};
    let spec = std::path::PathBuf::from(format!("{}#2", file.display()));
    assert_eq!(run_reference(&spec), Some((file.clone(), 2)));
    assert!(run_vectors(&file, 2).is_ok(), "its vectors are kept");
    let gone = run_vectors(&file, 1).unwrap_err().to_string();
    assert!(gone.ends_with("the session has runs 2"), "{gone}");
}

/// The Classify screen, by keys: fields edited in place, `s` runs the
/// study in the background, and the outcome (a learning curve for MNB and
/// MNB-FM, the moved words) arrives; a bad size is refused by name.
#[test]
fn the_classify_screen_runs_a_study_from_its_fields() {
    let mut d = Driver::start(&options());
    key(&mut d, KeyCode::Char('7'));
    assert_eq!(d.app.screen, Screen::Classify);
    // train: Enter selects the value, typing replaces it.
    key(&mut d, KeyCode::Enter);
    keys(&mut d, "tests/fixtures/classify/polarity-train.txt");
    key(&mut d, KeyCode::Enter);
    key(&mut d, KeyCode::Down);
    key(&mut d, KeyCode::Enter);
    keys(&mut d, "tests/fixtures/classify/polarity-test.txt");
    key(&mut d, KeyCode::Enter);
    key(&mut d, KeyCode::Down);
    key(&mut d, KeyCode::Down);
    key(&mut d, KeyCode::Enter);
    keys(&mut d, "10,x");
    key(&mut d, KeyCode::Enter);
    key(&mut d, KeyCode::Char('s'));
    assert!(
        d.app.status.text.contains("labelled"),
        "{}",
        d.app.status.text
    );
    assert!(d.app.classify.pending.is_none());
    d.act(Action::SetClassifyField("labelled".into(), "10,100".into()));
    d.act(Action::SetClassifyField("resamples".into(), "2".into()));
    key(&mut d, KeyCode::Char('s'));
    assert!(d.app.classify.pending.is_some());
    assert!(d.wait_until(LONG, |a| a.classify.pending.is_none()));
    let o = d.app.classify.outcome.as_ref().expect(&d.app.status.text);
    assert_eq!(o.tasks, vec!["pos"]);
    assert_eq!(o.points.len(), 4, "two sizes, two methods");
    assert_eq!(o.test_documents, Some(50));
    assert!(!o.moved.is_empty());
    assert!(
        d.app.status.text.starts_with("classified"),
        "{}",
        d.app.status.text
    );
    assert!(d.app.unsaved(), "a study is work to save");

    // Saved in the session like runs; a new workbench shows it again.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.ron");
    assert!(d.wait_until(LONG, |a| a.corpus.loaded.is_some()));
    d.act(Action::SaveSession(file.display().to_string()));
    assert!(d.wait_until(LONG, |a| !a.unsaved()));
    let saved = session::load(&file).unwrap();
    assert_eq!(saved.studies.len(), 1);
    assert_eq!(saved.studies[0].fields["labelled"], "10,100");
    assert_eq!(saved.studies[0].fields["marginals"], "test");
    assert!(
        !std::path::Path::new(&saved.studies[0].fields["train"]).is_absolute(),
        "files are stored relative to the session"
    );
    let mut reopened = Driver::start(&AppOptions {
        session: Some(file.clone()),
        ..options()
    });
    assert!(reopened.wait_until(LONG, |a| a.classify.outcome.is_some()));
    let c = &reopened.app.classify;
    assert_eq!(c.outcome.as_ref(), d.app.classify.outcome.as_ref());
    assert_eq!(c.text("resamples"), "2");
    assert!(
        c.study().unwrap().train.is_file(),
        "the train path resolves again"
    );

    // `corpus` takes the marginals from the corpus loaded on 1 Corpus.
    d.act(Action::SetClassifyField(
        "marginals".into(),
        "corpus".into(),
    ));
    d.act(Action::Classify);
    assert!(d.wait_until(LONG, |a| a.classify.pending.is_none()));
    let pass = d.app.classify.outcome.as_ref().unwrap().marginal_corpus;
    assert!(pass.is_some_and(|p| p.tokens > 10_000), "{pass:?}");
    assert_eq!(d.app.classify.history.len(), 2);
}

/// Runs management by keys: `t` tags a run, `f` filters the table (the
/// selection skips hidden runs), tags are saved in the session, and a replay
/// knows the run it replays (its recording is drawn beneath) and matches it.
#[test]
fn runs_are_tagged_filtered_and_a_replay_matches_its_recording() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tags.ron");
    let mut d = Driver::start(&options());
    assert!(d.wait_until(LONG, |a| a.corpus.loaded.is_some()));
    let first = train_small(&mut d, "1");
    let second = train_small(&mut d, "2");
    d.act(Action::GoTo(Screen::Runs));
    d.app.runs_view.selected = second;
    key(&mut d, KeyCode::Char('t'));
    keys(&mut d, "base, w5");
    key(&mut d, KeyCode::Enter);
    assert_eq!(d.app.runs[second].record().tags, ["base", "w5"]);
    key(&mut d, KeyCode::Char('f'));
    keys(&mut d, "W5");
    key(&mut d, KeyCode::Enter);
    assert_eq!(d.app.runs_view.listed(&d.app.runs), [second]);
    key(&mut d, KeyCode::Up);
    assert_eq!(
        d.app.runs_view.selected, second,
        "the hidden run is skipped"
    );
    d.act(Action::FilterRuns(String::new()));
    key(&mut d, KeyCode::Up);
    assert_eq!(d.app.runs_view.selected, first);

    d.act(Action::SaveSession(file.display().to_string()));
    assert!(d.wait_until(LONG, |a| !a.session.unsaved(&a.runs)));
    let saved = session::load(&file).unwrap();
    assert_eq!(saved.runs[second].tags, ["base", "w5"]);
    assert!(saved.runs[first].tags.is_empty());

    d.act(Action::ReplayRun(second));
    let replay = d.app.runs.len() - 1;
    assert_eq!(d.app.runs[replay].replay_of, Some(second));
    assert!(d.wait_until(LONG, |a| !a.runs[replay].status.is_active()));
    let losses =
        |r: usize| -> Vec<f64> { d.app.runs[r].metrics().iter().map(|p| p.loss).collect() };
    assert_eq!(losses(replay), losses(second), "one thread: bit for bit");

    // The file holds the two saved runs, and the replay too once the
    // session is saved again after it ends: either way `second` keeps its tags.
    let mut reopened = Driver::start(&AppOptions {
        session: Some(file.clone()),
        ..options()
    });
    assert!(reopened.wait_until(LONG, |a| a.runs.len() >= 2));
    assert_eq!(reopened.app.runs[second].record().tags, ["base", "w5"]);
}

#[test]
fn a_reopened_session_browses_its_runs_without_training_them_again() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("work.ron");
    let mut d = Driver::start(&options());
    assert!(d.wait_until(LONG, |a| a.corpus.loaded.is_some()));
    let kept = train_small(&mut d, "1");
    let dropped = train_small(&mut d, "2");
    // `k` on Runs turns keeping off for the second run.
    d.act(Action::GoTo(Screen::Runs));
    d.app.runs_view.selected = dropped;
    key(&mut d, KeyCode::Char('k'));
    assert!(!d.app.runs[dropped].keep_vectors);
    d.act(Action::SaveSession(file.display().to_string()));
    assert!(d.wait_until(LONG, |a| !a.session.unsaved(&a.runs)
        && a.runs[kept].record().kept.is_some()));
    let folder = dir.path().join("work.vectors");
    let files: Vec<_> = std::fs::read_dir(&folder).unwrap().collect();
    assert_eq!(files.len(), 1, "one run's vectors are kept");
    let saved = session::load(&file).unwrap();
    let record = saved.runs[kept].kept.as_ref().unwrap();
    assert!(record.file.starts_with("work.vectors"), "{:?}", record.file);
    assert!(saved.runs[dropped].kept.is_none());
    assert!(d.app.runs[kept].vectors_text().starts_with("kept "));

    // A new workbench opens the session and browses the kept run at once.
    let mut reopened = Driver::start(&AppOptions {
        session: Some(file.clone()),
        ..options()
    });
    assert!(reopened.wait_until(LONG, |a| a.corpus.loaded.is_some()
        && a.runs.first().is_some_and(|r| r.embedding.is_some())));
    let original = d.app.runs[kept].embedding.clone().unwrap();
    let back = reopened.app.runs[kept].embedding.clone().unwrap();
    assert_eq!(back.vectors(), original.vectors(), "bit for bit");
    assert_eq!(back.context(), original.context());
    assert!(reopened.app.runs[dropped].embedding.is_none());
    assert!(reopened.app.runs[dropped]
        .no_vectors()
        .contains("R on 3 Runs replays it"));
    reopened.act(Action::GoTo(Screen::Neighbors));
    reopened.act(Action::Query("government".into()));
    assert!(reopened.wait_until(LONG, |a| a.neighbors.answers[0].is_some()));
    let list = reopened.app.neighbors.answers[0]
        .clone()
        .unwrap()
        .result
        .unwrap()
        .neighbors;
    let direct = original
        .neighbors(
            "government",
            wordbench::embedding::NeighborParams::k(list.len()),
        )
        .unwrap();
    assert_eq!(list, direct);

    // `R` replays the reopened run on its recorded corpus, with a verdict.
    reopened.app.runs_view.selected = kept;
    reopened.act(Action::GoTo(Screen::Runs));
    key(&mut reopened, KeyCode::Char('R'));
    let replay = reopened.app.runs.len() - 1;
    assert_eq!(reopened.app.runs[replay].replay_of, Some(kept));
    assert!(reopened.wait_until(LONG, |a| a.runs[replay].verdict.is_some()));
    assert_eq!(
        reopened.app.runs[replay].verdict,
        Some(session::Verdict::Identical),
        "one thread: bit for bit"
    );
    assert!(
        reopened.app.status.text.contains("identical"),
        "{}",
        reopened.app.status.text
    );

    // The CLI reads run N of the session as FILE#N.
    let run = |n: usize| {
        std::process::Command::new(env!("CARGO_BIN_EXE_wordbench"))
            .arg("neighbors")
            .arg(format!("{}#{n}", file.display()))
            .args(["government", "-k", "3"])
            .output()
            .unwrap()
    };
    let out = run(kept + 1);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(&direct[0].word), "{text}");
    let out = run(dropped + 1);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("keeps no vectors"), "{err}");
    assert!(!run(9).status.success());

    // Turning keeping off and saving removes the kept file.
    reopened.act(Action::KeepVectors(kept, false));
    reopened.act(Action::KeepVectors(replay, false));
    reopened.act(Action::SaveSession(file.display().to_string()));
    assert!(reopened.wait_until(LONG, |a| !a.session.unsaved(&a.runs)));
    assert!(!folder.exists(), "nothing is kept any more");
    assert!(session::load(&file).unwrap().runs[kept].kept.is_none());
}

/// A reopened session is not marked unsaved (`*`) before anything changes:
/// not when its corpus is read, its runs' vectors are read back, or an
/// imported run's file is read again.
#[test]
fn a_reopened_session_is_saved_until_something_changes() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("clean.ron");
    let mut d = Driver::start(&options());
    assert!(d.wait_until(LONG, |a| a.corpus.loaded.is_some()));
    let run = train_small(&mut d, "1");
    let vectors = dir.path().join("v.txt");
    d.act(Action::ExportRun(run, vectors.display().to_string()));
    assert!(d.wait_until(LONG, |a| a.runs[run].exported.is_some()));
    d.act(Action::ImportVectors(
        "tests/fixtures/pretrained/glove.txt".into(),
        None,
    ));
    assert!(d.wait_until(LONG, |a| a.runs[1].embedding.is_some()));
    d.act(Action::SaveSession(file.display().to_string()));
    assert!(d.wait_until(LONG, |a| !a.unsaved()));

    let mut reopened = Driver::start(&AppOptions {
        session: Some(file.clone()),
        ..options()
    });
    assert!(reopened.wait_until(LONG, |a| a.corpus.loaded.is_some()
        && a.runs.len() == 2
        && a.runs.iter().all(|r| r.embedding.is_some())));
    assert!(!reopened.app.unsaved(), "{}", reopened.app.status.text);
    reopened.act(Action::RenameRun(0, "changed".into()));
    assert!(reopened.app.unsaved());
}

/// A session whose corpus is running text (text8's format) does not pin
/// that format on the next file: lee_background.txt loaded after it is read
/// one document per line, with its held-out part.
#[test]
fn a_reopened_session_s_format_does_not_stick_to_another_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(CORPUS).unwrap();
    let one_line = dir.path().join("one-line.txt");
    std::fs::write(
        &one_line,
        text.split_whitespace().collect::<Vec<_>>().join(" "),
    )
    .unwrap();
    let file = dir.path().join("text.ron");
    let mut d = Driver::start(&options());
    assert!(d.wait_until(LONG, |a| a.corpus.loaded.is_some()));
    load_corpus(&mut d, &one_line);
    let format = |d: &Driver| {
        d.app
            .corpus
            .loaded
            .as_ref()
            .unwrap()
            .corpus
            .config()
            .read
            .format
    };
    assert_eq!(format(&d), wordbench::corpus::Format::Text);
    d.act(Action::SaveSession(file.display().to_string()));
    assert!(d.wait_until(LONG, |_| file.is_file()));

    let mut reopened = Driver::start(&AppOptions {
        session: Some(file.clone()),
        ..options()
    });
    assert!(reopened.wait_until(LONG, |a| a.corpus.loaded.is_some()));
    assert_eq!(format(&reopened), wordbench::corpus::Format::Text);
    assert_eq!(reopened.app.corpus.options.text("format"), "text");
    load_corpus(&mut reopened, std::path::Path::new(CORPUS));
    let lee = reopened.app.corpus.loaded.as_ref().unwrap().corpus.clone();
    assert_eq!(lee.config().read.format, wordbench::corpus::Format::Lines);
    assert!(lee.stats().heldout_tokens > 0);
    assert_eq!(reopened.app.corpus.options.text("format"), "auto");
}

#[test]
fn a_sweep_declared_in_the_form_queues_its_runs_and_fills_the_hparams_table() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.ron");
    let mut d = Driver::start(&options());
    assert!(d.wait_until(LONG, |a| a.corpus.loaded.is_some()));
    d.act(Action::GoTo(Screen::Train));
    d.act(Action::SelectMethod("sgns".into()));
    for (k, v) in [("dim", "8"), ("epochs", "1"), ("threads", "1")] {
        d.act(Action::SetParam(k.into(), v.into()));
    }
    // The form by keys: `w` opens it on HParams, Enter types the grid.
    key(&mut d, KeyCode::Char('w'));
    assert_eq!(d.app.screen, Screen::HParams);
    key(&mut d, KeyCode::Enter);
    keys(&mut d, "window=2,0");
    key(&mut d, KeyCode::Enter);
    // Refused in the form, with the parameter named; nothing starts.
    assert!(
        d.app.status.text.contains("window"),
        "{}",
        d.app.status.text
    );
    key(&mut d, KeyCode::Char('s'));
    assert!(d.app.runs.is_empty() && d.app.session.sweeps.is_empty());
    key(&mut d, KeyCode::Enter);
    keys(&mut d, "window=2,3");
    key(&mut d, KeyCode::Enter);
    d.act(Action::SetSweepField("metric".into(), "similarity".into()));
    key(&mut d, KeyCode::Char('s'));
    assert_eq!(d.app.runs.len(), 2, "{}", d.app.status.text);
    assert!(d.app.sweep_form.is_none());
    for r in &d.app.runs {
        assert_eq!(r.record().tags, ["sweep-1"]);
    }
    assert_eq!(d.app.runs[1].status, RunStatus::Queued);
    assert_eq!(d.app.runs[1].record().label.as_deref(), Some("window=3"));
    assert!(d.wait_until(LONG, |a| a
        .runs
        .iter()
        .all(|r| r.status == RunStatus::Finished && r.evaluation().is_some())
        && a.session.sweeps[0].runs.len() == 2));
    let table = wordbench::tui::update::hparams::table(&d.app).unwrap();
    assert_eq!(table.names, ["window"]);
    let values: Vec<&str> = table.rows.iter().map(|r| r.values[0].as_str()).collect();
    assert_eq!(values, ["2", "3"]);
    let metric = wordbench::sweep::Metric::Similarity("similarity".into());
    assert!(table.rows.iter().all(|r| r.value(&metric).is_some()));
    assert_eq!(
        d.app.runs[0]
            .record()
            .params
            .get("dim")
            .unwrap()
            .to_string(),
        "8"
    );
    // Saved with its runs.
    d.act(Action::SaveSession(file.display().to_string()));
    assert!(d.wait_until(LONG, |a| !a.unsaved()));
    let saved = session::load(&file).unwrap();
    assert_eq!(saved.sweeps.len(), 1);
    assert_eq!(saved.sweeps[0].runs, [1, 2]);
    assert_eq!(saved.sweeps[0].spec.grid[0].values, ["2", "3"]);
}
