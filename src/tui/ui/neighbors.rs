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
use crate::tui::model::neighbors::{Answer, NeighborsFocus, Ranking, SenseNeighbors};
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
                .map(|f| f.neighbors.iter().map(|n| n.word.as_str()).collect())
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
                "a word (king), king -man +woman, ? odd one out, bank | a sentence",
            ),
            word_sel,
            None,
        ),
        field_line("analogy", 7, analogy, !word_sel, None),
    ];
    let suggestions = if v.editing && !v.suggestions.is_empty() {
        Line::styled(format!("  Tab: {}", v.suggestions.join("  ")), theme::dim())
    } else {
        let long = format!(
            "  {} neighbours per run (+/-) · words combine by {} (m) · ranked by {} (w)",
            v.k,
            v.combine.name(),
            v.ranking.name()
        );
        // Narrow terminals get the short form rather than a line cut mid-word.
        let text = if long.chars().count() + 2 <= usize::from(area.width) {
            long
        } else {
            format!(
                "  k {} (+/-) · {} (m) · {} (w)",
                v.k,
                v.combine.name(),
                v.ranking.name()
            )
        };
        Line::styled(text, theme::dim())
    };
    lines.push(suggestions);
    let title = if v.editing {
        "Query (typing: Enter to search, Esc to stop)"
    } else {
        "Query"
    };
    frame.render_widget(Paragraph::new(lines).block(block(title, v.editing)), area);
}

/// Whether `answer` ranks a word's neighbours by a dsnmf run's Ŝ walk
/// (probabilities, small beside cosines).
fn walked(app: &App, answer: &Answer) -> bool {
    let method = app.runs.get(answer.run).map_or("", |r| r.method.name);
    matches!(answer.query, Query::Word(_))
        && app.neighbors.ranking.for_method(method) == Ranking::Walk
}

/// What the number column holds for an answer.
fn score_name(app: &App, answer: &Answer) -> &'static str {
    let query = &answer.query;
    let several = matches!(query, Query::Analogy(..) | Query::Similar { .. });
    match query {
        Query::OddOneOut(_) => "to mean",
        Query::Word(_) if walked(app, answer) => "Ŝ walk",
        _ if several && app.neighbors.combine == crate::embedding::Combine::Mul => "3CosMul",
        _ => "cosine",
    }
}

/// Each sense of the word: its share, label and nearest words.
fn draw_senses(frame: &mut Frame, area: Rect, senses: &[SenseNeighbors]) {
    if senses.is_empty() {
        return;
    }
    let mut lines = Vec::new();
    for s in senses {
        lines.push(Line::from(vec![
            Span::styled(s.name.clone(), theme::title()),
            Span::styled(
                format!(" {:.0}% · {}", 100.0 * s.mass, s.label),
                theme::dim(),
            ),
        ]));
        let near: Vec<String> = s
            .neighbors
            .iter()
            .map(|n| format!("{} {:.2}", n.word, n.score))
            .collect();
        lines.push(Line::raw(format!("  {}", near.join(", "))));
    }
    let title = format!("{} senses (word | a sentence picks one)", senses.len());
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(ratatui::widgets::Wrap { trim: false })
            .block(block(&title, false)),
        area,
    );
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
        run.map_or("?".into(), |r| r.label()),
        answer.query.describe()
    );
    let found = match &answer.result {
        Ok(found) => found,
        Err(e) => {
            let p = Paragraph::new(Line::styled(format!(" {e}"), theme::warn()))
                .block(block(&title, false));
            frame.render_widget(p, area);
            return;
        }
    };
    let list = &found.neighbors;
    let note_h = u16::from(found.note.is_some()) * 2;
    let senses_h = if found.senses.is_empty() {
        0
    } else {
        area.height / 2
    };
    let [note_area, area, senses_area] = Layout::vertical([
        Constraint::Length(note_h),
        Constraint::Min(0),
        Constraint::Length(senses_h),
    ])
    .areas(area);
    if let Some(note) = &found.note {
        frame.render_widget(
            Paragraph::new(Line::styled(format!(" {note}"), theme::accent()))
                .wrap(ratatui::widgets::Wrap { trim: true }),
            note_area,
        );
    }
    draw_senses(frame, senses_area, &found.senses);
    // Walk probabilities are small: three significant digits in a wider
    // column, and bars relative to the first.
    let walk = walked(app, answer);
    let score_width = if walk { 7 } else { 6 };
    let bar_width = area.width.saturating_sub(30 + score_width).clamp(4, 24) as f32;
    let scale = match list.first() {
        Some(top) if walk && top.score > 0.0 => 1.0 / top.score,
        _ => 1.0,
    };
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
            let bar = "█".repeat((n.score.max(0.0) * scale * bar_width).round() as usize);
            let score = if walk {
                probability(n.score)
            } else {
                format!("{:.3}", n.score)
            };
            Row::new(vec![
                Line::raw(format!("{:>2}", i + 1)),
                Line::styled(word, style),
                Line::raw(score),
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
            Constraint::Length(score_width),
            Constraint::Length(bar_width as u16),
        ],
    )
    .header(Row::new(vec!["#", "word", score_name(app, answer), ""]).style(theme::dim()))
    .block(block(&format!("{title}{note}"), false));
    frame.render_widget(table, area);
}

/// A probability in at most seven characters with three significant
/// digits: `0.0412`, `0.00412`, `4.12e-4`.
fn probability(p: f32) -> String {
    let p = f64::from(p);
    if !(p > 0.0) || p >= 0.1 {
        return format!("{p:.3}");
    }
    let decimals = (2.0 - p.log10().floor()) as usize;
    if decimals <= 5 {
        format!("{p:.decimals$}")
    } else {
        format!("{p:.2e}")
    }
}

#[cfg(test)]
mod tests {
    use super::probability;

    #[test]
    fn probabilities_keep_three_significant_digits_in_seven_characters() {
        assert_eq!(probability(0.25), "0.250");
        assert_eq!(probability(0.0412), "0.0412");
        assert_eq!(probability(0.00412), "0.00412");
        assert_eq!(probability(0.000412), "4.12e-4");
        assert_eq!(probability(0.0), "0.000");
    }
}
