//! The HParams screen: a sweep's runs as a table sortable by any swept
//! hyperparameter or metric, a chart of a metric against one
//! hyperparameter, and parallel coordinates of every swept value and the
//! metric (TensorBoard's HParams dashboard, in a terminal).

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Style};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::canvas::{Canvas, Line as CanvasLine};
use ratatui::widgets::{Axis, Chart, Dataset, GraphType, Paragraph, Row, Table, TableState};
use ratatui::Frame;

use super::fields;
use super::format::value;
use super::runs::picks_mark;
use super::{block, theme};
use crate::tui::app::App;
use crate::tui::model::hparams::{short, Table as HpTable};
use crate::tui::model::sweep_form::SweepForm;
use crate::tui::update::hparams::table;
use crate::tui::update::sweep;

/// Draws the HParams screen (the sweep form in its place while open).
pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    if let Some(form) = &app.sweep_form {
        draw_form(frame, area, app, form);
        return;
    }
    let Some(t) = table(app) else {
        let p = Paragraph::new(vec![
            Line::default(),
            Line::raw("  No sweep in this session."),
            Line::raw(
                "  `wordbench sweep CORPUS --algo sgns --grid window=2,5,10 --out DIR` trains",
            ),
            Line::raw("  one run per setting; open DIR/sweep.ron (Ctrl-O) to browse it here:"),
            Line::raw("  runs sorted by any hyperparameter or metric, a metric charted against"),
            Line::raw("  a hyperparameter, and every run's settings as parallel coordinates."),
        ])
        .block(block("HParams", true));
        frame.render_widget(p, area);
        return;
    };
    let table_h = (t.rows.len() as u16 + 3).clamp(5, area.height / 2);
    let [top, bottom] =
        Layout::vertical([Constraint::Length(table_h), Constraint::Min(0)]).areas(area);
    draw_table(frame, top, app, &t);
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(bottom);
    draw_chart(frame, left, app, &t);
    draw_parallel(frame, right, app, &t);
}

fn draw_table(frame: &mut Frame, area: Rect, app: &App, t: &HpTable) {
    let (sort, descending) = t.sort(&app.hparams);
    let arrow = if descending { "▼" } else { "▲" };
    let mut header = vec![String::new(), "#".into(), "status".into()];
    for c in 0..t.columns() {
        let name = t.column_name(c);
        header.push(if c == sort {
            format!("{name}{arrow}")
        } else {
            name
        });
    }
    header.push("secs".into());
    let rows: Vec<Row> = t
        .order
        .iter()
        .map(|&i| {
            let r = &t.rows[i];
            let index = r
                .number
                .and_then(|n| app.runs.iter().position(|e| e.number() == n));
            let mut cells = vec![
                index.map_or("", |i| picks_mark(app, i)).to_string(),
                r.number.map_or("-".into(), |n| n.to_string()),
                r.status.to_string(),
            ];
            cells.extend(r.values.iter().cloned());
            cells.extend(
                t.metrics
                    .iter()
                    .map(|m| r.value(m).map_or("-".into(), value)),
            );
            cells.push(format!("{:.1}", r.seconds));
            Row::new(cells)
        })
        .collect();
    let width = |c: usize| -> u16 {
        let head = header.get(c).map_or(0, |h| h.chars().count());
        let cells = t
            .order
            .iter()
            .map(|&i| cell_width(t, i, c))
            .max()
            .unwrap_or(0);
        head.max(cells) as u16
    };
    let widths: Vec<Constraint> = (0..header.len())
        .map(|c| Constraint::Length(width(c)))
        .collect();
    let record = &app.session.sweeps[app.hparams.sweep.min(app.session.sweeps.len() - 1)];
    let pruned = t.rows.iter().filter(|r| r.status == "pruned").count();
    let title = format!(
        "Sweep {} of {}: {}, {} runs{}, ranked by {}",
        app.hparams.sweep.min(app.session.sweeps.len() - 1) + 1,
        app.session.sweeps.len(),
        record.spec.method,
        t.rows.len(),
        match pruned {
            0 => String::new(),
            n => format!(" ({n} pruned)"),
        },
        t.ranked_by
    );
    let table = Table::new(rows, widths)
        .header(Row::new(header).style(theme::dim()))
        .row_highlight_style(theme::selected())
        .block(block(&title, true));
    let mut state = TableState::default().with_selected(
        (!t.order.is_empty()).then_some(app.hparams.selected.min(t.order.len().saturating_sub(1))),
    );
    frame.render_stateful_widget(table, area, &mut state);
}

/// Characters of row `i`'s cell in column `c` (as [`draw_table`] lays them out).
fn cell_width(t: &HpTable, i: usize, c: usize) -> usize {
    let r = &t.rows[i];
    let text = match c {
        0 => String::new(),
        1 => r.number.map_or("-".into(), |n| n.to_string()),
        2 => r.status.to_string(),
        c if c - 3 < t.names.len() => r.values[c - 3].clone(),
        c if c - 3 - t.names.len() < t.metrics.len() => r
            .value(&t.metrics[c - 3 - t.names.len()])
            .map_or("-".into(), value),
        _ => format!("{:.1}", r.seconds),
    };
    text.chars().count()
}

