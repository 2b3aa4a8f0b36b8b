//! The projection worker: runs a projection job on its own thread through
//! the library's pipeline ([`crate::project::pipeline`]) and turns what it
//! reports into the screen's messages (progress, the layout as it forms,
//! the layout), and writes exports. It is the only place that talks to
//! [`crate::project`], so the screen stays independent of how layouts are
//! computed.

use std::path::Path;
use std::time::{Duration, Instant};

use super::model::projection::{
    CancelFlag, Layout, PairSource, ProjectionJob, ProjectionResult, Selection,
};
use crate::embedding::Embedding;
use crate::project::layout::cloud_picture;
use crate::project::pipeline::{self, Chosen};
use crate::project::registry::{self, Input, Progress, Tick};
use crate::project::select::{Groups, Selected};
use crate::schema::Params;
use crate::Result;

/// Whether projections can be computed in this build.
pub const AVAILABLE: bool = true;

/// Colour clusters in exported plots.
const CLUSTERS: usize = 8;

/// How often a running layout that animates sends its layout to the
/// screen (the scatter animates as in the Embedding Projector).
const FRAME_EVERY: Duration = Duration::from_millis(250);

/// Runs a projection job; `progress` receives the loss as it goes, and the
/// layout so far of a projection that animates.
pub fn run(job: ProjectionJob, progress: &dyn Fn(ProjectionResult)) -> ProjectionResult {
    match job {
        ProjectionJob::Compute {
            request,
            run,
            label,
            embedding,
            selection,
            method,
            params,
            labels,
            seed,
            dims,
            pair,
            cancel,
        } => {
            let result = if cancel.is_cancelled() {
                Err(registry::CANCELLED.to_string())
            } else {
                let shape = Shape {
                    run,
                    label: &label,
                    embedding: &embedding,
                    selection: &selection,
                    method: &method,
                    labels,
                    dims,
                    pair: pair.as_deref(),
                };
                compute(&shape, &params, seed, &cancel, &|r| {
                    progress(r.into_result(request))
                })
                .map(Box::new)
                .map_err(|e| e.to_string())
            };
            ProjectionResult::Done { request, result }
        }
        ProjectionJob::Export { layout, path } => ProjectionResult::Exported {
            result: export(&layout, Path::new(&path)).map_err(|e| e.to_string()),
            path,
        },
    }
}

/// What a running layout reports, before it is tagged with its request.
enum Report {
    Progress(Tick),
    Preview(Box<Layout>),
}

impl Report {
    fn into_result(self, request: u64) -> ProjectionResult {
        match self {
            Report::Progress(t) => ProjectionResult::Progress {
                request,
                step: t.step,
                total: t.total,
                kl: t.loss,
            },
            Report::Preview(layout) => ProjectionResult::Preview { request, layout },
        }
    }
}

/// What the job's layout shows besides its coordinates.
struct Shape<'a> {
    run: usize,
    label: &'a str,
    embedding: &'a Embedding,
    selection: &'a Selection,
    method: &'a str,
    labels: usize,
    dims: usize,
    pair: Option<&'a PairSource>,
}

impl Shape<'_> {
    /// The layout of `selected` at `coords`, coloured by `groups`; the
    /// first `a_points` points are run A's in a pair.
    fn layout(
        &self,
        selected: &Selected,
        a_points: Option<usize>,
        groups: &Groups,
        coords: Vec<[f64; 2]>,
    ) -> Layout {
        let focus = matches!(self.selection, Selection::Neighborhood(..))
            .then_some(0)
            .filter(|_| !selected.words.is_empty());
        let source = match self.pair {
            Some(b) => format!("{} and {} on shared axes", self.label, b.label),
            None => format!("{}, {}-d vectors", self.label, self.embedding.dim()),
        };
        let shown = a_points.unwrap_or(selected.len());
        Layout {
            focus,
            source,
            labels: self.labels.min(shown),
            groups: Some(groups.clone()),
            ..Layout::new(self.run, self.method, selected.words.clone(), coords)
        }
    }
}

