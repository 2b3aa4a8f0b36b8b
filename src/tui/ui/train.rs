//! The Train screen: methods, the generated form, the run's progress and
//! its live loss and perplexity charts.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Color;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Gauge, Paragraph, Wrap};
use ratatui::Frame;

use super::chart::{self, LineChart, Series};
use super::fields::{field_help, form_lines};
use super::format::{duration, si, value};
use super::{block, theme};
use crate::algo;
use crate::tui::app::App;
use crate::tui::model::train::TrainFocus;
use crate::tui::run::{RunEntry, RunStatus};

/// Draws the Train screen.
pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let v = &app.train;
    let form_rows = v.form().len() as u16 + 3;
    let top_h = form_rows.min(area.height / 2).max(6);
    let [top, progress, charts] = Layout::vertical([
        Constraint::Length(top_h),
        Constraint::Length(2),
        Constraint::Min(0),
    ])
    .areas(area);
    let [methods, form] =
        Layout::horizontal([Constraint::Length(26), Constraint::Min(0)]).areas(top);
    draw_methods(frame, methods, app);
    draw_form(frame, form, app);
    let run = v.shown.and_then(|i| app.runs.get(i).map(|r| (i, r)));
    match run {
        Some((i, r)) => {
            draw_progress(frame, progress, i, r);
            draw_charts(frame, charts, r, v.log_scale, v.smoothing);
        }
        None => {
            let m = v.method();
            let lines = vec![
                Line::default(),
                Line::from(vec![
                    Span::raw("  Press "),
                    Span::styled("s", theme::key()),
                    Span::raw(format!(" to train {} with these settings. ", m.name)),
                    Span::raw("Loss and held-out perplexity appear here as it trains;"),
                ]),
                Line::raw("  live hyperparameters (marked ~) can be changed mid-run with Enter."),
            ];
            frame.render_widget(
                Paragraph::new(lines).wrap(Wrap { trim: false }),
                progress.union(charts),
            );
        }
    }
}

fn draw_methods(frame: &mut Frame, area: Rect, app: &App) {
    let v = &app.train;
    let focused = v.focus == TrainFocus::Methods;
    let mut lines: Vec<Line> = algo::methods()
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let chosen = i == v.method;
            let marker = if chosen { "▸ " } else { "  " };
            let style = match (chosen, focused) {
                (true, true) => theme::selected(),
                (true, false) => theme::accent(),
                _ => ratatui::style::Style::new(),
            };
            Line::from(vec![
                Span::styled(marker, theme::accent()),
                Span::styled(m.name.to_string(), style),
            ])
        })
        .collect();
    lines.push(Line::default());
    lines.push(Line::styled(v.method().summary.to_string(), theme::dim()));
    let p = Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .block(block("Method", focused));
    frame.render_widget(p, area);
}

fn draw_form(frame: &mut Frame, area: Rect, app: &App) {
    let v = &app.train;
    let focused = v.focus == TrainFocus::Form;
    let form = v.form();
    let mut lines = form_lines(form, focused);
    let visible = area.height.saturating_sub(3) as usize;
    let offset = form.selected.saturating_sub(visible.saturating_sub(1));
    let mut shown: Vec<Line> = lines.drain(..).skip(offset).take(visible).collect();
    while shown.len() < visible {
        shown.push(Line::default());
    }
    shown.push(field_help(form));
    let title = format!("{} · hyperparameters (~ live)", v.method().name);
    let p = Paragraph::new(shown).block(block(&title, focused));
    frame.render_widget(p, area);
}

