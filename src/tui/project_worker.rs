//! The projection worker: selects the words, runs PCA, t-SNE (on the
//! training engine, reporting its KL as it goes) or a graph method
//! (Isomap, LLE, Laplacian eigenmaps, reporting its eigen residual), and
//! writes exports. It is
//! the only place that talks to [`crate::project`], so the screen stays
//! independent of how layouts are computed.

use std::path::Path;

use ndarray::Array2;

use super::model::projection::{
    CancelFlag, Layout, PairLayout, ProjectionJob, ProjectionResult, Selection, B_MARK, CANCELLED,
};
use crate::embedding::{align, Embedding};
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
            pair,
            cancel,
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
                cancel: &cancel,
            };
            // The colours: k-means clusters, or the two runs of a pair,
            // computed once for the previews and the layout.
            let groups = std::cell::OnceCell::new();
            let a_points = std::cell::Cell::new(None::<usize>);
            let layout = |selected: &Selected, coords: Vec<[f64; 2]>, description: String| {
                let groups = groups.get_or_init(|| match (a_points.get(), &pair) {
                    (Some(a), Some(b)) => pair_groups(selected.len(), a, &label, &b.label),
                    _ => Groups::from_kmeans(&selected.vectors(&embedding, true), CLUSTERS, seed),
                });
                let focus = matches!(selection, Selection::Neighborhood(..))
                    .then_some(0)
                    .filter(|_| !selected.words.is_empty());
                let source = match &pair {
                    Some(b) => format!("{label} and {} on shared axes", b.label),
                    None => format!("{label}, {}-d vectors", embedding.dim()),
                };
                Layout {
                    run,
                    focus,
                    source,
                    method: method.clone(),
                    coords,
                    labels: labels.min(a_points.get().unwrap_or(selected.len())),
                    groups: Some(groups.clone()),
                    words: selected.words.clone(),
                    description,
                    axes: None,
                    sphere: None,
                    pair: None,
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
            let computed = match &pair {
                None => {
                    compute(&embedding, &selection, &settings, &report, &preview).map(|c| (c, None))
                }
                Some(b) => {
                    let joint = pair_selection(&embedding, &b.embedding, &selection);
                    joint.and_then(|(selected, vectors, info)| {
                        a_points.set(Some(info.a_points));
                        let info = PairLayout {
                            b_run: b.run,
                            ..info
                        };
                        let preview = |c: &[[f64; 2]], d: &str| preview(&selected, c, d);
                        lay_out(vectors, &selected.words, &settings, &report, &preview).map(
                            |(coords, description, axes)| {
                                ((selected, coords, description, axes), Some(info))
                            },
                        )
                    })
                }
            };
            let result = computed
                .map(|((selected, coords, description, axes), pair)| {
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
                        pair,
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
    /// Looked at between t-SNE iterations and before a layout starts.
    cancel: &'a CancelFlag,
}

impl Settings<'_> {
    /// Fails with [`CANCELLED`] once the answer is no longer wanted.
    fn check(&self) -> Result<()> {
        match self.cancel.is_cancelled() {
            true => Err(crate::Error::Training(CANCELLED.into())),
            false => Ok(()),
        }
    }
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
    let selected = pick(embedding, selection)?;
    let vectors = selected.vectors(embedding, true);
    let preview = |coords: &[[f64; 2]], description: &str| preview(&selected, coords, description);
    let (coords, description, axes) =
        lay_out(vectors, &selected.words, settings, progress, &preview)?;
    Ok((selected, coords, description, axes))
}

/// Coordinates, description and axis names of `vectors` (one row per word of `words`).
type Laid = (Array2<f64>, String, Option<(String, String)>);

/// Lays out `vectors` by the chosen method.
fn lay_out(
    vectors: Array2<f32>,
    words: &[String],
    settings: &Settings<'_>,
    progress: &dyn Fn(u64, u64, f64),
    preview: &dyn Fn(&[[f64; 2]], &str),
) -> Result<Laid> {
    settings.check()?;
    let Settings {
        method,
        perplexity,
        neighbours,
        ube: ube_params,
        seed,
        ..
    } = *settings;
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
        return Ok((done.coords, description, None));
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
        return Ok((coords, description, None));
    }
    if method == "pca" {
        let p = pca(vectors.view(), 2, PcaSolver::Auto, seed)?;
        let share = |k: usize| format!("PC{} ({:.1}%)", k + 1, 100.0 * p.explained[k]);
        let description = format!("PCA: {} and {}", share(0), share(1));
        return Ok((p.coords, description, Some((share(0), share(1)))));
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
        config.effective_perplexity(words.len())
    );
    // Stepped here rather than as an engine job, so that the layout can be
    // shown as it forms (on the global rayon pool, as the graph methods).
    let words = WordIndex::from_words(words.to_vec());
    let mut tsne = Tsne::prepare(words, vectors.view(), &config, &mut |_| {})?;
    let mut shown = std::time::Instant::now();
    for step in 0..tsne.total_steps() {
        settings.check()?;
        let report = tsne.step(step)?;
        progress(u64::from(report.epoch), total, report.loss);
        if shown.elapsed() >= FRAME_EVERY && step + 1 < tsne.total_steps() {
            preview(tsne.layout(), &description);
            shown = std::time::Instant::now();
        }
    }
    Ok((tsne.coords(), description, None))
}

/// Words whose alignment is listed as moved most.
const MOVED: usize = 30;

/// Shared words the rotation is fitted on and the moved words are listed
/// from: among A's most frequent (files list frequent words first), as
/// `wordbench align --top` chooses; rare words' vectors are too noisy to
/// say that they moved (a first try with 20,000 listed only rare words).
const ALIGN_TOP: usize = 5_000;

/// The selected words that both runs have, as A's unit rows followed by
/// B's rotated onto A (Procrustes over the runs' shared frequent words);
/// B's points are named with [`B_MARK`].
fn pair_selection(
    a: &Embedding,
    b: &Embedding,
    selection: &Selection,
) -> Result<(Selected, Array2<f32>, PairLayout)> {
    let alignment = align::procrustes(b, a, Some(ALIGN_TOP))?;
    let rotated = alignment.apply(b, a.dim())?;
    let mut selected = pick(a, selection)?;
    let keep: Vec<bool> = selected.words.iter().map(|w| b.id(w).is_some()).collect();
    let (ids, words): (Vec<u32>, Vec<String>) = selected
        .ids
        .iter()
        .zip(&selected.words)
        .zip(&keep)
        .filter(|(_, &k)| k)
        .map(|((&i, w), _)| (i, w.clone()))
        .unzip();
    if words.len() < 2 {
        return Err(Error::param(
            "words",
            format!(
                "run B has {} of the selected words; a pair projection needs 2",
                words.len()
            ),
        ));
    }
    let a_rows = select::Selected {
        ids: ids.clone(),
        words: words.clone(),
        groups: None,
        missing: Vec::new(),
    }
    .vectors(a, true);
    let n = words.len();
    let mut vectors = Array2::<f32>::zeros((2 * n, a.dim()));
    vectors.slice_mut(ndarray::s![..n, ..]).assign(&a_rows);
    for (r, w) in words.iter().enumerate() {
        let id = rotated.id(w).expect("B has every kept word");
        vectors.row_mut(n + r).assign(&rotated.row(id));
    }
    let marked = words.iter().map(|w| format!("{w}{B_MARK}"));
    selected.ids = ids.iter().copied().chain(ids.iter().copied()).collect();
    selected.words = words.iter().cloned().chain(marked).collect();
    selected.groups = None;
    let info = PairLayout {
        b_run: 0,
        a_points: n,
        shared: alignment.shared.len(),
        mean_cosine: alignment.mean_cosine,
        moved: alignment
            .moved
            .iter()
            .take(MOVED)
            .map(|m| (m.word.clone(), m.cosine))
            .collect(),
    };
    Ok((selected, vectors, info))
}

/// The two colour groups of a pair layout: run A's points, then run B's.
fn pair_groups(points: usize, a_points: usize, a: &str, b: &str) -> Groups {
    let names: Vec<String> = (0..points)
        .map(|i| {
            if i < a_points {
                format!("A {a}")
            } else {
                format!("B {b}")
            }
        })
        .collect();
    Groups::from_names(&names)
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
    use crate::tui::model::projection::PairSource;

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
            pair: None,
            cancel: CancelFlag::default(),
        }
    }

    /// Run B: run A's vectors turned by a rotation in the plane of the
    /// first two axes, `w29` dropped and, when `change`, `w3`'s vector
    /// replaced by `w17`'s.
    fn rotated_b(change: bool) -> Arc<Embedding> {
        let a = embedding();
        let (c, s) = (0.6f32, 0.8f32);
        let words: Vec<String> = (0..29).map(|i| format!("w{i}")).collect();
        let v = Array2::from_shape_fn((29, 5), |(i, j)| {
            let r = a.row(i as u32);
            let r = if change && i == 3 { a.row(17) } else { r };
            match j {
                0 => c * r[0] - s * r[1],
                1 => s * r[0] + c * r[1],
                _ => r[j],
            }
        });
        Arc::new(Embedding::new(WordIndex::from_words(words), v).unwrap())
    }

    #[test]
    fn a_pair_lays_b_on_a_s_axes_and_lists_the_word_that_moved() {
        let pair_job = |change: bool| ProjectionJob::Compute {
            request: 7,
            run: 0,
            label: "#1 a".into(),
            embedding: embedding(),
            selection: Selection::Top(30),
            method: "pca".into(),
            perplexity: 5.0,
            neighbours: 6,
            ube: Params::defaults(ube::SCHEMA),
            labels: 40,
            seed: 1,
            pair: Some(Box::new(PairSource {
                run: 1,
                label: "#2 b".into(),
                embedding: rotated_b(change),
            })),
            cancel: CancelFlag::default(),
        };
        let laid = |change: bool| match run(pair_job(change), &|_| {}) {
            ProjectionResult::Done { result, .. } => result.unwrap(),
            other => panic!("{other:?}"),
        };
        let layout = laid(false);
        let pair = layout.pair.clone().unwrap();
        // w29 is not in B: 29 words, each twice.
        assert_eq!((pair.a_points, layout.words.len()), (29, 58));
        assert_eq!(pair.b_run, 1);
        assert_eq!(layout.labels, 29, "only A's points are labelled");
        assert_eq!(layout.words[29], format!("w0{B_MARK}"));
        assert_eq!(layout.word_of(29), "w0");
        // The rotation is undone: each word's two points coincide.
        for i in 0..29 {
            let (p, q) = (layout.coords[i], layout.coords[29 + i]);
            assert!(
                (p[0] - q[0]).abs() < 1e-5 && (p[1] - q[1]).abs() < 1e-5,
                "w{i}: {p:?} {q:?}"
            );
        }
        assert!(
            pair.moved.iter().all(|(_, c)| *c > 1.0 - 1e-5),
            "{:?}",
            pair.moved
        );
        assert!((pair.mean_cosine - 1.0).abs() < 1e-5);
        // Two colour groups, A's and B's, named for the legend.
        let groups = layout.groups.unwrap();
        assert!(groups.named);
        assert_eq!(groups.names, ["A #1 a", "B #2 b"]);
        assert_eq!(groups.labels[28..30], [0, 1]);
        // A word whose vector changed is listed first as moved most.
        let moved = laid(true).pair.unwrap().moved;
        assert_eq!(moved[0].0, "w3", "{moved:?}");
        assert!(moved[0].1 < moved[1].1 - 0.1, "{moved:?}");
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
        let result = run(compute_job(Selection::Top(30), "tsne"), &|r| match r {
            ProjectionResult::Progress { request: 7, .. } => *seen.lock().unwrap() += 1,
            // A slow machine also sees the layout as it forms.
            ProjectionResult::Preview { request: 7, .. } => {}
            other => panic!("{other:?}"),
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

    #[test]
    fn a_cancelled_tsne_stops_between_iterations_with_no_layout() {
        let mut job = compute_job(Selection::Top(40), "tsne");
        let ProjectionJob::Compute { cancel, .. } = &mut job else {
            unreachable!()
        };
        let flag = cancel.clone();
        let reports = std::cell::Cell::new(0u64);
        let result = run(job, &|r| {
            if let ProjectionResult::Progress { .. } = r {
                reports.set(reports.get() + 1);
                // Cancelled once its first iteration is reported.
                flag.cancel();
            }
        });
        let ProjectionResult::Done { result, .. } = result else {
            panic!("{result:?}")
        };
        assert_eq!(result.unwrap_err(), CANCELLED);
        assert_eq!(reports.get(), 1, "stopped before the next iteration");
        // Cancelled before it starts: no work at all.
        let job = compute_job(Selection::Top(40), "pca");
        if let ProjectionJob::Compute { cancel, .. } = &job {
            cancel.cancel();
        }
        let called = std::cell::Cell::new(false);
        let ProjectionResult::Done { result, .. } = run(job, &|_| called.set(true)) else {
            panic!()
        };
        assert_eq!(result.unwrap_err(), CANCELLED);
        assert!(!called.get());
    }
}
