//! Session files from the workbench: Ctrl-S saves (asking for a file the
//! first time), training autosaves every two seconds while a session file is
//! set, and `--session FILE` or Ctrl-O opens one: the corpus is located and
//! loaded, every run comes back with its curves, its own corpus and how it
//! ended, and runs whose vectors were exported get them read back.
//!
//! The rules that keep a user's work: a file that is not a session is never
//! written over; opening a session replaces the runs on screen, after asking
//! to save or discard those not saved; a run discarded at quit is left out
//! of the file; every path is stored relative to the session file.

use std::path::PathBuf;
use std::sync::Arc;

use crate::session::{Run, Session};
use crate::train::Command;
use crate::tui::action::Action;
use crate::tui::app::{App, Level, PromptKind, TICKS_PER_SECOND};
use crate::tui::model::session::{AfterSave, AUTOSAVE_SECONDS};
use crate::tui::msg::{Effect, LoadedSession, SessionLoadError};
use crate::tui::run::{RunEntry, RunStatus};

/// Ctrl-S: save to the session file, asking for one the first time.
pub fn save_prompt(app: &mut App) -> Vec<Effect> {
    match app.session.path.clone() {
        Some(path) => save(app, path, false),
        None => {
            app.prompt(
                PromptKind::SaveSession,
                "Save session",
                "wordbench-session.ron".into(),
                "RON file; training autosaves to it from now on",
            );
            Vec::new()
        }
    }
}

/// What the session file should hold now (paths as the workbench uses
/// them; the runtime makes them relative to the file). `None` when there is
/// no corpus to name.
pub fn snapshot(app: &App) -> Option<Session> {
    let runs: Vec<Run> = app
        .runs
        .iter()
        .filter(|r| !r.discarded && r.status != RunStatus::Queued)
        // An imported run is saved once its file is read (and described).
        .filter(|r| !r.is_imported() || r.record().source.is_some())
        .map(|r| r.record().clone())
        .chain(app.session.kept.iter().cloned())
        .collect();
    let corpus = match &app.corpus.loaded {
        Some(l) => l.reference.clone(),
        None => runs.iter().find_map(|r| r.corpus.clone())?,
    };
    let mut session = Session::new(corpus);
    session.datasets = app.eval.added.clone();
    session.runs = runs;
    session.studies = app.classify.history.clone();
    Some(session)
}

/// Saves the session to `path` (atomically, on a worker). While another
/// save is being written this one waits for it.
pub fn save(app: &mut App, path: PathBuf, autosave: bool) -> Vec<Effect> {
    if app.session.saving.is_some() {
        let autosave = autosave && app.session.queued.as_ref().is_none_or(|q| q.1);
        app.session.path = Some(path.clone());
        app.session.queued = Some((path, autosave));
        return Vec::new();
    }
    let Some(session) = snapshot(app) else {
        app.set_status(Level::Error, "nothing to save: no corpus is loaded");
        return Vec::new();
    };
    app.session.path = Some(path.clone());
    app.session.saving = Some(app.session.revision);
    app.session.last_save_tick = app.tick;
    vec![Effect::SaveSession {
        path,
        session: Box::new(session),
        autosave,
    }]
}

/// Saves now if a session file is set and something changed.
pub fn autosave_now(app: &mut App) -> Vec<Effect> {
    let s = &app.session;
    match &s.path {
        Some(path) if s.revision != s.saved_revision && s.saving.is_none() => {
            save(app, path.clone(), true)
        }
        _ => Vec::new(),
    }
}

/// Every tick: autosave while a run trains.
pub fn tick(app: &mut App) -> Vec<Effect> {
    let due =
        app.tick.saturating_sub(app.session.last_save_tick) >= AUTOSAVE_SECONDS * TICKS_PER_SECOND;
    if due && app.active_run().is_some() {
        return autosave_now(app);
    }
    Vec::new()
}

