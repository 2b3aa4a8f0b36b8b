//! Rendering: a pure function of [`App`] onto a ratatui frame, one module per
//! screen, so every screen renders on a `TestBackend` in tests. The frame is
//! a tab bar, the screen, a status line and a line of key hints generated
//! from the keymap; help and dialogs draw over it.

mod chart;
mod classify;
mod corpus;
mod evaluate;
mod fields;
mod hparams;
pub use crate::format;
mod help;
mod neighbors;
pub(crate) mod projection;
mod runs;
pub mod theme;
mod train;

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::action::Screen;
use super::app::{App, Level};
use super::keymap;

/// Smallest area the screens are laid out for.
const MIN_WIDTH: u16 = 40;
const MIN_HEIGHT: u16 = 12;

/// Draws the whole interface.
pub fn draw(frame: &mut Frame, app: &App) {
    let area = frame.area();
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        let text = format!("wordbench needs at least {MIN_WIDTH}x{MIN_HEIGHT} (80x24 recommended)");
        frame.render_widget(Paragraph::new(text).wrap(Default::default()), area);
        return;
    }
    let [tabs, body, status, hints] = split(area);
    draw_tabs(frame, tabs, app);
    match app.screen {
        Screen::Corpus => corpus::draw(frame, body, app),
        Screen::Train => train::draw(frame, body, app),
        Screen::Runs => runs::draw(frame, body, app),
        Screen::Neighbors => neighbors::draw(frame, body, app),
        Screen::Evaluate => evaluate::draw(frame, body, app),
        Screen::Projection => projection::draw(frame, body, app),
        Screen::Classify => classify::draw(frame, body, app),
        Screen::HParams => hparams::draw(frame, body, app),
    }
    draw_status(frame, status, app);
    draw_hints(frame, hints, app);
    if app.help {
        help::draw_help(frame, body.union(hints), app);
    }
    if let Some(modal) = &app.modal {
        help::draw_modal(frame, body, modal);
    }
}

/// The tab row, the screen's body, the status line and the key hints.
fn split(area: Rect) -> [Rect; 4] {
    Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(area)
}

/// Where a screen is drawn in a `width` x `height` terminal (for mouse
/// hit-testing, which must agree with [`draw`]).
pub fn body_area(width: u16, height: u16) -> Rect {
    split(Rect::new(0, 0, width, height))[1]
}

const BRAND: &str = " wordbench ";

/// Columns the tabs leave for the running run's marker (` ● #1 `).
const MARKER: u16 = 6;

/// True when the full tab titles fit in `width` columns with the marker.
fn full_titles(width: u16) -> bool {
    let full: usize = Screen::ALL
        .iter()
        .map(|s| s.title().chars().count() + 5)
        .sum();
    full as u16 + MARKER <= width
}

/// Tab titles as drawn: ` 1 Corpus ` (shorter titles on narrow terminals).
fn tab_label(screen: Screen, width: u16) -> String {
    let title = if full_titles(width) {
        screen.title()
    } else {
        screen.short_title()
    };
    format!(" {} {title} ", screen.index() + 1)
}

/// The screen whose tab is at `column` of the first row of a terminal
/// `width` columns wide (the tabs start at the left edge).
pub fn tab_at(column: u16, width: u16) -> Option<Screen> {
    let mut x = 0;
    for s in Screen::ALL {
        let w = tab_label(s, width).chars().count() as u16;
        if (x..x + w).contains(&column) {
            return Some(s);
        }
        x += w + 1;
    }
    None
}

/// The tabs, then on the right the training run (or the brand, when idle).
fn draw_tabs(frame: &mut Frame, area: Rect, app: &App) {
    let mut spans = Vec::new();
    for s in Screen::ALL {
        let style = if s == app.screen {
            theme::accent().add_modifier(ratatui::style::Modifier::REVERSED)
        } else {
            ratatui::style::Style::new()
        };
        spans.push(Span::styled(tab_label(s, area.width), style));
        spans.push(Span::styled("│", theme::dim()));
    }
    let used = spans.iter().map(|s| s.width()).sum::<usize>() as u16;
    frame.render_widget(Line::from(spans), area);
    let free = area.width.saturating_sub(used);
    let (candidates, style) = match app.active_run() {
        Some(i) => {
            let r = &app.runs[i];
            let n = r.number();
            let long = format!(" ● #{n} {} {} ", r.method.name, r.status_text());
            let short = format!(" ● #{n} ");
            (vec![long, short], theme::good())
        }
        None => (vec![BRAND.to_string()], theme::title()),
    };
    let text = candidates
        .into_iter()
        .find(|t| t.chars().count() as u16 <= free);
    if let Some(text) = text {
        let w = text.chars().count() as u16;
        let right = Rect::new(area.right() - w, area.y, w, 1);
        frame.render_widget(Span::styled(text, style), right);
    }
}

fn draw_status(frame: &mut Frame, area: Rect, app: &App) {
    let style = match app.status.level {
        Level::Info => ratatui::style::Style::new(),
        Level::Warn => theme::warn(),
        Level::Error => theme::error(),
    };
    let session = app.session.path.as_ref().map(|path| {
        let name = path
            .file_name()
            .map_or(String::new(), |n| n.to_string_lossy().into_owned());
        let mark = if app.unsaved() { "*" } else { "" };
        format!("  [{name}{mark}]")
    });
    let room =
        (area.width as usize).saturating_sub(1 + session.as_ref().map_or(0, |s| s.chars().count()));
    let text = format::fit_words(&app.status.text, room);
    let mut spans = vec![Span::styled(format!(" {text}"), style)];
    if let Some(s) = session {
        spans.push(Span::styled(s, theme::dim()));
    }
    frame.render_widget(Line::from(spans), area);
}

fn draw_hints(frame: &mut Frame, area: Rect, app: &App) {
    let mut spans = vec![Span::raw(" ")];
    let hints = keymap::fitting_hints(app.mode(), area.width as usize);
    for (i, (keys, help)) in hints.into_iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled(" · ", theme::dim()));
        }
        spans.push(Span::styled(keys, theme::key()));
        spans.push(Span::raw(format!(" {help}")));
    }
    frame.render_widget(Line::from(spans), area);
}

/// A bordered block with a title, accented when focused.
pub(crate) fn block(title: &str, focused: bool) -> ratatui::widgets::Block<'static> {
    let style = if focused {
        theme::accent()
    } else {
        ratatui::style::Style::new()
    };
    ratatui::widgets::Block::bordered()
        .title(Span::styled(format!(" {title} "), theme::title()))
        .border_style(style)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tab_hit_testing_matches_the_drawn_labels() {
        for width in [80, 120] {
            assert_eq!(tab_at(0, width), Some(Screen::Corpus));
            let second = tab_label(Screen::Corpus, width).len() as u16 + 1;
            assert_eq!(tab_at(second - 1, width), None, "the separator");
            assert_eq!(tab_at(second, width), Some(Screen::Train));
            let all: usize = Screen::ALL
                .iter()
                .map(|s| tab_label(*s, width).chars().count() + 1)
                .sum();
            assert!(
                all + MARKER as usize <= width as usize,
                "tabs fit in {width} columns"
            );
        }
        assert!(full_titles(120) && !full_titles(80));
    }
}
