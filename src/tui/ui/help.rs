//! Overlays: the help (generated from the keymap, so it lists exactly the
//! keys that work) and the dialogs (questions and prompts).

use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};
use ratatui::Frame;

use super::fields::input_spans;
use super::{block, theme};
use crate::tui::action::Action;
use crate::tui::app::{App, Modal};
use crate::tui::keymap::{bindings, keys_text, Ctx};

fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let [h] = Layout::horizontal([Constraint::Length(width.min(area.width))])
        .flex(Flex::Center)
        .areas(area);
    let [v] = Layout::vertical([Constraint::Length(height.min(area.height))])
        .flex(Flex::Center)
        .areas(h);
    v
}

/// One section of help: its title and `(keys, help)` rows.
struct Section {
    title: String,
    rows: Vec<(String, &'static str)>,
}

/// The bindings of `ctx` as a section; the screen bindings (`1`…`7`,
/// `F1`…`F7`) are folded into one row.
fn section(title: String, ctx: Ctx) -> Section {
    let mut rows = Vec::new();
    let mut screens: Vec<String> = Vec::new();
    for b in bindings(ctx) {
        if let Action::GoTo(_) = b.action {
            screens.push(keys_text(b));
            continue;
        }
        rows.push((keys_text(b), b.help));
    }
    if let (Some(first), Some(last)) = (screens.first(), screens.last()) {
        rows.insert(0, (format!("{first}…{last}"), "screens (or click a tab)"));
    }
    Section { title, rows }
}

/// This screen's keys, the global ones, those that always work and those
/// for typing, in that order.
fn sections(app: &App) -> Vec<Section> {
    vec![
        section(
            format!("{} screen", app.screen.title()),
            Ctx::Screen(app.screen),
        ),
        section("Anywhere".into(), Ctx::Global),
        section("Always, even while typing".into(), Ctx::Always),
        section("While typing".into(), Ctx::Typing),
    ]
}

/// `text` in lines of at most `width` characters, broken between words (a
/// word longer than a line is broken where it must).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let mut word: Vec<char> = word.chars().collect();
        let used = line.chars().count();
        if used > 0 && used + 1 + word.len() <= width {
            line.push(' ');
            line.extend(word);
            continue;
        }
        if used > 0 {
            lines.push(std::mem::take(&mut line));
        }
        while word.len() > width {
            lines.push(word.drain(..width).collect());
        }
        line.extend(word);
    }
    lines.push(line);
    lines
}

/// A section's lines in a column `width` characters wide: the keys in a
/// column as wide as the section's widest, each help wrapped beneath its
/// own start, so no entry is cut.
fn section_lines(s: &Section, width: usize) -> Vec<Line<'static>> {
    let keys = s
        .rows
        .iter()
        .map(|(k, _)| k.chars().count())
        .max()
        .unwrap_or(0);
    // Narrow columns keep one space between keys and help.
    let gap = if width >= 40 { "  " } else { " " };
    let indent = 1 + keys + gap.len();
    let mut lines = vec![Line::styled(format!(" {}", s.title), theme::accent())];
    for (k, help) in &s.rows {
        for (n, part) in wrap(help, width.saturating_sub(indent))
            .into_iter()
            .enumerate()
        {
            let lead = if n == 0 { k.as_str() } else { "" };
            lines.push(Line::from(vec![
                Span::styled(format!(" {lead:<keys$}{gap}"), theme::key()),
                Span::raw(part),
            ]));
        }
    }
    lines
}

/// Sections flowed through `columns` columns of `width` and `height` like
/// a newspaper's: a section that does not fit where its column ends goes
/// on in the next one (never starting with a blank line).
fn flow(
    sections: &[Section],
    columns: usize,
    width: usize,
    height: usize,
) -> Vec<Vec<Line<'static>>> {
    let mut cols: Vec<Vec<Line<'static>>> = vec![Vec::new()];
    for s in sections {
        let lines = section_lines(s, width);
        let used = cols.last().map_or(0, Vec::len);
        if used > 0 {
            // A title with fewer than two entries under it starts a column.
            let room = height.saturating_sub(used + 1);
            if room < lines.len().min(3) && cols.len() < columns {
                cols.push(Vec::new());
            } else {
                cols.last_mut().expect("a column").push(Line::default());
            }
        }
        for line in lines {
            if cols.last().is_some_and(|c| c.len() >= height) && cols.len() < columns {
                cols.push(Vec::new());
            }
            cols.last_mut().expect("a column").push(line);
        }
    }
    cols
}