/// A save finished; what changed while it was written is saved next (so
/// the end of a run is never left out), then what waited for the save runs.
pub fn saved(
    app: &mut App,
    path: PathBuf,
    autosave: bool,
    result: Result<(), String>,
) -> Vec<Effect> {
    let revision = app.session.saving.take();
    if let Err(e) = result {
        app.set_status(Level::Error, format!("saving the session failed: {e}"));
        if app.session.after_save.take() == Some(AfterSave::Quit) {
            app.session.quit_save_failed = true;
            app.set_status(
                Level::Error,
                format!("saving the session failed: {e}; q again quits without saving"),
            );
        }
        return match app.session.queued.take() {
            Some((next, quiet)) => save(app, next, quiet),
            None => Vec::new(),
        };
    }
    if let Some(r) = revision {
        app.session.saved_revision = r;
    }
    if !autosave {
        app.set_status(Level::Info, format!("session saved to {}", path.display()));
    }
    if let Some((next, quiet)) = app.session.queued.take() {
        return save(app, next, quiet);
    }
    // While a run trains, its changes wait for the autosave interval; before
    // quitting or opening they are written now (a run discarded at quit may
    // still be winding down, and the save in flight may have held it).
    if app.active_run().is_none() || app.session.after_save.is_some() {
        let again = autosave_now(app);
        if !again.is_empty() {
            return again;
        }
    }
    match app.session.after_save.take() {
        Some(AfterSave::Open(file)) => vec![Effect::LoadSession { path: file }],
        Some(AfterSave::Quit) => {
            app.quit = true;
            vec![Effect::Quit]
        }
        None => Vec::new(),
    }
}

/// `QuitNow`: a run still training is stopped and discarded; with a session
/// file the session is saved without it before the program ends.
pub fn quit_now(app: &mut App) -> Vec<Effect> {
    let mut effects = Vec::new();
    for r in app
        .runs
        .iter_mut()
        .filter(|r| r.status == RunStatus::Queued)
    {
        r.discarded = true;
    }
    if let Some(i) = app.active_run() {
        app.runs[i].discarded = true;
        app.session.changed();
        effects.push(Effect::JobCommand {
            run: i,
            command: Command::Stop,
        });
    }
    let s = &app.session;
    let save_due = s.path.is_some()
        && !s.quit_save_failed
        && (s.revision != s.saved_revision || s.saving.is_some());
    if !save_due {
        app.quit = true;
        effects.push(Effect::Quit);
        return effects;
    }
    app.session.after_save = Some(AfterSave::Quit);
    app.set_status(Level::Info, "saving the session before quitting…");
    effects.extend(autosave_now(app));
    effects
}

/// `OpenSession`: opens `path` in place of the runs on screen, asking first
/// when some are not saved.
pub fn open(app: &mut App, path: PathBuf) -> Vec<Effect> {
    if let Some(i) = app.active_run() {
        app.set_status(
            Level::Warn,
            format!(
                "run #{} is training: stop it (x on 2 Train) before opening a session",
                i + 1
            ),
        );
        return Vec::new();
    }
    if !app.unsaved() {
        return vec![Effect::LoadSession { path }];
    }
    let file = path.display().to_string();
    let n = app.runs.iter().filter(|r| !r.discarded).count();
    let now = |save_first| Action::OpenSessionNow {
        path: file.clone(),
        save_first,
    };
    match app.session.path.clone() {
        Some(current) => app.choose(
            format!(
                "{n} run(s) changed since {} was saved. Opening {file} replaces them.",
                current.display()
            ),
            (now(true), "save, then open"),
            (now(false), "discard changes and open"),
        ),
        None => app.confirm(
            format!(
                "{n} run(s) are not saved. Discard them and open {file}? (Esc, then Ctrl-S saves them first)"
            ),
            now(false),
        ),
    }
    Vec::new()
}

/// Opens `path` now, after saving the current session when asked to.
pub fn open_now(app: &mut App, path: PathBuf, save_first: bool) -> Vec<Effect> {
    if !save_first || app.session.path.is_none() {
        return vec![Effect::LoadSession { path }];
    }
    app.session.after_save = Some(AfterSave::Open(path));
    let current = app.session.path.clone();
    match current {
        Some(file) if app.session.saving.is_none() => save(app, file, false),
        // A save is under way; `saved` saves again and then opens.
        _ => Vec::new(),
    }
}

