//! A sweep's metric against one swept hyperparameter as a PNG or SVG image
//! (the HParams screen's chart, for a report): every run a dot labelled
//! with its number, pruned runs grey, the best finished run green.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::spec::Metric;
use super::table::Row;
use crate::project::font::{ensure_font, FAMILY};
use crate::project::plot::ImageFormat;
use crate::{atomic, Error, Result};

/// What the chart shows.
#[derive(Debug, Clone)]
pub struct Chart<'a> {
    /// The sweep's rows.
    pub rows: &'a [Row],
    /// Name of the swept value on the x axis.
    pub name: &'a str,
    /// Its place among the rows' values.
    pub axis: usize,
    /// Drawn on a log scale (a `:log` range).
    pub log: bool,
    /// The y axis.
    pub metric: &'a Metric,
    /// First line of the image.
    pub title: String,
}

/// A [`Chart`] that owns what it shows, to hand to a thread (the
/// workbench's export).
#[derive(Debug, Clone)]
pub struct ChartData {
    /// The sweep's rows.
    pub rows: Vec<Row>,
    /// Name of the swept value on the x axis.
    pub name: String,
    /// Its place among the rows' values.
    pub axis: usize,
    /// Drawn on a log scale.
    pub log: bool,
    /// The y axis.
    pub metric: Metric,
    /// First line of the image.
    pub title: String,
}

impl ChartData {
    /// The chart, borrowing this data.
    pub fn chart(&self) -> Chart<'_> {
        Chart {
            rows: &self.rows,
            name: &self.name,
            axis: self.axis,
            log: self.log,
            metric: &self.metric,
            title: self.title.clone(),
        }
    }
}

/// Image size in pixels.
const SIZE: (u32, u32) = (1200, 800);

/// Renders `chart` and writes it to `path` atomically, as `format`.
pub fn save(path: &Path, chart: &Chart<'_>, format: ImageFormat) -> Result<()> {
    ensure_font()?;
    let bytes = match format {
        ImageFormat::Svg => {
            let mut svg = String::new();
            {
                let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
                draw(&root, chart).map_err(|e| Error::format(path, e))?;
                root.present()
                    .map_err(|e| Error::format(path, e.to_string()))?;
            }
            svg.into_bytes()
        }
        ImageFormat::Png => {
            let mut rgb = vec![255u8; SIZE.0 as usize * SIZE.1 as usize * 3];
            {
                let root = BitMapBackend::with_buffer(&mut rgb, SIZE).into_drawing_area();
                draw(&root, chart).map_err(|e| Error::format(path, e))?;
                root.present()
                    .map_err(|e| Error::format(path, e.to_string()))?;
            }
            crate::project::plot::encode_png(&rgb, SIZE).map_err(|e| Error::format(path, e))?
        }
    };
    atomic::write_bytes(path, &bytes)
}

/// Where row `i` sits on the x axis: its value (log10 on a log scale), or
/// for a choice its place among the values seen, with the category names.
fn x_of(chart: &Chart<'_>) -> (Vec<Option<f64>>, Vec<String>) {
    let texts: Vec<&str> = chart
        .rows
        .iter()
        .map(|r| r.values.get(chart.axis).map_or("", String::as_str))
        .collect();
    if texts.iter().all(|t| t.parse::<f64>().is_ok()) {
        let xs = texts
            .iter()
            .map(|t| t.parse::<f64>().ok())
            .map(|v| v.map(|v| if chart.log && v > 0.0 { v.log10() } else { v }))
            .collect();
        return (xs, Vec::new());
    }
    let mut names: Vec<String> = texts.iter().map(|t| t.to_string()).collect();
    names.sort();
    names.dedup();
    let xs = texts
        .iter()
        .map(|t| names.iter().position(|n| n == t).map(|p| p as f64))
        .collect();
    (xs, names)
}

