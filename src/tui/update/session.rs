//! Session files from the workbench: Ctrl-S saves (asking for a file the
//! first time), training autosaves every two seconds while a session file is
//! set, and `--session FILE` or Ctrl-O opens one: the corpus is located and
//! loaded, every run comes back with its curves, its own corpus and how it
//! ended, and runs whose vectors were exported get them read back.
//!
//! The rules that keep a user's work: a file that is not a session is never
//! written over, nor an input of the workbench (the corpus...); saving to
//! another session file asks first; a session file that changed on disk
//! since it was read or saved here (another workbench, a hand edit) is not
//! overwritten without asking (overwrite it, or save elsewhere), and
//! autosaves wait meanwhile; opening a session replaces the runs on screen,
//! after asking to save or discard those not saved; a run discarded at quit
//! is left out of the file; every path is stored relative to the session
//! file.

use std::path::PathBuf;
use std::sync::Arc;

use crate::embedding::Embedding;
use crate::outputs::Kind;
use crate::session::guard::{Blocked, Fingerprint};
use crate::session::{KeptVectors, ProjectionRecord, Run, Session};
use crate::train::Command;
use crate::tui::action::Action;
use crate::tui::app::{App, Level, PromptKind, TICKS_PER_SECOND};
use crate::tui::model::session::{AfterSave, AUTOSAVE_SECONDS};
use crate::tui::msg::{Effect, LoadedSession, SaveFailure, SessionLoadError};
use crate::tui::run::{RunEntry, RunStatus};
use crate::tui::update::writes;

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
    snapshot_keeping(app).map(|(session, _)| session)
}

/// The runs a save writes, in file order, with their index on screen.
fn saved_runs(app: &App) -> impl Iterator<Item = (usize, &RunEntry)> {
    app.runs
        .iter()
        .enumerate()
        .filter(|(_, r)| !r.discarded && r.status != RunStatus::Queued)
        // An imported run is saved once its file is read (and described).
        .filter(|(_, r)| !r.is_imported() || r.record().source.is_some())
}

/// Runs whose vectors a save keeps: index in the session's runs, vectors.
type ToKeep = Vec<(usize, Arc<Embedding>)>;

/// [`snapshot`], and the runs whose vectors the save keeps for the first
/// time (index in the session's runs, and the vectors): trained runs with
/// vectors that are not kept yet, unless the user chose not to keep them.
fn snapshot_keeping(app: &App) -> Option<(Session, ToKeep)> {
    let mut keep = Vec::new();
    let mut runs: Vec<Run> = Vec::new();
    let mut in_file = vec![None; app.runs.len()];
    for (i, (shown, entry)) in saved_runs(app).enumerate() {
        in_file[shown] = Some(i);
        let mut run = entry.record().clone();
        if !entry.keep_vectors || entry.is_imported() {
            run.kept = None;
        } else if let (None, Some(e)) = (&run.kept, &entry.embedding) {
            keep.push((i, Arc::clone(e)));
        }
        runs.push(run);
    }
    runs.extend(app.session.kept.iter().cloned());
    let corpus = match &app.corpus.loaded {
        Some(l) => l.reference.clone(),
        None => runs.iter().find_map(|r| r.corpus.clone())?,
    };
    let mut session = Session::new(corpus);
    session.datasets = app.eval.added.clone();
    session.runs = runs;
    session.studies = app.classify.history.clone();
    session.projection = projection_record(app, &in_file);
    session.sweeps = app.session.sweeps.clone();
    Some((session, keep))
}

/// The Projection screen's final layout and view, its runs numbered as in
/// the file (`in_file` maps a run on screen to its place there); none while
/// a layout still forms or when its run is left out of the file.
fn projection_record(app: &App, in_file: &[Option<usize>]) -> Option<Box<ProjectionRecord>> {
    let view = &app.projection;
    if view.pending.is_some() {
        return None;
    }
    let mut layout = view.layout.clone()?;
    layout.run = in_file.get(layout.run).copied().flatten()?;
    if let Some(pair) = &mut layout.pair {
        pair.b_run = in_file.get(pair.b_run).copied().flatten()?;
    }
    Some(Box::new(ProjectionRecord {
        layout,
        zoom: view.zoom,
        pan: view.pan,
        turn: view.turn,
        settings: view.settings.clone(),
    }))
}

