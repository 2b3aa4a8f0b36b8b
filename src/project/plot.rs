//! Scatter plots of projected words, as PNG or SVG (plotters).
//!
//! The point of the picture is reading words, so labels get the care: each
//! word is tried right, left, above and below its point and placed only where
//! it overlaps no label already placed, in selection order (the most frequent
//! or most relevant words first). Dense plots thus stay readable, and every
//! point is still drawn. The layout keeps equal scales on both axes (t-SNE
//! and PCA distances are isotropic). The title states the method and its
//! settings; the subtitle what was plotted.
//!
//! Rendering happens in memory; the file is written atomically.

use std::path::Path;

use ndarray::ArrayView2;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::FontTransform;

use super::font::{ensure_font, FAMILY};
use super::select::Groups;
use crate::atomic;
use crate::{Error, Result};

/// Colours of groups (Tableau 20 order: strong colours first); cycled past 20.
const PALETTE: [(u8, u8, u8); 20] = [
    (31, 119, 180),
    (255, 127, 14),
    (44, 160, 44),
    (214, 39, 40),
    (148, 103, 189),
    (140, 86, 75),
    (227, 119, 194),
    (127, 127, 127),
    (188, 189, 34),
    (23, 190, 207),
    (174, 199, 232),
    (255, 187, 120),
    (152, 223, 138),
    (255, 152, 150),
    (197, 176, 213),
    (196, 156, 148),
    (247, 182, 210),
    (199, 199, 199),
    (219, 219, 141),
    (158, 218, 229),
];

/// Colour for ungrouped points.
const DEFAULT_COLOUR: (u8, u8, u8) = (31, 119, 180);
/// Room at the top for the title and subtitle, in pixels.
const HEADER: i32 = 64;
/// Margin around the plot frame.
const MARGIN: i32 = 24;
/// Point radius.
const RADIUS: i32 = 3;
/// Side of the cells of the label-collision grid.
const CELL: i32 = 48;

/// What to draw.
#[derive(Debug, Clone)]
pub struct Plot<'a> {
    /// One label per point.
    pub words: &'a [String],
    /// `n × 2` coordinates.
    pub coords: ArrayView2<'a, f64>,
    /// Colour groups, if any.
    pub groups: Option<&'a Groups>,
    /// First line: the method and its settings.
    pub title: String,
    /// Second line: what was plotted.
    pub subtitle: String,
    /// Axis names (e.g. "PC1 (12.3%)"), or none for t-SNE.
    pub axes: Option<(String, String)>,
    /// Image size in pixels.
    pub size: (u32, u32),
    /// Label font size in pixels.
    pub label_size: f64,
}

impl<'a> Plot<'a> {
    /// A plot with default size (1600 × 1200) and label size (14 px).
    pub fn new(words: &'a [String], coords: ArrayView2<'a, f64>) -> Self {
        Plot {
            words,
            coords,
            groups: None,
            title: String::new(),
            subtitle: String::new(),
            axes: None,
            size: (1600, 1200),
            label_size: 14.0,
        }
    }
}

/// Output formats of [`save`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageFormat {
    /// PNG raster.
    Png,
    /// SVG vector image.
    Svg,
}

impl ImageFormat {
    /// The format a file name asks for (by extension), if any.
    pub fn from_path(path: &Path) -> Option<ImageFormat> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "png" => Some(ImageFormat::Png),
            "svg" => Some(ImageFormat::Svg),
            _ => None,
        }
    }
}

/// Renders and writes `plot` to `path` atomically.
pub fn save(path: &Path, plot: &Plot<'_>, format: ImageFormat) -> Result<()> {
    let bytes = match format {
        ImageFormat::Png => render_png(plot),
        ImageFormat::Svg => render_svg(plot).map(String::into_bytes),
    }
    .map_err(|e| Error::format(path, format!("cannot draw the plot: {e}")))?;
    atomic::write_bytes(path, &bytes)
}

/// The plot as PNG bytes.
pub fn render_png(plot: &Plot<'_>) -> std::result::Result<Vec<u8>, String> {
    ensure_font().map_err(|e| e.to_string())?;
    let (w, h) = plot.size;
    let mut rgb = vec![255u8; w as usize * h as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area();
        draw(&root, plot)?;
        root.present().map_err(|e| e.to_string())?;
    }
    encode_png(&rgb, (w, h))
}