/// Where row `i` sits on swept axis `a`: its number (log10 on a log
/// scale), or for a choice its place among the values seen.
fn position(t: &HpTable, i: usize, a: usize) -> Option<f64> {
    let text = t.rows[i].values.get(a)?;
    match text.parse::<f64>() {
        Ok(v) if t.log.get(a).copied().unwrap_or(false) && v > 0.0 => Some(v.log10()),
        Ok(v) => Some(v),
        Err(_) => {
            let mut seen: Vec<&str> = t
                .rows
                .iter()
                .filter_map(|r| r.values.get(a))
                .map(String::as_str)
                .collect();
            seen.sort_unstable();
            seen.dedup();
            seen.iter().position(|s| s == text).map(|p| p as f64)
        }
    }
}

fn bounds(values: impl Iterator<Item = f64>) -> Option<[f64; 2]> {
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    if !lo.is_finite() {
        return None;
    }
    let pad = ((hi - lo) * 0.05).max(hi.abs() * 1e-3).max(1e-9);
    Some([lo - pad, hi + pad])
}

/// The chosen metric against the chosen hyperparameter: finished runs,
/// pruned ones dimmed, the selected run highlighted.
fn draw_chart(frame: &mut Frame, area: Rect, app: &App, t: &HpTable) {
    let view = &app.hparams;
    let axis = view.axis.min(t.names.len().saturating_sub(1));
    let metric = &t.metrics[t.metric(view)];
    let name = t.names.get(axis).cloned().unwrap_or_default();
    let log = t.log.get(axis).copied().unwrap_or(false);
    let title = format!(
        "{} by {name}{} (x, m)",
        short(metric),
        if log { " (log)" } else { "" }
    );
    let point = |i: usize| Some((position(t, i, axis)?, t.rows[i].value(metric)?));
    let of = |status: &str| -> Vec<(f64, f64)> {
        (0..t.rows.len())
            .filter(|&i| t.rows[i].status == status)
            .filter_map(point)
            .collect()
    };
    let (finished, pruned) = (of("finished"), of("pruned"));
    let selected: Vec<(f64, f64)> = t
        .order
        .get(view.selected)
        .and_then(|&i| point(i))
        .into_iter()
        .collect();
    let all: Vec<(f64, f64)> = (0..t.rows.len()).filter_map(point).collect();
    let (Some(xb), Some(yb)) = (
        bounds(all.iter().map(|p| p.0)),
        bounds(all.iter().map(|p| p.1)),
    ) else {
        frame.render_widget(
            Paragraph::new("  no values to chart yet").block(block(&title, false)),
            area,
        );
        return;
    };
    let datasets = vec![
        scatter("finished", &finished, Style::new().fg(Color::Cyan)),
        scatter("pruned", &pruned, theme::dim()),
        scatter("selected", &selected, Style::new().fg(Color::Yellow)),
    ];
    let x_label = |v: f64| Span::raw(value(if log { 10f64.powf(v) } else { v }));
    let chart = Chart::new(datasets)
        .block(block(&title, false))
        .hidden_legend_constraints((Constraint::Percentage(0), Constraint::Percentage(0)))
        .x_axis(
            Axis::default()
                .bounds(xb)
                .style(theme::dim())
                .labels(vec![x_label(xb[0]), x_label(xb[1])]),
        )
        .y_axis(
            Axis::default()
                .bounds(yb)
                .style(theme::dim())
                .labels(vec![Span::raw(value(yb[0])), Span::raw(value(yb[1]))]),
        );
    frame.render_widget(chart, area);
}

fn scatter<'a>(name: &'static str, points: &'a [(f64, f64)], style: Style) -> Dataset<'a> {
    Dataset::default()
        .name(name)
        .marker(Marker::Dot)
        .graph_type(GraphType::Scatter)
        .style(style)
        .data(points)
}

