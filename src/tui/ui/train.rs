//! The Train screen: methods, the generated form, the run's progress and
//! its live loss and perplexity charts.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Color;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Gauge, Paragraph, Wrap};
use ratatui::Frame;

use super::chart::{self, LineChart, Series};
use super::fields::{field_help, sized_form_lines};
use super::format::{duration, si, thousands, value};
use super::{block, theme};
use crate::algo;
use crate::cooc::CountPhase;
use crate::tui::app::App;
use crate::tui::model::curves::{curves as curves_of, XAxis};
use crate::tui::model::train::TrainFocus;
use crate::tui::run::{RunEntry, RunStatus};

/// Draws the Train screen.
pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let v = &app.train;
    let form_rows = v.form().len() as u16 + 3;
    let top_h = form_rows.min(area.height / 2).max(6);
    let run = v.shown.and_then(|i| app.runs.get(i).map(|r| (i, r)));
    // A third row for the run's latest log line when it has one (a method's
    // per-step note, e.g. MPNNLM's number of prototypes and the words that
    // just grew one).
    let has_log = run.is_some_and(|(_, r)| !r.log.is_empty());
    let queue = queue_line(app);
    let progress_h = 2 + u16::from(has_log) + u16::from(queue.is_some());
    let [top, progress, charts] = Layout::vertical([
        Constraint::Length(top_h),
        Constraint::Length(progress_h),
        Constraint::Min(0),
    ])
    .areas(area);
    let [methods, form] =
        Layout::horizontal([Constraint::Length(26), Constraint::Min(0)]).areas(top);
    draw_methods(frame, methods, app);
    draw_form(frame, form, app);
    match run {
        Some((i, r)) => {
            let [progress, waiting] = Layout::vertical([
                Constraint::Min(0),
                Constraint::Length(u16::from(queue.is_some())),
            ])
            .areas(progress);
            draw_progress(frame, progress, app, r);
            if let Some(line) = queue {
                frame.render_widget(line, waiting);
            }
            draw_charts(frame, charts, app, i);
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

/// The runs waiting their turn, in the order they will start (the shown
/// run is the one training): `queued: #3 glove dim=50 · #4 sgns (reading corpus)`.
fn queue_line(app: &App) -> Option<Line<'static>> {
    let waiting: Vec<String> = app
        .runs
        .iter()
        .filter(|r| r.status == RunStatus::Queued && !r.discarded)
        .map(|r| match r.status_text().as_str() {
            "queued" => r.label(),
            other => format!("{} ({other})", r.label()),
        })
        .collect();
    if waiting.is_empty() {
        return None;
    }
    Some(Line::from(vec![
        Span::styled(" queued: ", theme::warn()),
        Span::styled(waiting.join(" · "), theme::dim()),
    ]))
}

fn draw_methods(frame: &mut Frame, area: Rect, app: &App) {
    let v = &app.train;
    let focused = v.focus == TrainFocus::Methods;
    let methods = algo::methods();
    let rows = area.height.saturating_sub(2) as usize;
    let (from, to) = method_window(methods.len(), v.method, rows);
    let mut lines: Vec<Line> = methods[from..to]
        .iter()
        .enumerate()
        .map(|(k, m)| {
            let chosen = from + k == v.method;
            // `▸` only in the pane that has the keys; the chosen method of
            // an unfocused list keeps a quieter mark.
            let marker = match (chosen, focused) {
                (true, true) => "▸ ",
                (true, false) => "• ",
                _ => "  ",
            };
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
    if to - from == methods.len() {
        lines.push(Line::default());
        lines.push(Line::styled(v.method().summary.to_string(), theme::dim()));
    }
    let mut title = if to - from < methods.len() {
        format!("Method {}/{}", v.method + 1, methods.len())
    } else {
        "Method".to_string()
    };
    if !focused {
        title.push_str(" · Tab");
    }
    let p = Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .block(block(&title, focused));
    frame.render_widget(p, area);
}

/// The methods `from..to` a list of `rows` lines shows so that `chosen` is
/// on screen (with a neighbour above and below when there is room).
fn method_window(n: usize, chosen: usize, rows: usize) -> (usize, usize) {
    if rows >= n {
        return (0, n);
    }
    let rows = rows.max(1);
    let below = (chosen + 2).saturating_sub(rows);
    let from = below
        .min(chosen.saturating_sub(1))
        .max((chosen + 1).saturating_sub(rows))
        .min(n - rows);
    (from, from + rows)
}

fn draw_form(frame: &mut Frame, area: Rect, app: &App) {
    let v = &app.train;
    let focused = v.focus == TrainFocus::Form;
    let form = v.form();
    let size = app.corpus.loaded.as_ref().map(|l| l.corpus.size());
    let mut lines = sized_form_lines(form, focused, size);
    let visible = area.height.saturating_sub(3) as usize;
    let offset = form.selected.saturating_sub(visible.saturating_sub(1));
    let mut shown: Vec<Line> = lines.drain(..).skip(offset).take(visible).collect();
    while shown.len() < visible {
        shown.push(Line::default());
    }
    shown.push(field_help(form));
    let mut title = format!("{} · hyperparameters (~ live)", v.method().name);
    if !focused {
        title.push_str(" · Tab");
    }
    let p = Paragraph::new(shown).block(block(&title, focused));
    frame.render_widget(p, area);
}

fn draw_progress(frame: &mut Frame, area: Rect, app: &App, r: &RunEntry) {
    let tick = app.tick;
    let [info, bar, note] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Min(0),
    ])
    .areas(area);
    if let Some(last) = r.log.last() {
        frame.render_widget(Line::styled(format!(" {last}"), theme::dim()), note);
    }
    // The fullest line that fits: the settings in the label and the
    // uniform baseline go first when the pane is narrow.
    let line = |detail: Detail| info_spans(r, detail);
    let width = |spans: &[Span]| spans.iter().map(Span::width).sum::<usize>();
    let mut spans = line(Detail::Full);
    for detail in [Detail::NoUniform, Detail::Brief, Detail::Least] {
        if width(&spans) <= usize::from(info.width) {
            break;
        }
        spans = line(detail);
    }
    if let RunStatus::Failed(m) = &r.status {
        spans.push(Span::styled(format!(" · {m}"), theme::error()));
    }
    if let (Some(k), Some(v)) = (r.replay_of, &r.verdict) {
        let style = if v.passed() {
            theme::good()
        } else {
            theme::warn()
        };
        spans.push(Span::styled(
            format!(" · replay of #{}: {v}", app.run_number(k)),
            style,
        ));
    }
    frame.render_widget(Line::from(spans), info);
    let (ratio, label) = gauge_label(r, tick);
    let gauge = Gauge::default()
        .ratio(ratio.clamp(0.0, 1.0))
        .label(label)
        .gauge_style(ratatui::style::Style::new().fg(theme::LOSS));
    frame.render_widget(gauge, bar);
}

/// How much the run's info line says: narrow panes drop the uniform
/// baseline, then the settings in the run's label, then the epoch (the
/// progress bar below counts steps).
#[derive(Clone, Copy, PartialEq)]
enum Detail {
    Full,
    NoUniform,
    Brief,
    Least,
}

/// The run's label, status and last step's metrics, at `detail`.
fn info_spans(r: &RunEntry, detail: Detail) -> Vec<Span<'static>> {
    let label = match detail {
        Detail::Brief | Detail::Least => format!("#{} {}", r.number(), r.method.name),
        _ => r.label(),
    };
    let mut spans = vec![
        Span::styled(format!(" {label} "), theme::title()),
        Span::raw("· "),
    ];
    let status_style = match r.status {
        RunStatus::Failed(_) => theme::error(),
        RunStatus::Paused | RunStatus::Stopped(_) => theme::warn(),
        _ => theme::good(),
    };
    spans.push(Span::styled(r.status_text(), status_style));
    if let Some(p) = r.last() {
        let epoch = match detail {
            Detail::Least => String::new(),
            _ => format!(" · epoch {}", p.epoch + 1),
        };
        spans.push(Span::raw(format!(
            "{epoch} · loss {} · {}{}{} · {} items/s",
            value(p.loss),
            perplexity_text(r, detail == Detail::Full, p.model_perplexity.is_some()),
            p.model_perplexity
                .map_or(String::new(), |m| format!(" · model ppl {}", big(m))),
            if r.has_learning_rate() {
                format!(" · lr {}", value(p.lr))
            } else {
                String::new()
            },
            si(p.items_per_sec)
        )));
    }
    spans
}