/// Sections laid out in `columns` columns of `width`: kept whole and in
/// order, a blank line between two in one column, split where the tallest
/// column is shortest.
fn layout(sections: &[Section], columns: usize, width: usize) -> Vec<Vec<Line<'static>>> {
    let blocks: Vec<Vec<Line<'static>>> =
        sections.iter().map(|s| section_lines(s, width)).collect();
    let stack = |group: &[Vec<Line<'static>>]| -> Vec<Line<'static>> {
        let mut out = Vec::new();
        for (i, b) in group.iter().enumerate() {
            if i > 0 {
                out.push(Line::default());
            }
            out.extend(b.iter().cloned());
        }
        out
    };
    // Every way of cutting the sections into `columns` runs, in order.
    let mut best: Option<Vec<Vec<Line<'static>>>> = None;
    for cuts in cut_points(blocks.len(), columns) {
        let mut at = 0;
        let cols: Vec<Vec<Line<'static>>> = cuts
            .iter()
            .chain([&blocks.len()])
            .map(|&end| {
                let col = stack(&blocks[at..end]);
                at = end;
                col
            })
            .collect();
        let tallest = |c: &[Vec<Line>]| c.iter().map(Vec::len).max().unwrap_or(0);
        if best.as_ref().is_none_or(|b| tallest(&cols) < tallest(b)) {
            best = Some(cols);
        }
    }
    best.unwrap_or_default()
}

/// The ways to cut `n` items into `parts` non-empty runs: the start of
/// every run after the first, ascending.
fn cut_points(n: usize, parts: usize) -> Vec<Vec<usize>> {
    fn go(from: usize, n: usize, left: usize, cut: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if left == 0 {
            out.push(cut.clone());
            return;
        }
        for at in from..n {
            if n - at >= left {
                cut.push(at);
                go(at + 1, n, left - 1, cut, out);
                cut.pop();
            }
        }
    }
    let mut out = Vec::new();
    if parts >= 1 && parts <= n {
        go(1, n, parts - 1, &mut Vec::new(), &mut out);
    }
    out
}

/// The help in columns for an inner area `width` x `height`: two columns
/// when they fit, else more (as many as leave a column 24 characters wide).
pub fn help_columns(app: &App, width: u16, height: u16) -> Vec<Vec<Line<'static>>> {
    let sections = sections(app);
    let (width, height) = (usize::from(width), usize::from(height));
    let most = (width / 24).clamp(2, sections.len());
    let fits = |cols: &[Vec<Line>]| cols.iter().all(|c| c.len() <= height);
    let mut flowed = Vec::new();
    for columns in 2..=most {
        let whole = layout(&sections, columns, width / columns);
        if fits(&whole) {
            return whole;
        }
        flowed = flow(&sections, columns, width / columns, height);
        if fits(&flowed) {
            return flowed;
        }
    }
    flowed
}

/// Draws the help overlay in `area` (below the tabs: it may cover the
/// status and hint lines, which it makes useless while it is open).
pub fn draw_help(frame: &mut Frame, area: Rect, app: &App) {
    let width = area.width.min(96);
    let columns = help_columns(app, width.saturating_sub(2), area.height.saturating_sub(2));
    let height = columns.iter().map(Vec::len).max().unwrap_or(0) as u16 + 2;
    let rect = centered(area, width, height);
    frame.render_widget(Clear, rect);
    let outer = block("Keys · any key closes", true);
    let inner = outer.inner(rect);
    frame.render_widget(outer, rect);
    let n = columns.len().max(1) as u32;
    let areas = Layout::horizontal(vec![Constraint::Ratio(1, n); columns.len()]).split(inner);
    for (lines, at) in columns.into_iter().zip(areas.iter()) {
        frame.render_widget(Paragraph::new(lines), *at);
    }
}