/// A session was read: it replaces the runs on screen.
pub fn loaded(
    app: &mut App,
    path: PathBuf,
    result: Result<LoadedSession, SessionLoadError>,
) -> Vec<Effect> {
    let starting = app.session.opening.take().is_some();
    let loaded = match result {
        Ok(l) => l,
        Err(e) => return load_failed(app, path, e, starting),
    };
    let LoadedSession {
        session,
        corpus,
        warnings,
    } = loaded;
    app.session.path = Some(path.clone());
    app.session.quit_save_failed = false;
    app.corpus
        .set_config(&session.corpus.config, &session.corpus.path);
    clear_runs(app);
    let mut notes = warnings;
    notes.extend(app.eval.restore(&session.datasets));
    notes.extend(app.classify.restore(session.studies));
    let mut effects = Vec::new();
    for (k, run) in session.runs.into_iter().enumerate() {
        if let Some(source) = run.source.clone() {
            let entry = RunEntry::imported_recorded(run);
            effects.push(Effect::ImportVectors {
                run: app.runs.len(),
                path: source.path.clone(),
                limit: source.limit,
                recorded: Some(source),
                progress: Arc::clone(&entry.loading),
            });
            app.runs.push(entry);
            continue;
        }
        let settings = match run.settings(&path, k) {
            Ok(s) => s,
            Err(e) => {
                notes.push(format!("{e}: not shown, kept in the file"));
                app.session.kept.push(run);
                continue;
            }
        };
        let problem = settings
            .refused()
            .map(|e| format!("{e}; it cannot be replayed"));
        notes.extend(problem.clone());
        let (method, params) = (settings.method, settings.params);
        let index = app.runs.len();
        if let Some(v) = run.vectors.as_ref().filter(|v| v.is_file()) {
            effects.push(Effect::LoadVectors {
                run: index,
                path: v.clone(),
            });
        }
        let mut entry = RunEntry::recorded(method, params, run);
        entry.problem = problem;
        app.runs.push(entry);
    }
    if !app.runs.is_empty() {
        app.picks[0] = Some(0);
        app.picks[1] = (app.runs.len() > 1).then_some(app.runs.len() - 1);
        app.train.shown = Some(0);
    }
    app.session.saved_revision = app.session.revision;
    match corpus {
        Ok(corpus_path) => {
            app.corpus.path.set(corpus_path.display().to_string());
            effects.extend(load_corpus(app));
            let level = if notes.is_empty() {
                Level::Info
            } else {
                Level::Warn
            };
            app.corpus.keep_status = !notes.is_empty();
            let mut text = format!("session {}: {} run(s)", path.display(), app.runs.len());
            for n in notes {
                text.push_str("; ");
                text.push_str(&n);
            }
            app.set_status(level, text);
        }
        Err(e) => {
            app.screen = crate::tui::action::Screen::Corpus;
            app.corpus.selected = 0;
            app.corpus.editing_path = true;
            app.corpus
                .path
                .set(session.corpus.path.display().to_string());
            app.set_status(
                Level::Error,
                format!("{e}: type the corpus path and press Enter"),
            );
        }
    }
    effects
}

/// A session file could not be read. A missing file given at start becomes
/// the new session's file; an unreadable one is never written over.
fn load_failed(
    app: &mut App,
    path: PathBuf,
    error: SessionLoadError,
    starting: bool,
) -> Vec<Effect> {
    let message = match error {
        SessionLoadError::Missing if starting => {
            app.session.path = Some(path.clone());
            format!(
                "new session {}: Ctrl-S saves it, then training autosaves to it",
                path.display()
            )
        }
        SessionLoadError::Missing => format!("{}: no such session file", path.display()),
        SessionLoadError::Invalid(e) => {
            format!("{e} (not opened, and it will not be written; Ctrl-S saves elsewhere)")
        }
    };
    let level = if app.session.path.as_ref() == Some(&path) {
        Level::Info
    } else {
        Level::Error
    };
    app.set_status(level, message);
    if starting && app.corpus.loaded.is_none() && app.corpus.loading.is_none() {
        // Keep the message, also once the corpus is read.
        let status = app.status.clone();
        let effects = load_corpus(app);
        app.status = status;
        app.corpus.keep_status = true;
        return effects;
    }
    Vec::new()
}

/// Starts loading the corpus a session names. The status line is left to
/// the session's message (the load reports when it ends).
fn load_corpus(app: &mut App) -> Vec<Effect> {
    let request = app.next_id();
    match app.corpus.start_load(request, app.tick) {
        Ok((path, config)) => vec![Effect::LoadCorpus {
            request,
            path,
            config,
        }],
        Err(e) => {
            app.set_status(Level::Error, e);
            Vec::new()
        }
    }
}