/// A perplexity as a reader takes it in: `8,344`, `412.5`.
fn big(x: f64) -> String {
    if x.is_finite() && x >= 1000.0 {
        thousands(x.round() as u64)
    } else {
        value(x)
    }
}

/// The held-out perplexity with what it compares with, when the engine
/// sent it: `ppl 8,344 (uniform 21,837, unigram 1,020)` (a perplexity over
/// the vocabulary: guessing every word alike scores its size; guessing by
/// frequency alone, the unigram's; `?` on Train explains). Without
/// `uniform`, only the unigram's: `ppl 8,344 (unigram 1,020)`.
fn perplexity_text(r: &RunEntry, uniform: bool, calibrated: bool) -> String {
    let ppl = r.perplexity.map_or("-".into(), big);
    // Beside a model perplexity the engine's is named for what it is.
    let ppl = match calibrated {
        true => format!("calibrated ppl {ppl}"),
        false => format!("ppl {ppl}"),
    };
    let Some(b) = r.record().baseline else {
        return ppl;
    };
    let mut parts = Vec::new();
    if uniform {
        parts.push(format!("uniform {}", thousands(b.words as u64)));
    }
    parts.extend(b.unigram.map(|u| format!("unigram {}", big(u))));
    match parts.is_empty() {
        true => ppl,
        false => format!("{ppl} ({})", parts.join(", ")),
    }
}

