//! Line charts of metrics against step, with optional log scale and
//! vertical markers where a hyperparameter changed mid-run.

use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::symbols::Marker;
use ratatui::text::Span;
use ratatui::widgets::{Axis, Block, Chart, Dataset, GraphType, LegendPosition};
use ratatui::Frame;

use super::format::{si, value};
use super::theme;

/// One curve.
pub struct Series {
    /// Legend name.
    pub name: String,
    /// `(step, value)` points.
    pub points: Vec<(f64, f64)>,
    /// Colour.
    pub color: Color,
}

/// A chart to draw.
pub struct LineChart<'a> {
    /// The curves.
    pub series: Vec<Series>,
    /// Vertical markers: step and label.
    pub markers: &'a [(u64, String)],
    /// Last step of the x axis.
    pub x_max: f64,
    /// Labels of the x axis at 0, the middle and `x_max` (default: the values).
    pub x_labels: Option<[String; 3]>,
    /// Log10 scale on y.
    pub log: bool,
    /// The frame around it.
    pub block: Block<'a>,
}

/// `log10(y)` on a log scale, `None` where undefined.
fn scale(y: f64, log: bool) -> Option<f64> {
    if !y.is_finite() {
        return None;
    }
    if log {
        (y > 0.0).then(|| y.log10())
    } else {
        Some(y)
    }
}

/// The y range of the scaled points, padded a little; `None` without points.
pub fn y_bounds(series: &[Series], log: bool) -> Option<[f64; 2]> {
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for s in series {
        for &(_, y) in &s.points {
            if let Some(v) = scale(y, log) {
                lo = lo.min(v);
                hi = hi.max(v);
            }
        }
    }
    if lo > hi {
        return None;
    }
    let pad = ((hi - lo) * 0.05).max(hi.abs() * 1e-3).max(1e-9);
    Some([lo - pad, hi + pad])
}

/// Draws the chart, or a note when there is nothing yet.
pub fn draw(frame: &mut Frame, area: Rect, chart: LineChart<'_>) {
    let log = chart.log;
    let Some([y0, y1]) = y_bounds(&chart.series, log) else {
        let p = ratatui::widgets::Paragraph::new(Span::styled(" waiting for data…", theme::dim()))
            .block(chart.block);
        frame.render_widget(p, area);
        return;
    };
    let scaled: Vec<Vec<(f64, f64)>> = chart
        .series
        .iter()
        .map(|s| {
            s.points
                .iter()
                .filter_map(|&(x, y)| scale(y, log).map(|v| (x, v)))
                .collect()
        })
        .collect();
    let marks: Vec<[(f64, f64); 2]> = chart
        .markers
        .iter()
        .map(|(step, _)| [(*step as f64, y0), (*step as f64, y1)])
        .collect();
    let mut datasets: Vec<Dataset> = chart
        .series
        .iter()
        .zip(&scaled)
        .map(|(s, pts)| {
            Dataset::default()
                .name(s.name.clone())
                .marker(Marker::Braille)
                .graph_type(GraphType::Line)
                .style(Style::new().fg(s.color))
                .data(pts)
        })
        .collect();
    for ((_, label), pts) in chart.markers.iter().zip(&marks) {
        datasets.push(
            Dataset::default()
                .name(label.clone())
                .marker(Marker::Braille)
                .graph_type(GraphType::Line)
                .style(Style::new().fg(theme::CHANGE))
                .data(pts),
        );
    }
    let y_label = |v: f64| {
        let raw = if log { 10f64.powf(v) } else { v };
        Span::raw(value(raw))
    };
    let x_max = chart.x_max.max(1.0);
    let widget = Chart::new(datasets)
        .block(chart.block)
        .legend_position(
            (chart.series.len() + chart.markers.len() > 1).then_some(LegendPosition::TopRight),
        )
        .hidden_legend_constraints((
            ratatui::layout::Constraint::Percentage(60),
            ratatui::layout::Constraint::Percentage(60),
        ))
        .x_axis(
            Axis::default()
                .bounds([0.0, x_max])
                .style(theme::dim())
                .labels(match chart.x_labels {
                    Some(labels) => labels.map(Span::raw).to_vec(),
                    None => vec![
                        Span::raw("0"),
                        Span::raw(si(x_max / 2.0)),
                        Span::raw(si(x_max)),
                    ],
                }),
        )
        .y_axis(
            Axis::default()
                .bounds([y0, y1])
                .style(theme::dim())
                .labels(vec![y_label(y0), y_label((y0 + y1) / 2.0), y_label(y1)]),
        );
    frame.render_widget(widget, area);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(points: Vec<(f64, f64)>) -> Vec<Series> {
        vec![Series {
            name: "s".into(),
            points,
            color: Color::Reset,
        }]
    }

    #[test]
    fn bounds_pad_the_range_and_skip_undefined_points() {
        let s = series(vec![
            (1.0, 10.0),
            (2.0, 1000.0),
            (3.0, f64::NAN),
            (4.0, 0.0),
        ]);
        let [lo, hi] = y_bounds(&s, true).unwrap();
        assert!((lo - (1.0 - 0.1)).abs() < 1e-12, "{lo}");
        assert!((hi - (3.0 + 0.1)).abs() < 1e-12, "{hi}");
        let [lo, hi] = y_bounds(&s, false).unwrap();
        assert!((lo + 50.0).abs() < 1e-9 && (hi - 1050.0).abs() < 1e-9);
        assert!(y_bounds(&series(vec![]), false).is_none());
        let [lo, hi] = y_bounds(&series(vec![(1.0, 2.0)]), false).unwrap();
        assert!(lo < 2.0 && hi > 2.0, "a flat curve still gets a range");
    }
}
