//! The Corpus screen's handlers: options, loading and its answer, navigation.

use crate::format::thousands;
use crate::tui::action::Action;
use crate::tui::app::{App, Level};
use crate::tui::input::complete_path;
use crate::tui::model::corpus::{histogram, CorpusView, LoadedCorpus};
use crate::tui::msg::{Effect, OpenedCorpus};

/// Sets an option (or `path`) from text.
pub fn set_option(app: &mut App, name: &str, text: &str) -> Vec<Effect> {
    if name == "path" {
        if let Some(format) = app.corpus.set_path(text) {
            app.corpus.format_reset = Some(format);
        }
        return Vec::new();
    }
    match app.corpus.options.set(name, text) {
        Ok(_) if name == "format" => app.corpus.format_for = None,
        Ok(_) => {}
        Err(e) => app.set_status(Level::Error, e),
    }
    Vec::new()
}

/// Loads the corpus with the current path and options.
pub fn load(app: &mut App) -> Vec<Effect> {
    let request = app.next_id();
    match app.corpus.start_load(request, app.tick) {
        Ok((path, config, stop)) => {
            app.corpus.keep_status = false;
            let note = match app.corpus.format_reset.take() {
                Some(f) => format!(" (format auto: the session's {f} was for its own corpus)"),
                None => String::new(),
            };
            app.set_status(Level::Info, format!("reading {}…{note}", path.display()));
            vec![Effect::LoadCorpus {
                request,
                path,
                config,
                stop,
            }]
        }
        Err(e) => {
            app.set_status(Level::Error, e);
            Vec::new()
        }
    }
}

/// A load finished (stale answers are dropped).
pub fn loaded(app: &mut App, request: u64, result: Result<OpenedCorpus, String>) {
    if app.corpus.loading.as_ref().map(|l| l.0) != Some(request) {
        return;
    }
    app.corpus.loading = None;
    match result {
        Ok(OpenedCorpus {
            corpus,
            reference,
            seconds,
        }) => {
            let s = corpus.stats();
            // After a session opens, its runs are the next thing to see; what
            // opening it said (a changed corpus, a file that is not a
            // session) stays on the line.
            let next = match app.runs.len() {
                0 => "Next: 2 Train".to_string(),
                n => format!("{n} run(s) from the session: 3 Runs"),
            };
            let keep = std::mem::take(&mut app.corpus.keep_status);
            let warning = corpus
                .warnings()
                .first()
                .cloned()
                .or_else(|| CorpusView::no_heldout_warning(&corpus));
            if let (false, Some(w)) = (keep, warning) {
                app.set_status(Level::Warn, w);
            } else if !keep {
                app.set_status(
                    Level::Info,
                    format!(
                        "corpus ready: {} tokens, {} words in the vocabulary ({seconds:.1}s). {next}",
                        thousands(s.tokens),
                        thousands(s.vocabulary as u64)
                    ),
                );
            }
            app.corpus.loaded = Some(LoadedCorpus {
                histogram: histogram(corpus.vocab().counts()),
                corpus,
                reference,
                seconds,
            });
        }
        Err(e) => {
            app.set_status(Level::Error, e.clone());
            app.corpus.error = Some(e);
        }
    }
}

/// Navigation on the Corpus screen.
pub fn navigate(app: &mut App, action: Action) -> Vec<Effect> {
    let v = &mut app.corpus;
    let rows = 1 + v.options.len();
    if v.editing_path {
        return edit_path(app, action);
    }
    if v.options.editing().is_some() {
        return edit_option(app, action);
    }
    match action {
        Action::Up => v.selected = v.selected.saturating_sub(1),
        Action::Down => v.selected = (v.selected + 1).min(rows - 1),
        Action::Activate if v.selected == 0 => {
            v.editing_path = true;
            v.path.select_all();
            v.completions.clear();
        }
        Action::Activate | Action::Left | Action::Right => {
            if let Some((name, text)) = v.options.pressed(v.selected - 1, &action) {
                return app.user_action(Action::SetCorpusOption(name, text));
            }
        }
        Action::ResetField if v.selected > 0 => v.options.reset(v.selected - 1),
        _ => {}
    }
    Vec::new()
}

fn edit_path(app: &mut App, action: Action) -> Vec<Effect> {
    let v = &mut app.corpus;
    match action {
        Action::Edit(op) => {
            v.path.apply(&op);
            v.completions.clear();
        }
        Action::Complete => {
            let (text, candidates) = complete_path(v.path.text());
            v.path.set(text);
            v.completions = candidates;
        }
        Action::Cancel => {
            v.editing_path = false;
            v.completions.clear();
        }
        Action::Activate => {
            v.editing_path = false;
            v.completions.clear();
            let text = v.path.text().to_string();
            let mut effects = app.user_action(Action::SetCorpusOption("path".into(), text));
            effects.extend(app.user_action(Action::LoadCorpus));
            return effects;
        }
        _ => {}
    }
    Vec::new()
}

fn edit_option(app: &mut App, action: Action) -> Vec<Effect> {
    match app.corpus.options.typed(&action) {
        Some((name, text)) => app.user_action(Action::SetCorpusOption(name, text)),
        None => Vec::new(),
    }
}