/// The runs on screen make way for a session's.
fn clear_runs(app: &mut App) {
    app.runs.clear();
    app.session.kept.clear();
    app.picks = [None, None];
    app.train.shown = None;
    app.runs_view.selected = 0;
    app.eval.selected = 0;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::CorpusConfig;
    use crate::session::{CorpusRef, Session};
    use crate::train::Value;
    use crate::tui::app::{AppOptions, Modal};
    use crate::tui::msg::Msg;
    use crate::tui::update::{startup, update};
    use crate::{algo, train::Params};

    fn app() -> App {
        App::new(&AppOptions {
            corpus: "x".into(),
            session: None,
            eval_plan: Default::default(),
            cores: 2,
            exports: "exports".into(),
        })
    }

    const FIXTURE: &str = "tests/fixtures/corpus/lee_background.txt";

    fn corpus(name: &str) -> CorpusRef {
        CorpusRef {
            path: name.into(),
            bytes: 1,
            hash: "0".into(),
            config: CorpusConfig::default(),
        }
    }

    fn session_with_run(method: &str) -> Session {
        let mut s = Session::new(corpus("c.txt"));
        let m = algo::find("sgns").unwrap();
        let params = m.params([("dim", "20")]).unwrap();
        let mut run = crate::session::Recorder::new(method, &params, 7, 1)
            .on_corpus(corpus("other.txt"))
            .into_run();
        run.metrics.push(crate::train::Progress {
            step: 1,
            total_steps: 2,
            loss: 3.0,
            perplexity: Some(100.0),
            ..Default::default()
        });
        s.runs.push(run);
        s
    }

    fn load(a: &mut App, session: Session, corpus: Result<PathBuf, String>) -> Vec<Effect> {
        loaded(
            a,
            "s.ron".into(),
            Ok(LoadedSession {
                session,
                corpus,
                warnings: Vec::new(),
            }),
        )
    }

    #[test]
    fn a_loaded_session_brings_its_runs_and_asks_for_a_missing_corpus() {
        let mut a = app();
        let effects = load(
            &mut a,
            session_with_run("sgns"),
            Err("s.ron: corpus c.txt not found".into()),
        );
        assert!(effects.is_empty());
        assert_eq!(a.runs.len(), 1);
        assert_eq!(a.runs[0].params.usize("dim"), 20);
        assert_eq!(a.runs[0].perplexity, Some(100.0));
        assert_eq!(a.runs[0].status_text(), "interrupted@1");
        assert_eq!(a.runs[0].corpus().unwrap().name(), "other.txt");
        assert!(a.corpus.editing_path, "the path field waits for the corpus");
        assert_eq!(a.corpus.path.text(), "c.txt");
        assert!(!a.session.unsaved(&a.runs));
    }

    #[test]
    fn autosave_waits_for_changes_and_the_interval() {
        let mut a = app();
        a.session.path = Some("s.ron".into());
        assert!(autosave_now(&mut a).is_empty(), "nothing changed");
        a.session.changed();
        // No corpus loaded and no run: the save is refused with a message.
        assert!(autosave_now(&mut a).is_empty());
        assert_eq!(a.status.level, Level::Error);
        assert!(tick(&mut a).is_empty(), "no run is training");
    }

    #[test]
    fn unknown_methods_are_kept_in_the_file_with_a_warning() {
        let mut a = app();
        loaded(
            &mut a,
            "s.ron".into(),
            Ok(LoadedSession {
                session: session_with_run("word2vec-9000"),
                corpus: Ok("c.txt".into()),
                warnings: vec!["corpus c.txt changed".into()],
            }),
        );
        assert!(a.runs.is_empty());
        assert_eq!(a.status.level, Level::Warn);
        assert!(a.status.text.contains("corpus c.txt changed"));
        assert!(a
            .status
            .text
            .contains("s.ron: run 1 (word2vec-9000): invalid value for algo"));
        assert!(
            a.status.text.contains("kept in the file"),
            "{}",
            a.status.text
        );
        // Saving writes it back as it was, after the runs shown.
        let saved = snapshot(&a).unwrap();
        assert_eq!(saved.runs.len(), 1);
        assert_eq!(saved.runs[0], session_with_run("word2vec-9000").runs[0]);
    }

    #[test]
    fn a_refused_value_is_reported_with_file_and_run_and_blocks_replay() {
        let mut s = session_with_run("sgns");
        s.runs[0].params.insert("dim".into(), Value::Int(-3));
        let mut a = app();
        load(&mut a, s, Ok("c.txt".into()));
        assert_eq!(a.status.level, Level::Warn);
        assert!(
            a.status.text.contains("s.ron: run 1 (sgns): "),
            "{}",
            a.status.text
        );
        assert!(a.runs[0].problem.is_some());
        assert_eq!(
            a.runs[0].record().params["dim"],
            Value::Int(-3),
            "the record keeps what the file says"
        );
    }

    #[test]
    fn a_file_that_is_not_a_session_never_becomes_the_save_target() {
        let mut a = App::new(&AppOptions {
            corpus: "x".into(),
            session: Some("notes.txt".into()),
            eval_plan: Default::default(),
            cores: 2,
            exports: "exports".into(),
        });
        assert!(matches!(startup(&mut a)[..], [Effect::LoadSession { .. }]));
        let effects = update(
            &mut a,
            Msg::SessionLoaded {
                path: "notes.txt".into(),
                result: Err(SessionLoadError::Invalid(
                    "notes.txt:1: column 1: bad".into(),
                )),
            },
        );
        assert_eq!(a.session.path, None);
        assert_eq!(a.status.level, Level::Error);
        assert!(a.status.text.contains("will not be written"));
        let [Effect::LoadCorpus { request, .. }] = effects[..] else {
            panic!("the corpus still loads: {effects:?}")
        };
        // The error stays on the line once the corpus is read.
        let opened = crate::tui::msg::OpenedCorpus {
            corpus: Arc::new(
                crate::corpus::Corpus::open(FIXTURE, CorpusConfig::default()).unwrap(),
            ),
            reference: corpus(FIXTURE),
            seconds: 0.1,
        };
        update(
            &mut a,
            Msg::CorpusLoaded {
                request,
                result: Ok(opened),
            },
        );
        assert!(a.corpus.loaded.is_some());
        assert_eq!(a.status.level, Level::Error);
        assert!(
            a.status.text.contains("notes.txt:1: column 1: bad"),
            "{}",
            a.status.text
        );
        a.session.changed();
        assert!(autosave_now(&mut a).is_empty());
    }

    #[test]
    fn a_missing_file_given_at_start_is_the_new_session() {
        let mut a = App::new(&AppOptions {
            corpus: "x".into(),
            session: Some("new.ron".into()),
            eval_plan: Default::default(),
            cores: 2,
            exports: "exports".into(),
        });
        startup(&mut a);
        update(
            &mut a,
            Msg::SessionLoaded {
                path: "new.ron".into(),
                result: Err(SessionLoadError::Missing),
            },
        );
        assert_eq!(a.session.path, Some(PathBuf::from("new.ron")));
        assert_eq!(a.status.level, Level::Info);
    }

    #[test]
    fn opening_with_unsaved_runs_asks_and_then_replaces() {
        let mut a = app();
        load(&mut a, session_with_run("sgns"), Ok("c.txt".into()));
        a.session.path = None;
        a.session.changed();
        let effects = open(&mut a, "b.ron".into());
        assert!(effects.is_empty(), "asks first");
        let Some(Modal::Confirm { yes, .. }) = a.modal.clone() else {
            panic!("{:?}", a.modal)
        };
        assert_eq!(
            yes,
            Action::OpenSessionNow {
                path: "b.ron".into(),
                save_first: false
            }
        );
        let effects = update(&mut a, Msg::Action(Action::Yes));
        assert!(matches!(effects[..], [Effect::LoadSession { .. }]));
        // The opened session replaces the runs instead of adding to them.
        let mut other = session_with_run("sgns");
        other.runs.push(other.runs[0].clone());
        load(&mut a, other, Ok("c.txt".into()));
        assert_eq!(a.runs.len(), 2);
        assert_eq!(a.picks, [Some(0), Some(1)]);
    }

    #[test]
    fn opening_can_save_the_current_session_first() {
        let mut a = app();
        load(&mut a, session_with_run("sgns"), Ok("c.txt".into()));
        a.session.changed();
        open(&mut a, "b.ron".into());
        let Some(Modal::Confirm { no: Some(_), .. }) = &a.modal else {
            panic!("{:?}", a.modal)
        };
        let effects = update(&mut a, Msg::Action(Action::Yes));
        assert!(
            matches!(effects[..], [Effect::SaveSession { .. }]),
            "{effects:?}"
        );
        let effects = saved(&mut a, "s.ron".into(), false, Ok(()));
        let [Effect::LoadSession { path }] = &effects[..] else {
            panic!("{effects:?}")
        };
        assert_eq!(path, &PathBuf::from("b.ron"));
    }

    /// A loaded session's run, then a second run training.
    fn with_a_run_training() -> App {
        let mut a = app();
        load(&mut a, session_with_run("sgns"), Ok("c.txt".into()));
        let m = algo::find("sgns").unwrap();
        let mut training = RunEntry::new(m, Params::defaults(m.schema), 1, 1, corpus("c.txt"));
        training.status = crate::tui::run::RunStatus::Training;
        a.runs.push(training);
        a
    }

    #[test]
    fn a_run_discarded_at_quit_is_left_out_of_the_saved_session() {
        let mut a = with_a_run_training();
        a.session.changed();
        let effects = quit_now(&mut a);
        assert!(!a.quit, "the session is saved first");
        let saved_runs = effects.iter().find_map(|e| match e {
            Effect::SaveSession { session, .. } => Some(session.runs.len()),
            _ => None,
        });
        assert_eq!(saved_runs, Some(1), "{effects:?}");
        assert!(effects
            .iter()
            .any(|e| matches!(e, Effect::JobCommand { run: 1, .. })));
        let effects = saved(&mut a, "s.ron".into(), true, Ok(()));
        assert!(matches!(effects[..], [Effect::Quit]));
        assert!(a.quit);
    }

    #[test]
    fn quitting_during_an_autosave_saves_again_without_the_discarded_run() {
        let mut a = with_a_run_training();
        a.session.path = Some("s.ron".into());
        a.session.changed();
        // The autosave in flight holds both runs...
        let [Effect::SaveSession { session, .. }] = &autosave_now(&mut a)[..] else {
            panic!("an autosave")
        };
        assert_eq!(session.runs.len(), 2);
        // ...q, y arrives before it is written; the run is still winding down.
        let effects = quit_now(&mut a);
        assert!(!effects.iter().any(|e| matches!(e, Effect::Quit)));
        let effects = saved(&mut a, "s.ron".into(), true, Ok(()));
        let [Effect::SaveSession { session, .. }] = &effects[..] else {
            panic!("saves again before quitting: {effects:?}")
        };
        assert_eq!(session.runs.len(), 1);
        assert!(!a.quit);
        let effects = saved(&mut a, "s.ron".into(), true, Ok(()));
        assert!(matches!(effects[..], [Effect::Quit]));
    }

    #[test]
    fn a_failed_save_at_quit_lets_the_next_quit_leave() {
        let mut a = app();
        load(&mut a, session_with_run("sgns"), Ok("c.txt".into()));
        a.session.changed();
        assert!(!quit_now(&mut a).is_empty());
        assert!(saved(&mut a, "s.ron".into(), true, Err("disk full".into())).is_empty());
        assert!(!a.quit);
        assert!(a.status.text.contains("disk full"));
        assert!(matches!(quit_now(&mut a)[..], [Effect::Quit]));
    }

    #[test]
    fn saves_are_written_one_at_a_time_newest_last() {
        let mut a = app();
        load(&mut a, session_with_run("sgns"), Ok("c.txt".into()));
        a.session.changed();
        assert_eq!(save(&mut a, "s.ron".into(), true).len(), 1);
        a.runs[0].recorder.run_mut().label = Some("newest".into());
        a.session.changed();
        assert!(save(&mut a, "s.ron".into(), false).is_empty(), "waits");
        assert!(a.session.unsaved(&a.runs));
        let effects = saved(&mut a, "s.ron".into(), true, Ok(()));
        let [Effect::SaveSession { session, .. }] = &effects[..] else {
            panic!("{effects:?}")
        };
        assert_eq!(
            session.runs[0].label.as_deref(),
            Some("newest"),
            "the newest state"
        );
        assert!(a.session.unsaved(&a.runs), "not until it is written");
        assert!(saved(&mut a, "s.ron".into(), false, Ok(())).is_empty());
        assert!(!a.session.unsaved(&a.runs));
    }
}