/// RGB pixels (row-major, 3 bytes each) of an image of `size` as PNG bytes.
pub fn encode_png(rgb: &[u8], size: (u32, u32)) -> std::result::Result<Vec<u8>, String> {
    let mut png_bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut png_bytes, size.0, size.1);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(|e| e.to_string())?;
    writer.write_image_data(rgb).map_err(|e| e.to_string())?;
    writer.finish().map_err(|e| e.to_string())?;
    Ok(png_bytes)
}

/// The plot as an SVG document.
pub fn render_svg(plot: &Plot<'_>) -> std::result::Result<String, String> {
    ensure_font().map_err(|e| e.to_string())?;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, plot.size).into_drawing_area();
        draw(&root, plot)?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}

/// Maps data coordinates to pixels inside a frame, equal scale on both axes.
struct Frame {
    x0: i32,
    y0: i32,
    x1: i32,
    y1: i32,
    centre: (f64, f64),
    scale: f64,
}

impl Frame {
    fn fit(coords: ArrayView2<'_, f64>, x0: i32, y0: i32, x1: i32, y1: i32) -> Frame {
        let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
        for row in coords.rows() {
            for d in 0..2 {
                if row[d].is_finite() {
                    lo[d] = lo[d].min(row[d]);
                    hi[d] = hi[d].max(row[d]);
                }
            }
        }
        if lo[0] > hi[0] {
            (lo, hi) = ([-1.0; 2], [1.0; 2]);
        }
        let span = |d: usize| (hi[d] - lo[d]).max(1e-12);
        // Inner padding leaves room for the labels of points on the edges.
        let (w, h) = (f64::from(x1 - x0) * 0.9, f64::from(y1 - y0) * 0.94);
        Frame {
            x0,
            y0,
            x1,
            y1,
            centre: (0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1])),
            scale: (w / span(0)).min(h / span(1)),
        }
    }

    /// The data coordinates at a pixel (the inverse of [`Frame::pixel`]).
    fn value(&self, px: i32, py: i32) -> (f64, f64) {
        let cx = f64::from(self.x0 + self.x1) / 2.0;
        let cy = f64::from(self.y0 + self.y1) / 2.0;
        (
            self.centre.0 + (f64::from(px) - cx) / self.scale,
            self.centre.1 - (f64::from(py) - cy) / self.scale,
        )
    }

    fn pixel(&self, x: f64, y: f64) -> (i32, i32) {
        let cx = f64::from(self.x0 + self.x1) / 2.0;
        let cy = f64::from(self.y0 + self.y1) / 2.0;
        (
            (cx + (x - self.centre.0) * self.scale).round() as i32,
            (cy - (y - self.centre.1) * self.scale).round() as i32,
        )
    }
}

fn colour(groups: Option<&Groups>, i: usize) -> RGBColor {
    let (r, g, b) = groups.map_or(DEFAULT_COLOUR, |g| PALETTE[g.labels[i] % PALETTE.len()]);
    RGBColor(r, g, b)
}

