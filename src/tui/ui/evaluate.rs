//! The Evaluate screen: one row per run, one column per dataset
//! (Spearman ρ with coverage, analogy accuracy), an `A−B` row once both
//! picked runs are evaluated, the selected run's analogy accuracy per
//! section, and the datasets in use.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Row, Table, TableState, Wrap};
use ratatui::Frame;

use super::runs::picks_mark;
use super::{block, theme};
use crate::eval::{dataset_name, Report};
use crate::tui::action::Slot;
use crate::tui::app::App;

/// Draws the Evaluate screen.
pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let plan = &app.eval.plan;
    let sims: Vec<String> = plan.similarity.iter().map(|p| dataset_name(p)).collect();
    let analogy = plan.analogy.as_ref().map(|p| dataset_name(p));
    let [table_area, info] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(8)]).areas(area);
    let mut header = vec!["".to_string(), "#".into(), "run".into()];
    header.extend(sims.iter().map(|s| format!("{s} ρ")));
    if let Some(a) = &analogy {
        header.push(format!("{a} acc"));
    }
    let rows: Vec<Row> = app
        .runs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let mut cells = vec![
                picks_mark(app, i).to_string(),
                r.number().to_string(),
                r.title(),
            ];
            match (r.evaluation(), r.evaluating) {
                (_, true) => cells.push("evaluating…".into()),
                (Some(report), _) => cells.extend(columns(report, &sims, analogy.as_deref())),
                (None, _) if r.embedding.is_some() => cells.push("press v".into()),
                (None, _) => cells.push("-".into()),
            }
            Row::new(cells)
        })
        .collect();
    let mut rows = rows;
    if let Some(diff) = difference_row(app, &sims, analogy.as_deref()) {
        rows.push(diff);
    }
    let label = app
        .runs
        .iter()
        .map(|r| r.title().chars().count())
        .max()
        .unwrap_or(0);
    let mut widths = vec![
        Constraint::Length(1),
        Constraint::Length(2),
        Constraint::Length((label as u16).clamp(14, 32)),
    ];
    // `0.458 306/353` and `7.1% (9%/7%) 9113/19544`: fits 80 columns.
    widths.extend(
        sims.iter()
            .map(|s| Constraint::Length((s.chars().count() as u16 + 2).max(14))),
    );
    if analogy.is_some() {
        widths.push(Constraint::Min(24));
    }
    let table = Table::new(rows, widths)
        .header(Row::new(header).style(theme::dim()))
        .row_highlight_style(theme::selected())
        .block(block("Evaluation", true));
    let mut state =
        TableState::default().with_selected((!app.runs.is_empty()).then_some(app.eval.selected));
    frame.render_stateful_widget(table, table_area, &mut state);
    if app.runs.is_empty() {
        let p = Paragraph::new("  No runs yet: train one on 2 Train, then come back and press v.");
        let inner = table_area.inner(ratatui::layout::Margin::new(1, 2));
        frame.render_widget(p, inner);
    }
    let added = |p: &std::path::PathBuf| {
        if app.eval.added.contains(p) {
            " (added)"
        } else {
            ""
        }
    };
    let mut lines: Vec<Line> = plan
        .similarity
        .iter()
        .map(|p| Line::raw(format!(" similarity  {}{}", p.display(), added(p))))
        .collect();
    if let Some(a) = &plan.analogy {
        lines.push(Line::raw(format!(
            " analogy     {}{} (3CosAdd, top {} words)",
            a.display(),
            added(a),
            plan.analogy_config.restrict
        )));
    }
    lines.extend(sections_line(app));
    lines.push(Line::from(vec![Span::styled(
        " ρ: Spearman correlation of cosines with human scores, then pairs found/total; \
         acc: analogy accuracy (semantic/syntactic), then questions answered/total",
        theme::dim(),
    )]));
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(block(
                "Datasets (f adds a file, d removes the last added)",
                false,
            )),
        info,
    );
}

/// `A−B`: run A's scores minus run B's, once both are evaluated.
fn difference_row(app: &App, sims: &[String], analogy: Option<&str>) -> Option<Row<'static>> {
    let a = app.picked(Slot::A)?.1.evaluation()?;
    let b = app.picked(Slot::B)?.1.evaluation()?;
    let rho = |r: &Report, name: &str| {
        r.similarity
            .iter()
            .find(|s| s.dataset == name)
            .map(|s| s.spearman)
    };
    let mut cells = vec!["".to_string(), "".into(), "A−B".into()];
    for name in sims {
        cells.push(match (rho(a, name), rho(b, name)) {
            (Some(x), Some(y)) => format!("{:+.3}", x - y),
            _ => "-".into(),
        });
    }
    if let Some(name) = analogy {
        let acc = |r: &Report| {
            r.analogy
                .as_ref()
                .filter(|x| x.dataset == name)
                .map(|x| x.total)
        };
        cells.push(match (acc(a), acc(b)) {
            (Some(x), Some(y)) => format!("{:+.1} points", 100.0 * (x - y)),
            _ => "-".into(),
        });
    }
    Some(Row::new(cells).style(theme::title()))
}

/// The selected run's analogy accuracy per section, as one line.
fn sections_line(app: &App) -> Option<Line<'static>> {
    let i = app.eval.selected.min(app.runs.len().checked_sub(1)?);
    let a = app.runs[i].evaluation()?.analogy.as_ref()?;
    let parts: Vec<String> = a
        .sections
        .iter()
        .filter(|s| s.answered > 0)
        .map(|s| format!("{} {:.0}%", s.section, 100.0 * s.accuracy))
        .collect();
    if parts.is_empty() {
        return None;
    }
    Some(Line::raw(format!(
        " #{} by section: {}",
        app.runs[i].number(),
        parts.join(" · ")
    )))
}

/// The cells of one report in column order.
fn columns(report: &Report, sims: &[String], analogy: Option<&str>) -> Vec<String> {
    let mut cells: Vec<String> = sims
        .iter()
        .map(|name| {
            report
                .similarity
                .iter()
                .find(|s| &s.dataset == name)
                .map_or("-".into(), |s| {
                    format!("{:.3} {}/{}", s.spearman, s.found, s.pairs)
                })
        })
        .collect();
    if let Some(name) = analogy {
        cells.push(
            report
                .analogy
                .as_ref()
                .filter(|a| a.dataset == name)
                .map_or("-".into(), |a| {
                    format!(
                        "{:.1}% ({:.0}%/{:.0}%) {}/{}",
                        100.0 * a.total,
                        100.0 * a.semantic,
                        100.0 * a.syntactic,
                        a.answered,
                        a.questions
                    )
                }),
        );
    }
    cells
}
