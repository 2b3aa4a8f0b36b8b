//! The Evaluate screen: one row per run, one column per dataset
//! (Spearman ρ with coverage, analogy accuracy), and the datasets in use.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Row, Table, TableState, Wrap};
use ratatui::Frame;

use super::runs::picks_mark;
use super::{block, theme};
use crate::eval::{dataset_name, Report};
use crate::tui::app::App;

/// Draws the Evaluate screen.
pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let plan = &app.eval.plan;
    let sims: Vec<String> = plan.similarity.iter().map(|p| dataset_name(p)).collect();
    let analogy = plan.analogy.as_ref().map(|p| dataset_name(p));
    let [table_area, info] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(7)]).areas(area);
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
                (i + 1).to_string(),
                format!("{} {}", r.method.name, r.settings()),
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
    let label = app
        .runs
        .iter()
        .map(|r| r.method.name.len() + 1 + r.settings().chars().count())
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