fn span(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
        (l.min(v), h.max(v))
    });
    if !lo.is_finite() {
        return None;
    }
    let pad = ((hi - lo) * 0.08).max(hi.abs() * 0.02).max(1e-6);
    Some((lo - pad, hi + pad))
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &Chart<'_>,
) -> std::result::Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(err)?;
    let (xs, categories) = x_of(chart);
    let points: Vec<(usize, f64, f64)> = chart
        .rows
        .iter()
        .enumerate()
        .filter_map(|(i, r)| Some((i, xs[i]?, r.value(chart.metric)?)))
        .collect();
    let (Some(xr), Some(yr)) = (
        span(points.iter().map(|p| p.1)),
        span(points.iter().map(|p| p.2)),
    ) else {
        return Err(format!(
            "no run has both {} and {}",
            chart.name, chart.metric
        ));
    };
    let best = super::table::ranked(chart.rows, chart.metric)
        .first()
        .copied()
        .filter(|&i| chart.rows[i].status == "finished");
    let log = chart.log;
    let x_label = move |v: &f64| tick(if log { 10f64.powf(*v) } else { *v });
    let cat_label = |v: &f64| {
        let k = v.round();
        if (v - k).abs() < 1e-6 && k >= 0.0 {
            categories.get(k as usize).cloned().unwrap_or_default()
        } else {
            String::new()
        }
    };
    let mut plot = ChartBuilder::on(root)
        .caption(&chart.title, (FAMILY, 24))
        .margin(24)
        .x_label_area_size(50)
        .y_label_area_size(80)
        .build_cartesian_2d(xr.0..xr.1, yr.0..yr.1)
        .map_err(err)?;
    let x_desc = if log {
        format!("{} (log scale)", chart.name)
    } else {
        chart.name.to_string()
    };
    let mut mesh = plot.configure_mesh();
    mesh.x_desc(x_desc)
        .y_desc(chart.metric.to_string())
        .label_style((FAMILY, 15))
        .light_line_style(RGBColor(235, 235, 235));
    if categories.is_empty() {
        mesh.x_label_formatter(&x_label).draw().map_err(err)?;
    } else {
        mesh.x_labels(categories.len() * 2 + 1)
            .x_label_formatter(&cat_label)
            .draw()
            .map_err(err)?;
    }
    let style = |i: usize| -> (RGBColor, u32) {
        if Some(i) == best {
            (RGBColor(20, 150, 60), 9)
        } else if chart.rows[i].status == "finished" {
            (RGBColor(40, 90, 200), 6)
        } else {
            (RGBColor(160, 160, 160), 6)
        }
    };
    let label = TextStyle::from((FAMILY, 14).into_font()).color(&RGBColor(60, 60, 60));
    plot.draw_series(points.iter().map(|&(i, x, y)| {
        let (c, r) = style(i);
        let text = chart.rows[i]
            .number
            .map_or(String::new(), |n| format!("#{n}"));
        EmptyElement::at((x, y))
            + Circle::new((0, 0), r, c.filled())
            + Text::new(text, (r as i32 + 4, -7), label.clone())
    }))
    .map_err(err)?;
    Ok(())
}

/// A tick value without trailing zeros: `2`, `0.25`, `1e-05` stays short.
fn tick(v: f64) -> String {
    let t = format!("{v:.4}");
    let t = t.trim_end_matches('0').trim_end_matches('.');
    match t {
        "-0" | "" => "0".into(),
        t if t.len() > 8 => format!("{v:.2e}"),
        t => t.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(n: u32, window: &str, simlex: f64, status: &'static str) -> Row {
        let mut r = Row::skipped(vec![window.to_string()]);
        r.number = Some(n);
        r.status = status;
        r.similarity = vec![("simlex999".into(), Some(simlex))];
        r
    }

    #[test]
    fn the_chart_is_written_as_svg_with_its_labels_and_png_with_ink() {
        let rows = vec![
            row(1, "2", 0.19, "finished"),
            row(2, "5", 0.23, "finished"),
            row(3, "10", 0.20, "pruned"),
        ];
        let metric = Metric::Similarity("simlex999".into());
        let chart = Chart {
            rows: &rows,
            name: "window",
            axis: 0,
            log: false,
            metric: &metric,
            title: "sgns sweep".into(),
        };
        let dir = tempfile::tempdir().unwrap();
        let svg = dir.path().join("c.svg");
        save(&svg, &chart, ImageFormat::Svg).unwrap();
        let text = std::fs::read_to_string(&svg).unwrap();
        for needle in ["sgns sweep", "#1", "#2", "#3", "window", "simlex999"] {
            assert!(text.contains(needle), "{needle} missing");
        }
        // The best finished run (#2) is the green one.
        assert!(
            text.contains("#149641") || text.contains("rgb(20,150,60)") || text.contains("#14963C"),
            "green dot"
        );
        let png = dir.path().join("c.png");
        save(&png, &chart, ImageFormat::Png).unwrap();
        let bytes = std::fs::read(&png).unwrap();
        assert_eq!(&bytes[1..4], b"PNG");
        let empty: Vec<Row> = vec![Row::skipped(vec!["2".into()])];
        let none = Chart {
            rows: &empty,
            ..chart
        };
        let e = save(&dir.path().join("x.svg"), &none, ImageFormat::Svg).unwrap_err();
        assert!(e.to_string().contains("no run has both"), "{e}");
        assert!(!dir.path().join("x.svg").exists(), "nothing written");
    }

    #[test]
    fn choices_are_placed_as_categories_and_log_ranges_as_exponents() {
        let rows = vec![
            row(1, "exact", 0.1, "finished"),
            row(2, "table", 0.2, "finished"),
        ];
        let metric = Metric::Similarity("simlex999".into());
        let mut chart = Chart {
            rows: &rows,
            name: "sigmoid",
            axis: 0,
            log: false,
            metric: &metric,
            title: String::new(),
        };
        let (xs, names) = x_of(&chart);
        assert_eq!(
            (xs, names),
            (
                vec![Some(0.0), Some(1.0)],
                vec!["exact".to_string(), "table".to_string()]
            )
        );
        let rows = vec![
            row(1, "0.001", 0.1, "finished"),
            row(2, "0.1", 0.2, "finished"),
        ];
        chart.rows = &rows;
        chart.log = true;
        let (xs, _) = x_of(&chart);
        assert!((xs[0].unwrap() + 3.0).abs() < 1e-12 && (xs[1].unwrap() + 1.0).abs() < 1e-12);
        assert_eq!([tick(2.0), tick(0.25), tick(-0.00001)], ["2", "0.25", "0"]);
    }
}