/// Darker shade of a colour for label text.
fn darker(c: RGBColor) -> RGBColor {
    let f = |v: u8| (f64::from(v) * 0.55) as u8;
    RGBColor(f(c.0), f(c.1), f(c.2))
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    plot: &Plot<'_>,
) -> std::result::Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(err)?;
    let (w, h) = (plot.size.0 as i32, plot.size.1 as i32);
    let title = TextStyle::from((FAMILY, 22.0).into_font()).color(&BLACK);
    let subtitle = TextStyle::from((FAMILY, 16.0).into_font()).color(&RGBColor(90, 90, 90));
    root.draw_text(&plot.title, &title, (MARGIN, 10))
        .map_err(err)?;
    root.draw_text(&plot.subtitle, &subtitle, (MARGIN, 38))
        .map_err(err)?;
    let bottom = if plot.axes.is_some() {
        h - MARGIN - 20
    } else {
        h - MARGIN
    };
    let left = if plot.axes.is_some() {
        MARGIN + 20
    } else {
        MARGIN
    };
    let frame = Frame::fit(plot.coords, left, HEADER, w - MARGIN, bottom);
    root.draw(&Rectangle::new(
        [(frame.x0, frame.y0), (frame.x1, frame.y1)],
        RGBColor(200, 200, 200).stroke_width(1),
    ))
    .map_err(err)?;
    if let Some((x_name, y_name)) = &plot.axes {
        let axis = TextStyle::from((FAMILY, 15.0).into_font()).color(&RGBColor(60, 60, 60));
        root.draw_text(x_name, &axis, ((frame.x0 + frame.x1) / 2, frame.y1 + 4))
            .map_err(err)?;
        let rotated = axis.transform(FontTransform::Rotate270);
        root.draw_text(y_name, &rotated, (MARGIN - 4, (frame.y0 + frame.y1) / 2))
            .map_err(err)?;
        draw_ticks(root, &frame)?;
    }
    let pixels: Vec<(i32, i32)> = plot
        .coords
        .rows()
        .into_iter()
        .map(|r| frame.pixel(r[0], r[1]))
        .collect();
    for (i, &p) in pixels.iter().enumerate() {
        let c = colour(plot.groups, i);
        root.draw(&Circle::new(p, RADIUS, c.mix(0.85).filled()))
            .map_err(err)?;
    }
    draw_labels(root, plot, &frame, &pixels)?;
    if let Some(groups) = plot.groups.filter(|g| g.named) {
        draw_legend(root, groups, &frame)?;
    }
    Ok(())
}

/// Tick marks and values inside the frame's bottom and left edges (PCA's
/// axes have units: the components' coordinates).
fn draw_ticks<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    frame: &Frame,
) -> std::result::Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let style = TextStyle::from((FAMILY, 12.0).into_font()).color(&RGBColor(110, 110, 110));
    let grey = RGBColor(170, 170, 170);
    let (lo, hi) = (
        frame.value(frame.x0, frame.y1),
        frame.value(frame.x1, frame.y0),
    );
    for x in ticks(lo.0, hi.0) {
        let (px, _) = frame.pixel(x, lo.1);
        root.draw(&PathElement::new(
            [(px, frame.y1), (px, frame.y1 - 6)],
            grey,
        ))
        .map_err(err)?;
        root.draw_text(&tick_text(x), &style, (px + 2, frame.y1 - 18))
            .map_err(err)?;
    }
    for y in ticks(lo.1, hi.1) {
        let (_, py) = frame.pixel(lo.0, y);
        root.draw(&PathElement::new(
            [(frame.x0, py), (frame.x0 + 6, py)],
            grey,
        ))
        .map_err(err)?;
        root.draw_text(&tick_text(y), &style, (frame.x0 + 8, py - 6))
            .map_err(err)?;
    }
    Ok(())
}

/// About six round values between `lo` and `hi`.
fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    let span = hi - lo;
    if !(span > 0.0 && span.is_finite()) {
        return Vec::new();
    }
    let raw = span / 6.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * mag)
        .find(|&s| s >= raw)
        .unwrap_or(10.0 * mag);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|k| k as f64 * step).collect()
}

fn tick_text(v: f64) -> String {
    let t = format!("{v:.3}");
    let t = t.trim_end_matches('0').trim_end_matches('.');
    if t == "-0" {
        "0".into()
    } else {
        t.to_string()
    }
}

/// Places labels greedily, in point order, where they overlap nothing placed.
fn draw_labels<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    plot: &Plot<'_>,
    frame: &Frame,
    pixels: &[(i32, i32)],
) -> std::result::Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let font = (FAMILY, plot.label_size).into_font();
    let mut placed = LabelGrid::new(frame);
    // Points are obstacles too: a label never covers another word's point,
    // so dense regions thin their labels instead of overprinting dots.
    let mut points = LabelGrid::new(frame);
    for &(px, py) in pixels {
        points.insert(px - RADIUS, py - RADIUS, 2 * RADIUS, 2 * RADIUS);
    }
    for (i, (&(px, py), word)) in pixels.iter().zip(plot.words).enumerate() {
        let (tw, th) = root
            .estimate_text_size(word, &TextStyle::from(font.clone()))
            .map_err(err)?;
        let (tw, th) = (tw as i32, th as i32);
        let gap = RADIUS + 2;
        let candidates = [
            (px + gap, py - th / 2),
            (px - gap - tw, py - th / 2),
            (px - tw / 2, py - gap - th),
            (px - tw / 2, py + gap),
        ];
        // Boxes keep a pixel of air so two labels never read as one word.
        let (pad, own) = (2, (px - RADIUS, py - RADIUS, 2 * RADIUS, 2 * RADIUS));
        let spot = candidates.into_iter().find(|&(x, y)| {
            x >= frame.x0
                && y >= frame.y0
                && x + tw <= frame.x1
                && y + th <= frame.y1
                && placed.free(x - pad, y - pad, tw + 2 * pad, th + 2 * pad)
                && points.free_except(x, y, tw, th, own)
        });
        if let Some((x, y)) = spot {
            placed.insert(x - pad, y - pad, tw + 2 * pad, th + 2 * pad);
            let ink = darker(colour(plot.groups, i));
            let style = TextStyle::from(font.clone()).color(&ink);
            root.draw_text(word, &style, (x, y)).map_err(err)?;
        }
    }
    Ok(())
}

