//! A computed layout of words: where each point lies on the screen, how it
//! was made, and what the view draws with it (labels, colour groups, axes,
//! focus, a UBE sphere or a 3-D cloud turned by the view, two runs on shared
//! axes). The workbench shows it, exports it ([`Layout::save`]), and a
//! session keeps it so the Projection screen reopens as it was.

use std::path::Path;

use ndarray::Array2;
use serde::{Deserialize, Serialize};

use super::export::write_csv;
use super::plot::{self, ImageFormat, Plot};
use crate::geometry::ube::sphere::Matrix3;
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
    /// The points of a 3-D layout (PCA, t-SNE or UMAP with 3 dimensions),
    /// in the order of `words`: what a CSV export writes (`word,x,y,z`);
    /// `coords` is their orthographic picture as the view is turned. Never
    /// set together with `sphere`.
    #[serde(default)]
    pub cloud: Option<Vec<[f64; 3]>>,
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
            cloud: None,
            pair: None,
        }
    }

    /// Whether the layout is in 3-D (a sphere or a cloud), so the view turns it.
    pub fn turns(&self) -> bool {
        self.sphere.is_some() || self.cloud.is_some()
    }

    /// Draws a 3-D layout again as seen after the turn `t`
    /// ([`crate::geometry::ube::sphere::turn`]): a sphere through its equal-area map,
    /// a cloud orthographically. A 2-D layout is left as it is.
    pub fn turn_to(&mut self, t: &Matrix3) {
        if let Some(points) = &self.sphere {
            let rows = Array2::from_shape_fn((points.len(), 3), |(i, d)| points[i][d]);
            let map = super::ube::picture_turned(rows.view(), t);
            self.coords = map.rows().into_iter().map(|r| [r[0], r[1]]).collect();
        } else if let Some(points) = &self.cloud {
            self.coords = cloud_picture(points, t);
        }
    }

    /// Writes the layout as PNG, SVG or CSV by the path's extension: images
    /// show the picture on screen; a sphere's or a cloud's CSV holds its 3-D
    /// points (`word,x,y,z`, as `wordbench project --dims 3` writes), other
    /// CSVs the 2-D layout.
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
                let coords = match self.sphere.as_ref().or(self.cloud.as_ref()) {
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

/// The orthographic picture of 3-D `points` seen after the turn `t`: the
/// points about their mean, in the turned frame whose rows are (depth,
/// right, up). The identity looks down the third axis, so the picture is
/// the first two coordinates (PCA's first two components), as in 2-D.
pub fn cloud_picture(points: &[[f64; 3]], t: &Matrix3) -> Vec<[f64; 2]> {
    let n = points.len().max(1) as f64;
    let mut mean = [0.0; 3];
    for p in points {
        for d in 0..3 {
            mean[d] += p[d] / n;
        }
    }
    // Unturned frame: depth along z, right along x, up along y.
    const BASE: Matrix3 = [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    let f = crate::geometry::ube::sphere::compose(t, &BASE);
    let along = |row: &[f64; 3], p: &[f64; 3]| (0..3).map(|d| row[d] * (p[d] - mean[d])).sum();
    points
        .iter()
        .map(|p| [along(&f[1], p), along(&f[2], p)])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::ube::sphere::{compose, turn, IDENTITY};

    fn cloud() -> Vec<[f64; 3]> {
        vec![
            [1.0, 0.0, 0.0],
            [0.0, 2.0, 0.0],
            [0.0, 0.0, 3.0],
            [-1.0, -2.0, -3.0],
        ]
    }

    #[test]
    fn an_unturned_cloud_is_its_first_two_coordinates_about_the_mean() {
        let points = cloud();
        let pic = cloud_picture(&points, &IDENTITY);
        // The mean is 0, so the picture is (x, y).
        let want: Vec<[f64; 2]> = points.iter().map(|p| [p[0], p[1]]).collect();
        assert_eq!(pic, want);
    }

    #[test]
    fn a_quarter_turn_right_shows_the_depth_axis_and_a_full_turn_comes_back() {
        let points = cloud();
        // A quarter turn about the vertical axis: the point on the depth
        // axis (z = 3) comes to the side; up (y) is unchanged.
        let pic = cloud_picture(&points, &turn(90.0, 0.0));
        assert!((pic[2][0].abs() - 3.0).abs() < 1e-12, "{pic:?}");
        assert!(pic[0][0].abs() < 1e-12, "x goes into the depth: {pic:?}");
        for (a, b) in pic.iter().zip(&points) {
            assert!((a[1] - b[1]).abs() < 1e-12, "up is kept: {pic:?}");
        }
        let mut t = IDENTITY;
        for _ in 0..24 {
            t = compose(&turn(15.0, 0.0), &t);
        }
        for _ in 0..24 {
            t = compose(&turn(0.0, 15.0), &t);
        }
        let back = cloud_picture(&points, &t);
        for (a, b) in back.iter().zip(cloud_picture(&points, &IDENTITY)) {
            assert!((a[0] - b[0]).abs() < 1e-9 && (a[1] - b[1]).abs() < 1e-9);
        }
    }

    #[test]
    fn a_cloud_exports_its_3d_points_and_turning_keeps_them() {
        let points = cloud();
        let words: Vec<String> = ["a", "b", "c", "d"].map(String::from).to_vec();
        let mut layout = Layout::new(0, "pca", words, cloud_picture(&points, &IDENTITY));
        layout.cloud = Some(points.clone());
        assert!(layout.turns());
        layout.turn_to(&turn(30.0, -20.0));
        assert_eq!(layout.cloud.as_ref(), Some(&points));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cloud.csv");
        layout.save(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.lines().nth(2).unwrap().starts_with("b,0,2,0"),
            "{text}"
        );
    }
}