/// Shows a saved projection again, its runs renumbered from the file's
/// (`shown` maps a run's place in the file to its index on screen).
fn restore_projection(app: &mut App, record: Box<ProjectionRecord>, shown: &[Option<usize>]) {
    let ProjectionRecord {
        mut layout,
        zoom,
        pan,
        turn,
        settings,
    } = *record;
    let Some(run) = shown.get(layout.run).copied().flatten() else {
        return;
    };
    layout.run = run;
    if let Some(pair) = &mut layout.pair {
        match shown.get(pair.b_run).copied().flatten() {
            Some(b) => pair.b_run = b,
            None => return,
        }
    }
    let view = &mut app.projection;
    view.layout = Some(layout);
    view.zoom = zoom;
    view.pan = pan;
    view.turn = turn;
    view.settings = settings;
}

/// The save dialog's answer (`SaveSession`): a file other than the
/// session's own is checked first: never an input of the workbench or a
/// file that is not a session, and another session only after a yes
/// (`overwrite`).
pub fn save_as(app: &mut App, path: PathBuf, overwrite: bool) -> Vec<Effect> {
    let own = app
        .session
        .path
        .as_ref()
        .is_some_and(|p| crate::atomic::same_file(p, &path));
    let again = Action::SaveSession(path.display().to_string());
    if !own && !writes::may_write(app, "save", &path, Kind::Session, overwrite, again) {
        return Vec::new();
    }
    if overwrite {
        app.session.overwrite = Some(path.clone());
    }
    save(app, path, false)
}

/// "Save elsewhere" after the session file changed on disk: asks for a file.
pub fn save_elsewhere(app: &mut App) -> Vec<Effect> {
    let current = app
        .session
        .path
        .as_ref()
        .map_or(String::new(), |p| p.display().to_string());
    app.prompt(
        PromptKind::SaveSession,
        "Save session as",
        current,
        "another RON file; the changed one is left as it is",
    );
    Vec::new()
}

/// Saves the session to `path` (atomically, on a worker). While another
/// save is being written this one waits for it.
pub fn save(app: &mut App, path: PathBuf, autosave: bool) -> Vec<Effect> {
    if app.session.path.as_ref() != Some(&path) {
        // What is known of the old file says nothing of the new one.
        app.session.on_disk = None;
        app.session.blocked = false;
    }
    if app.session.saving.is_some() {
        let autosave = autosave && app.session.queued.as_ref().is_none_or(|q| q.1);
        app.session.path = Some(path.clone());
        app.session.queued = Some((path, autosave));
        return Vec::new();
    }
    let Some((session, keep)) = snapshot_keeping(app) else {
        app.set_status(Level::Error, "nothing to save: no corpus is loaded");
        return Vec::new();
    };
    app.session.path = Some(path.clone());
    app.session.saving = Some(app.session.revision);
    app.session.last_save_tick = app.tick;
    vec![Effect::SaveSession {
        expect: app.session.expect(&path),
        path,
        session: Box::new(session),
        keep,
        autosave,
    }]
}