/// The screen's progress sink: ticks and throttled previews as messages,
/// and the job's cancel flag.
struct Screen<'a> {
    shape: &'a Shape<'a>,
    selected: &'a Selected,
    a_points: Option<usize>,
    groups: &'a Groups,
    /// The projection's layout is worth showing as it forms.
    animates: bool,
    cancel: &'a CancelFlag,
    send: &'a dyn Fn(Report),
    shown: Instant,
}

impl Progress for Screen<'_> {
    fn tick(&mut self, tick: Tick) {
        (self.send)(Report::Progress(tick));
    }

    fn preview(&mut self, coords: &[[f64; 2]], description: &str) {
        if !self.wants_preview() {
            return;
        }
        let mut l = self
            .shape
            .layout(self.selected, self.a_points, self.groups, coords.to_vec());
        l.description = format!("{description} (running)");
        (self.send)(Report::Preview(Box::new(l)));
        self.shown = Instant::now();
    }

    fn stopped(&self) -> bool {
        self.cancel.is_cancelled()
    }

    fn wants_preview(&self) -> bool {
        self.animates && self.shown.elapsed() >= FRAME_EVERY
    }
}

/// Chooses the words, colours them (k-means clusters, or the two runs of a
/// pair) and lays them out.
fn compute(
    shape: &Shape<'_>,
    params: &Params,
    seed: u64,
    cancel: &CancelFlag,
    send: &dyn Fn(Report),
) -> Result<Layout> {
    let projection = registry::find(shape.method)?;
    let chosen = match shape.pair {
        None => pipeline::choose(shape.embedding, shape.selection)?,
        Some(b) => {
            let mut chosen = pipeline::choose_pair(shape.embedding, &b.embedding, shape.selection)?;
            if let Some(p) = chosen.pair.as_mut() {
                p.b_run = b.run;
            }
            chosen
        }
    };
    let groups = match (&chosen.pair, shape.pair) {
        (Some(p), Some(b)) => {
            pipeline::pair_groups(chosen.selected.len(), p.a_points, shape.label, &b.label)
        }
        _ => Groups::from_kmeans(&chosen.vectors, CLUSTERS, seed),
    };
    let Chosen {
        selected,
        vectors,
        pair,
    } = chosen;
    let a_points = pair.as_ref().map(|p| p.a_points);
    let mut screen = Screen {
        shape,
        selected: &selected,
        a_points,
        groups: &groups,
        animates: projection.animates,
        cancel,
        send,
        shown: Instant::now(),
    };
    let input = Input {
        vectors,
        words: &selected.words,
        dims: crate::project::options::output_dims(projection, shape.dims),
        seed,
    };
    let laid = registry::lay_out(projection, input, params, &mut screen)?;
    // 3-D rows are kept for the CSV, shown through their picture.
    let rows = (laid.coords.ncols() == 3).then(|| {
        laid.coords
            .rows()
            .into_iter()
            .map(|r| [r[0], r[1], r[2]])
            .collect::<Vec<_>>()
    });
    let (sphere, cloud) = if laid.sphere {
        (rows, None)
    } else {
        (None, rows)
    };
    let coords = match &cloud {
        Some(points) => cloud_picture(points, &crate::geometry::ube::sphere::IDENTITY),
        None => registry::points(laid.flat().view()),
    };
    Ok(Layout {
        description: laid.description,
        // A turned cloud has no fixed axes.
        axes: laid.axes.filter(|_| cloud.is_none()),
        sphere,
        cloud,
        pair,
        ..shape.layout(&selected, a_points, &groups, coords)
    })
}

