//! The Evaluate screen's handlers: adding and removing dataset files,
//! evaluating runs in the background and taking their reports.

use std::path::PathBuf;

use crate::eval::Report;
use crate::tui::action::Action;
use crate::tui::app::{App, Level, PromptKind};
use crate::tui::model::evaluate::{check, summary};
use crate::tui::msg::Effect;

/// Adds a similarity file, or replaces the analogy set with an analogy
/// file, once it reads without error.
pub fn add_dataset(app: &mut App, path: &str) -> Vec<Effect> {
    let path = PathBuf::from(path);
    match check(&path) {
        Err(e) => app.set_status(Level::Error, e),
        Ok(_) if app.eval.added.contains(&path) => {
            app.set_status(Level::Info, format!("{} is already added", path.display()))
        }
        Ok(what) => {
            app.set_status(
                Level::Info,
                format!("added {} ({what}); d removes it", path.display()),
            );
            app.eval.added.push(path);
            app.eval.rebuild();
            app.session.changed();
        }
    }
    Vec::new()
}

/// Removes added file `index`.
pub fn remove_dataset(app: &mut App, index: usize) -> Vec<Effect> {
    if index >= app.eval.added.len() {
        app.set_status(Level::Info, "no added dataset to remove (f adds one)");
        return Vec::new();
    }
    let path = app.eval.added.remove(index);
    app.eval.rebuild();
    app.session.changed();
    app.set_status(Level::Info, format!("removed {}", path.display()));
    Vec::new()
}

/// Evaluates run `run` in the background.
pub fn evaluate(app: &mut App, run: usize) -> Vec<Effect> {
    let Some(r) = app.runs.get_mut(run) else {
        return Vec::new();
    };
    let Some(embedding) = r.embedding.clone() else {
        let why = r.no_vectors();
        app.set_status(Level::Warn, why);
        return Vec::new();
    };
    if r.evaluating {
        return Vec::new();
    }
    r.evaluating = true;
    app.set_status(
        Level::Info,
        format!("evaluating run #{}…", app.run_number(run)),
    );
    vec![Effect::Evaluate {
        run,
        embedding,
        plan: app.eval.plan.clone(),
    }]
}

/// Evaluates every run that has vectors and no evaluation (or one from
/// other datasets than those now in use).
pub fn evaluate_all(app: &mut App) -> Vec<Effect> {
    let todo: Vec<usize> = app
        .runs
        .iter()
        .enumerate()
        .filter(|(_, r)| r.embedding.is_some() && !r.evaluating && r.evaluation().is_none())
        .map(|(i, _)| i)
        .collect();
    if todo.is_empty() {
        app.set_status(
            Level::Info,
            "every run with vectors is evaluated (v evaluates the selected one again)",
        );
        return Vec::new();
    }
    let n = todo.len();
    let effects: Vec<Effect> = todo.into_iter().flat_map(|i| evaluate(app, i)).collect();
    app.set_status(Level::Info, format!("evaluating {n} run(s)…"));
    effects
}

/// An evaluation finished.
pub fn evaluated(app: &mut App, run: usize, result: Result<Report, String>) {
    let Some(r) = app.runs.get_mut(run) else {
        return;
    };
    r.evaluating = false;
    match result {
        Ok(report) => {
            let summary = summary(&report);
            r.recorder.run_mut().evaluation = Some(report);
            app.session.changed();
            app.set_status(
                Level::Info,
                format!("run #{}: {summary}", app.run_number(run)),
            );
        }
        Err(e) => app.set_status(Level::Error, format!("run #{}: {e}", app.run_number(run))),
    }
}

