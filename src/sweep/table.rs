//! A sweep's results as rows: what each run set, how it ended and what it
//! scored. The command line prints them ranked and writes them as CSV; the
//! workbench's HParams screen draws them. Rows are read from session runs,
//! so a reopened sweep gives the same table as the one that ran.

use std::fmt::Write as _;

use super::run::value_of;
use super::spec::{Metric, CORPUS_PREFIX};
use crate::session::{Run, RunEnd, Session, SweepRecord};

/// A sweep's table: one row per run in the sweep's order (runs the user
/// deleted since are left out), then the skipped ones.
pub fn rows(record: &SweepRecord, session: &Session) -> Vec<Row> {
    rows_with(record, |n| session.run_index(n).map(|i| &session.runs[i]))
}

/// [`rows`] with the runs found by number by `run`.
pub fn rows_with<'a>(record: &SweepRecord, run: impl Fn(u32) -> Option<&'a Run>) -> Vec<Row> {
    let mut rows: Vec<_> = record
        .runs
        .iter()
        .filter_map(|n| run(*n))
        .map(|r| Row::of_run(r, &record.names))
        .collect();
    rows.extend(record.skipped.iter().cloned().map(Row::skipped));
    rows
}

/// Tag every run of sweep `n` carries (`sweep-1`).
pub fn sweep_tag(n: u32) -> String {
    format!("sweep-{n}")
}

/// Tag of a run the pruner stopped.
pub const PRUNED_TAG: &str = "pruned";

/// One run of a sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The run's number in the session (none for a run never started).
    pub number: Option<u32>,
    /// `finished`, `pruned`, `stopped`, `failed` or `skipped`.
    pub status: &'static str,
    /// The swept values, in the sweep's order of names.
    pub values: Vec<String>,
    /// Final training loss.
    pub loss: Option<f64>,
    /// Last held-out perplexity.
    pub perplexity: Option<f64>,
    /// Spearman's rho per similarity set, in the sets' order.
    pub similarity: Vec<(String, Option<f64>)>,
    /// Analogy accuracy.
    pub analogy: Option<f64>,
    /// Steps done.
    pub steps: u64,
    /// Wall seconds of training.
    pub seconds: f64,
}

