//! The projection worker: selects the words, runs PCA, t-SNE (on the
//! training engine, reporting its KL as it goes) or a graph method
//! (Isomap, LLE, Laplacian eigenmaps, reporting its eigen residual), and
//! writes exports. It is
//! the only place that talks to [`crate::project`], so the screen stays
//! independent of how layouts are computed.

use std::path::Path;

use ndarray::Array2;

use super::model::projection::{Layout, ProjectionJob, ProjectionResult, Selection};
use crate::embedding::Embedding;
use crate::project::export::write_csv;
use crate::project::manifold as graph;
use crate::project::pca::{pca, PcaSolver};
use crate::project::plot::{self, ImageFormat, Plot};
use crate::project::select::{self, Groups, Selected};
use crate::project::tsne::{self, Tsne, TsneConfig};
use crate::project::ube;
use crate::train::{Params, Trainer};
use crate::words::WordIndex;
use crate::{Error, Result};

/// Whether projections can be computed in this build.
pub const AVAILABLE: bool = true;

/// Colour clusters in exported plots.
const CLUSTERS: usize = 8;

/// Runs a projection job; `progress` receives t-SNE's KL as it goes.
pub fn run(job: ProjectionJob, progress: &dyn Fn(ProjectionResult)) -> ProjectionResult {
    match job {
        ProjectionJob::Compute {
            request,
            run,
            label,
            embedding,
            selection,
            method,
            perplexity,
            neighbours,
            ube,
            labels,
            seed,
        } => {
            let report = |step: u64, total: u64, kl: f64| {
                progress(ProjectionResult::Progress {
                    request,
                    step,
                    total,
                    kl,
                })
            };
            let settings = Settings {
                method: &method,
                perplexity,
                neighbours,
                ube: &ube,
                seed,
            };
            // The k-means colours, computed once for the previews and the layout.
            let groups = std::cell::OnceCell::new();
            let layout = |selected: &Selected, coords: Vec<[f64; 2]>, description: String| {
                let groups = groups.get_or_init(|| {
                    Groups::from_kmeans(&selected.vectors(&embedding, true), CLUSTERS, seed)
                });
                let focus = matches!(selection, Selection::Neighborhood(..))
                    .then_some(0)
                    .filter(|_| !selected.words.is_empty());
                Layout {
                    run,
                    focus,
                    source: format!("{label}, {}-d vectors", embedding.dim()),
                    method: method.clone(),
                    coords,
                    labels: labels.min(selected.len()),
                    groups: Some(groups.clone()),
                    words: selected.words.clone(),
                    description,
                    axes: None,
                    sphere: None,
                }
            };
            let preview = |selected: &Selected, coords: &[[f64; 2]], description: &str| {
                let l = layout(
                    selected,
                    coords.to_vec(),
                    format!("{description} (running)"),
                );
                progress(ProjectionResult::Preview {
                    request,
                    layout: Box::new(l),
                });
            };
            let result = compute(&embedding, &selection, &settings, &report, &preview)
                .map(|(selected, coords, description, axes)| {
                    // UBE's rows are on the sphere: kept for the CSV, shown
                    // through their map.
                    let sphere = (coords.ncols() == 3).then(|| {
                        coords
                            .rows()
                            .into_iter()
                            .map(|r| [r[0], r[1], r[2]])
                            .collect()
                    });
                    let coords = match sphere {
                        Some(_) => ube::picture(&coords),
                        None => coords,
                    };
                    let coords = coords.rows().into_iter().map(|r| [r[0], r[1]]).collect();
                    Layout {
                        axes,
                        sphere,
                        ..layout(&selected, coords, description)
                    }
                })
                .map(Box::new)
                .map_err(|e| e.to_string());
            ProjectionResult::Done { request, result }
        }
        ProjectionJob::Export { layout, path } => ProjectionResult::Exported {
            result: export(&layout, Path::new(&path)).map_err(|e| e.to_string()),
            path,
        },
    }
}

type Computed = (Selected, Array2<f64>, String, Option<(String, String)>);