/// Legend of named groups in the frame's top-right corner.
fn draw_legend<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    groups: &Groups,
    frame: &Frame,
) -> std::result::Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let style = TextStyle::from((FAMILY, 15.0).into_font()).color(&BLACK);
    let shown = groups.names.len().min(PALETTE.len());
    let width = groups.names[..shown]
        .iter()
        .map(|n| root.estimate_text_size(n, &style).map(|s| s.0 as i32))
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(err)?
        .into_iter()
        .max()
        .unwrap_or(0)
        + 36;
    let (x, y) = (frame.x1 - width - 8, frame.y0 + 8);
    root.draw(&Rectangle::new(
        [(x, y), (x + width, y + 22 * shown as i32 + 8)],
        WHITE.mix(0.85).filled(),
    ))
    .map_err(err)?;
    for (k, name) in groups.names[..shown].iter().enumerate() {
        let (r, g, b) = PALETTE[k];
        let row = y + 8 + 22 * k as i32;
        root.draw(&Circle::new(
            (x + 14, row + 8),
            6,
            RGBColor(r, g, b).filled(),
        ))
        .map_err(err)?;
        root.draw_text(name, &style, (x + 28, row)).map_err(err)?;
    }
    Ok(())
}

/// Placed label boxes, bucketed by grid cell for quick overlap tests.
struct LabelGrid {
    x0: i32,
    y0: i32,
    cols: i32,
    rows: i32,
    cells: Vec<Vec<(i32, i32, i32, i32)>>,
}

impl LabelGrid {
    fn new(frame: &Frame) -> Self {
        let cols = (frame.x1 - frame.x0) / CELL + 1;
        let rows = (frame.y1 - frame.y0) / CELL + 1;
        LabelGrid {
            x0: frame.x0,
            y0: frame.y0,
            cols,
            rows,
            cells: vec![Vec::new(); (cols * rows) as usize],
        }
    }

