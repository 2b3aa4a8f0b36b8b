//! The handlers: [`update`] takes every message (key, mouse, worker answer,
//! tick), routes it to the screen it concerns, and returns the [`Effect`]s
//! to run. One module per screen, plus the session's.
//!
//! The rule that keeps the layers acyclic: a handler changes the state it is
//! given and returns effects; it never calls another screen's handler or the
//! router. When one thing should lead to another (a picked run refreshes the
//! neighbours, a finished run autosaves, navigation resolves to a
//! user-level action) the handler queues an [`Action`] on the app
//! ([`App::user_action`], [`App::follow_up`]), which [`update`] routes after
//! the handler returns, in order.

pub mod classify;
pub mod corpus;
pub mod evaluate;
pub mod hparams;
pub mod neighbors;
pub mod projection;
pub mod runs;
pub mod session;
pub mod sweep;
pub mod train;
pub mod writes;

use std::path::PathBuf;

use ratatui::crossterm::event::{MouseButton, MouseEvent, MouseEventKind};

use super::action::{Action, EditOp, Screen};
use super::app::{App, Level, Modal, PromptKind};
use super::input::complete_path;
use super::keymap;
use super::msg::{Effect, Msg};
use super::run::RunStatus;

/// Reacts to one message, then runs the actions its handler queued.
pub fn update(app: &mut App, msg: Msg) -> Vec<Effect> {
    let mut effects = receive(app, msg);
    effects.extend(drain(app));
    effects
}

/// Carries out one action as the user's, then the actions it queued.
pub fn act(app: &mut App, action: Action) -> Vec<Effect> {
    let mut effects = route(app, action, true);
    effects.extend(drain(app));
    effects
}

/// The effects to run at start: open the session, or load the corpus.
/// The session file becomes the save target only once it is read (or
/// found missing: a new session starts there), never when it is
/// something else.
pub fn startup(app: &mut App) -> Vec<Effect> {
    match app.session.opening.clone() {
        Some(path) => vec![Effect::LoadSession { path }],
        None => corpus::load(app),
    }
}

/// Runs queued actions, in order, until none is left (an action may queue more).
pub(crate) fn drain(app: &mut App) -> Vec<Effect> {
    let mut effects = Vec::new();
    while let Some(queued) = app.queue.pop_front() {
        effects.extend(route(app, queued.action, queued.journal));
    }
    effects
}

fn receive(app: &mut App, msg: Msg) -> Vec<Effect> {
    match msg {
        Msg::Key(key) => match keymap::lookup(app.mode(), key) {
            Some(action) => act(app, action),
            None => Vec::new(),
        },
        Msg::Paste(text) => paste(app, &text),
        Msg::Mouse(m) => mouse(app, m),
        Msg::Resize(width, height) => {
            app.width = width;
            app.height = height;
            Vec::new()
        }
        Msg::Tick => {
            app.tick += 1;
            session::tick(app)
        }
        Msg::Action(action) => act(app, action),
        Msg::CorpusLoaded { request, result } => match train::waiting_for_corpus(app, request) {
            Some(run) => train::replay_corpus(app, run, result),
            None => {
                corpus::loaded(app, request, result);
                Vec::new()
            }
        },
        Msg::Job { run, event } => train::job_event(app, run, event),
        Msg::JobEnded { run } => train::job_ended(app, run),
        Msg::Neighbors {
            request,
            slot,
            result,
        } => {
            neighbors::answered(app, request, slot, result);
            Vec::new()
        }
        Msg::RungScored { run, rung, value } => {
            app.follow_up(Action::SweepCheckpoint(run, rung, value));
            Vec::new()
        }
        Msg::Evaluated { run, result } => {
            evaluate::evaluated(app, run, result);
            Vec::new()
        }
        Msg::Exported { run, path, result } => {
            runs::exported(app, run, path, result);
            Vec::new()
        }
        Msg::ChartExported { path, result } => {
            hparams::exported(app, &path, result);
            Vec::new()
        }
        Msg::SessionSaved {
            path,
            autosave,
            result,
            kept,
        } => {
            session::note_kept(app, kept);
            session::saved(app, path, autosave, result)
        }
        Msg::SessionLoaded { path, result } => session::loaded(app, path, *result),
        Msg::VectorsLoaded { run, result } => {
            runs::vectors_loaded(app, run, result);
            Vec::new()
        }
        Msg::VectorsImported {
            run,
            progress,
            result,
        } => {
            runs::imported(app, run, &progress, result);
            Vec::new()
        }
        Msg::Projection(result) => projection::answered(app, result),
        Msg::Classified { request, result } => classify::answered(app, request, result),
        Msg::WorkerPanicked(message) => {
            app.set_status(Level::Error, format!("internal error: {message}"));
            Vec::new()
        }
    }
}