/// Saves now if a session file is set and something changed.
pub fn autosave_now(app: &mut App) -> Vec<Effect> {
    let s = &app.session;
    match &s.path {
        Some(path) if s.revision != s.saved_revision && s.saving.is_none() && !s.blocked => {
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
    result: Result<Fingerprint, SaveFailure>,
) -> Vec<Effect> {
    let revision = app.session.saving.take();
    let written = match result {
        Ok(w) => w,
        Err(SaveFailure::Blocked(why)) => return blocked(app, path, why),
        Err(SaveFailure::Failed(e)) => return failed(app, e),
    };
    if app.session.path.as_ref() == Some(&path) {
        app.session.on_disk = Some(written);
        app.session.blocked = false;
    }
    if app.session.overwrite.as_ref() == Some(&path) {
        app.session.overwrite = None;
    }
    app.session.quit_save_failed = false;
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

/// A save wrote nothing because the file is not what this workbench last
/// read or wrote: ask whether to overwrite it or save elsewhere. Autosaves
/// wait for the answer; a quit or an open that waited for the save is
/// called off (q again quits without saving).
fn blocked(app: &mut App, path: PathBuf, why: Blocked) -> Vec<Effect> {
    app.session.blocked = true;
    app.session.queued = None;
    if app.session.after_save.take() == Some(AfterSave::Quit) {
        app.session.quit_save_failed = true;
    }
    let file = path.display().to_string();
    let question = match why {
        Blocked::Changed => format!(
            "{file} changed on disk since this workbench read or saved it (another workbench, or an edit). Overwrite it with the runs on screen, or save them elsewhere?"
        ),
        Blocked::Exists => format!(
            "{file} was made by someone else meanwhile. Overwrite it with the runs on screen, or save them elsewhere?"
        ),
    };
    app.choose(
        question,
        (
            Action::Overwrite(Box::new(Action::SaveSession(file))),
            "overwrite it",
        ),
        (Action::SaveSessionElsewhere, "save elsewhere"),
    );
    app.set_status(
        Level::Warn,
        "session not saved: autosave waits (Ctrl-S asks again; q twice quits without saving)",
    );
    Vec::new()
}

/// A save failed: say so; a quit that waited for it may now leave without.
fn failed(app: &mut App, e: String) -> Vec<Effect> {
    app.set_status(Level::Error, format!("saving the session failed: {e}"));
    if app.session.after_save.take() == Some(AfterSave::Quit) {
        app.session.quit_save_failed = true;
        app.set_status(
            Level::Error,
            format!("saving the session failed: {e}; q again quits without saving"),
        );
    }
    match app.session.queued.take() {
        Some((next, quiet)) => save(app, next, quiet),
        None => Vec::new(),
    }
}

/// Records in each run's record the file its vectors are now kept in (the
/// run whose vectors they are, found by identity: runs may have moved while
/// the save was written).
pub fn note_kept(app: &mut App, kept: Vec<(Arc<Embedding>, KeptVectors)>) {
    for (vectors, file) in kept {
        let owner = app.runs.iter_mut().find(|r| {
            r.keep_vectors
                && r.embedding
                    .as_ref()
                    .is_some_and(|e| Arc::ptr_eq(e, &vectors))
        });
        if let Some(run) = owner {
            run.recorder.run_mut().kept = Some(file);
        }
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
                app.run_number(i)
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
        mut session,
        corpus,
        warnings,
        fingerprint,
    } = loaded;
    session.number_runs();
    app.session.path = Some(path.clone());
    app.session.on_disk = fingerprint;
    app.session.blocked = false;
    app.session.overwrite = None;
    app.session.quit_save_failed = false;
    app.corpus
        .set_config(&session.corpus.config, &session.corpus.path);
    clear_runs(app);
    let mut notes = warnings;
    notes.extend(app.eval.restore(&session.datasets));
    notes.extend(app.classify.restore(session.studies));
    app.session.sweeps = session.sweeps;
    let mut effects = Vec::new();
    let mut shown = vec![None; session.runs.len()];
    for (k, run) in session.runs.into_iter().enumerate() {
        if run.source.is_some() || run.settings(&path).is_ok() {
            shown[k] = Some(app.runs.len());
        }
        if let Some(source) = run.source.clone() {
            let entry = RunEntry::imported_recorded(run);
            effects.push(Effect::ImportVectors {
                run: app.runs.len(),
                path: source.path.clone(),
                limit: source.limit,
                recorded: Some(source),
                progress: Arc::clone(&entry.loading),
            });
            app.push_recorded(entry);
            continue;
        }
        let settings = match run.settings(&path) {
            Ok(s) => s,
            Err(e) => {
                notes.push(format!("{e}: not shown, kept in the file"));
                // Its number stays taken.
                app.last_run_number = app.last_run_number.max(run.number);
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
        if let Some(kept) = &run.kept {
            effects.push(Effect::LoadKept {
                run: index,
                kept: kept.clone(),
            });
        } else if let Some(v) = run.vectors.as_ref().filter(|v| v.is_file()) {
            effects.push(Effect::LoadVectors {
                run: index,
                path: v.clone(),
            });
        }
        let mut entry = RunEntry::recorded(method, params, run);
        entry.problem = problem;
        app.push_recorded(entry);
    }
    if let Some(record) = session.projection {
        restore_projection(app, record, &shown);
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
        Ok((path, config, stop)) => vec![Effect::LoadCorpus {
            request,
            path,
            config,
            stop,
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
    app.last_run_number = 0;
    app.session.kept.clear();
    app.session.sweeps.clear();
    app.hparams = Default::default();
    app.picks = [None, None];
    app.train.shown = None;
    app.runs_view.selected = 0;
    app.eval.selected = 0;
    let view = &mut app.projection;
    view.layout = None;
    view.picked = None;
    view.near.clear();
    view.zoom = 1.0;
    view.pan = (0.0, 0.0);
    view.turn = crate::geometry::ube::sphere::IDENTITY;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::CorpusConfig;
    use crate::schema::Value;
    use crate::session::guard::Expect;
    use crate::session::{CorpusRef, Session};
    use crate::tui::app::{AppOptions, Modal};
    use crate::tui::msg::Msg;
    use crate::tui::update::{startup, update};
    use crate::{algo, schema::Params};

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

    /// What the runtime answers for a file it wrote.
    fn written() -> Fingerprint {
        Fingerprint {
            modified: None,
            bytes: 1,
            hash: "0".into(),
        }
    }

    fn load(a: &mut App, session: Session, corpus: Result<PathBuf, String>) -> Vec<Effect> {
        loaded(
            a,
            "s.ron".into(),
            Ok(LoadedSession {
                session,
                corpus,
                warnings: Vec::new(),
                fingerprint: None,
            }),
        )
    }

    #[test]
    fn the_projection_reopens_as_it_was_with_runs_renumbered() {
        let mut a = app();
        let mut s = session_with_run("sgns");
        // Run 1 of the file has a method this build does not know: it is
        // kept in the file, not shown, so the file's run 2 is run 1 on screen.
        s.runs
            .insert(0, session_with_run("from-the-future").runs.remove(0));
        let mut layout = crate::project::layout::Layout::new(
            1,
            "ube",
            vec!["king".into(), "queen".into()],
            vec![[0.5, -1.0], [2.0, 3.0]],
        );
        layout.sphere = Some(vec![[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
        let turn = crate::geometry::ube::sphere::turn(0.3, -0.2);
        s.projection = Some(Box::new(ProjectionRecord {
            layout: layout.clone(),
            zoom: 4.0,
            pan: (0.25, -0.5),
            turn,
            settings: [("method".to_string(), "ube".to_string())].into(),
        }));
        let text = crate::session::file::to_string(&s).unwrap();
        let s = crate::session::file::from_str(&text, "s.ron".as_ref()).unwrap();
        load(&mut a, s, Err("no corpus".into()));
        assert_eq!(a.runs.len(), 1);
        let view = &a.projection;
        let shown = view.layout.as_ref().expect("the layout is back");
        assert_eq!(shown.run, 0, "renumbered to the run on screen");
        assert_eq!(
            (shown.words.clone(), shown.coords.clone()),
            (layout.words, layout.coords)
        );
        assert_eq!(shown.sphere, layout.sphere);
        assert_eq!((view.zoom, view.pan, view.turn), (4.0, (0.25, -0.5), turn));
        // Saved again, it names the run by its new place in the file (shown
        // runs first, the kept unknown one after them).
        a.corpus.loaded = None;
        let again = snapshot(&a).unwrap();
        assert_eq!(again.runs[0].method, "sgns");
        assert_eq!(again.projection.unwrap().layout.run, 0);
        // A session without a projection clears the one on screen.
        load(&mut a, session_with_run("sgns"), Err("no corpus".into()));
        assert!(a.projection.layout.is_none());
        assert_eq!(a.projection.zoom, 1.0);
    }

    #[test]
    fn a_3d_cloud_reopens_turned_and_turns_on_from_its_points() {
        let mut a = app();
        let mut s = session_with_run("sgns");
        let cloud = vec![[1.0, 0.0, 2.0], [0.0, 1.0, -2.0], [-1.0, -1.0, 0.0]];
        let turn = crate::geometry::ube::sphere::turn(30.0, 10.0);
        let mut layout = crate::project::layout::Layout::new(
            0,
            "tsne",
            vec!["king".into(), "queen".into(), "man".into()],
            crate::project::layout::cloud_picture(&cloud, &turn),
        );
        layout.cloud = Some(cloud.clone());
        s.projection = Some(Box::new(ProjectionRecord {
            layout: layout.clone(),
            zoom: 1.0,
            pan: (0.0, 0.0),
            turn,
            settings: [("dims".to_string(), "3".to_string())].into(),
        }));
        let text = crate::session::file::to_string(&s).unwrap();
        assert!(text.contains("cloud: Some("), "{text}");
        let s = crate::session::file::from_str(&text, "s.ron".as_ref()).unwrap();
        load(&mut a, s, Err("no corpus".into()));
        let shown = a.projection.layout.as_ref().expect("the layout is back");
        assert_eq!(
            (&shown.cloud, &shown.coords),
            (&layout.cloud, &layout.coords)
        );
        assert_eq!(a.projection.turn, turn);
        // Turning on goes on from the saved turn.
        assert!(a.projection.turn_view(-30.0, 0.0));
        let back = crate::geometry::ube::sphere::compose(
            &crate::geometry::ube::sphere::turn(-30.0, 0.0),
            &turn,
        );
        let want = crate::project::layout::cloud_picture(&cloud, &back);
        assert_eq!(a.projection.layout.as_ref().unwrap().coords, want);
    }

    #[test]
    fn a_sweep_reopens_on_the_hparams_screen_picks_its_runs_and_is_saved_again() {
        use crate::sweep::spec::{parse_grid, Metric};
        let mut a = app();
        let mut s = session_with_run("sgns");
        s.runs[0].number = 1;
        let mut second = s.runs[0].clone();
        second.number = 2;
        second.params.insert("window".into(), Value::Int(9));
        s.runs.push(second);
        let sgns = crate::algo::find("sgns").unwrap();
        s.sweeps.push(crate::session::SweepRecord {
            number: 1,
            spec: crate::sweep::SweepSpec {
                grid: vec![parse_grid(sgns, "window=5,9").unwrap()],
                ..crate::sweep::SweepSpec::new("sgns", Metric::Perplexity)
            },
            names: vec!["window".into()],
            runs: vec![1, 2],
            skipped: vec![vec!["20".into()]],
            counted: 0,
            seconds: 1.0,
        });
        let text = crate::session::file::to_string(&s).unwrap();
        let s = crate::session::file::from_str(&text, "s.ron".as_ref()).unwrap();
        load(&mut a, s.clone(), Err("no corpus".into()));
        assert_eq!(a.session.sweeps, s.sweeps);
        a.screen = crate::tui::action::Screen::HParams;
        let table = crate::tui::update::hparams::table(&a).unwrap();
        let windows: Vec<&str> = table
            .order
            .iter()
            .map(|&i| table.rows[i].values[0].as_str())
            .collect();
        assert_eq!(
            windows,
            ["5", "9", "20"],
            "equal perplexities keep sweep order, skipped last"
        );
        // Sorted by window, largest first: run 2 (window 9) after the skipped 20.
        crate::tui::update::act(&mut a, Action::Left);
        crate::tui::update::act(&mut a, Action::Left);
        crate::tui::update::act(&mut a, Action::ReverseSort);
        crate::tui::update::act(&mut a, Action::Down);
        crate::tui::update::act(&mut a, Action::PickSelected(crate::tui::action::Slot::B));
        assert_eq!(a.picks[1], Some(1), "run 2 is picked as B");
        a.corpus.loaded = None;
        assert_eq!(
            snapshot(&a).unwrap().sweeps,
            s.sweeps,
            "written back on save"
        );
        load(&mut a, session_with_run("sgns"), Err("no corpus".into()));
        assert!(a.session.sweeps.is_empty() && crate::tui::update::hparams::table(&a).is_none());
    }

    /// A run keeps its number through a delete, a save and a reopen; a
    /// run the file keeps unshown (unknown method) keeps its number taken.
    #[test]
    fn run_numbers_survive_a_delete_a_save_and_a_reopen() {
        let mut a = app();
        let mut s = session_with_run("sgns");
        let sgns = s.runs[0].clone();
        s.runs = vec![sgns.clone(), sgns.clone(), sgns.clone()];
        s.runs
            .push(session_with_run("from-the-future").runs.remove(0));
        let s = crate::session::file::from_str(
            &crate::session::file::to_string(&s).unwrap(),
            "s.ron".as_ref(),
        )
        .unwrap();
        load(&mut a, s, Err("no corpus".into()));
        let numbers = |a: &App| a.runs.iter().map(RunEntry::number).collect::<Vec<_>>();
        assert_eq!(numbers(&a), [1, 2, 3]);
        crate::tui::update::runs::delete(&mut a, 1);
        assert_eq!(numbers(&a), [1, 3], "#3 stays #3");
        assert!(a.status.text.contains("deleted #2"), "{}", a.status.text);
        assert_eq!(a.runs[1].label(), "#3 sgns dim=20");
        let m = algo::find("sgns").unwrap();
        let next = a.push_run(RunEntry::new(
            m,
            Params::defaults(m.schema),
            1,
            1,
            corpus("c.txt"),
        ));
        assert_eq!(a.runs[next].number(), 5, "#4 is the unshown run's");
        a.runs[next].discarded = true;
        a.corpus.loaded = None;
        let saved = snapshot(&a).unwrap();
        let in_file: Vec<u32> = saved.runs.iter().map(|r| r.number).collect();
        assert_eq!(in_file, [1, 3, 4]);
        load(&mut a, saved, Err("no corpus".into()));
        assert_eq!(numbers(&a), [1, 3], "reopened as they were");
        assert_eq!(a.last_run_number, 4);
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
                fingerprint: None,
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
        let mut as_read = session_with_run("word2vec-9000");
        as_read.number_runs();
        assert_eq!(saved.runs[0], as_read.runs[0]);
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
                result: Box::new(Err(SessionLoadError::Invalid(
                    "notes.txt:1: column 1: bad".into(),
                ))),
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
                result: Box::new(Err(SessionLoadError::Missing)),
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
        let effects = saved(&mut a, "s.ron".into(), false, Ok(written()));
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
        a.push_run(training);
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
        let effects = saved(&mut a, "s.ron".into(), true, Ok(written()));
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
        let effects = saved(&mut a, "s.ron".into(), true, Ok(written()));
        let [Effect::SaveSession { session, .. }] = &effects[..] else {
            panic!("saves again before quitting: {effects:?}")
        };
        assert_eq!(session.runs.len(), 1);
        assert!(!a.quit);
        let effects = saved(&mut a, "s.ron".into(), true, Ok(written()));
        assert!(matches!(effects[..], [Effect::Quit]));
    }

    #[test]
    fn a_failed_save_at_quit_lets_the_next_quit_leave() {
        let mut a = app();
        load(&mut a, session_with_run("sgns"), Ok("c.txt".into()));
        a.session.changed();
        assert!(!quit_now(&mut a).is_empty());
        let failure = Err(SaveFailure::Failed("disk full".into()));
        assert!(saved(&mut a, "s.ron".into(), true, failure).is_empty());
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
        let effects = saved(&mut a, "s.ron".into(), true, Ok(written()));
        let [Effect::SaveSession { session, .. }] = &effects[..] else {
            panic!("{effects:?}")
        };
        assert_eq!(
            session.runs[0].label.as_deref(),
            Some("newest"),
            "the newest state"
        );
        assert!(a.session.unsaved(&a.runs), "not until it is written");
        assert!(saved(&mut a, "s.ron".into(), false, Ok(written())).is_empty());
        assert!(!a.session.unsaved(&a.runs));
    }

    #[test]
    fn a_session_changed_on_disk_is_not_overwritten_without_asking() {
        let mut a = app();
        load(&mut a, session_with_run("sgns"), Ok("c.txt".into()));
        a.session.on_disk = Some(written());
        a.session.changed();
        let [Effect::SaveSession { expect, .. }] = &autosave_now(&mut a)[..] else {
            panic!("an autosave")
        };
        assert_eq!(expect, &Expect::Same(written()));
        // The runtime found the file changed: nothing written, a question.
        let why = Err(SaveFailure::Blocked(Blocked::Changed));
        assert!(saved(&mut a, "s.ron".into(), true, why).is_empty());
        let Some(Modal::Confirm {
            question,
            yes,
            no: Some((no, _)),
            ..
        }) = a.modal.clone()
        else {
            panic!("{:?}", a.modal)
        };
        assert!(question.contains("s.ron changed on disk"), "{question}");
        assert_eq!(
            yes,
            Action::Overwrite(Box::new(Action::SaveSession("s.ron".into())))
        );
        assert_eq!(no, Action::SaveSessionElsewhere);
        assert!(a.session.unsaved(&a.runs));
        a.session.changed();
        assert!(autosave_now(&mut a).is_empty(), "autosaves wait");
        // Overwrite: whatever session is there is replaced.
        let effects = update(&mut a, Msg::Action(Action::Yes));
        let [Effect::SaveSession { expect, .. }] = &effects[..] else {
            panic!("{effects:?}")
        };
        assert_eq!(expect, &Expect::AnySession);
        let now = Fingerprint {
            hash: "1".into(),
            ..written()
        };
        saved(&mut a, "s.ron".into(), false, Ok(now.clone()));
        assert_eq!(a.session.overwrite, None);
        a.session.changed();
        let [Effect::SaveSession { expect, .. }] = &autosave_now(&mut a)[..] else {
            panic!("autosaves go on")
        };
        assert_eq!(expect, &Expect::Same(now), "guarded again");
    }

    #[test]
    fn save_elsewhere_asks_for_a_file_and_a_quit_waiting_is_called_off() {
        let mut a = app();
        load(&mut a, session_with_run("sgns"), Ok("c.txt".into()));
        a.session.changed();
        assert!(!quit_now(&mut a).is_empty(), "saves before quitting");
        let why = Err(SaveFailure::Blocked(Blocked::Exists));
        assert!(saved(&mut a, "s.ron".into(), true, why).is_empty());
        assert!(!a.quit, "not without the user's answer");
        update(&mut a, Msg::Action(Action::No));
        let Some(Modal::Prompt { kind, .. }) = &a.modal else {
            panic!("{:?}", a.modal)
        };
        assert_eq!(*kind, PromptKind::SaveSession);
        update(&mut a, Msg::Action(Action::Cancel));
        assert!(
            matches!(quit_now(&mut a)[..], [Effect::Quit]),
            "q again leaves"
        );
    }

    #[test]
    fn the_save_dialog_refuses_inputs_and_other_files_and_asks_before_another_session() {
        let dir = tempfile::tempdir().unwrap();
        let corpus = dir.path().join("c.txt");
        std::fs::write(&corpus, "the cat sat\n").unwrap();
        let notes = dir.path().join("notes.txt");
        std::fs::write(&notes, "my notes\n").unwrap();
        let other = dir.path().join("other.ron");
        crate::session::save(&session_with_run("sgns"), &other).unwrap();
        let mut a = app();
        load(&mut a, session_with_run("sgns"), Ok(corpus.clone()));
        for (file, why) in [
            (&corpus, "is the corpus; refusing to overwrite it"),
            (
                &notes,
                "exists and is not a wordbench session; refusing to replace it",
            ),
        ] {
            let text = file.display().to_string();
            let effects = update(&mut a, Msg::Action(Action::SaveSession(text.clone())));
            assert!(effects.is_empty());
            assert_eq!(a.status.level, Level::Error);
            assert!(
                a.status.text.starts_with(&format!("save {text}: {why}")),
                "{}",
                a.status.text
            );
            assert_eq!(a.session.path, Some(PathBuf::from("s.ron")), "unchanged");
        }
        assert_eq!(std::fs::read_to_string(&notes).unwrap(), "my notes\n");
        let text = other.display().to_string();
        let effects = update(&mut a, Msg::Action(Action::SaveSession(text.clone())));
        assert!(effects.is_empty(), "asks first");
        let Some(Modal::Confirm { yes, .. }) = a.modal.clone() else {
            panic!("{:?}", a.modal)
        };
        assert_eq!(
            yes,
            Action::Overwrite(Box::new(Action::SaveSession(text.clone())))
        );
        let effects = update(&mut a, Msg::Action(Action::Yes));
        let [Effect::SaveSession { path, expect, .. }] = &effects[..] else {
            panic!("{effects:?}")
        };
        assert_eq!((path, expect), (&other, &Expect::AnySession));
    }
}