/// Draws a dialog.
pub fn draw_modal(frame: &mut Frame, area: Rect, modal: &Modal) {
    match modal {
        Modal::Confirm {
            question,
            no,
            yes_label,
            ..
        } => {
            let rect = centered(area, 64, 7);
            frame.render_widget(Clear, rect);
            let mut keys = vec![
                Span::styled("y", theme::key()),
                Span::raw(format!(" {yes_label}   ")),
                Span::styled("n", theme::key()),
            ];
            match no {
                Some((_, label)) => keys.extend([
                    Span::raw(format!(" {label}   ")),
                    Span::styled("Esc", theme::key()),
                    Span::raw(" cancel"),
                ]),
                None => keys.push(Span::raw(" no")),
            }
            let lines = vec![
                Line::raw(question.clone()),
                Line::default(),
                Line::from(keys),
            ];
            // Padding, not leading spaces, so wrapped lines keep the margin.
            let p = Paragraph::new(lines)
                .wrap(Wrap { trim: true })
                .block(block("Confirm", true).padding(ratatui::widgets::Padding::horizontal(1)));
            frame.render_widget(p, rect);
        }
        Modal::Prompt {
            title,
            input,
            hint,
            completions,
            ..
        } => {
            let rect = centered(area, 72, 7);
            frame.render_widget(Clear, rect);
            let mut value = vec![Span::raw(" ")];
            value.extend(input_spans(input, true, ""));
            let mut lines = vec![
                Line::from(value),
                Line::default(),
                Line::styled(format!(" {hint}"), theme::dim()),
            ];
            if !completions.is_empty() {
                lines.push(Line::styled(
                    format!(" {}", completions.join("  ")),
                    theme::dim(),
                ));
            }
            let p = Paragraph::new(lines).block(block(
                &format!("{title} · Enter confirms, Esc cancels"),
                true,
            ));
            frame.render_widget(p, rect);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::action::Screen;
    use crate::tui::app::AppOptions;

    #[test]
    fn words_wrap_between_words_and_long_words_break() {
        assert_eq!(
            wrap("x axis: steps / epochs", 12),
            ["x axis:", "steps /", "epochs"]
        );
        assert_eq!(wrap("abcdefgh ij", 3), ["abc", "def", "gh", "ij"]);
        assert_eq!(wrap("short", 20), ["short"]);
    }

    #[test]
    fn cuts_keep_every_part_non_empty_and_in_order() {
        assert_eq!(cut_points(4, 2), [vec![1], vec![2], vec![3]]);
        assert_eq!(cut_points(4, 4), [vec![1, 2, 3]]);
        assert_eq!(cut_points(3, 1), [Vec::<usize>::new()]);
        assert!(cut_points(2, 3).is_empty());
    }

    /// On every screen, at 80x24 and 120x40, the help fits its overlay and
    /// no line is wider than its column: nothing is cut.
    #[test]
    fn help_fits_every_screen_at_80x24_whole() {
        let mut app = App::new(&AppOptions {
            corpus: "x".into(),
            session: None,
            eval_plan: Default::default(),
            cores: 2,
            exports: "exports".into(),
        });
        for (w, h) in [(80u16, 24u16), (120, 40)] {
            // Below the tabs, less the border.
            let (width, height) = (w.min(96) - 2, h - 1 - 2);
            for screen in Screen::ALL {
                app.screen = screen;
                let columns = help_columns(&app, width, height);
                let column_width = usize::from(width) / columns.len();
                for c in &columns {
                    assert!(c.len() <= usize::from(height), "{screen:?} at {w}x{h}");
                    for line in c {
                        assert!(line.width() <= column_width, "{screen:?}: {line:?}");
                    }
                }
                let entries: usize = sections(&app).iter().map(|s| s.rows.len()).sum();
                let starts = columns
                    .iter()
                    .flatten()
                    .filter(|l| {
                        l.spans
                            .first()
                            .is_some_and(|s| !s.content.trim().is_empty())
                            && l.spans.len() == 2
                    })
                    .count();
                assert_eq!(starts, entries, "{screen:?}: every entry shown");
            }
        }
    }
}
