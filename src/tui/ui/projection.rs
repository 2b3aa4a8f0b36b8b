//! The Projection screen: options and t-SNE's live KL on the left, the
//! braille scatter with labels (zoom and pan) on the right.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::canvas::{Canvas, Points};
use ratatui::widgets::{Paragraph, Wrap};
use ratatui::Frame;

use super::chart::{self, LineChart, Series};
use super::fields::{field_help, field_line, form_lines, input_spans};
use super::{block, theme};
use crate::tui::action::Slot;
use crate::tui::app::App;
use crate::tui::project_worker::AVAILABLE;

/// Draws the Projection screen.
pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    // At 80 columns the scatter gets the larger half.
    let left_width = (area.width * 2 / 5).clamp(30, 46);
    let [left, right] =
        Layout::horizontal([Constraint::Length(left_width), Constraint::Min(0)]).areas(area);
    let [options, kl] = Layout::vertical([Constraint::Length(12), Constraint::Min(0)]).areas(left);
    draw_options(frame, options, app);
    let v = &app.projection;
    if !v.kl.is_empty() || v.pending.is_some() {
        let total = v.progress.map_or(1.0, |(_, t)| t as f64);
        chart::draw(
            frame,
            kl,
            LineChart {
                series: vec![Series {
                    name: "KL".into(),
                    points: v.kl.clone(),
                    color: theme::PERPLEXITY,
                }],
                markers: &[],
                x_max: total,
                log: false,
                block: block("t-SNE KL divergence", false),
            },
        );
    } else {
        let lines = vec![
            Line::raw("focus empty: the most frequent words"),
            Line::raw("one word: it and its nearest neighbours"),
            Line::raw("several words: exactly those"),
        ];
        frame.render_widget(
            Paragraph::new(lines)
                .wrap(Wrap { trim: true })
                .style(theme::dim())
                .block(
                    block("Which words", false).padding(ratatui::widgets::Padding::horizontal(1)),
                ),
            kl,
        );
    }
    draw_scatter(frame, right, app);
}

fn draw_options(frame: &mut Frame, area: Rect, app: &App) {
    let v = &app.projection;
    let mut lines = vec![field_line(
        "focus",
        10,
        input_spans(&v.focus, v.editing_focus, "(top words)"),
        v.selected == 0,
        None,
    )];
    let mut form = v.options.clone();
    form.selected = v.selected.saturating_sub(1);
    lines.extend(form_lines(&form, v.selected > 0));
    lines.push(Line::default());
    if v.selected > 0 {
        lines.push(field_help(&form));
    }
    let run = app
        .picked(Slot::A)
        .map_or("no run picked".into(), |(i, r)| r.label(i));
    let title = format!("Project A: {run}");
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(block(&title, true)),
        area,
    );
}

/// Labels of the first `layout.labels` words inside the view, in order of
/// importance, skipping any that would overlap one already placed; labels
/// that would run past the right edge are moved left to fit.
fn place_labels(
    layout: &crate::tui::projection::Layout,
    xb: [f64; 2],
    yb: [f64; 2],
    area: Rect,
) -> Vec<(f64, f64, &str)> {
    let (cols, rows) = (
        f64::from(area.width.saturating_sub(2).max(1)),
        f64::from(area.height.saturating_sub(2).max(1)),
    );
    let cell = (xb[1] - xb[0]) / cols;
    let mut taken: Vec<(i64, i64, i64)> = Vec::new();
    let mut out = Vec::new();
    for ([x, y], w) in layout.coords.iter().zip(&layout.words).take(layout.labels) {
        if !(xb[0] <= *x && *x <= xb[1] && yb[0] <= *y && *y <= yb[1]) {
            continue;
        }
        let len = w.chars().count() as f64;
        let x = x.min(xb[1] - len * cell).max(xb[0]);
        let col = ((x - xb[0]) / cell) as i64;
        let row = ((yb[1] - y) / (yb[1] - yb[0]) * rows) as i64;
        let end = col + len as i64;
        if taken
            .iter()
            .any(|&(r, a, b)| r == row && col <= b && a <= end)
        {
            continue;
        }
        taken.push((row, col, end));
        out.push((x, *y, w.as_str()));
    }
    out
}

fn draw_scatter(frame: &mut Frame, area: Rect, app: &App) {
    let v = &app.projection;
    let (Some(layout), Some((xb, yb))) = (&v.layout, v.bounds()) else {
        let mut lines = vec![Line::default()];
        if !AVAILABLE {
            lines.push(Line::styled(
                "  projection not available yet (PCA and t-SNE are being added)",
                theme::warn(),
            ));
        } else if let Some((step, total)) = v.progress {
            lines.push(Line::raw(format!("  t-SNE iteration {step}/{total}…")));
        } else if v.pending.is_some() {
            lines.push(Line::raw("  projecting…"));
        } else {
            lines.push(Line::raw(
                "  Press p to project run A's vectors; e exports PNG, SVG or CSV.",
            ));
        }
        frame.render_widget(Paragraph::new(lines).block(block("Scatter", false)), area);
        return;
    };
    let groups = layout.groups.as_ref().map_or(1, |g| g.names.len().max(1));
    let mut points: Vec<Vec<(f64, f64)>> = vec![Vec::new(); groups];
    for (i, [x, y]) in layout.coords.iter().enumerate() {
        let g = layout.groups.as_ref().map_or(0, |g| g.labels[i]);
        points[g % groups].push((*x, *y));
    }
    let labels = place_labels(layout, xb, yb, area);
    let zoom = if v.zoom > 1.0 {
        format!(" · zoom x{:.1}", v.zoom)
    } else {
        String::new()
    };
    let title = format!(
        "{} · {} words{zoom} (+/- zoom, hjkl pan, 0 reset)",
        layout.description,
        layout.words.len()
    );
    let canvas = Canvas::default()
        .block(block(&title, false))
        .marker(Marker::Braille)
        .x_bounds(xb)
        .y_bounds(yb)
        .paint(move |ctx| {
            for (g, pts) in points.iter().enumerate() {
                ctx.draw(&Points {
                    coords: pts,
                    color: theme::PALETTE[g % theme::PALETTE.len()],
                });
            }
            ctx.layer();
            for (x, y, w) in &labels {
                ctx.print(
                    *x,
                    *y,
                    Line::from(Span::styled(w.to_string(), Style::new().fg(theme::CHANGE))),
                );
            }
        });
    frame.render_widget(canvas, area);
}