/// The progress bar's fill and text: steps with the phase of the step under
/// way, the ETA from the measured rate and the clock, which moves every frame
/// while the job is alive; before the first step, the preparation (counting,
/// or the method's own phase) and its time.
fn gauge_label(r: &RunEntry, tick: u64) -> (f64, String) {
    let elapsed = duration(r.elapsed_at(tick));
    let phase = r.phase.map(|p| p.describe());
    match r.last() {
        Some(p) => {
            let done = r.steps_done();
            let ratio = done / p.total_steps.max(1) as f64;
            let mut label = format!("{:.0}% · step {}/{}", 100.0 * ratio, p.step, p.total_steps);
            if let Some(phase) = phase.filter(|_| r.status.is_active()) {
                label.push_str(&format!(" · {phase}"));
            }
            if r.status.is_active() {
                let eta = r.eta_at(tick).map_or("—".to_string(), duration);
                label.push_str(&format!(" · ETA {eta}"));
            }
            (ratio, format!("{label} · {elapsed} elapsed"))
        }
        None if !r.status.is_active() => (0.0, "no steps".to_string()),
        None => match (r.counting.filter(|c| c.phase != CountPhase::Done), r.phase) {
            (Some(c), _) => (
                c.fraction(),
                format!("{} · {elapsed} elapsed", c.describe()),
            ),
            (None, Some(p)) => (
                p.fraction().unwrap_or(0.0),
                format!("preparing: {} · ETA — · {elapsed} elapsed", p.describe()),
            ),
            (None, None) => (
                0.0,
                format!("preparing (counting, encoding)… · ETA — · {elapsed} elapsed"),
            ),
        },
    }
}

/// A metric's curve; with smoothing, the raw curve dimmed under the smoothed
/// one, as TensorBoard draws them (`raw` false leaves the raw curve out, as
/// when several runs share a chart).
fn curves(
    name: &str,
    points: Vec<(f64, f64)>,
    color: Color,
    smoothing: f64,
    raw: bool,
) -> Vec<Series> {
    if smoothing <= 0.0 {
        return vec![Series {
            name: name.into(),
            points,
            color,
        }];
    }
    let smoothed = chart::smooth(&points, smoothing);
    let mut series = Vec::new();
    if raw {
        series.push(Series {
            name: format!("{name} (raw)"),
            points,
            color: Color::DarkGray,
        });
    }
    series.push(Series {
        name: name.into(),
        points: smoothed,
        color,
    });
    series
}

/// What the two charts draw: loss series, perplexity series, the axis end
/// and the change markers.
struct Plan {
    loss: Vec<Series>,
    perplexity: Vec<Series>,
    x_max: f64,
    changes: Vec<(f64, String)>,
}

