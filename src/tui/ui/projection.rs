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
    let [left, right] =
        Layout::horizontal([Constraint::Length(46), Constraint::Min(0)]).areas(area);
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
            Line::raw(" focus empty: the most frequent words"),
            Line::raw(" one word: it and its nearest neighbours"),
            Line::raw(" several words: exactly those"),
        ];
        frame.render_widget(
            Paragraph::new(lines)
                .style(theme::dim())
                .block(block("Which words", false)),
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
    let labels: Vec<(f64, f64, &str)> = layout
        .coords
        .iter()
        .zip(&layout.words)
        .take(layout.labels)
        .filter(|([x, y], _)| xb[0] <= *x && *x <= xb[1] && yb[0] <= *y && *y <= yb[1])
        .map(|([x, y], w)| (*x, *y, w.as_str()))
        .collect();
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