impl Row {
    /// The row of a recorded run; `names` are the swept names.
    pub fn of_run(run: &Run, names: &[String]) -> Row {
        let status = match run.end() {
            RunEnd::Finished => "finished",
            RunEnd::Stopped(_) if run.tags.iter().any(|t| t == PRUNED_TAG) => "pruned",
            RunEnd::Stopped(_) => "stopped",
            RunEnd::Interrupted(_) => "interrupted",
            RunEnd::Failed(_) => "failed",
        };
        let similarity = run
            .evaluation
            .as_ref()
            .map(|r| {
                r.similarity
                    .iter()
                    .map(|s| {
                        (
                            s.dataset.clone(),
                            Some(s.spearman).filter(|v| v.is_finite()),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        Row {
            number: Some(run.number),
            status,
            values: names.iter().map(|n| swept_value(run, n)).collect(),
            loss: value_of(run, &Metric::Loss),
            perplexity: value_of(run, &Metric::Perplexity),
            similarity,
            analogy: value_of(run, &Metric::Analogy),
            steps: run.last_step(),
            seconds: run.metrics.last().map_or(0.0, |p| p.elapsed),
        }
    }

    /// The row of a run the time budget left out.
    pub fn skipped(values: Vec<String>) -> Row {
        Row {
            number: None,
            status: "skipped",
            values,
            loss: None,
            perplexity: None,
            similarity: Vec::new(),
            analogy: None,
            steps: 0,
            seconds: 0.0,
        }
    }

    /// This row's value of `metric`.
    pub fn value(&self, metric: &Metric) -> Option<f64> {
        match metric {
            Metric::Loss => self.loss,
            Metric::Perplexity => self.perplexity,
            Metric::Analogy => self.analogy,
            Metric::Similarity(name) => self
                .similarity
                .iter()
                .find(|(n, _)| n == name)
                .and_then(|(_, v)| *v),
        }
    }
}

/// What run `run` set for swept name `name` (a hyperparameter, or a corpus
/// option read from the run's corpus settings).
pub fn swept_value(run: &Run, name: &str) -> String {
    if let Some(v) = run.params.get(name) {
        return v.to_string();
    }
    let bare = name.strip_prefix(CORPUS_PREFIX).unwrap_or(name);
    run.corpus
        .as_ref()
        .map(|c| c.config.to_params())
        .and_then(|p| {
            p.iter()
                .find(|(k, _)| *k == bare)
                .map(|(_, v)| v.to_string())
        })
        .unwrap_or_default()
}

/// Row indices, best first by `metric`: finished runs ranked by their
/// value, then the pruned, stopped and failed ones, then those never run.
pub fn ranked(rows: &[Row], metric: &Metric) -> Vec<usize> {
    let class = |r: &Row| match (r.status, r.value(metric)) {
        ("finished", Some(_)) => 0,
        ("pruned", _) => 1,
        ("skipped", _) => 3,
        _ => 2,
    };
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by(|&a, &b| {
        let (ra, rb) = (&rows[a], &rows[b]);
        class(ra).cmp(&class(rb)).then_with(|| {
            let (va, vb) = (ra.value(metric), rb.value(metric));
            match (va, vb) {
                (Some(x), Some(y)) if metric.higher_is_better() => y.total_cmp(&x),
                (Some(x), Some(y)) => x.total_cmp(&y),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => std::cmp::Ordering::Equal,
            }
        })
    });
    order
}

/// The similarity sets named in any row, in first-seen order.
fn similarity_names(rows: &[Row]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (n, _) in rows.iter().flat_map(|r| &r.similarity) {
        if !names.contains(n) {
            names.push(n.clone());
        }
    }
    names
}

fn cell(v: Option<f64>) -> String {
    v.map_or(String::new(), |v| v.to_string())
}

/// The rows as CSV, in sweep order: `run,status,NAMES...,loss,perplexity,SETS...,analogy,steps,seconds`.
pub fn csv(names: &[String], rows: &[Row]) -> String {
    let sets = similarity_names(rows);
    let mut out = String::from("run,status");
    for n in names
        .iter()
        .chain(&["loss".to_string(), "perplexity".to_string()])
    {
        let _ = write!(out, ",{n}");
    }
    for s in &sets {
        let _ = write!(out, ",{s}");
    }
    out.push_str(",analogy,steps,seconds\n");
    for r in rows {
        let number = r.number.map_or(String::new(), |n| n.to_string());
        let _ = write!(out, "{number},{}", r.status);
        for v in &r.values {
            let _ = write!(out, ",{}", csv_field(v));
        }
        let _ = write!(out, ",{},{}", cell(r.loss), cell(r.perplexity));
        for s in &sets {
            let v = r.value(&Metric::Similarity(s.clone()));
            let _ = write!(out, ",{}", cell(v));
        }
        let _ = writeln!(out, ",{},{},{:.2}", cell(r.analogy), r.steps, r.seconds);
    }
    out
}

/// A field quoted when it holds a comma or quote.
fn csv_field(v: &str) -> String {
    if v.contains([',', '"', '\n']) {
        format!("\"{}\"", v.replace('"', "\"\""))
    } else {
        v.to_string()
    }
}

/// The rows as an aligned text table, best first by `metric`, the best
/// finished run marked with `*`.
pub fn text(names: &[String], rows: &[Row], metric: &Metric) -> String {
    let sets = similarity_names(rows);
    let mut header: Vec<String> = vec!["".into(), "run".into(), "status".into()];
    header.extend(names.iter().cloned());
    header.extend(["loss".into(), "ppl".into()]);
    header.extend(sets.iter().cloned());
    header.extend(["analogy".into(), "steps".into(), "secs".into()]);
    let mut lines = vec![header];
    for (rank, &i) in ranked(rows, metric).iter().enumerate() {
        let r = &rows[i];
        let best = rank == 0 && r.status == "finished" && r.value(metric).is_some();
        let mut line = vec![
            if best { "*".into() } else { String::new() },
            r.number.map_or("-".into(), |n| format!("#{n}")),
            r.status.to_string(),
        ];
        line.extend(r.values.iter().cloned());
        let f = |v: Option<f64>, digits: usize| v.map_or("-".into(), |v| format!("{v:.digits$}"));
        line.push(f(r.loss, 4));
        line.push(f(r.perplexity, 1));
        for s in &sets {
            line.push(f(r.value(&Metric::Similarity(s.clone())), 3));
        }
        line.push(f(r.analogy, 3));
        line.push(r.steps.to_string());
        line.push(format!("{:.1}", r.seconds));
        lines.push(line);
    }
    align(&lines)
}

fn align(lines: &[Vec<String>]) -> String {
    let cols = lines.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|c| {
            lines
                .iter()
                .filter_map(|l| l.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for line in lines {
        let cells: Vec<String> = line
            .iter()
            .zip(&widths)
            .map(|(s, w)| format!("{s:<w$}"))
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(n: u32, status: &'static str, ppl: Option<f64>, simlex: Option<f64>) -> Row {
        Row {
            number: Some(n),
            status,
            values: vec![n.to_string()],
            loss: Some(1.0),
            perplexity: ppl,
            similarity: vec![("simlex999".into(), simlex)],
            analogy: None,
            steps: 10,
            seconds: 1.0,
        }
    }

    #[test]
    fn ranking_puts_finished_runs_first_best_by_the_metric_direction() {
        let rows = vec![
            row(1, "finished", Some(300.0), Some(0.20)),
            row(2, "pruned", Some(100.0), Some(0.90)),
            row(3, "finished", Some(200.0), Some(0.25)),
            row(4, "failed", None, None),
            row(5, "finished", Some(250.0), Some(0.10)),
        ];
        assert_eq!(ranked(&rows, &Metric::Perplexity), [2, 4, 0, 1, 3]);
        let simlex = Metric::Similarity("simlex999".into());
        assert_eq!(ranked(&rows, &simlex), [2, 0, 4, 1, 3]);
        let t = text(&["window".into()], &rows, &simlex);
        let first = t.lines().nth(1).unwrap();
        assert!(first.starts_with("*  #3"), "{t}");
    }

    #[test]
    fn csv_has_a_column_per_swept_name_and_set_in_sweep_order() {
        let mut rows = vec![row(1, "finished", Some(300.0), Some(0.2))];
        rows.push(Row::skipped(vec!["a,b".into()]));
        let csv = csv(&["window".into()], &rows);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(
            lines[0],
            "run,status,window,loss,perplexity,simlex999,analogy,steps,seconds"
        );
        assert_eq!(lines[1], "1,finished,1,1,300,0.2,,10,1.00");
        assert_eq!(lines[2], ",skipped,\"a,b\",,,,,0,0.00");
    }
}