fn draw_progress(frame: &mut Frame, area: Rect, index: usize, r: &RunEntry) {
    let [info, bar] = Layout::vertical([Constraint::Length(1), Constraint::Length(1)]).areas(area);
    let mut spans = vec![
        Span::styled(format!(" {} ", r.label(index)), theme::title()),
        Span::raw("· "),
    ];
    let status_style = match r.status {
        RunStatus::Failed(_) => theme::error(),
        RunStatus::Paused | RunStatus::Stopped(_) => theme::warn(),
        _ => theme::good(),
    };
    spans.push(Span::styled(r.status_text(), status_style));
    if let Some(p) = r.last() {
        spans.push(Span::raw(format!(
            " · epoch {} · loss {} · ppl {}{} · lr {} · {} items/s",
            p.epoch + 1,
            value(p.loss),
            r.perplexity.map_or("-".into(), value),
            p.model_perplexity
                .map_or(String::new(), |m| format!(" · model ppl {}", value(m))),
            value(p.lr),
            si(p.items_per_sec)
        )));
    }
    if let RunStatus::Failed(m) = &r.status {
        spans.push(Span::styled(format!(" · {m}"), theme::error()));
    }
    frame.render_widget(Line::from(spans), info);
    let (ratio, label) = match r.last() {
        Some(p) => {
            let ratio = p.step as f64 / p.total_steps.max(1) as f64;
            let eta = if r.status.is_active() && p.step > 0 {
                format!(
                    " · ETA {}",
                    duration(p.elapsed * (p.total_steps - p.step) as f64 / p.step as f64)
                )
            } else {
                String::new()
            };
            let label = format!(
                "{:.0}% · step {}/{}{eta} · {} elapsed",
                100.0 * ratio,
                p.step,
                p.total_steps,
                duration(p.elapsed)
            );
            (ratio, label)
        }
        None => (0.0, "preparing (counting, encoding)…".to_string()),
    };
    let gauge = Gauge::default()
        .ratio(ratio.clamp(0.0, 1.0))
        .label(label)
        .gauge_style(ratatui::style::Style::new().fg(theme::LOSS));
    frame.render_widget(gauge, bar);
}

/// A metric's curve; with smoothing, the raw curve dimmed under the smoothed
/// one, as TensorBoard draws them.
fn curves(name: &str, points: Vec<(f64, f64)>, color: Color, smoothing: f64) -> Vec<Series> {
    if smoothing <= 0.0 {
        return vec![Series {
            name: name.into(),
            points,
            color,
        }];
    }
    let smoothed = chart::smooth(&points, smoothing);
    vec![
        Series {
            name: format!("{name} (raw)"),
            points,
            color: Color::DarkGray,
        },
        Series {
            name: name.into(),
            points: smoothed,
            color,
        },
    ]
}

fn draw_charts(frame: &mut Frame, area: Rect, r: &RunEntry, log: bool, smoothing: f64) {
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(area);
    let metrics = r.metrics();
    let x_max = metrics.last().map_or(1.0, |p| p.total_steps as f64);
    let changes = r.changes();
    let scale = match (log, smoothing > 0.0) {
        (false, false) => String::new(),
        (true, false) => " (log)".into(),
        (false, true) => format!(" (smoothed {smoothing})"),
        (true, true) => format!(" (log, smoothed {smoothing})"),
    };
    let loss = metrics.iter().map(|p| (p.step as f64, p.loss)).collect();
    chart::draw(
        frame,
        left,
        LineChart {
            series: curves("loss", loss, theme::LOSS, smoothing),
            markers: &changes,
            x_max,
            x_labels: None,
            log,
            block: block(&format!("Loss{scale}"), false),
        },
    );
    let ppl = metrics
        .iter()
        .filter_map(|p| p.perplexity.map(|v| (p.step as f64, v)))
        .collect();
    // Methods with a perplexity of their own (e.g. dsnmf) add a second curve.
    let own: Vec<(f64, f64)> = metrics
        .iter()
        .filter_map(|p| p.model_perplexity.map(|v| (p.step as f64, v)))
        .collect();
    let mut series = curves("perplexity", ppl, theme::PERPLEXITY, smoothing);
    if !own.is_empty() {
        series.extend(curves("model ppl", own, theme::MODEL_PERPLEXITY, smoothing));
    }
    chart::draw(
        frame,
        right,
        LineChart {
            series,
            markers: &changes,
            x_max,
            x_labels: None,
            log,
            block: block(&format!("Held-out perplexity{scale}"), false),
        },
    );
}