/// Writes a layout as PNG, SVG or CSV by the path's extension
/// ([`Layout::save`]), creating its folder first.
pub fn export(layout: &Layout, path: &Path) -> Result<()> {
    ensure_parent(path)?;
    layout.save(path)
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

    use ndarray::Array2;

    use super::*;
    use crate::project::ube;
    use crate::tui::model::projection::{B_MARK, CANCELLED};
    use crate::words::WordIndex;

    fn embedding() -> Arc<Embedding> {
        let words: Vec<String> = (0..30).map(|i| format!("w{i}")).collect();
        let v = Array2::from_shape_fn((30, 5), |(i, j)| {
            ((i * 13 + j * 7) % 17) as f32 / 17.0 - 0.5
        });
        Arc::new(Embedding::new(WordIndex::from_words(words), v).unwrap())
    }

    /// The options the form would give `method`: perplexity 5, k = 6, 30 UBE sweeps.
    fn params(method: &str) -> Params {
        let p = registry::find(method).unwrap();
        let set = [("perplexity", "5"), ("k", "6"), ("iters", "30")];
        let own = set
            .into_iter()
            .filter(|(n, _)| p.schema.iter().any(|s| s.name == *n));
        Params::parse(p.schema, p.name, own).unwrap()
    }

    fn compute_job(selection: Selection, method: &str) -> ProjectionJob {
        ProjectionJob::Compute {
            request: 7,
            run: 0,
            label: "#1 sgns dim=5".into(),
            embedding: embedding(),
            selection,
            method: method.into(),
            params: params(method),
            labels: 3,
            seed: 1,
            dims: 2,
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
            params: params("pca"),
            labels: 40,
            seed: 1,
            dims: 2,
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
    fn pca_in_3d_keeps_a_cloud_shown_down_its_third_axis() {
        let mut job = compute_job(Selection::Top(20), "pca");
        if let ProjectionJob::Compute { dims, .. } = &mut job {
            *dims = 3;
        }
        let ProjectionResult::Done { result, .. } = run(job, &|_| {}) else {
            panic!("no layout")
        };
        let layout = result.unwrap();
        let cloud = layout.cloud.clone().expect("a 3-D layout keeps its points");
        assert!(layout.sphere.is_none() && layout.axes.is_none());
        assert_eq!(cloud.len(), 20);
        // The picture is the first two components about their mean.
        assert_eq!(
            layout.coords,
            cloud_picture(&cloud, &crate::geometry::ube::sphere::IDENTITY)
        );
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("c.csv");
        export(&layout, &csv).unwrap();
        let (_, back) = crate::project::export::read_csv(&csv).unwrap();
        assert_eq!(back.dim(), (20, 3), "the CSV holds the 3-D points");
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

    #[test]
    fn a_cancelled_ube_or_graph_layout_stops_after_the_step_it_was_cancelled_in() {
        for method in ["ube", "isomap", "lle", "laplacian", "umap"] {
            let job = compute_job(Selection::Top(20), method);
            let ProjectionJob::Compute { cancel, .. } = &job else {
                unreachable!()
            };
            let flag = cancel.clone();
            let reports = std::cell::Cell::new(Vec::new());
            let result = run(job, &|r| {
                if let ProjectionResult::Progress { step, total, .. } = r {
                    let mut seen = reports.take();
                    seen.push((step, total));
                    reports.set(seen);
                    flag.cancel();
                }
            });
            let ProjectionResult::Done { result, .. } = result else {
                panic!("{result:?}")
            };
            assert_eq!(result.unwrap_err(), CANCELLED, "{method}");
            let seen = reports.take();
            assert_eq!(seen.len(), 1, "{method}: stopped after its first step");
            assert!(
                seen[0].0 < seen[0].1,
                "{method}: {seen:?} short of the plan"
            );
        }
    }

    /// UMAP, added by one registry line, lays words out on the screen like
    /// the other methods: one point per word, finite, its epochs reported.
    #[test]
    fn umap_lays_words_out_through_the_registry() {
        let steps = std::cell::Cell::new(0u64);
        let result = run(compute_job(Selection::Top(25), "umap"), &|r| {
            if let ProjectionResult::Progress { step, .. } = r {
                steps.set(step);
            }
        });
        let ProjectionResult::Done { result, .. } = result else {
            panic!("{result:?}")
        };
        let layout = result.unwrap();
        assert_eq!(layout.words.len(), 25);
        assert!(layout
            .coords
            .iter()
            .all(|p| p.iter().all(|v| v.is_finite())));
        assert!(
            layout.description.starts_with("UMAP: 15 neighbours"),
            "{}",
            layout.description
        );
        assert_eq!(
            steps.get(),
            500,
            "umap-learn's 500 epochs below 10,000 points"
        );
    }
}
