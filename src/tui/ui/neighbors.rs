//! The Neighbours screen: the query inputs, then each picked run's answer
//! side by side, with the words both runs found highlighted.

use std::collections::HashSet;

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Row, Table};
use ratatui::Frame;

use super::fields::{field_line, input_spans};
use super::{block, theme};
use crate::tui::action::Slot;
use crate::tui::app::App;
use crate::tui::model::neighbors::{Answer, NeighborsFocus, Ranking};
use crate::tui::msg::Query;

/// Draws the Neighbours screen.
pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let [inputs, results] =
        Layout::vertical([Constraint::Length(6), Constraint::Min(0)]).areas(area);
    draw_inputs(frame, inputs, app);
    let answers: Vec<(Slot, &Answer)> = [Slot::A, Slot::B]
        .into_iter()
        .filter_map(|s| app.neighbors.answers[s.index()].as_ref().map(|a| (s, a)))
        .collect();
    if answers.is_empty() {
        let text = if app.picks == [None, None] {
            "  No run picked yet: train one (2 Train), or pick runs on 3 Runs (a, b)."
        } else {
            "  Type a word (Enter, then type; Tab completes), or Tab to the analogy input."
        };
        frame.render_widget(
            Paragraph::new(vec![Line::default(), Line::raw(text)]),
            results,
        );
        return;
    }
    let shared = shared_words(&answers);
    let constraints = vec![Constraint::Ratio(1, answers.len() as u32); answers.len()];
    let areas = Layout::horizontal(constraints).split(results);
    for ((slot, answer), area) in answers.iter().zip(areas.iter()) {
        draw_answer(frame, *area, app, *slot, answer, &shared);
    }
}

/// Words in every answer (when there are two).
fn shared_words(answers: &[(Slot, &Answer)]) -> HashSet<String> {
    if answers.len() < 2 {
        return HashSet::new();
    }
    let sets: Vec<HashSet<&str>> = answers
        .iter()
        .map(|(_, a)| {
            a.result
                .as_ref()
                .map(|l| l.iter().map(|n| n.word.as_str()).collect())
                .unwrap_or_default()
        })
        .collect();
    sets[0]
        .intersection(&sets[1])
        .map(|w| w.to_string())
        .collect()
}

fn draw_inputs(frame: &mut Frame, area: Rect, app: &App) {
    let v = &app.neighbors;
    let word_sel = v.focus == NeighborsFocus::Word;
    let mut analogy = input_spans(
        &v.analogy,
        v.editing && !word_sel,
        "a b c, e.g. man king woman",
    );
    let words: Vec<&str> = v.analogy.text().split_whitespace().collect();
    if let [a, b, c] = words[..] {
        analogy.push(Span::styled(
            format!("   {a} : {b} :: {c} : ?"),
            theme::dim(),
        ));
    }
    let mut lines = vec![
        field_line(
            "word",
            7,
            input_spans(
                &v.word,
                v.editing && word_sel,
                "a word (king), king -man +woman, or ? odd one out",
            ),
            word_sel,
            None,
        ),
        field_line("analogy", 7, analogy, !word_sel, None),
    ];
    let suggestions = if v.editing && !v.suggestions.is_empty() {
        Line::styled(format!("  Tab: {}", v.suggestions.join("  ")), theme::dim())
    } else {
        Line::styled(
            format!(
                "  {} neighbours per run (+/-) · words combine by {} (m) · ranked by {} (w)",
                v.k,
                v.combine.name(),
                v.ranking.name()
            ),
            theme::dim(),
        )
    };
    lines.push(suggestions);
    let title = if v.editing {
        "Query (typing: Enter to search, Esc to stop)"
    } else {
        "Query"
    };
    frame.render_widget(Paragraph::new(lines).block(block(title, v.editing)), area);
}

/// What the number column holds for a query.
fn score_name(app: &App, query: &Query) -> &'static str {
    let several = matches!(query, Query::Analogy(..) | Query::Similar { .. });
    match query {
        Query::OddOneOut(_) => "to mean",
        Query::Word(_) if app.neighbors.ranking == Ranking::Walk => "Ŝ walk",
        _ if several && app.neighbors.combine == crate::embedding::Combine::Mul => "3CosMul",
        _ => "cosine",
    }
}

fn draw_answer(
    frame: &mut Frame,
    area: Rect,
    app: &App,
    slot: Slot,
    answer: &Answer,
    shared: &HashSet<String>,
) {
    let run = app.runs.get(answer.run);
    let title = format!(
        "{slot} {} · {}",
        run.map_or("?".into(), |r| r.label(answer.run)),
        answer.query.describe()
    );
    let list = match &answer.result {
        Ok(list) => list,
        Err(e) => {
            let p = Paragraph::new(Line::styled(format!(" {e}"), theme::warn()))
                .block(block(&title, false));
            frame.render_widget(p, area);
            return;
        }
    };
    let bar_width = area.width.saturating_sub(36).clamp(4, 24) as f32;
    let rows: Vec<Row> = list
        .iter()
        .enumerate()
        .map(|(i, n)| {
            // Shared words are marked in text too, for monochrome terminals.
            let (style, word) = if shared.contains(&n.word) {
                (theme::good(), format!("{} •", n.word))
            } else {
                (Style::new(), n.word.clone())
            };
            let bar = "█".repeat((n.score.max(0.0) * bar_width).round() as usize);
            Row::new(vec![
                Line::raw(format!("{:>2}", i + 1)),
                Line::styled(word, style),
                Line::raw(format!("{:.3}", n.score)),
                Line::styled(bar, Style::new().fg(theme::LOSS)),
            ])
        })
        .collect();
    let note = if shared.is_empty() {
        String::new()
    } else {
        format!(" · {} shared •", shared.len())
    };
    let table = Table::new(
        rows,
        [
            Constraint::Length(2),
            Constraint::Length(20),
            Constraint::Length(6),
            Constraint::Length(bar_width as u16),
        ],
    )
    .header(Row::new(vec!["#", "word", score_name(app, &answer.query), ""]).style(theme::dim()))
    .block(block(&format!("{title}{note}"), false));
    frame.render_widget(table, area);
}