/// The form's values a layout depends on.
struct Settings<'a> {
    method: &'a str,
    perplexity: f64,
    neighbours: usize,
    ube: &'a Params,
    seed: u64,
}

/// A layout still being optimised: the words, their coordinates so far and
/// the method's description.
type Preview<'a> = dyn Fn(&Selected, &[[f64; 2]], &str) + 'a;

/// How often a running t-SNE sends its layout to the screen (the scatter
/// animates as in the Embedding Projector).
const FRAME_EVERY: std::time::Duration = std::time::Duration::from_millis(250);

fn compute(
    embedding: &Embedding,
    selection: &Selection,
    settings: &Settings<'_>,
    progress: &dyn Fn(u64, u64, f64),
    preview: &Preview<'_>,
) -> Result<Computed> {
    let Settings {
        method,
        perplexity,
        neighbours,
        ube: ube_params,
        seed,
    } = *settings;
    let selected = pick(embedding, selection)?;
    let vectors = selected.vectors(embedding, true);
    if let Some(kind) = graph::kind(method) {
        let mut params = Params::defaults(graph::SCHEMA);
        params.set(method, "k", &crate::train::Value::Int(neighbours as i64))?;
        let config = graph::config(kind, &params, seed);
        // On the global rayon pool: the progress callback is not `Send`.
        let mut step = 0u64;
        let done = graph::run(
            vectors,
            config,
            &mut |_, loss| {
                step += 1;
                progress(step, config.max_steps, loss);
            },
            &mut |_| {},
        )?;
        let description = format!("{}: {}", graph::describe(&config), done.report);
        return Ok((selected, done.coords, description, None));
    }
    if method == "ube" {
        // The sphere's 3-D rows; the caller keeps them and maps them.
        let config = ube::config(ube_params, 3, seed);
        let total = 1 + config.iters as u64;
        let coords = ube::run(
            vectors,
            config,
            &mut |step, _, loss| progress(step, total, loss),
            &mut |_| {},
        )?;
        let description = format!(
            "{}; Hammer equal-area map of the sphere",
            ube::describe(&config)
        );
        return Ok((selected, coords, description, None));
    }
    if method == "pca" {
        let p = pca(vectors.view(), 2, PcaSolver::Auto, seed)?;
        let share = |k: usize| format!("PC{} ({:.1}%)", k + 1, 100.0 * p.explained[k]);
        let description = format!("PCA: {} and {}", share(0), share(1));
        return Ok((selected, p.coords, description, Some((share(0), share(1)))));
    }
    let mut params = Params::defaults(tsne::SCHEMA);
    params.set(
        "tsne",
        "perplexity",
        &crate::train::Value::Float(perplexity),
    )?;
    let config = TsneConfig::from_params(&params, seed);
    let total = config.schedule.total() as u64;
    let description = format!(
        "t-SNE (perplexity {:.0})",
        config.effective_perplexity(selected.len())
    );
    // Stepped here rather than as an engine job, so that the layout can be
    // shown as it forms (on the global rayon pool, as the graph methods).
    let words = WordIndex::from_words(selected.words.clone());
    let mut tsne = Tsne::prepare(words, vectors.view(), &config, &mut |_| {})?;
    let mut shown = std::time::Instant::now();
    for step in 0..tsne.total_steps() {
        let report = tsne.step(step)?;
        progress(u64::from(report.epoch), total, report.loss);
        if shown.elapsed() >= FRAME_EVERY && step + 1 < tsne.total_steps() {
            preview(&selected, tsne.layout(), &description);
            shown = std::time::Instant::now();
        }
    }
    Ok((selected, tsne.coords(), description, None))
}

