//! The Evaluate screen: the bundled similarity and analogy sets (and files
//! the user adds) run on a run's vectors in the background; results go into
//! the run's record, so session files keep them.

use std::path::PathBuf;

use super::action::Action;
use super::app::{act, App, Level, PromptKind};
use super::msg::Effect;
use crate::eval::{EvalPlan, Report};

/// The Evaluate screen.
#[derive(Debug, Clone)]
pub struct EvalView {
    /// Datasets to run.
    pub plan: EvalPlan,
    /// Selected run.
    pub selected: usize,
}

impl EvalView {
    /// The screen with the bundled datasets.
    pub fn new(plan: EvalPlan) -> Self {
        EvalView { plan, selected: 0 }
    }
}

/// Whether a dataset file is in the Google analogy format (`: section` lines).
fn is_analogy(path: &std::path::Path) -> bool {
    use std::io::{BufRead, BufReader};
    let Ok(f) = std::fs::File::open(path) else {
        return false;
    };
    BufReader::new(f)
        .lines()
        .map_while(Result::ok)
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| l.trim_start().starts_with(':'))
}

/// Adds a similarity file, or replaces the analogy set with an analogy file.
pub fn add_dataset(app: &mut App, path: &str) -> Vec<Effect> {
    let path = PathBuf::from(path);
    if !path.is_file() {
        app.set_status(Level::Error, format!("{}: no such file", path.display()));
        return Vec::new();
    }
    if is_analogy(&path) {
        app.set_status(Level::Info, format!("analogy set: {}", path.display()));
        app.eval.plan.analogy = Some(path);
    } else if !app.eval.plan.similarity.contains(&path) {
        app.set_status(
            Level::Info,
            format!("similarity set added: {}", path.display()),
        );
        app.eval.plan.similarity.push(path);
    }
    Vec::new()
}

/// Evaluates run `run` in the background.
pub fn evaluate(app: &mut App, run: usize) -> Vec<Effect> {
    let Some(r) = app.runs.get_mut(run) else {
        return Vec::new();
    };
    let Some(embedding) = r.embedding.clone() else {
        let why = r.no_vectors(run);
        app.set_status(Level::Warn, why);
        return Vec::new();
    };
    if r.evaluating {
        return Vec::new();
    }
    r.evaluating = true;
    app.set_status(Level::Info, format!("evaluating run #{}…", run + 1));
    vec![Effect::Evaluate {
        run,
        embedding,
        plan: app.eval.plan.clone(),
    }]
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
            app.set_status(Level::Info, format!("run #{}: {summary}", run + 1));
        }
        Err(e) => app.set_status(Level::Error, format!("run #{}: {e}", run + 1)),
    }
}

/// One line: `wordsim353 ρ 0.612 · simlex999 ρ 0.301 · analogy 41.2%`.
pub fn summary(report: &Report) -> String {
    let mut parts: Vec<String> = report
        .similarity
        .iter()
        .map(|s| format!("{} ρ {:.3}", s.dataset, s.spearman))
        .collect();
    if let Some(a) = &report.analogy {
        parts.push(format!("{} {:.1}%", a.dataset, 100.0 * a.total));
    }
    parts.join(" · ")
}

/// Navigation on the Evaluate screen.
pub fn navigate(app: &mut App, action: Action) -> Vec<Effect> {
    let n = app.runs.len();
    let sel = app.eval.selected.min(n.saturating_sub(1));
    match action {
        Action::Up => app.eval.selected = sel.saturating_sub(1),
        Action::Down => app.eval.selected = (sel + 1).min(n.saturating_sub(1)),
        Action::EvaluateSelected if n > 0 => return act(app, Action::EvaluateRun(sel)),
        Action::EvaluateSelected => {
            app.set_status(Level::Info, "no runs yet: train one on 2 Train")
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
        });
        add_dataset(&mut app, sim.to_str().unwrap());
        add_dataset(&mut app, ana.to_str().unwrap());
        add_dataset(&mut app, "/nonexistent/file");
        assert_eq!(app.eval.plan.similarity, vec![sim]);
        assert_eq!(app.eval.plan.analogy, Some(ana));
        assert_eq!(app.status.level, Level::Error);
    }
}