/// Navigation on the Evaluate screen.
pub fn navigate(app: &mut App, action: Action) -> Vec<Effect> {
    let n = app.runs.len();
    let sel = app.eval.selected.min(n.saturating_sub(1));
    match action {
        Action::Up => app.eval.selected = sel.saturating_sub(1),
        Action::Down => app.eval.selected = (sel + 1).min(n.saturating_sub(1)),
        Action::EvaluateSelected if n > 0 => return app.user_action(Action::EvaluateRun(sel)),
        Action::EvaluateSelected | Action::EvaluateAll if n == 0 => {
            app.set_status(Level::Info, "no runs yet: train one on 2 Train")
        }
        Action::EvaluateAll => return evaluate_all(app),
        Action::RemoveLastDataset => {
            let last = app.eval.added.len().wrapping_sub(1);
            return app.user_action(Action::RemoveDataset(last));
        }
        Action::AddDatasetPrompt => app.prompt(
            PromptKind::AddDataset,
            "Add a dataset",
            String::new(),
            "similarity: word1 word2 score lines; analogy: Google format with ': section' lines",
        ),
        _ => {}
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::EvalPlan;
    use crate::tui::update::act;

    #[test]
    fn added_files_are_sorted_into_similarity_or_analogy() {
        let dir = tempfile::tempdir().unwrap();
        let sim = dir.path().join("sim.tsv");
        let ana = dir.path().join("ana.txt");
        std::fs::write(&sim, "king queen 8.5\n").unwrap();
        std::fs::write(&ana, "\n: capital\nathens greece oslo norway\n").unwrap();
        let mut app = App::new(&crate::tui::app::AppOptions {
            corpus: "x".into(),
            session: None,
            eval_plan: EvalPlan::default(),
            cores: 1,
            exports: "exports".into(),
        });
        add_dataset(&mut app, sim.to_str().unwrap());
        add_dataset(&mut app, ana.to_str().unwrap());
        add_dataset(&mut app, "/nonexistent/file");
        assert_eq!(app.eval.plan.similarity, vec![sim.clone()]);
        assert_eq!(app.eval.plan.analogy, Some(ana.clone()));
        assert_eq!(app.status.level, Level::Error);
        assert_eq!(app.eval.added, vec![sim.clone(), ana]);
        remove_dataset(&mut app, 1);
        assert_eq!(app.eval.plan.analogy, None);
        assert_eq!(app.eval.added, vec![sim]);
    }

    #[test]
    fn malformed_files_are_refused_with_their_line() {
        let dir = tempfile::tempdir().unwrap();
        let bad = dir.path().join("bad.tsv");
        std::fs::write(&bad, "king queen 8.5\nonly-two words\n").unwrap();
        let mut app = App::new(&crate::tui::app::AppOptions {
            corpus: "x".into(),
            session: None,
            eval_plan: EvalPlan::default(),
            cores: 1,
            exports: "exports".into(),
        });
        add_dataset(&mut app, bad.to_str().unwrap());
        assert_eq!(app.status.level, Level::Error);
        assert!(app.status.text.contains("bad.tsv:2"), "{}", app.status.text);
        assert!(app.eval.added.is_empty());
        assert!(app.eval.plan.similarity.is_empty());
        let missing = app.eval.restore(&[bad, "/nonexistent".into()]);
        assert_eq!(missing.len(), 2);
    }

    #[test]
    fn evaluate_all_asks_for_every_run_with_vectors_once() {
        use crate::tui::run::RunEntry;
        let mut app = App::new(&crate::tui::app::AppOptions {
            corpus: "x".into(),
            session: None,
            eval_plan: EvalPlan::default(),
            cores: 1,
            exports: "exports".into(),
        });
        let m = crate::algo::find("sgns").unwrap();
        let words = crate::words::WordIndex::from_words(vec!["a".into(), "b".into()]);
        let e = std::sync::Arc::new(
            crate::embedding::Embedding::new(words, ndarray::Array2::eye(2)).unwrap(),
        );
        for with_vectors in [true, false, true] {
            let params = crate::schema::Params::defaults(m.schema);
            let mut r = RunEntry::new(m, params, 1, 1, crate::tui::run::tests::corpus_ref());
            r.status = crate::tui::run::RunStatus::Finished;
            r.embedding = with_vectors.then(|| e.clone());
            app.push_run(r);
        }
        app.screen = crate::tui::action::Screen::Evaluate;
        let effects = act(&mut app, Action::EvaluateAll);
        let runs: Vec<usize> = effects
            .iter()
            .map(|e| match e {
                Effect::Evaluate { run, .. } => *run,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(runs, [0, 2]);
        assert!(
            act(&mut app, Action::EvaluateAll).is_empty(),
            "already under way"
        );
    }
}
