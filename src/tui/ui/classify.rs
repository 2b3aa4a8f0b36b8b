//! The Classify screen: the study's fields and the words MNB-FM moved most
//! on the left; the learning-curve table and chart (MNB vs MNB-FM) on the
//! right.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use ratatui::Frame;

use super::chart::{self, LineChart, Series};
use super::fields::{field_help, field_line, form_lines, input_spans};
use super::{block, theme};
use crate::classify::protocol::{Method, Point, Spread};
use crate::tui::app::App;
use crate::tui::model::classify::TEXT_FIELDS;

/// Draws the Classify screen.
pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let left_width = (area.width * 2 / 5).clamp(34, 50);
    let [left, right] =
        Layout::horizontal([Constraint::Length(left_width), Constraint::Min(0)]).areas(area);
    let fields_h = (TEXT_FIELDS.len() + app.classify.options.len() + 4) as u16;
    let [fields, moved] =
        Layout::vertical([Constraint::Length(fields_h), Constraint::Min(0)]).areas(left);
    draw_fields(frame, fields, app);
    draw_moved(frame, moved, app);
    let rows = app.classify.outcome.as_ref().map_or(0, |o| o.points.len()) as u16;
    let [table, curve] =
        Layout::vertical([Constraint::Length(rows + 4), Constraint::Min(0)]).areas(right);
    draw_table(frame, table, app);
    draw_curve(frame, curve, app);
}

fn draw_fields(frame: &mut Frame, area: Rect, app: &App) {
    let v = &app.classify;
    let width = TEXT_FIELDS
        .iter()
        .map(|(n, _)| n.len())
        .chain(v.options.specs().iter().map(|s| s.name.len()))
        .max()
        .unwrap_or(0);
    // Borders, the selection marker and the name column.
    let room = (area.width as usize).saturating_sub(width + 5);
    let mut lines: Vec<Line> = TEXT_FIELDS
        .iter()
        .enumerate()
        .map(|(i, (name, _))| {
            let selected = v.selected == i;
            let editing = selected && v.editing_text;
            let value = if editing {
                input_spans(&v.texts[i], true, "")
            } else if v.texts[i].text().is_empty() {
                vec![Span::styled("—", theme::dim())]
            } else {
                vec![Span::raw(tail(v.texts[i].text(), room))]
            };
            field_line(name, width, value, selected, None)
        })
        .collect();
    let mut form = v.options.clone();
    let in_form = v.selected >= TEXT_FIELDS.len();
    form.selected = v.selected.saturating_sub(TEXT_FIELDS.len());
    // The form pads its names to its own width: re-pad to the screen's.
    lines.extend(
        form_lines(&form, in_form)
            .into_iter()
            .map(|l| repad(l, width)),
    );
    lines.push(Line::default());
    if in_form {
        lines.push(field_help(&form));
    } else if let Some((name, help)) = TEXT_FIELDS.get(v.selected) {
        lines.push(Line::from(vec![
            Span::styled(format!(" {name}: "), theme::accent()),
            Span::raw(*help),
        ]));
    }
    let title = if v.pending.is_some() {
        "Classify (running…)"
    } else {
        "Classify"
    };
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(block(title, true)),
        area,
    );
}

/// `text` in `width` columns: a path too long shows its file name, cut at
/// the end (`…`) if that is still too long; the name tells files apart.
fn tail(text: &str, width: usize) -> String {
    if text.chars().count() <= width || width < 2 {
        return text.to_string();
    }
    let name = std::path::Path::new(text)
        .file_name()
        .map_or(text.to_string(), |n| n.to_string_lossy().into_owned());
    if name.chars().count() <= width {
        return name;
    }
    let kept: String = name.chars().take(width - 1).collect();
    format!("{kept}…")
}

