//! Line charts of metrics against step, with an optional symmetric log
//! scale (negative and zero values stay on the chart, as TensorBoard's symlog) and
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
    /// Vertical markers: where on the x axis, and label.
    pub markers: &'a [(f64, String)],
    /// Last step of the x axis.
    pub x_max: f64,
    /// Labels of the x axis at 0, the middle and `x_max` (default: the values).
    pub x_labels: Option<[String; 3]>,
    /// Symmetric log scale on y.
    pub log: bool,
    /// The frame around it.
    pub block: Block<'a>,
}

/// How y values map to the chart: linear, or the symmetric log
/// `sign(y) log10(1 + |y| / c)`, linear within `c` of zero and `log10(|y| / c)`
/// far from it, with `c` the smallest non-zero `|y|` shown, so that an
/// all-positive curve looks as on a log scale and a loss that crosses zero
/// (or reaches it) keeps every point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum YScale {
    /// `y` itself.
    Linear,
    /// Symmetric log with linear threshold `c`.
    SymLog(f64),
}

impl YScale {
    /// The scale for `series`: symmetric log around their smallest non-zero
    /// magnitude when `log`, else linear.
    pub fn for_series(series: &[Series], log: bool) -> YScale {
        if !log {
            return YScale::Linear;
        }
        let c = series
            .iter()
            .flat_map(|s| &s.points)
            .map(|&(_, y)| y.abs())
            .filter(|a| a.is_finite() && *a > 0.0)
            .fold(f64::INFINITY, f64::min);
        YScale::SymLog(if c.is_finite() { c } else { 1.0 })
    }

    /// Where `y` goes, `None` for NaN and infinities.
    pub fn apply(self, y: f64) -> Option<f64> {
        if !y.is_finite() {
            return None;
        }
        Some(match self {
            YScale::Linear => y,
            YScale::SymLog(c) => y.signum() * (1.0 + y.abs() / c).log10(),
        })
    }

    /// The value drawn at `v` (the inverse of [`YScale::apply`]).
    pub fn invert(self, v: f64) -> f64 {
        match self {
            YScale::Linear => v,
            YScale::SymLog(c) => v.signum() * c * (10f64.powf(v.abs()) - 1.0),
        }
    }
}

/// TensorBoard's smoothing: an exponential moving average with weight `w`,
/// divided by `1 - w^n` (`n` finite points so far) so that the start is not
/// pulled towards zero; NaN and infinite points are left out.
pub fn smooth(points: &[(f64, f64)], w: f64) -> Vec<(f64, f64)> {
    let mut last = 0.0;
    let mut n = 0;
    points
        .iter()
        .filter(|(_, y)| y.is_finite())
        .map(|&(x, y)| {
            last = last * w + (1.0 - w) * y;
            n += 1;
            (x, last / (1.0 - w.powi(n)))
        })
        .collect()
}

/// The y range of the scaled points, padded a little; `None` without points.
pub fn y_bounds(series: &[Series], scale: YScale) -> Option<[f64; 2]> {
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for s in series {
        for &(_, y) in &s.points {
            if let Some(v) = scale.apply(y) {
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
    let scale = YScale::for_series(&chart.series, chart.log);
    let Some([y0, y1]) = y_bounds(&chart.series, scale) else {
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
                .filter_map(|&(x, y)| scale.apply(y).map(|v| (x, v)))
                .collect()
        })
        .collect();
    let marks: Vec<[(f64, f64); 2]> = chart
        .markers
        .iter()
        .map(|&(x, _)| [(x, y0), (x, y1)])
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
    let y_label = |v: f64| Span::raw(value(scale.invert(v)));
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
        let log = YScale::for_series(&s, true);
        assert_eq!(log, YScale::SymLog(10.0));
        let [lo, hi] = y_bounds(&s, log).unwrap();
        let top = 101f64.log10();
        assert!(
            (lo + 0.05 * top).abs() < 1e-12,
            "zero stays on the chart: {lo}"
        );
        assert!((hi - 1.05 * top).abs() < 1e-12, "{hi}");
        let [lo, hi] = y_bounds(&s, YScale::Linear).unwrap();
        assert!((lo + 50.0).abs() < 1e-9 && (hi - 1050.0).abs() < 1e-9);
        assert!(y_bounds(&series(vec![]), YScale::Linear).is_none());
        let [lo, hi] = y_bounds(&series(vec![(1.0, 2.0)]), YScale::Linear).unwrap();
        assert!(lo < 2.0 && hi > 2.0, "a flat curve still gets a range");
    }

    #[test]
    fn the_symmetric_log_keeps_negative_losses_in_order_and_inverts() {
        let s = series(vec![
            (1.0, -500.0),
            (2.0, -0.5),
            (3.0, 0.0),
            (4.0, 2.0),
            (5.0, 2e6),
        ]);
        let scale = YScale::for_series(&s, true);
        assert_eq!(scale, YScale::SymLog(0.5));
        let mapped: Vec<f64> = s[0]
            .points
            .iter()
            .map(|&(_, y)| scale.apply(y).unwrap())
            .collect();
        assert!(
            mapped.windows(2).all(|w| w[0] < w[1]),
            "order kept: {mapped:?}"
        );
        for &(_, y) in &s[0].points {
            let back = scale.invert(scale.apply(y).unwrap());
            assert!((back - y).abs() <= 1e-9 * y.abs().max(1.0), "{y} -> {back}");
        }
        // Far from zero it is a log scale: a decade is the same height.
        let d1 = scale.apply(2e6).unwrap() - scale.apply(2e5).unwrap();
        assert!((d1 - 1.0).abs() < 1e-5, "{d1}");
        assert_eq!(scale.apply(f64::INFINITY), None);
    }

    #[test]
    fn smoothing_is_tensorboard_s_debiased_moving_average() {
        let raw = [(1.0, 4.0), (2.0, f64::NAN), (3.0, 2.0), (4.0, 4.0)];
        let got = smooth(&raw, 0.5);
        // By hand, n=1: last = 2, /0.5 = 4; n=2: last = 1 + 1 = 2, /0.75 = 8/3;
        // n=3: last = 1 + 2 = 3, /0.875 = 24/7.
        let want = [(1.0, 4.0), (3.0, 8.0 / 3.0), (4.0, 24.0 / 7.0)];
        assert_eq!(got.len(), 3, "the NaN point is left out");
        for ((x, y), (wx, wy)) in got.iter().zip(want) {
            assert_eq!(*x, wx);
            assert!((y - wy).abs() < 1e-12, "{y} vs {wy}");
        }
        let flat = smooth(&[(1.0, 7.0), (2.0, 7.0), (3.0, 7.0)], 0.9);
        assert!(
            flat.iter().all(|&(_, y)| (y - 7.0).abs() < 1e-12),
            "a constant stays put"
        );
        assert_eq!(smooth(&raw, 0.0).len(), 3);
    }
}