/// The words of a selection that the vectors have (case folded as a fallback).
fn pick(embedding: &Embedding, selection: &Selection) -> Result<Selected> {
    let known = |w: &str| {
        [w.to_string(), w.to_lowercase()]
            .into_iter()
            .find(|c| embedding.id(c).is_some())
    };
    match selection {
        Selection::Top(n) => select::select(embedding, &select::Selection::Top(*n)),
        Selection::Neighborhood(word, n) => {
            let word = known(word).ok_or_else(|| Error::UnknownWord(word.clone()))?;
            select::select(
                embedding,
                &select::Selection::Around {
                    word,
                    count: n.saturating_sub(1).max(1),
                },
            )
        }
        Selection::List(words) => {
            let mut s = Selected {
                ids: Vec::new(),
                words: Vec::new(),
                groups: None,
                missing: Vec::new(),
            };
            for w in words {
                match known(w).and_then(|k| embedding.id(&k).map(|id| (k, id))) {
                    Some((k, id)) if !s.ids.contains(&id) => {
                        s.ids.push(id);
                        s.words.push(k);
                    }
                    Some(_) => {}
                    None => s.missing.push(w.clone()),
                }
            }
            if s.len() < 2 {
                return Err(Error::param(
                    "words",
                    format!(
                        "{} known word(s); a projection needs at least 2 (unknown: {})",
                        s.len(),
                        s.missing.join(", ")
                    ),
                ));
            }
            Ok(s)
        }
    }
}

/// Writes a layout as PNG, SVG or CSV by the path's extension: images show
/// the map on screen; a UBE layout's CSV holds its sphere (`word,x,y,z`, as
/// `wordbench project --method ube` writes), other CSVs the 2-D layout.
pub fn export(layout: &Layout, path: &Path) -> Result<()> {
    ensure_parent(path)?;
    let coords = Array2::from_shape_fn((layout.coords.len(), 2), |(i, d)| layout.coords[i][d]);
    if let Some(format) = ImageFormat::from_path(path) {
        let mut p = Plot::new(&layout.words, coords.view());
        p.groups = layout.groups.as_ref();
        p.title = layout.description.clone();
        p.subtitle = format!("{} words of run {}", layout.words.len(), layout.source);
        if let Some(g) = layout.groups.as_ref().filter(|g| !g.named) {
            p.subtitle
                .push_str(&format!("; colours: k-means, {} clusters", g.names.len()));
        }
        p.axes = layout.axes.clone();
        return plot::save(path, &p, format);
    }
    match path.extension().and_then(|e| e.to_str()) {
        Some(e) if e.eq_ignore_ascii_case("csv") => {
            let coords = match &layout.sphere {
                Some(points) => Array2::from_shape_fn((points.len(), 3), |(i, d)| points[i][d]),
                None => coords,
            };
            write_csv(path, &layout.words, coords.view(), layout.groups.as_ref())
        }
        _ => Err(Error::param(
            "path",
            format!("{} (expected a .png, .svg or .csv file)", path.display()),
        )),
    }
}