/// Carries out one action; `journal` says it is the user's (navigation
/// resolved to it), so a user-level action is recorded for replay.
fn route(app: &mut App, action: Action, journal: bool) -> Vec<Effect> {
    if journal && action.is_user_level() {
        app.journal.push(action.clone());
    }
    if app.modal.is_some() {
        return modal(app, action);
    }
    match action {
        Action::ToggleHelp => {
            app.help = !app.help;
            Vec::new()
        }
        Action::Cancel if app.help => {
            app.help = false;
            Vec::new()
        }
        Action::GoTo(screen) => {
            app.screen = screen;
            app.help = false;
            Vec::new()
        }
        Action::NextScreen => act(app, Action::GoTo(app.screen.offset(1))),
        Action::PrevScreen => act(app, Action::GoTo(app.screen.offset(-1))),
        Action::Quit | Action::Interrupt => quit(app),
        Action::QuitNow => session::quit_now(app),
        Action::SaveSessionPrompt => session::save_prompt(app),
        Action::OpenSessionPrompt => {
            let text = app
                .session
                .path
                .as_ref()
                .map_or(String::new(), |p| p.display().to_string());
            app.prompt(
                PromptKind::OpenSession,
                "Open session",
                text,
                "a .ron session file (Tab completes)",
            );
            Vec::new()
        }
        Action::SaveSession(path) => session::save_as(app, PathBuf::from(path), false),
        Action::SaveSessionElsewhere => session::save_elsewhere(app),
        Action::Overwrite(write) => overwrite(app, *write),
        Action::OpenSession(path) => session::open(app, PathBuf::from(path)),
        Action::OpenSessionNow { path, save_first } => {
            session::open_now(app, PathBuf::from(path), save_first)
        }
        Action::SetCorpusOption(name, text) => corpus::set_option(app, &name, &text),
        Action::LoadCorpus => corpus::load(app),
        Action::SelectMethod(name) => train::select_method(app, &name),
        Action::SetParam(name, text) => train::set_param(app, &name, &text),
        Action::StartTraining => train::start(app),
        Action::Pause | Action::Resume | Action::StopTraining => train::command(app, &action),
        Action::TogglePause => train::toggle_pause(app),
        Action::ToggleLogScale => {
            app.train.log_scale = !app.train.log_scale;
            Vec::new()
        }
        Action::CycleSmoothing => {
            app.train.smoothing = app.train.next_smoothing();
            Vec::new()
        }
        Action::DeclareSweep => sweep::open(app),
        Action::SetSweepField(name, text) => sweep::set_field(app, &name, &text),
        Action::StartSweep => sweep::start(app),
        Action::SweepRunEnded(run) => sweep::run_ended(app, run),
        Action::SweepCheckpoint(run, rung, ppl) => sweep::checkpoint(app, run, rung, ppl),
        Action::CycleXAxis if app.screen == Screen::HParams => hparams::navigate(app, action),
        Action::CycleXAxis => {
            app.train.axis = app.train.axis.next();
            Vec::new()
        }
        Action::ToggleOverlay => train::toggle_overlay(app),
        Action::PickRun(slot, run) => runs::pick(app, slot, run),
        Action::ExportRun(run, path) => runs::export(app, run, &path, false),
        Action::EvaluateRun(run) => evaluate::evaluate(app, run),
        Action::ReplayRun(run) => train::replay(app, run),
        Action::DeleteRun(run) => runs::delete(app, run),
        Action::RenameRun(run, name) => runs::rename(app, run, &name),
        Action::KeepVectors(run, keep) => runs::keep_vectors(app, run, keep),
        Action::TagRun(run, tags) => runs::tag(app, run, &tags),
        Action::FilterRuns(text) => runs::filter(app, &text),
        Action::ImportVectors(path, limit) => runs::import(app, &path, limit),
        Action::AddDataset(path) => evaluate::add_dataset(app, &path),
        Action::RemoveDataset(index) => evaluate::remove_dataset(app, index),
        Action::Query(word) => neighbors::query_word(app, &word),
        Action::Analogy(a, b, c) => neighbors::query_analogy(app, &a, &b, &c),
        Action::SetK(k) => neighbors::set_k(app, k),
        Action::SetProjectionOption(name, text) => projection::set_option(app, &name, &text),
        Action::Project => projection::project(app),
        Action::ProjectPair => projection::project_pair(app),
        Action::ExportPlot(path) => projection::export(app, &path, false),
        Action::ExportChart(path) => hparams::export(app, &path, false),
        Action::SelectPoint(word) => projection::select_point(app, &word),
        Action::SetClassifyField(name, text) => classify::set_field(app, &name, &text),
        Action::Classify => classify::start(app),
        Action::RefreshNeighbors => neighbors::refresh(app),
        Action::Autosave => session::autosave_now(app),
        Action::ShowRun(run) => train::show(app, run),
        nav => match app.screen {
            Screen::Corpus => corpus::navigate(app, nav),
            Screen::Train => train::navigate(app, nav),
            Screen::Runs => runs::navigate(app, nav),
            Screen::Neighbors => neighbors::navigate(app, nav),
            Screen::Evaluate => evaluate::navigate(app, nav),
            Screen::Projection => projection::navigate(app, nav),
            Screen::Classify => classify::navigate(app, nav),
            Screen::HParams => match sweep::navigate(app, &nav) {
                Some(effects) => effects,
                None => hparams::navigate(app, nav),
            },
        },
    }
}

