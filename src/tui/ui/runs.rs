//! The Runs screen: a table of every run, and the selected run's details.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Row, Table, TableState, Wrap};
use ratatui::Frame;

use super::format::{duration, fit, value};
use super::{block, theme};
use crate::tui::action::Slot;
use crate::tui::app::App;
use crate::tui::model::evaluate::summary;

/// The A/B marks of run `i`.
pub fn picks_mark(app: &App, i: usize) -> &'static str {
    match (app.picks[0] == Some(i), app.picks[1] == Some(i)) {
        (true, _) => "A",
        (_, true) => "B",
        _ => "",
    }
}

/// Characters of the vectors column.
const VECTORS_WIDTH: u16 = 16;

/// Draws the Runs screen.
pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    if app.runs.is_empty() {
        let p = Paragraph::new(vec![
            Line::default(),
            Line::raw("  No runs yet. Train one on the Train screen (2, then s)."),
            Line::raw("  Every run of the session is listed here: pick runs for the Neighbours,"),
            Line::raw(
                "  Evaluate and Projection screens (a, b), export vectors (e), evaluate (v).",
            ),
        ])
        .block(block("Runs", true));
        frame.render_widget(p, area);
        return;
    }
    let details_h = (area.height / 3).clamp(5, 10);
    let [table_area, details] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(details_h)]).areas(area);
    // The corpus column only when the runs did not all train on one corpus
    // (the details below always name it).
    let corpora: std::collections::BTreeSet<String> = app
        .runs
        .iter()
        .filter_map(|r| r.corpus().map(|c| c.hash.clone()))
        .collect();
    let show_corpus = corpora.len() > 1;
    let listed = app.runs_view.listed(&app.runs);
    let rows: Vec<Row> = listed
        .iter()
        .map(|&i| (i, &app.runs[i]))
        .map(|(i, r)| {
            let last = r.last();
            let eval = r.evaluation().map_or_else(
                || {
                    if r.evaluating {
                        "evaluating…".into()
                    } else {
                        "-".into()
                    }
                },
                |e| {
                    let sims: Vec<String> = e
                        .similarity
                        .iter()
                        .map(|s| format!("{:.2}", s.spearman))
                        .collect();
                    let ana = e
                        .analogy
                        .as_ref()
                        .map_or(String::new(), |a| format!(" {:.1}%", 100.0 * a.total));
                    format!("ρ {}{ana}", sims.join("/"))
                },
            );
            let mut cells = vec![
                picks_mark(app, i).to_string(),
                format!("{}", i + 1),
                r.method.name.to_string(),
                tagged(&r.record().tags, r.settings()),
                r.status_text(),
                last.map_or("-".into(), |p| duration(p.elapsed)),
                last.map_or("-".into(), |p| value(p.loss)),
                r.perplexity.map_or("-".into(), value),
                eval,
            ];
            if show_corpus {
                cells.push(fit(&r.corpus().map_or("-".into(), |c| c.name()), 12));
            }
            cells.push(fit(&r.vectors_text(), VECTORS_WIDTH as usize));
            Row::new(cells)
        })
        .collect();
    let mut widths = vec![
        Constraint::Length(1),
        Constraint::Length(2),
        Constraint::Length(10),
        Constraint::Min(12),
        Constraint::Length(12),
        Constraint::Length(6),
        Constraint::Length(7),
        Constraint::Length(7),
        Constraint::Length(18),
    ];
    let mut header = vec![
        "", "#", "method", "settings", "status", "time", "loss", "ppl", "eval",
    ];
    if show_corpus {
        header.push("corpus");
        widths.push(Constraint::Length(12));
    }
    header.push("vectors");
    widths.push(Constraint::Length(VECTORS_WIDTH));
    let header = Row::new(header).style(theme::dim());
    let filter = app.runs_view.filter_text();
    let title = if filter.is_empty() {
        "Runs (A and B are compared on the other screens)".to_string()
    } else {
        format!(
            "Runs matching '{filter}' ({} of {}; f changes the filter)",
            listed.len(),
            app.runs.len()
        )
    };
    let table = Table::new(rows, widths)
        .header(header)
        .row_highlight_style(theme::selected())
        .block(block(&title, true));
    let row = listed.iter().position(|&i| i == app.runs_view.selected);
    let mut state = TableState::default().with_selected(row);
    frame.render_stateful_widget(table, table_area, &mut state);
    draw_details(frame, details, app);
}

/// The settings cell, then the run's tags in brackets (the details below
/// show both whole).
fn tagged(tags: &[String], settings: String) -> String {
    if tags.is_empty() {
        settings
    } else {
        format!("{settings} [{}]", tags.join(" "))
    }
}

fn draw_details(frame: &mut Frame, area: Rect, app: &App) {
    let i = app.runs_view.selected.min(app.runs.len() - 1);
    let r = &app.runs[i];
    let rec = r.record();
    let mut lines = vec![Line::from(vec![
        Span::styled(format!(" {} ", r.label(i)), theme::title()),
        Span::styled(
            format!("seed {} · {} thread(s)", rec.seed, rec.threads),
            theme::dim(),
        ),
    ])];
    if !rec.tags.is_empty() {
        lines.push(Line::raw(format!(" tags: {}", rec.tags.join(", "))));
    }
    if let Some(k) = r.replay_of {
        lines.push(Line::raw(format!(
            " replays run #{} (its recording is drawn beneath on 2 Train)",
            k + 1
        )));
    }
    if let Some(c) = r.corpus() {
        lines.push(Line::raw(format!(
            " corpus: {} ({} bytes, hash {})",
            c.path.display(),
            c.bytes,
            c.hash
        )));
    }
    let changes = r.changes();
    if !changes.is_empty() {
        let text: Vec<String> = changes
            .iter()
            .map(|(s, c)| format!("{c} at step {s}"))
            .collect();
        lines.push(Line::raw(format!(" changes: {}", text.join(", "))));
    }
    if let Some(e) = r.evaluation() {
        lines.push(Line::raw(format!(" evaluation: {}", summary(e))));
    }
    if let crate::tui::run::RunStatus::Failed(m) = &r.status {
        lines.push(Line::styled(format!(" failed: {m}"), theme::error()));
    }
    if let Some(problem) = &r.problem {
        lines.push(Line::styled(format!(" {problem}"), theme::error()));
    }
    if let (true, Some(e)) = (r.is_imported(), &r.embedding) {
        if let Some(s) = &rec.source {
            lines.push(Line::raw(format!(
                " file: {} ({}, {} bytes, hash {})",
                s.path.display(),
                s.format,
                s.bytes,
                s.hash
            )));
        }
        let from = app.runs_view.vocab_from.min(e.len().saturating_sub(1));
        let words: Vec<String> = (from..e.len().min(from + 200))
            .map(|k| e.words().words()[k].clone())
            .collect();
        lines.push(Line::raw(format!(
            " words from #{} (/ find, [ ] page): {}",
            from + 1,
            words.join(" ")
        )));
    }
    for l in r.log.iter().rev().take(3).rev() {
        lines.push(Line::styled(format!(" {l}"), theme::dim()));
    }
    let slots: Vec<String> = [Slot::A, Slot::B]
        .iter()
        .filter_map(|s| app.picked(*s).map(|(j, _)| format!("{s} = #{}", j + 1)))
        .collect();
    let title = if slots.is_empty() {
        "Details".to_string()
    } else {
        format!("Details · {}", slots.join(", "))
    };
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(block(&title, false)),
        area,
    );
}