/// One run: its curves, and beneath them, dimmed, the recording it replays.
fn single(app: &App, shown: usize) -> Plan {
    let v = &app.train;
    let r = &app.runs[shown];
    let c = curves_of(r, v.axis);
    let mut plan = Plan {
        loss: Vec::new(),
        perplexity: Vec::new(),
        x_max: c.x_max,
        changes: c.changes,
    };
    if let Some((k, rec)) = r
        .replay_of
        .and_then(|k| app.runs.get(k).map(|rec| (k, rec)))
    {
        let old = curves_of(rec, v.axis);
        let name = format!("#{} recorded", app.run_number(k));
        plan.x_max = plan.x_max.max(old.x_max);
        plan.loss
            .extend(curves(&name, old.loss, Color::DarkGray, v.smoothing, false));
        plan.perplexity.extend(curves(
            &name,
            old.perplexity,
            Color::DarkGray,
            v.smoothing,
            false,
        ));
    }
    plan.loss
        .extend(curves("loss", c.loss, theme::LOSS, v.smoothing, true));
    plan.perplexity.extend(curves(
        "perplexity",
        c.perplexity,
        theme::PERPLEXITY,
        v.smoothing,
        true,
    ));
    // Methods with a perplexity of their own (e.g. dsnmf) add a second curve.
    if !c.model.is_empty() {
        plan.perplexity.extend(curves(
            "model ppl",
            c.model,
            theme::MODEL_PERPLEXITY,
            v.smoothing,
            true,
        ));
    }
    plan
}

/// Longest run name in an overlay's legend.
const LEGEND_NAME: usize = 24;

/// Every listed run with curves, a colour each (held-out perplexity only on
/// the right; markers only for the shown run).
fn overlay(app: &App) -> Plan {
    let v = &app.train;
    let mut plan = Plan {
        loss: Vec::new(),
        perplexity: Vec::new(),
        x_max: 1e-9,
        changes: Vec::new(),
    };
    let listed = app.runs_view.listed(&app.runs);
    let with_curves = listed
        .into_iter()
        .filter(|&i| !app.runs[i].metrics().is_empty());
    for (n, i) in with_curves.enumerate() {
        let r = &app.runs[i];
        let c = curves_of(r, v.axis);
        let color = theme::PALETTE[n % theme::PALETTE.len()];
        // Named as on Runs (`#1 sgns dim=50`), short enough for the legend.
        let name = super::format::fit(&r.label(), LEGEND_NAME);
        plan.x_max = plan.x_max.max(c.x_max);
        if v.shown == Some(i) {
            plan.changes = c.changes;
        }
        plan.loss
            .extend(curves(&name, c.loss, color, v.smoothing, false));
        plan.perplexity
            .extend(curves(&name, c.perplexity, color, v.smoothing, false));
    }
    plan
}

fn draw_charts(frame: &mut Frame, area: Rect, app: &App, shown: usize) {
    let v = &app.train;
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(area);
    let plan = if v.overlay {
        overlay(app)
    } else {
        single(app, shown)
    };
    let mut notes = Vec::new();
    if v.log_scale {
        notes.push("log".to_string());
    }
    if v.smoothing > 0.0 {
        notes.push(format!("smoothed {}", v.smoothing));
    }
    if v.axis != XAxis::Steps {
        notes.push(format!("x: {}", v.axis.name()));
    }
    if v.overlay {
        notes.push("all listed runs".into());
    }
    let scale = if notes.is_empty() {
        String::new()
    } else {
        format!(" ({})", notes.join(", "))
    };
    for (series, title, at) in [
        (plan.loss, "Loss", left),
        (plan.perplexity, "Held-out perplexity", right),
    ] {
        chart::draw(
            frame,
            at,
            LineChart {
                series,
                markers: &plan.changes,
                x_max: plan.x_max,
                x_labels: (v.axis == XAxis::Seconds)
                    .then(|| [0.0, plan.x_max / 2.0, plan.x_max].map(duration)),
                log: v.log_scale,
                block: block(&format!("{title}{scale}"), false),
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::method_window;

    #[test]
    fn the_method_list_scrolls_to_the_chosen_method() {
        assert_eq!(method_window(16, 3, 20), (0, 16), "all fit");
        assert_eq!(method_window(16, 0, 8), (0, 8));
        assert_eq!(method_window(16, 6, 8), (0, 8), "row 7 of 8, one below");
        assert_eq!(method_window(16, 7, 8), (1, 9), "one below stays visible");
        assert_eq!(method_window(16, 15, 8), (8, 16), "the last at the bottom");
        assert_eq!(method_window(16, 15, 1), (15, 16));
        for rows in 1..20 {
            for chosen in 0..16 {
                let (from, to) = method_window(16, chosen, rows);
                assert!((from..to).contains(&chosen), "{chosen} in {rows} rows");
                assert_eq!(to - from, rows.min(16));
            }
        }
    }
}