/// A write the user said may replace the file that is there.
fn overwrite(app: &mut App, write: Action) -> Vec<Effect> {
    match write {
        Action::ExportRun(run, path) => runs::export(app, run, &path, true),
        Action::ExportPlot(path) => projection::export(app, &path, true),
        Action::ExportChart(path) => hparams::export(app, &path, true),
        Action::SaveSession(path) => session::save_as(app, PathBuf::from(path), true),
        other => act(app, other),
    }
}

/// `q` and Ctrl-C: quit, asking first when something would be lost. With
/// a session file, quitting saves it (without a run discarded here).
fn quit(app: &mut App) -> Vec<Effect> {
    if let Some(i) = app.active_run() {
        let r = &app.runs[i];
        let queued = app
            .runs
            .iter()
            .filter(|r| r.status == RunStatus::Queued)
            .count();
        let also = match queued {
            0 => String::new(),
            n => format!(" ({n} queued run(s) will not start)"),
        };
        let question = format!(
            "Run #{} ({}) is {}. Quit and discard it?{also}",
            app.run_number(i),
            r.method.name,
            r.status_text()
        );
        app.confirm(question, Action::QuitNow);
        return Vec::new();
    }
    if app.session.path.is_none() && app.unsaved() {
        app.confirm(
            "Runs are not saved (Ctrl-S saves the session). Quit anyway?",
            Action::QuitNow,
        );
        return Vec::new();
    }
    act(app, Action::QuitNow)
}