/// Parallel coordinates: one vertical axis per swept name and one for the
/// metric, each scaled to its range; one line per run, the better its
/// metric the brighter, the selected run in yellow.
fn draw_parallel(frame: &mut Frame, area: Rect, app: &App, t: &HpTable) {
    let view = &app.hparams;
    let m = t.metric(view);
    let metric = &t.metrics[m];
    let axes = t.names.len() + 1;
    let at = |i: usize, a: usize| -> Option<f64> {
        if a < t.names.len() {
            position(t, i, a)
        } else {
            t.rows[i].value(metric)
        }
    };
    let scales: Vec<Option<[f64; 2]>> = (0..axes)
        .map(|a| bounds((0..t.rows.len()).filter_map(|i| at(i, a))))
        .collect();
    let norm = |i: usize, a: usize| -> Option<f64> {
        let [lo, hi] = scales[a]?;
        Some((at(i, a)? - lo) / (hi - lo))
    };
    let best = t
        .rows
        .iter()
        .filter_map(|r| r.value(metric))
        .fold(None, |b: Option<f64>, v| {
            Some(b.map_or(v, |b| if metric.better(v, b) { v } else { b }))
        });
    let selected = t.order.get(view.selected).copied();
    let title = format!("parallel coordinates, {}", short(metric));
    let names: Vec<String> = t.names.iter().cloned().chain([short(metric)]).collect();
    let x_range = (axes - 1).max(1) as f64 + 0.2;
    // Canvas units per terminal column.
    let unit = x_range / f64::from(area.width.saturating_sub(2).max(1));
    let canvas = Canvas::default()
        .block(block(&title, false))
        .marker(Marker::Braille)
        .x_bounds([-0.1, x_range - 0.1])
        .y_bounds([-0.3, 1.05])
        .paint(|ctx| {
            for a in 0..axes {
                ctx.draw(&CanvasLine::new(
                    a as f64,
                    0.0,
                    a as f64,
                    1.0,
                    Color::DarkGray,
                ));
            }
            let mut order: Vec<usize> = (0..t.rows.len()).collect();
            // The selected run last, so it is drawn on top.
            order.sort_by_key(|&i| Some(i) == selected);
            for i in order {
                let color = if Some(i) == selected {
                    Color::Yellow
                } else if t.rows[i].status != "finished" {
                    Color::DarkGray
                } else if t.rows[i].value(metric).is_some() && t.rows[i].value(metric) == best {
                    Color::Green
                } else {
                    Color::Cyan
                };
                for a in 1..axes {
                    if let (Some(y0), Some(y1)) = (norm(i, a - 1), norm(i, a)) {
                        ctx.draw(&CanvasLine::new((a - 1) as f64, y0, a as f64, y1, color));
                    }
                }
            }
            // Labels start at their axis (the last one ends at it), each
            // cut to end before the next one starts.
            let starts: Vec<f64> = names
                .iter()
                .enumerate()
                .map(|(a, name)| match a + 1 == axes && a > 0 {
                    true => a as f64 - name.chars().count() as f64 * unit,
                    false => a as f64,
                })
                .collect();
            for (a, name) in names.iter().enumerate() {
                let room = starts.get(a + 1).map_or(usize::MAX, |next| {
                    ((next - starts[a]) / unit).floor().max(1.0) as usize - 1
                });
                let text = super::format::fit(name, room.max(1));
                ctx.print(starts[a], -0.25, Span::styled(text, theme::dim()));
            }
        });
    frame.render_widget(canvas, area);
}

/// The sweep form: its fields, the selected field's help, what every run
/// shares, and the runs it declares (or what refuses).
fn draw_form(frame: &mut Frame, area: Rect, app: &App, form: &SweepForm) {
    let method = crate::algo::methods()[form.method];
    let mut lines = fields::form_lines(&form.form, true);
    lines.push(Line::default());
    lines.push(fields::field_help(&form.form));
    lines.push(Line::default());
    let shared = sweep::shared(app).ok();
    let fixed: Vec<String> = shared
        .iter()
        .flat_map(|s| s.fixed.iter().map(|(k, v)| format!("{k}={v}")))
        .collect();
    let fixed = if fixed.is_empty() {
        "defaults".to_string()
    } else {
        fixed.join(" ")
    };
    let (seed, threads) = shared.map_or((0, 1), |s| (s.seed, s.threads));
    lines.push(Line::from(vec![
        Span::styled(" every run: ", theme::accent()),
        Span::raw(format!(
            "{} {fixed} · seed {seed} · {threads} thread(s) (2 Train's fields)",
            method.name
        )),
    ]));
    match sweep::declared(app) {
        Some(Ok((spec, trials))) => {
            let labels: Vec<String> = trials.iter().take(4).map(|t| t.label()).collect();
            let more = if trials.len() > 4 { " · …" } else { "" };
            lines.push(Line::from(vec![
                Span::styled(format!(" {} runs", trials.len()), theme::good()),
                Span::raw(format!(
                    ", ranked by {}{}: {}{more}",
                    spec.metric,
                    spec.prune
                        .as_ref()
                        .map_or(String::new(), |p| format!(", pruned (eta {})", p.eta)),
                    labels.join(" · ")
                )),
            ]));
        }
        Some(Err(e)) => lines.push(Line::styled(format!(" ✗ {e}"), theme::error())),
        None => {}
    }
    let title = format!("Sweep of {}: s starts it, Esc closes", method.name);
    let p = Paragraph::new(lines)
        .wrap(ratatui::widgets::Wrap { trim: false })
        .block(block(&title, true));
    frame.render_widget(p, area);
}
