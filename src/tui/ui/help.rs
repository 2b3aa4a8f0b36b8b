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

/// One section of help: its title and `(keys, help)` rows. The screen
/// bindings (`1`…`6`, `F1`…`F6`) are folded into one row.
fn section(title: String, ctx: Ctx) -> Vec<Line<'static>> {
    let mut lines = vec![Line::styled(format!(" {title}"), theme::accent())];
    let mut screens: Vec<String> = Vec::new();
    let row = |keys: String, help: &str| {
        Line::from(vec![
            Span::styled(format!("   {keys:<13} "), theme::key()),
            Span::raw(help.to_string()),
        ])
    };
    for b in bindings(ctx) {
        if let Action::GoTo(_) = b.action {
            screens.push(keys_text(b));
            continue;
        }
        lines.push(row(keys_text(b), b.help));
    }
    if let (Some(first), Some(last)) = (screens.first(), screens.last()) {
        lines.insert(
            1,
            row(format!("{first}…{last}"), "screens (or click a tab)"),
        );
    }
    lines
}

/// The help in two columns: this screen's keys and the global ones, then
/// the keys that always work and those for typing.
pub fn help_columns(app: &App) -> [Vec<Line<'static>>; 2] {
    let mut left = section(
        format!("{} screen", app.screen.title()),
        Ctx::Screen(app.screen),
    );
    left.push(Line::default());
    left.extend(section("Anywhere".into(), Ctx::Global));
    let mut right = section("Always, even while typing".into(), Ctx::Always);
    right.push(Line::default());
    right.extend(section("While typing".into(), Ctx::Typing));
    [left, right]
}

/// Draws the help overlay.
pub fn draw_help(frame: &mut Frame, area: Rect, app: &App) {
    let [left, right] = help_columns(app);
    let height = left.len().max(right.len()) as u16 + 2;
    let rect = centered(area, 96, height);
    frame.render_widget(Clear, rect);
    let outer = block("Keys · any key closes", true);
    let inner = outer.inner(rect);
    frame.render_widget(outer, rect);
    let [l, r] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(inner);
    frame.render_widget(Paragraph::new(left), l);
    frame.render_widget(Paragraph::new(right), r);
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