/// Keys while a dialog is open.
fn modal(app: &mut App, action: Action) -> Vec<Effect> {
    let Some(m) = app.modal.as_mut() else {
        return Vec::new();
    };
    match (m, action) {
        (Modal::Confirm { yes, .. }, Action::Yes) => {
            let yes = yes.clone();
            app.modal = None;
            act(app, yes)
        }
        (
            Modal::Confirm {
                no: Some((no, _)), ..
            },
            Action::No,
        ) => {
            let no = no.clone();
            app.modal = None;
            act(app, no)
        }
        (Modal::Confirm { .. }, Action::No | Action::Cancel) => {
            app.modal = None;
            Vec::new()
        }
        (Modal::Prompt { .. }, Action::Cancel) => {
            app.modal = None;
            Vec::new()
        }
        (Modal::Prompt { input, .. }, Action::Edit(op)) => {
            input.apply(&op);
            Vec::new()
        }
        (
            Modal::Prompt {
                input, completions, ..
            },
            Action::Complete,
        ) => {
            let (text, candidates) = complete_path(input.text());
            input.set(text);
            *completions = candidates;
            Vec::new()
        }
        (Modal::Prompt { kind, input, .. }, Action::Activate) => {
            let (kind, text) = (*kind, input.text().trim().to_string());
            app.modal = None;
            if text.is_empty() && !kind.takes_empty() {
                return Vec::new();
            }
            act(app, submit(kind, text))
        }
        (_, a) if a.is_user_level() || matches!(a, Action::Interrupt) => {
            // A scripted action or Ctrl-C closes the dialog and goes through.
            app.modal = None;
            act(app, a)
        }
        _ => Vec::new(),
    }
}

fn submit(kind: PromptKind, text: String) -> Action {
    match kind {
        PromptKind::ExportRun(run) => Action::ExportRun(run, text),
        PromptKind::SaveSession => Action::SaveSession(text),
        PromptKind::OpenSession => Action::OpenSession(text),
        PromptKind::AddDataset => Action::AddDataset(text),
        PromptKind::ExportPlot => Action::ExportPlot(text),
        PromptKind::ExportChart => Action::ExportChart(text),
        PromptKind::RenameRun(run) => Action::RenameRun(run, text),
        PromptKind::TagRun(run) => Action::TagRun(run, text),
        PromptKind::FilterRuns => Action::FilterRuns(text),
        PromptKind::ImportVectors => Action::ImportVectors(text, None),
        PromptKind::FindVocab => Action::FindVocab(text),
    }
}

/// Mouse: click a tab, a point of the projection; scroll lists.
fn mouse(app: &mut App, m: MouseEvent) -> Vec<Effect> {
    match m.kind {
        MouseEventKind::Down(MouseButton::Left) if m.row == 0 && app.modal.is_none() => {
            match crate::tui::ui::tab_at(m.column, app.width) {
                Some(screen) => act(app, Action::GoTo(screen)),
                None => Vec::new(),
            }
        }
        MouseEventKind::Down(MouseButton::Left)
            if app.screen == Screen::Projection && app.modal.is_none() && !app.help =>
        {
            projection::click(app, m.column, m.row)
        }
        MouseEventKind::ScrollUp if !app.typing() => act(app, Action::Up),
        MouseEventKind::ScrollDown if !app.typing() => act(app, Action::Down),
        _ => Vec::new(),
    }
}

/// A paste goes into the line being edited, as one edit (one search, one
/// check), made one line and bounded ([`super::input::pasted`]); with no
/// line open it is dropped with a word, never read as keys.
fn paste(app: &mut App, text: &str) -> Vec<Effect> {
    if !app.typing() {
        app.set_status(Level::Info, "paste ignored: no text field is open");
        return Vec::new();
    }
    let (line, cut) = super::input::pasted(text);
    if cut {
        app.set_status(
            Level::Warn,
            format!(
                "paste cut to its first {} characters",
                super::input::MAX_PASTE
            ),
        );
    }
    act(app, Action::Edit(EditOp::Paste(line)))
}

