//! A computed 2-D layout of words: where each point lies, how it was made,
//! and what the view draws with it (labels, colour groups, axes, focus, a
//! UBE sphere, two runs on shared axes). The workbench shows it, exports
//! it ([`Layout::save`]), and a session keeps it so the Projection screen
//! reopens as it was.

use std::path::Path;

use ndarray::Array2;
use serde::{Deserialize, Serialize};

use super::export::write_csv;
use super::plot::{self, ImageFormat, Plot};
use crate::{Error, Result};

/// A computed 2-D layout.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Layout {
    /// The run projected.
    pub run: usize,
    /// `pca`, `tsne`, `isomap`, `lle`, `laplacian` or `ube`.
    pub method: String,
    /// The words, in the order of `coords`.
    pub words: Vec<String>,
    /// Coordinates.
    pub coords: Vec<[f64; 2]>,
    /// Words labelled (the first `labels` words).
    pub labels: usize,
    /// One line describing how it was made.
    pub description: String,
    /// Colour groups (k-means clusters of the vectors).
    pub groups: Option<super::select::Groups>,
    /// Axis names (PCA's components), none for t-SNE.
    pub axes: Option<(String, String)>,
    /// The word the neighbourhood was asked around (highlighted).
    pub focus: Option<usize>,
    /// What was projected, for plot subtitles: `#1 sgns dim=50, 50-d vectors`.
    pub source: String,
    /// The points on the unit sphere (UBE), in the order of `words`: what a
    /// CSV export writes (`word,x,y,z`); `coords` is their equal-area map as
    /// the view is turned.
    pub sphere: Option<Vec<[f64; 3]>>,
    /// Runs A and B on shared axes: the first `pair.a_points` points are
    /// A's, the rest the same words in B rotated onto A.
    pub pair: Option<PairLayout>,
}

/// Two runs laid out together after Procrustes alignment of B onto A.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairLayout {
    /// Run B's index.
    pub b_run: usize,
    /// Points of run A (B's follow, one per word in the same order).
    pub a_points: usize,
    /// Words the rotation was fitted on.
    pub shared: usize,
    /// Mean cosine of a shared word's two vectors after alignment.
    pub mean_cosine: f64,
    /// The shared words whose two vectors agree least, lowest first.
    pub moved: Vec<(String, f64)>,
}

/// The mark after a word's name on run B's points of a pair layout.
pub const B_MARK: char = '\u{2032}';

impl Layout {
    /// A layout of run `run`'s `words` at `coords`, every word labelled and
    /// nothing else set (colours, axes, focus, sphere, pair).
    pub fn new(run: usize, method: &str, words: Vec<String>, coords: Vec<[f64; 2]>) -> Layout {
        Layout {
            run,
            method: method.to_string(),
            labels: words.len(),
            words,
            coords,
            description: String::new(),
            groups: None,
            axes: None,
            focus: None,
            source: String::new(),
            sphere: None,
            pair: None,
        }
    }

    /// Writes the layout as PNG, SVG or CSV by the path's extension: images
    /// show the map on screen; a sphere's CSV holds its points (`word,x,y,z`,
    /// as `wordbench project --method ube` writes), other CSVs the 2-D layout.
    pub fn save(&self, path: &Path) -> Result<()> {
        let coords = Array2::from_shape_fn((self.coords.len(), 2), |(i, d)| self.coords[i][d]);
        if let Some(format) = ImageFormat::from_path(path) {
            let mut p = Plot::new(&self.words, coords.view());
            p.groups = self.groups.as_ref();
            p.title = self.description.clone();
            p.subtitle = format!("{} words of run {}", self.words.len(), self.source);
            if let Some(g) = self.groups.as_ref().filter(|g| !g.named) {
                p.subtitle
                    .push_str(&format!("; colours: k-means, {} clusters", g.names.len()));
            }
            p.axes = self.axes.clone();
            return plot::save(path, &p, format);
        }
        match path.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("csv") => {
                let coords = match &self.sphere {
                    Some(points) => Array2::from_shape_fn((points.len(), 3), |(i, d)| points[i][d]),
                    None => coords,
                };
                write_csv(path, &self.words, coords.view(), self.groups.as_ref())
            }
            _ => Err(Error::param(
                "path",
                format!("{} (expected a .png, .svg or .csv file)", path.display()),
            )),
        }
    }

    /// The word a point stands for (run B's points without their mark).
    pub fn word_of(&self, point: usize) -> &str {
        let w = &self.words[point];
        match &self.pair {
            Some(p) if point >= p.a_points => w.strip_suffix(B_MARK).unwrap_or(w),
            _ => w,
        }
    }
}