/// Creates the folder an export goes to (the workbench's `exports/` on
/// first use, or a folder the user typed), as a file dialog would.
pub fn ensure_parent(path: &Path) -> crate::Result<()> {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() && !dir.exists() => {
            std::fs::create_dir_all(dir).map_err(|e| crate::Error::io(dir, e))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    fn embedding() -> Arc<Embedding> {
        let words: Vec<String> = (0..30).map(|i| format!("w{i}")).collect();
        let v = Array2::from_shape_fn((30, 5), |(i, j)| {
            ((i * 13 + j * 7) % 17) as f32 / 17.0 - 0.5
        });
        Arc::new(Embedding::new(WordIndex::from_words(words), v).unwrap())
    }

    fn compute_job(selection: Selection, method: &str) -> ProjectionJob {
        ProjectionJob::Compute {
            request: 7,
            run: 0,
            label: "#1 sgns dim=5".into(),
            embedding: embedding(),
            selection,
            method: method.into(),
            perplexity: 5.0,
            neighbours: 6,
            ube: Params::parse(ube::SCHEMA, "ube", [("iters", "30")]).unwrap(),
            labels: 3,
            seed: 1,
        }
    }

    #[test]
    fn ube_lays_out_the_selected_words_on_its_map() {
        let result = run(compute_job(Selection::Top(20), "ube"), &|_| {});
        let ProjectionResult::Done { result, .. } = result else {
            panic!("{result:?}")
        };
        let layout = result.unwrap();
        assert_eq!(layout.coords.len(), 20);
        assert!(
            layout.description.contains("Hammer"),
            "{}",
            layout.description
        );
        assert!(
            layout.description.contains("30 sweeps"),
            "the job's options: {}",
            layout.description
        );
        // Inside the Hammer ellipse x²/8 + y²/2 <= 1.
        assert!(layout
            .coords
            .iter()
            .all(|c| c[0] * c[0] / 8.0 + c[1] * c[1] / 2.0 <= 1.0 + 1e-9));
        // The sphere is kept: unit rows, and the map is theirs.
        let sphere = layout.sphere.clone().unwrap();
        assert_eq!(sphere.len(), 20);
        assert!(sphere
            .iter()
            .all(|p| (p.iter().map(|v| v * v).sum::<f64>() - 1.0).abs() < 1e-9));
        let rows = Array2::from_shape_fn((20, 3), |(i, d)| sphere[i][d]);
        let map = ube::picture(&rows);
        assert!(map
            .rows()
            .into_iter()
            .zip(&layout.coords)
            .all(|(m, c)| m[0] == c[0] && m[1] == c[1]));
        // Its CSV is word,x,y,z with the sphere's coordinates.
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("u.csv");
        export(&layout, &csv).unwrap();
        let (words, back) = crate::project::export::read_csv(&csv).unwrap();
        assert!(std::fs::read_to_string(&csv)
            .unwrap()
            .starts_with("word,x,y,z,group\n"));
        assert_eq!(words, layout.words);
        assert_eq!(back, rows, "the sphere round-trips through the CSV");
    }

    #[test]
    fn graph_methods_lay_out_the_selected_words() {
        for method in ["isomap", "lle", "laplacian"] {
            let result = run(compute_job(Selection::Top(20), method), &|_| {});
            let ProjectionResult::Done { result, .. } = result else {
                panic!("{result:?}")
            };
            let layout = result.unwrap_or_else(|e| panic!("{method}: {e}"));
            assert_eq!(layout.coords.len(), 20);
            assert!(
                layout.description.contains("(k = 6)"),
                "{}",
                layout.description
            );
            assert!(layout
                .coords
                .iter()
                .all(|c| c[0].is_finite() && c[1].is_finite()));
        }
    }

    #[test]
    fn pca_lays_out_the_selected_words_and_exports_them() {
        let result = run(compute_job(Selection::Top(12), "pca"), &|_| {});
        let ProjectionResult::Done { request: 7, result } = result else {
            panic!("{result:?}")
        };
        let layout = result.unwrap();
        assert_eq!(layout.words.len(), 12);
        assert_eq!(layout.coords.len(), 12);
        assert_eq!(layout.labels, 3);
        assert_eq!(layout.words[0], "w0");
        assert_eq!(layout.source, "#1 sgns dim=5, 5-d vectors");
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("p.csv");
        export(&layout, &csv).unwrap();
        let text = std::fs::read_to_string(&csv).unwrap();
        assert_eq!(text.lines().count(), 13);
        assert!(text.starts_with("word,x,y,group\nw0,"));
        assert!(export(&layout, &dir.path().join("p.txt")).is_err());
    }

    #[test]
    fn tsne_reports_progress_and_lists_need_known_words() {
        let seen = std::sync::Mutex::new(0u32);
        let result = run(compute_job(Selection::Top(30), "tsne"), &|r| {
            assert!(matches!(r, ProjectionResult::Progress { request: 7, .. }));
            *seen.lock().unwrap() += 1;
        });
        assert!(matches!(
            result,
            ProjectionResult::Done { result: Ok(_), .. }
        ));
        assert!(*seen.lock().unwrap() > 0);
        let list = Selection::List(vec!["W1".into(), "nope".into(), "zzz".into()]);
        let ProjectionResult::Done { result: Err(e), .. } = run(compute_job(list, "pca"), &|_| {})
        else {
            panic!()
        };
        assert!(
            e.contains("1 known word(s)") && e.contains("unknown: nope, zzz"),
            "{e}"
        );
    }
}