    /// Cell indices covered by a box.
    fn cells_of(&self, x: i32, y: i32, w: i32, h: i32) -> impl Iterator<Item = usize> + '_ {
        let c0 = ((x - self.x0) / CELL).clamp(0, self.cols - 1);
        let c1 = ((x + w - self.x0) / CELL).clamp(0, self.cols - 1);
        let r0 = ((y - self.y0) / CELL).clamp(0, self.rows - 1);
        let r1 = ((y + h - self.y0) / CELL).clamp(0, self.rows - 1);
        (r0..=r1).flat_map(move |r| (c0..=c1).map(move |c| (r * self.cols + c) as usize))
    }

    fn free(&self, x: i32, y: i32, w: i32, h: i32) -> bool {
        self.cells_of(x, y, w, h).all(|c| {
            self.cells[c]
                .iter()
                .all(|&(bx, by, bw, bh)| x + w <= bx || bx + bw <= x || y + h <= by || by + bh <= y)
        })
    }

    /// Whether a box overlaps nothing but `own` (a label's own point).
    fn free_except(&self, x: i32, y: i32, w: i32, h: i32, own: (i32, i32, i32, i32)) -> bool {
        self.cells_of(x, y, w, h).all(|c| {
            self.cells[c].iter().all(|&b| {
                let (bx, by, bw, bh) = b;
                b == own || x + w <= bx || bx + bw <= x || y + h <= by || by + bh <= y
            })
        })
    }

    fn insert(&mut self, x: i32, y: i32, w: i32, h: i32) {
        let cells: Vec<usize> = self.cells_of(x, y, w, h).collect();
        for c in cells {
            self.cells[c].push((x, y, w, h));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    fn words() -> Vec<String> {
        ["king", "queen", "a&b<c>", "far"]
            .map(String::from)
            .to_vec()
    }

    #[test]
    fn svg_has_title_labels_and_escaped_text() {
        let words = words();
        let coords = array![[0.0, 0.0], [1.0, 0.5], [-1.0, 2.0], [5.0, -3.0]];
        let groups =
            Groups::from_names(&["royal".into(), "royal".into(), "odd".into(), "odd".into()]);
        let mut plot = Plot::new(&words, coords.view());
        plot.groups = Some(&groups);
        plot.title = "t-SNE: perplexity 30".into();
        plot.subtitle = "4 words".into();
        plot.size = (600, 400);
        let svg = render_svg(&plot).unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..60.min(svg.len())]);
        for text in [
            "t-SNE: perplexity 30",
            "king",
            "queen",
            "a&amp;b&lt;c&gt;",
            "far",
            "royal",
            "odd",
        ] {
            assert!(
                svg.contains(&format!(">\n{text}\n</text>")),
                "missing {text}"
            );
        }
        assert_eq!(
            svg.matches("<circle").count(),
            4 + 2,
            "points and legend marks"
        );
    }

    #[test]
    fn png_is_written_atomically_with_ink_on_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("plot.png");
        let words = words();
        let coords = array![[0.0, 0.0], [1.0, 0.5], [-1.0, 2.0], [5.0, -3.0]];
        let mut plot = Plot::new(&words, coords.view());
        plot.size = (320, 240);
        plot.axes = Some(("PC1".into(), "PC2".into()));
        assert_eq!(ImageFormat::from_path(&path), Some(ImageFormat::Png));
        save(&path, &plot, ImageFormat::Png).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[1..4], b"PNG");
        let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        reader.next_frame(&mut buf).unwrap();
        assert_eq!((reader.info().width, reader.info().height), (320, 240));
        let dark = buf.chunks(3).filter(|p| p.iter().all(|&v| v < 100)).count();
        assert!(dark > 50, "text was drawn ({dark} dark pixels)");
    }

    #[test]
    fn overlapping_labels_are_skipped_not_stacked() {
        let words: Vec<String> = (0..50).map(|i| format!("word{i}")).collect();
        let coords = ndarray::Array2::zeros((50, 2));
        let mut plot = Plot::new(&words, coords.view());
        plot.size = (400, 300);
        let svg = render_svg(&plot).unwrap();
        let labels = svg.matches(">\nword").count();
        assert!((1..=4).contains(&labels), "{labels} labels on one spot");
        assert!(svg.contains(">\nword0\n<"), "the first word wins");
        assert_eq!(
            ImageFormat::from_path(Path::new("x.SVG")),
            Some(ImageFormat::Svg)
        );
        assert_eq!(ImageFormat::from_path(Path::new("x.csv")), None);
    }

    #[test]
    fn ticks_are_round_and_inside_the_range() {
        assert_eq!(
            ticks(-0.13, 0.42),
            [-0.1, 0.0, 0.1, 0.2, 0.30000000000000004, 0.4]
        );
        assert_eq!(ticks(0.0, 10.0), [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert!(ticks(1.0, 1.0).is_empty());
        assert_eq!(tick_text(0.30000000000000004), "0.3");
        assert_eq!(tick_text(-0.0), "0");
    }

    #[test]
    fn labels_never_cover_another_point() {
        let mut grid = LabelGrid::new(&Frame {
            x0: 0,
            y0: 0,
            x1: 500,
            y1: 500,
            centre: (0.0, 0.0),
            scale: 1.0,
        });
        let own = (10, 10, 6, 6);
        grid.insert(own.0, own.1, own.2, own.3);
        grid.insert(40, 12, 6, 6);
        assert!(grid.free_except(5, 5, 20, 20, own), "its own point only");
        assert!(
            !grid.free_except(20, 10, 30, 10, own),
            "covers the other point"
        );
    }
}