/// Types `text` into whatever line is being edited (scripts and tests).
pub fn type_text(app: &mut App, text: &str) -> Vec<Effect> {
    let mut effects = Vec::new();
    for ch in text.chars() {
        effects.extend(act(app, Action::Edit(EditOp::Insert(ch))));
    }
    effects
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::eval::EvalPlan;
    use crate::tui::app::AppOptions;
    use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    pub(crate) fn options() -> AppOptions {
        AppOptions {
            corpus: PathBuf::from("tests/fixtures/corpus/lee_background.txt"),
            session: None,
            eval_plan: EvalPlan::default(),
            cores: 2,
            exports: "exports".into(),
        }
    }

    fn key(app: &mut App, code: KeyCode) -> Vec<Effect> {
        update(app, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)))
    }

    #[test]
    fn startup_loads_the_corpus_and_stale_answers_are_dropped() {
        let mut app = App::new(&options());
        let effects = startup(&mut app);
        assert_eq!(effects.len(), 1);
        let Effect::LoadCorpus {
            request,
            path,
            stop,
            ..
        } = &effects[0]
        else {
            panic!("{effects:?}");
        };
        assert_eq!(path, Path::new("tests/fixtures/corpus/lee_background.txt"));
        let old = *request;
        assert!(!stop.is_cancelled());
        let newer = corpus::load(&mut app);
        // The load it replaces stops reading.
        assert!(stop.is_cancelled());
        let [Effect::LoadCorpus { stop: next, .. }] = &newer[..] else {
            panic!("{newer:?}");
        };
        assert!(!next.is_cancelled());
        update(
            &mut app,
            Msg::CorpusLoaded {
                request: old,
                result: Err("late".into()),
            },
        );
        assert!(
            app.corpus.loading.is_some(),
            "a stale answer must not end the newer load"
        );
        assert_eq!(app.corpus.error, None);
    }

    #[test]
    fn digits_switch_screens_but_type_into_fields() {
        let mut app = App::new(&options());
        key(&mut app, KeyCode::Char('4'));
        assert_eq!(app.screen, Screen::Neighbors);
        key(&mut app, KeyCode::Enter);
        assert!(app.typing());
        key(&mut app, KeyCode::Char('2'));
        assert_eq!(app.screen, Screen::Neighbors);
        assert_eq!(app.neighbors.word.text(), "2");
        key(&mut app, KeyCode::Esc);
        key(&mut app, KeyCode::Char('2'));
        assert_eq!(app.screen, Screen::Train);
    }

    #[test]
    fn a_paste_is_text_in_a_field_and_never_keys() {
        let mut app = App::new(&options());
        // No field open: a paste of "q2?" neither quits nor switches screens.
        update(&mut app, Msg::Paste("q2?\n".into()));
        assert!(!app.quit && !app.help);
        assert_eq!(app.screen, Screen::Corpus);
        key(&mut app, KeyCode::Char('4'));
        key(&mut app, KeyCode::Enter);
        // A large paste lands whole and at once; the keys after it still work.
        let big = format!("{}\nnext line", "k".repeat(3000));
        update(&mut app, Msg::Paste(big));
        assert_eq!(app.neighbors.word.text().len(), 3000 + " next line".len());
        key(&mut app, KeyCode::Esc);
        assert!(!app.typing());
        key(&mut app, KeyCode::Char('2'));
        assert_eq!(app.screen, Screen::Train);
    }

    #[test]
    fn quit_without_runs_is_immediate_and_help_toggles() {
        let mut app = App::new(&options());
        key(&mut app, KeyCode::Char('?'));
        assert!(app.help);
        key(&mut app, KeyCode::Char('q'));
        assert!(!app.help, "any key closes help");
        let effects = key(&mut app, KeyCode::Char('q'));
        assert!(app.quit);
        assert!(matches!(effects[..], [Effect::Quit]));
    }

    #[test]
    fn prompts_submit_a_user_level_action() {
        let mut app = App::new(&options());
        app.prompt(PromptKind::SaveSession, "Save", String::new(), "");
        assert!(app.typing());
        type_text(&mut app, "s.ron");
        let effects = key(&mut app, KeyCode::Enter);
        assert!(app.modal.is_none());
        assert_eq!(
            app.journal.last(),
            Some(&Action::SaveSession("s.ron".into()))
        );
        // No corpus loaded yet: nothing to save, and the status says why.
        assert!(effects.is_empty());
        assert_eq!(app.status.level, Level::Error);
    }
}
