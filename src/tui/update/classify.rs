//! The Classify screen's handlers: editing the study's fields, running it in
//! the background, and taking its outcome.

use crate::classify::study::MarginalChoice;
use crate::tui::action::Action;
use crate::tui::app::{App, Level};
use crate::tui::model::classify::TEXT_FIELDS;
use crate::tui::msg::Effect;

/// Sets a field from text.
pub fn set_field(app: &mut App, name: &str, text: &str) -> Vec<Effect> {
    if let Err(e) = app.classify.set(name, text) {
        app.set_status(Level::Error, e);
    }
    Vec::new()
}

/// Runs the study the fields describe.
pub fn start(app: &mut App) -> Vec<Effect> {
    let mut study = match app.classify.study() {
        Ok(s) => s,
        Err(e) => {
            app.set_status(Level::Error, e);
            return Vec::new();
        }
    };
    // `corpus`: the word marginals of the corpus loaded on 1 Corpus.
    if app.classify.text("marginals").trim() == "corpus" {
        let Some(loaded) = &app.corpus.loaded else {
            app.set_status(
                Level::Warn,
                "marginals=corpus: no corpus is loaded yet (1 Corpus)",
            );
            return Vec::new();
        };
        study.marginals = MarginalChoice::Corpus(loaded.corpus.path().to_path_buf());
    }
    let threads = match app.train.forms[app.train.method].int("threads") {
        Ok(t) => t as usize,
        Err(e) => {
            app.set_status(Level::Error, e);
            return Vec::new();
        }
    };
    let request = app.next_id();
    app.classify.pending = Some(request);
    app.classify.pending_fields = app.classify.fields();
    app.set_status(
        Level::Info,
        format!("classifying {}…", study.train.display()),
    );
    vec![Effect::Classify {
        request,
        study: Box::new(study),
        threads,
    }]
}

/// A study finished (a stale answer is dropped).
pub fn answered(
    app: &mut App,
    request: u64,
    result: Result<Box<crate::classify::study::Outcome>, String>,
) -> Vec<Effect> {
    let v = &mut app.classify;
    if v.pending != Some(request) {
        return Vec::new();
    }
    v.pending = None;
    match result {
        Ok(outcome) => {
            let best = outcome
                .points
                .iter()
                .filter_map(|p| p.f1.map(|f| (p.labelled, p.method.name(), f.mean)))
                .next_back();
            v.study = v.study().ok();
            v.record(*outcome);
            app.session.changed();
            let text = match best {
                Some((n, m, f1)) => format!("classified: {m} F1 {f1:.3} with {n} labelled"),
                None => "classified".to_string(),
            };
            app.set_status(Level::Info, text);
        }
        Err(e) => app.set_status(Level::Error, e),
    }
    Vec::new()
}

/// Navigation on the Classify screen.
pub fn navigate(app: &mut App, action: Action) -> Vec<Effect> {
    let v = &mut app.classify;
    if v.editing_text {
        let i = v.selected;
        match action {
            Action::Edit(op) => {
                v.texts[i].apply(&op);
            }
            Action::Cancel => v.editing_text = false,
            Action::Activate => {
                v.editing_text = false;
                let text = v.texts[i].text().to_string();
                let name = TEXT_FIELDS[i].0.to_string();
                return app.user_action(Action::SetClassifyField(name, text));
            }
            _ => {}
        }
        return Vec::new();
    }
    if v.options.editing().is_some() {
        return match v.options.typed(&action) {
            Some((name, text)) => app.user_action(Action::SetClassifyField(name, text)),
            None => Vec::new(),
        };
    }
    match action {
        Action::Up => v.selected = v.selected.saturating_sub(1),
        Action::Down => v.selected = (v.selected + 1).min(v.rows() - 1),
        Action::Activate if v.selected < TEXT_FIELDS.len() => {
            v.editing_text = true;
            v.texts[v.selected].select_all();
        }
        Action::Activate | Action::Left | Action::Right if v.selected >= TEXT_FIELDS.len() => {
            let i = v.selected - TEXT_FIELDS.len();
            if let Some((name, text)) = v.options.pressed(i, &action) {
                return app.user_action(Action::SetClassifyField(name, text));
            }
        }
        _ => {}
    }
    Vec::new()
}
