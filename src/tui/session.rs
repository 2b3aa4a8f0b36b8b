//! Session files from the workbench: Ctrl-S saves (asking for a file the
//! first time), training autosaves every two seconds while a session file is
//! set, and `--session FILE` or Ctrl-O opens one: the corpus is located and
//! loaded, every run comes back with its curves, and runs whose vectors were
//! exported get them read back.

use std::path::{Path, PathBuf};

use super::app::{App, Level, PromptKind, TICKS_PER_SECOND};
use super::msg::{Effect, LoadedSession};
use super::run::RunEntry;
use crate::algo;
use crate::train::Params;

/// Seconds between autosaves while a run trains.
pub const AUTOSAVE_SECONDS: u64 = 2;

/// The session file and whether what is on screen was saved.
#[derive(Debug, Clone)]
pub struct SessionState {
    /// The session file, once chosen.
    pub path: Option<PathBuf>,
    revision: u64,
    saved_revision: u64,
    saving: Option<u64>,
    last_save_tick: u64,
}

impl SessionState {
    /// State for an optional file given at start.
    pub fn new(path: Option<PathBuf>) -> Self {
        SessionState {
            path,
            revision: 0,
            saved_revision: 0,
            saving: None,
            last_save_tick: 0,
        }
    }

    /// Something that session files hold changed.
    pub fn changed(&mut self) {
        self.revision += 1;
    }

    /// Whether runs exist that the session file does not hold yet.
    pub fn unsaved(&self, runs: &[RunEntry]) -> bool {
        !runs.is_empty() && self.revision != self.saved_revision
    }
}

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

/// Saves the session to `path` (atomically, on a worker).
pub fn save(app: &mut App, path: PathBuf, autosave: bool) -> Vec<Effect> {
    let Some(loaded) = &app.corpus.loaded else {
        app.set_status(Level::Error, "nothing to save: no corpus is loaded");
        return Vec::new();
    };
    let effect = Effect::SaveSession {
        path: path.clone(),
        corpus: loaded.corpus.path().to_path_buf(),
        config: *loaded.corpus.config(),
        runs: app.runs.iter().map(|r| r.record().clone()).collect(),
        autosave,
    };
    app.session.path = Some(path);
    app.session.saving = Some(app.session.revision);
    app.session.last_save_tick = app.tick;
    vec![effect]
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
/// the end of a run is never left out).
pub fn saved(
    app: &mut App,
    path: PathBuf,
    autosave: bool,
    result: Result<(), String>,
) -> Vec<Effect> {
    let revision = app.session.saving.take();
    match result {
        Ok(()) => {
            if let Some(r) = revision {
                app.session.saved_revision = r;
            }
            if !autosave {
                app.set_status(Level::Info, format!("session saved to {}", path.display()));
            }
            if app.active_run().is_none() {
                return autosave_now(app);
            }
        }
        Err(e) => app.set_status(Level::Error, format!("saving the session failed: {e}")),
    }
    Vec::new()
}

/// A session was read: take its corpus settings and runs.
pub fn loaded(app: &mut App, path: PathBuf, result: Result<LoadedSession, String>) -> Vec<Effect> {
    let loaded = match result {
        Ok(l) => l,
        Err(e) => {
            app.set_status(Level::Error, e);
            return Vec::new();
        }
    };
    let LoadedSession {
        session,
        corpus,
        warnings,
    } = loaded;
    app.session.path = Some(path.clone());
    app.corpus.set_config(&session.corpus.config);
    let first = app.runs.len();
    let mut skipped = Vec::new();
    let mut effects = Vec::new();
    for run in session.runs {
        let Ok(method) = algo::find(&run.method) else {
            skipped.push(run.method.clone());
            continue;
        };
        let mut params = Params::defaults(method.schema);
        for (name, value) in &run.params {
            let _ = params.set(method.name, name, value);
        }
        let index = app.runs.len();
        if let Some(v) = run.vectors.as_ref().and_then(|v| locate(v, &path)) {
            effects.push(Effect::LoadVectors {
                run: index,
                path: v,
            });
        }
        app.runs.push(RunEntry::recorded(method, params, run));
    }
    if app.runs.len() > first {
        app.picks[0] = Some(first);
        app.train.shown = Some(first);
    }
    app.session.saved_revision = app.session.revision;
    let mut notes = warnings;
    if !skipped.is_empty() {
        notes.push(format!("unknown methods skipped: {}", skipped.join(", ")));
    }
    match corpus {
        Ok(corpus_path) => {
            app.corpus.path.set(corpus_path.display().to_string());
            effects.extend(super::corpus::load(app));
            let level = if notes.is_empty() {
                Level::Info
            } else {
                Level::Warn
            };
            let mut text = format!(
                "session {}: {} run(s)",
                path.display(),
                app.runs.len() - first
            );
            for n in notes {
                text.push_str("; ");
                text.push_str(&n);
            }
            app.set_status(level, text);
        }
        Err(e) => {
            app.screen = super::action::Screen::Corpus;
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

/// A vectors file named in a session: as written, or next to the session.
fn locate(vectors: &Path, session_file: &Path) -> Option<PathBuf> {
    if vectors.is_file() {
        return Some(vectors.to_path_buf());
    }
    let beside = session_file.parent()?.join(vectors);
    beside.is_file().then_some(beside)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::CorpusConfig;
    use crate::session::{CorpusRef, Session};
    use crate::tui::app::AppOptions;

    fn app() -> App {
        App::new(&AppOptions {
            corpus: "x".into(),
            session: None,
            eval_plan: Default::default(),
            cores: 2,
        })
    }

    fn session_with_run(method: &str) -> Session {
        let mut s = Session::new(CorpusRef {
            path: "c.txt".into(),
            bytes: 1,
            hash: "0".into(),
            config: CorpusConfig::default(),
        });
        let m = algo::find("sgns").unwrap();
        let params = m.params([("dim", "20")]).unwrap();
        let mut run = crate::session::Recorder::new(method, &params, 7, 1).into_run();
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

    #[test]
    fn a_loaded_session_brings_its_runs_and_asks_for_a_missing_corpus() {
        let mut a = app();
        let effects = loaded(
            &mut a,
            "s.ron".into(),
            Ok(LoadedSession {
                session: session_with_run("sgns"),
                corpus: Err("s.ron: corpus c.txt not found".into()),
                warnings: Vec::new(),
            }),
        );
        assert!(effects.is_empty());
        assert_eq!(a.runs.len(), 1);
        assert_eq!(a.runs[0].params.usize("dim"), 20);
        assert_eq!(a.runs[0].perplexity, Some(100.0));
        assert_eq!(a.runs[0].status_text(), "recorded");
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
        // No corpus loaded: the save is refused with a message.
        assert!(autosave_now(&mut a).is_empty());
        assert_eq!(a.status.level, Level::Error);
        assert!(tick(&mut a).is_empty(), "no run is training");
    }

    #[test]
    fn unknown_methods_are_skipped_with_a_warning() {
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
            .contains("unknown methods skipped: word2vec-9000"));
    }
}