/// Pads a form line's name column (its second span) to `width`.
fn repad(mut line: Line<'static>, width: usize) -> Line<'static> {
    if let Some(span) = line.spans.get_mut(1) {
        let name = span.content.trim_end().to_string();
        span.content = format!("{name:<width$} ").into();
    }
    line
}

fn draw_moved(frame: &mut Frame, area: Rect, app: &App) {
    let Some(o) = &app.classify.outcome else {
        let lines = vec![
            Line::raw("s runs MNB and MNB-FM on seeded labelled"),
            Line::raw("draws of each size and scores them on the"),
            Line::raw("test documents."),
        ];
        frame.render_widget(
            Paragraph::new(lines)
                .style(theme::dim())
                .wrap(Wrap { trim: true })
                .block(block("Moved words", false)),
            area,
        );
        return;
    };
    let lines: Vec<Line> = o
        .moved
        .iter()
        .map(|m| {
            let up = m.mnb_fm > m.mnb;
            Line::from(vec![
                Span::raw(format!(" {:<16}", super::format::fit(&m.word, 16))),
                Span::styled(
                    format!(
                        "{} {:.1}×",
                        if up { "▲" } else { "▼" },
                        (m.mnb_fm / m.mnb).max(m.mnb / m.mnb_fm)
                    ),
                    if up { theme::good() } else { theme::warn() },
                ),
            ])
        })
        .collect();
    let title = format!(
        "P(w | {}) moved most by FM",
        o.tasks.first().map_or("", String::as_str)
    );
    frame.render_widget(Paragraph::new(lines).block(block(&title, false)), area);
}

fn spread(s: Option<Spread>) -> String {
    s.map_or_else(|| "    -".into(), |s| format!("{:.3}±{:.3}", s.mean, s.std))
}

fn draw_table(frame: &mut Frame, area: Rect, app: &App) {
    let Some(o) = &app.classify.outcome else {
        frame.render_widget(
            Paragraph::new(Span::styled(" no study yet: s to run one", theme::dim()))
                .block(block("Scores", false)),
            area,
        );
        return;
    };
    let mut lines = vec![Line::from(Span::styled(
        format!(
            "{:>8} {:<7}{:>12}{:>12}{:>12}{:>12}",
            "labelled", "method", "F1 (min.)", "macro-F1", "accuracy", "R-prec."
        ),
        theme::dim(),
    ))];
    for p in &o.points {
        let style = if p.method == Method::MnbFm {
            theme::good()
        } else {
            ratatui::style::Style::new()
        };
        lines.push(Line::styled(
            format!(
                "{:>8} {:<7}{:>12}{:>12}{:>12}{:>12}",
                p.labelled,
                p.method.name(),
                spread(p.f1),
                spread(Some(p.macro_f1)),
                spread(Some(p.accuracy)),
                spread(p.r_precision)
            ),
            style,
        ));
    }
    let test = o
        .test_documents
        .map_or("the rest".to_string(), |n| n.to_string());
    lines.push(Line::styled(
        format!(
            " {} tasks ({}), {} train / {} test documents",
            o.tasks.len(),
            super::format::fit(&o.tasks.join(","), 24),
            o.train_documents,
            test
        ),
        theme::dim(),
    ));
    frame.render_widget(
        Paragraph::new(lines).block(block("Scores (mean±std over draws)", false)),
        area,
    );
}

/// F1 (or macro-F1 in multi-class mode) against log10 of the labelled size.
fn draw_curve(frame: &mut Frame, area: Rect, app: &App) {
    let Some(o) = &app.classify.outcome else {
        return;
    };
    let metric = |p: &Point| p.f1.unwrap_or(p.macro_f1).mean;
    // x is log10 of the size, from the smallest size at 0.
    let smallest = o.points.iter().map(|p| p.labelled).min().unwrap_or(1) as f64;
    let x_of = |n: usize| (n as f64 / smallest).log10();
    let series = [
        (Method::Mnb, theme::PERPLEXITY),
        (Method::MnbFm, theme::MODEL_PERPLEXITY),
    ]
    .into_iter()
    .filter_map(|(m, color)| {
        let points: Vec<(f64, f64)> = o
            .points
            .iter()
            .filter(|p| p.method == m)
            .map(|p| (x_of(p.labelled), metric(p)))
            .collect();
        (!points.is_empty()).then(|| Series {
            name: m.name().into(),
            points,
            color,
        })
    })
    .collect();
    let x_max = o
        .points
        .iter()
        .map(|p| x_of(p.labelled))
        .fold(0.0, f64::max);
    let at = |x: f64| format!("{:.0}", smallest * 10f64.powf(x));
    let name = if o.points.iter().any(|p| p.f1.is_some()) {
        "F1"
    } else {
        "macro-F1"
    };
    chart::draw(
        frame,
        area,
        LineChart {
            series,
            markers: &[],
            x_max,
            x_labels: Some([at(0.0), at(x_max / 2.0), at(x_max)]),
            log: false,
            block: block(&format!("{name} vs labelled documents (log scale)"), false),
        },
    );
}
