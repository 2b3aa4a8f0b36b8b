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
use crate::project::registry;
use crate::tui::action::Slot;
use crate::tui::app::App;
use crate::tui::project_worker::AVAILABLE;

/// The options pane and the scatter; at 80 columns the scatter gets the
/// larger half.
fn split(area: Rect) -> [Rect; 2] {
    let left_width = (area.width * 2 / 5).clamp(30, 46);
    Layout::horizontal([Constraint::Length(left_width), Constraint::Min(0)]).areas(area)
}

/// Where the scatter's points are drawn (inside its frame) when the screen
/// has `body` (for mouse hit-testing, which must agree with [`draw`]).
pub fn plot_area(body: Rect) -> Rect {
    split(body)[1].inner(ratatui::layout::Margin::new(1, 1))
}

/// Draws the Projection screen.
pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let [left, right] = split(area);
    let v = &app.projection;
    let moved = v.picked.is_none() && v.layout.as_ref().is_some_and(|l| l.pair.is_some());
    let picked_h = if v.picked.is_some() || moved {
        NEAR_ROWS
    } else {
        0
    };
    // The focus, the method's options, a blank line, the help and borders.
    let options_h = (v.visible_options().len() as u16 + 6).max(12);
    let [options, kl, picked] = Layout::vertical([
        Constraint::Length(options_h),
        Constraint::Min(0),
        Constraint::Length(picked_h),
    ])
    .areas(left);
    draw_options(frame, options, app);
    if moved {
        draw_moved(frame, picked, app);
    } else {
        draw_picked(frame, picked, app);
    }
    if !v.kl.is_empty() || v.pending.is_some() {
        let total = v.progress.map_or(1.0, |(_, t)| t as f64);
        let (name, title) = loss_names(running_method(v));
        chart::draw(
            frame,
            kl,
            LineChart {
                series: vec![Series {
                    name: name.into(),
                    points: v.kl.clone(),
                    color: theme::PERPLEXITY,
                }],
                markers: &[],
                x_max: total,
                x_labels: None,
                log: false,
                block: block(title, false),
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

/// The method of the request in flight, else of the layout shown.
fn running_method(v: &crate::tui::model::projection::ProjectionView) -> &str {
    let settings = if v.pending.is_some() {
        &v.pending_settings
    } else {
        &v.settings
    };
    settings
        .get("method")
        .map_or(crate::project::options::METHOD_DEFAULT, String::as_str)
}

/// The series name and chart title of a method's progress curve (its
/// registry entry's loss).
fn loss_names(method: &str) -> (&'static str, &'static str) {
    match registry::find(method).ok().and_then(|p| p.loss) {
        Some(loss) => (loss.short, loss.title),
        None => ("loss", "progress"),
    }
}

/// Rows of the selected word's pane.
const NEAR_ROWS: u16 = 11;

/// The selected word and its nearest words in run A's vectors.
fn draw_picked(frame: &mut Frame, area: Rect, app: &App) {
    let v = &app.projection;
    let (Some(i), Some(layout)) = (v.picked, &v.layout) else {
        return;
    };
    let lines: Vec<Line> = v
        .near
        .iter()
        .map(|(w, c)| {
            let shown = layout.words.contains(w);
            Line::from(vec![
                Span::raw(format!(" {c:.3} ")),
                Span::styled(w.clone(), if shown { Style::new() } else { theme::dim() }),
            ])
        })
        .collect();
    let title = format!("{}: nearest in run A", layout.words[i]);
    frame.render_widget(Paragraph::new(lines).block(block(&title, false)), area);
}

/// The words whose two vectors agree least once B is rotated onto A.
fn draw_moved(frame: &mut Frame, area: Rect, app: &App) {
    let Some(pair) = app.projection.layout.as_ref().and_then(|l| l.pair.as_ref()) else {
        return;
    };
    let rows = usize::from(area.height.saturating_sub(3));
    let head = Line::styled(
        format!(
            " mean cos {:.2} over {} words",
            pair.mean_cosine, pair.shared
        ),
        theme::dim(),
    );
    let lines: Vec<Line> = std::iter::once(head)
        .chain(
            pair.moved
                .iter()
                .take(rows)
                .map(|(w, c)| Line::raw(format!(" {c:6.3} {w}"))),
        )
        .collect();
    let title = format!("moved most, B #{} vs A", app.run_number(pair.b_run));
    frame.render_widget(Paragraph::new(lines).block(block(&title, false)), area);
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
    if v.finding {
        lines.push(field_line(
            "find",
            10,
            input_spans(&v.find, true, "a word of the projection"),
            true,
            None,
        ));
    }
    let mut form = v.options.clone();
    form.selected = v.selected.saturating_sub(1);
    let mut fields = form_lines(&form, v.selected > 0);
    for i in v.visible_options() {
        lines.push(std::mem::take(&mut fields[i]));
    }
    lines.push(Line::default());
    if v.selected > 0 {
        lines.push(field_help(&form));
    }
    let run = app
        .picked(Slot::A)
        .map_or("no run picked".into(), |(_, r)| r.label());
    let title = format!("Project A: {run}");
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(block(&title, true)),
        area,
    );
}

/// Labels of the `layout.labels` most important (frequent) words inside the
/// view, after the focus and selected words, skipping any that would
/// overlap or touch one already placed; labels that would run
/// past the right edge are moved left to fit. Zooming in brings the words
/// in view their labels, so a dense layout reads as the user closes in.
fn place_labels(
    layout: &crate::tui::model::projection::Layout,
    picked: Option<usize>,
    xb: [f64; 2],
    yb: [f64; 2],
    area: Rect,
) -> Vec<(f64, f64, usize)> {
    // The canvas places a label at `(x - x0) * (w - 1) / (x1 - x0)` of its
    // inner width `w` (and likewise for rows): the same grid here, or two
    // labels judged apart can print side by side as one word.
    let (cols, rows) = (
        f64::from(area.width.saturating_sub(3).max(1)),
        f64::from(area.height.saturating_sub(3).max(1)),
    );
    let cell = (xb[1] - xb[0]) / cols;
    let mut taken: Vec<(i64, i64, i64)> = Vec::new();
    let mut out = Vec::new();
    let first: Vec<usize> = [picked, layout.focus].into_iter().flatten().collect();
    let order = first
        .iter()
        .copied()
        .chain((0..layout.words.len()).filter(|i| !first.contains(i)));
    let mut others = 0;
    for i in order {
        if others >= layout.labels {
            break;
        }
        let ([x, y], w) = (&layout.coords[i], &layout.words[i]);
        if !(xb[0] <= *x && *x <= xb[1] && yb[0] <= *y && *y <= yb[1]) {
            continue;
        }
        others += usize::from(!first.contains(&i));
        let len = w.chars().count() as f64;
        let x = x.min(xb[1] - len * cell).max(xb[0]);
        let col = ((x - xb[0]) / cell) as i64;
        let row = ((yb[1] - y) / (yb[1] - yb[0]) * rows) as i64;
        let end = col + len as i64;
        // One free cell between labels, so two never read as one word.
        if taken
            .iter()
            .any(|&(r, a, b)| r == row && col <= b + 1 && a <= end + 1)
        {
            continue;
        }
        taken.push((row, col, end));
        out.push((x, *y, i));
    }
    out
}

/// What the colours are: the groups' names, or k-means clusters; then the
/// keys of the view (and where a 3-D layout is seen from).
fn legend(
    layout: &crate::tui::model::projection::Layout,
    v: &crate::tui::model::projection::ProjectionView,
) -> Line<'static> {
    let turn = if layout.sphere.is_some() {
        let (lon, lat) = crate::geometry::ube::sphere::looking_at(&v.turn);
        format!("· HJKL turn: centre {lon:.0}°, {lat:.0}° ")
    } else if layout.cloud.is_some() {
        let (lon, lat) = crate::geometry::ube::sphere::looking_at(&v.turn);
        format!("· HJKL turn: 3-D, seen from {lon:.0}°, {lat:.0}° ")
    } else {
        String::new()
    };
    let Some(groups) = &layout.groups else {
        return Line::raw(turn);
    };
    let mut spans = vec![Span::raw(if groups.named {
        " colours: ".to_string()
    } else {
        format!(
            " colours: {} k-means clusters of the vectors ",
            groups.names.len()
        )
    })];
    for (g, name) in groups.names.iter().enumerate() {
        let swatch = Style::new().fg(theme::PALETTE[g % theme::PALETTE.len()]);
        spans.push(Span::styled("■", swatch));
        if groups.named {
            spans.push(Span::raw(format!("{name} ")));
        }
    }
    spans.push(Span::raw(" · / find, n/N select "));
    spans.push(Span::raw(turn));
    Line::from(spans)
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
            let what = registry::find(running_method(v)).map_or("step", |p| p.step);
            lines.push(Line::raw(format!("  {what} {step}/{total}…")));
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
    let labels: Vec<(f64, f64, String, Style)> = place_labels(layout, v.picked, xb, yb, area)
        .into_iter()
        .map(|(x, y, i)| {
            let w = &layout.words[i];
            if Some(i) == v.picked {
                (x, y, format!("◉{w}"), theme::title().fg(theme::PERPLEXITY))
            } else if Some(i) == layout.focus {
                (x, y, format!("◆{w}"), theme::title().fg(theme::CHANGE))
            } else {
                (x, y, w.clone(), Style::new().fg(theme::CHANGE))
            }
        })
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
        .block(block(&title, false).title_bottom(legend(layout, v)))
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
            for (x, y, w, style) in &labels {
                ctx.print(*x, *y, Line::from(Span::styled(w.clone(), *style)));
            }
        });
    frame.render_widget(canvas, area);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::model::projection::Layout;

    /// 200 words on a diagonal, 5 labels: the whole view labels the 5 most
    /// frequent; zoomed onto words 100-120, those get labels instead.
    #[test]
    fn zooming_in_labels_the_words_in_view() {
        let words: Vec<String> = (0..200).map(|i| format!("w{i}")).collect();
        let coords: Vec<[f64; 2]> = (0..200).map(|i| [i as f64, i as f64]).collect();
        let mut layout = Layout::new(0, "tsne", words, coords);
        layout.labels = 5;
        let area = Rect::new(0, 0, 120, 40);
        let whole = place_labels(&layout, None, [0.0, 199.0], [0.0, 199.0], area);
        assert!(whole.iter().all(|p| p.2 < 5), "only the 5 most frequent");
        let zoomed = place_labels(&layout, Some(150), [100.0, 120.0], [100.0, 120.0], area);
        let ids: Vec<usize> = zoomed.iter().map(|p| p.2).collect();
        assert!(
            !ids.is_empty() && ids.iter().all(|i| (100..105).contains(i)),
            "{ids:?}"
        );
        layout.focus = Some(110);
        let focused = place_labels(&layout, None, [100.0, 120.0], [100.0, 120.0], area);
        assert_eq!(focused[0].2, 110, "the focus word comes first");
    }

    /// Many words packed close: as the canvas prints them, no two labels on a
    /// row touch (so none reads as a made-up word like `ofthe`).
    #[test]
    fn placed_labels_never_touch_where_the_canvas_prints_them() {
        let n = 400;
        let words: Vec<String> = (0..n).map(|i| format!("w{}", i % 37)).collect();
        let coords: Vec<[f64; 2]> = (0..n)
            .map(|i| {
                let t = i as f64 * 0.731;
                [
                    t.sin() * (1.0 + (i % 7) as f64),
                    (t * 1.3).cos() * (1.0 + (i % 5) as f64),
                ]
            })
            .collect();
        let layout = Layout::new(0, "tsne", words, coords);
        for (w, h) in [(60u16, 30u16), (45, 20), (101, 37)] {
            let area = Rect::new(0, 0, w, h);
            let (xb, yb) = ([-8.0, 8.0], [-6.0, 6.0]);
            let placed = place_labels(&layout, None, xb, yb, area);
            assert!(placed.len() > 10, "{w}x{h}: {}", placed.len());
            // ratatui's canvas: inner area, resolution (w - 1, h - 1).
            let (iw, ih) = (f64::from(w - 2 - 1), f64::from(h - 2 - 1));
            let cells: Vec<(i64, i64, i64)> = placed
                .iter()
                .map(|&(x, y, i)| {
                    let col = ((x - xb[0]) * iw / (xb[1] - xb[0])) as i64;
                    let row = ((yb[1] - y) * ih / (yb[1] - yb[0])) as i64;
                    (row, col, col + layout.words[i].len() as i64)
                })
                .collect();
            for (a, p) in cells.iter().enumerate() {
                for q in &cells[a + 1..] {
                    let apart = p.0 != q.0 || p.2 < q.1 || q.2 < p.1;
                    assert!(apart, "{w}x{h}: labels at {p:?} and {q:?} touch");
                }
            }
        }
    }
}
