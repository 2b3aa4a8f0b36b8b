//! The Evaluate screen's state: the bundled similarity and analogy sets and
//! the files the user adds (read when added, so a malformed one is refused
//! with its line; saved in the session).

use std::path::{Path, PathBuf};

use crate::eval::{AnalogyDataset, EvalPlan, Report, SimilarityDataset};

/// The Evaluate screen.
#[derive(Debug, Clone)]
pub struct EvalView {
    /// Datasets to run: the bundled ones and those added.
    pub plan: EvalPlan,
    /// Selected run.
    pub selected: usize,
    /// The files the user added, in order (saved in the session).
    pub added: Vec<PathBuf>,
    /// The plan before anything was added.
    bundled: EvalPlan,
}

impl EvalView {
    /// The screen with the bundled datasets.
    pub fn new(plan: EvalPlan) -> Self {
        EvalView {
            bundled: plan.clone(),
            plan,
            selected: 0,
            added: Vec::new(),
        }
    }

    /// The added files of an opened session replace the current ones; files
    /// that are missing or do not read are reported and left out.
    pub fn restore(&mut self, paths: &[PathBuf]) -> Vec<String> {
        let mut problems = Vec::new();
        self.added.clear();
        for path in paths {
            match check(path) {
                Ok(_) => self.added.push(path.clone()),
                Err(e) => problems.push(format!("dataset left out: {e}")),
            }
        }
        self.rebuild();
        problems
    }

    /// The plan: bundled similarity sets plus the added ones; the analogy
    /// set is the last added analogy file, else the bundled one.
    pub(crate) fn rebuild(&mut self) {
        let mut plan = self.bundled.clone();
        for path in &self.added {
            if is_analogy(path) {
                plan.analogy = Some(path.clone());
            } else if !plan.similarity.contains(path) {
                plan.similarity.push(path.clone());
            }
        }
        self.plan = plan;
    }
}

/// Whether a dataset file is in the Google analogy format (`: section` lines).
fn is_analogy(path: &std::path::Path) -> bool {
    use crate::corpus::source::BoundedLines;
    let Ok(f) = crate::corpus::source::open(path) else {
        return false;
    };
    f.bounded_lines()
        .map_while(Result::ok)
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| l.trim_start().starts_with(':'))
}

/// Reads a dataset file to check it: what it holds, or the located error.
pub fn check(path: &Path) -> Result<String, String> {
    crate::corpus::source::check_regular(path).map_err(|e| e.to_string())?;
    if is_analogy(path) {
        let d = AnalogyDataset::read(path).map_err(|e| e.to_string())?;
        Ok(format!("analogy set, {} questions", d.questions()))
    } else {
        let d = SimilarityDataset::read(path).map_err(|e| e.to_string())?;
        Ok(format!("similarity set, {} pairs", d.pairs.len()))
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
