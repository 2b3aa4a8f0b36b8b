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
const VECTORS_WIDTH: usize = 16;

/// A column of the runs table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Col {
    Mark,
    Number,
    Method,
    Settings,
    Status,
    Time,
    Loss,
    Perplexity,
    Eval,
    Corpus,
    Vectors,
}

impl Col {
    fn header(self) -> &'static str {
        match self {
            Col::Mark => "",
            Col::Number => "#",
            Col::Method => "method",
            Col::Settings => "settings",
            Col::Status => "status",
            Col::Time => "time",
            Col::Loss => "loss",
            Col::Perplexity => "ppl",
            Col::Eval => "eval",
            Col::Corpus => "corpus",
            Col::Vectors => "vectors",
        }
    }
}

/// The columns a narrow table leaves out first (the details below show
/// them for the selected run); the others always fit from 80 columns up.
const DROPPED_FIRST: [Col; 4] = [Col::Vectors, Col::Corpus, Col::Eval, Col::Time];

/// Narrowest settings column.
const SETTINGS_MIN: usize = 12;

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
    let mut columns = vec![
        Col::Mark,
        Col::Number,
        Col::Method,
        Col::Settings,
        Col::Status,
        Col::Time,
        Col::Loss,
        Col::Perplexity,
        Col::Eval,
    ];
    if corpora.len() > 1 {
        columns.push(Col::Corpus);
    }
    columns.push(Col::Vectors);
    let listed = app.runs_view.listed(&app.runs);
    // Widths from every run, listed or not, so a filter does not move columns.
    let cells: Vec<Vec<String>> = (0..app.runs.len())
        .map(|i| columns.iter().map(|&c| cell(app, i, c)).collect())
        .collect();
    let room = table_area.width.saturating_sub(2) as usize;
    let (columns, widths) = fit_columns(&columns, &cells, room);
    let rows: Vec<Row> = listed
        .iter()
        .map(|&i| {
            let row = &cells[i];
            let shown = columns.iter().zip(&widths).map(|(&(k, c), &w)| {
                let text = &row[k];
                if c == Col::Settings {
                    fit(text, w)
                } else {
                    text.clone()
                }
            });
            Row::new(shown.collect::<Vec<_>>())
        })
        .collect();
    let header = Row::new(columns.iter().map(|(_, c)| c.header())).style(theme::dim());
    let widths: Vec<Constraint> = widths
        .iter()
        .map(|&w| Constraint::Length(w as u16))
        .collect();
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

/// The columns that fit in `room` characters (with their index into each
/// row of `cells`) and their widths: every column as wide as its widest
/// cell, the settings column what is left; columns are left out in the
/// order of [`DROPPED_FIRST`] until the rest fit, so no number is cut.
fn fit_columns(
    columns: &[Col],
    cells: &[Vec<String>],
    room: usize,
) -> (Vec<(usize, Col)>, Vec<usize>) {
    let natural: Vec<usize> = columns
        .iter()
        .enumerate()
        .map(|(k, c)| {
            cells
                .iter()
                .map(|row| row[k].chars().count())
                .chain([c.header().chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut kept: Vec<(usize, Col)> = columns.iter().copied().enumerate().collect();
    let need = |kept: &[(usize, Col)]| -> usize {
        let fixed: usize = kept
            .iter()
            .filter(|(_, c)| *c != Col::Settings)
            .map(|&(k, _)| natural[k])
            .sum();
        fixed + SETTINGS_MIN + kept.len().saturating_sub(1)
    };
    for drop in DROPPED_FIRST {
        if need(&kept) <= room {
            break;
        }
        kept.retain(|(_, c)| *c != drop);
    }
    let others: usize = need(&kept) - SETTINGS_MIN;
    let widths = kept
        .iter()
        .map(|&(k, c)| match c {
            Col::Settings => room.saturating_sub(others).max(SETTINGS_MIN),
            _ => natural[k],
        })
        .collect();
    (kept, widths)
}

/// The text of run `i`'s cell in column `c`.
fn cell(app: &App, i: usize, c: Col) -> String {
    let r = &app.runs[i];
    let last = r.last();
    match c {
        Col::Mark => picks_mark(app, i).to_string(),
        Col::Number => format!("{}", r.number()),
        Col::Method => r.method.name.to_string(),
        Col::Settings => tagged(r.record().label.as_deref(), &r.record().tags, r.settings()),
        Col::Status => r.status_text(),
        Col::Time => last.map_or("-".into(), |p| duration(p.elapsed)),
        Col::Loss => last.map_or("-".into(), |p| value(p.loss)),
        Col::Perplexity => r.perplexity.map_or("-".into(), value),
        Col::Eval => r.evaluation().map_or_else(
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
        ),
        Col::Corpus => fit(&r.corpus().map_or("-".into(), |c| c.name()), 12),
        Col::Vectors => fit(&r.vectors_text(), VECTORS_WIDTH),
    }
}

/// The settings cell: the run's name when it has one, its settings, then
/// its tags in brackets (the details below show them whole).
fn tagged(name: Option<&str>, tags: &[String], settings: String) -> String {
    let mut text = match name {
        Some(name) => format!("{name}: {settings}"),
        None => settings,
    };
    if !tags.is_empty() {
        text.push_str(&format!(" [{}]", tags.join(" ")));
    }
    text
}

fn draw_details(frame: &mut Frame, area: Rect, app: &App) {
    let i = app.runs_view.selected.min(app.runs.len() - 1);
    let r = &app.runs[i];
    let rec = r.record();
    let mut lines = vec![Line::from(vec![
        Span::styled(format!(" {} ", r.label()), theme::title()),
        Span::styled(
            format!("seed {} · {} thread(s)", rec.seed, rec.threads),
            theme::dim(),
        ),
    ])];
    if !rec.tags.is_empty() {
        lines.push(Line::raw(format!(" tags: {}", rec.tags.join(", "))));
    }
    if let Some(k) = r.replay_of {
        let line = match &r.verdict {
            Some(v) => {
                let style = if v.passed() {
                    theme::good()
                } else {
                    theme::warn()
                };
                Line::styled(format!(" replays run #{}: {v}", app.run_number(k)), style)
            }
            None => Line::raw(format!(
                " replays run #{} (its recording is drawn beneath on 2 Train)",
                app.run_number(k)
            )),
        };
        lines.push(line);
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
        .filter_map(|s| {
            app.picked(*s)
                .map(|(j, _)| format!("{s} = #{}", app.run_number(j)))
        })
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
