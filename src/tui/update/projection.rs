//! The Projection screen's handlers: options, projecting run A's vectors in
//! the background (t-SNE's KL arrives as it goes), exports, finding and
//! stepping through words.

use crate::outputs::Kind;
use crate::project::options::settings;
use crate::project::plot::ImageFormat;
use crate::session::PlotRecord;
use crate::tui::action::{Action, Slot};
use crate::tui::app::{App, Level, PromptKind};
use crate::tui::model::projection::{
    CancelFlag, PairSource, ProjectionJob, ProjectionResult, Selection,
};
use crate::tui::msg::Effect;
use crate::tui::update::writes;

/// Sets an option (or `focus`) from text.
pub fn set_option(app: &mut App, name: &str, text: &str) -> Vec<Effect> {
    if name == "focus" || name == "words" {
        app.projection.focus.set(text.trim());
    } else if let Err(e) = app.projection.options.set(name, text) {
        app.set_status(Level::Error, e);
    }
    // A new method may no longer read the selected field.
    app.projection.snap_selection();
    Vec::new()
}

/// Projects run A's vectors with the current options.
pub fn project(app: &mut App) -> Vec<Effect> {
    project_runs(app, false)
}

/// Projects runs A and B together: B rotated onto A by Procrustes over
/// their shared words, both laid out on the same axes, and the words that
/// moved most listed.
pub fn project_pair(app: &mut App) -> Vec<Effect> {
    project_runs(app, true)
}

fn project_runs(app: &mut App, with_b: bool) -> Vec<Effect> {
    let typed = match app.projection.options.assignments() {
        Ok(a) => settings(&a).map_err(|e| e.to_string()),
        Err(e) => Err(e),
    };
    let typed = match typed {
        Ok(t) => t,
        Err(e) => {
            app.set_status(Level::Error, e);
            return Vec::new();
        }
    };
    let missing_b = with_b
        .then_some("no run B: pick a second run on 3 Runs (b) to lay both out on shared axes");
    let picked = picked_vectors(
        app,
        Slot::A,
        "no run picked: train one, or pick one on 3 Runs (a)",
    )
    .and_then(|a| match missing_b {
        Some(missing) => picked_vectors(app, Slot::B, missing).map(|b| (a, Some(b))),
        None => Ok((a, None)),
    });
    let ((run, label, embedding), b) = match picked {
        Ok(picked) => picked,
        Err(why) => {
            app.set_status(Level::Warn, why);
            return Vec::new();
        }
    };
    let method = typed.projection.name;
    let selection = Selection::parse(app.projection.focus.text(), typed.count);
    let pair = b.map(|(run, label, embedding)| {
        Box::new(PairSource {
            run,
            label,
            embedding,
        })
    });
    let b_number = pair.as_ref().map(|b| app.run_number(b.run));
    let last_named = pair.as_ref().map_or(run, |b| b.run.max(run));
    let request = app.next_id();
    // The layout in flight, if any, is not wanted any more.
    app.projection.cancel_running();
    let cancel = CancelFlag::default();
    app.projection.running = Some((last_named, cancel.clone()));
    let job = ProjectionJob::Compute {
        request,
        run,
        label,
        embedding,
        selection,
        method: method.to_string(),
        params: typed.params,
        labels: typed.labels,
        seed: typed.seed,
        dims: typed.dims,
        pair,
        cancel,
    };
    let p = &mut app.projection;
    // The options this method reads (a plot's record lists those).
    p.pending_settings = p
        .visible_options()
        .into_iter()
        .map(|i| p.options.specs()[i].name)
        .map(|name| (name.to_string(), p.options.text(name).to_string()))
        .collect();
    p.pending_settings
        .insert("focus".into(), p.focus.text().to_string());
    if let Some(b) = b_number {
        p.pending_settings
            .insert("aligned_with".into(), format!("#{b}"));
    }
    p.pending = Some(request);
    p.kl.clear();
    p.progress = None;
    let what = match b_number {
        Some(b) => format!(
            "{method} of runs #{} and #{b} on shared axes…",
            app.run_number(run)
        ),
        None => format!("{method} of run #{}…", app.run_number(run)),
    };
    app.set_status(Level::Info, what);
    vec![Effect::Projection(Box::new(job))]
}

/// The run picked for `slot`, its label and its vectors, or why not
/// (`missing` when no run is picked).
fn picked_vectors(
    app: &App,
    slot: Slot,
    missing: &str,
) -> Result<(usize, String, std::sync::Arc<crate::embedding::Embedding>), String> {
    let (run, entry) = app.picked(slot).ok_or_else(|| missing.to_string())?;
    let embedding = entry.embedding.clone().ok_or_else(|| entry.no_vectors())?;
    Ok((run, entry.label(), embedding))
}

/// Exports the layout shown.
pub fn export(app: &mut App, path: &str, overwrite: bool) -> Vec<Effect> {
    let Some(layout) = app.projection.layout.clone() else {
        app.set_status(Level::Warn, "nothing to export yet: project first (p)");
        return Vec::new();
    };
    if app.projection.previewing.is_some() {
        app.set_status(
            Level::Warn,
            "t-SNE is still running: export when its layout is final",
        );
        return Vec::new();
    }
    let file = std::path::Path::new(path);
    let kind = match file.extension().and_then(|e| e.to_str()) {
        Some(e) if e.eq_ignore_ascii_case("csv") => Some(Kind::Csv("word,")),
        _ => ImageFormat::from_path(file).map(|_| Kind::Image),
    };
    let again = Action::ExportPlot(path.to_string());
    // An unknown extension is the worker's error to report.
    if let Some(kind) = kind {
        if !writes::may_write(app, "export", file, kind, overwrite, again) {
            return Vec::new();
        }
    }
    app.set_status(Level::Info, format!("writing {path}…"));
    vec![Effect::Projection(Box::new(ProjectionJob::Export {
        layout,
        path: path.to_string(),
    }))]
}

/// A projection worker answered.
pub fn answered(app: &mut App, result: ProjectionResult) -> Vec<Effect> {
    let p = &mut app.projection;
    match result {
        ProjectionResult::Progress {
            request,
            step,
            total,
            kl,
        } if p.pending == Some(request) => {
            p.progress = Some((step, total));
            if kl.is_finite() {
                p.kl.push((step as f64, kl));
            }
        }
        ProjectionResult::Preview { request, layout } if p.pending == Some(request) => {
            if p.previewing != Some(request) {
                p.previewing = Some(request);
                p.reset_view();
            }
            p.layout = Some(*layout);
        }
        ProjectionResult::Done { request, result } if p.pending == Some(request) => {
            p.pending = None;
            p.running = None;
            // The view the user set while the layout formed is kept.
            let animated = p.previewing.take() == Some(request);
            match result {
                Ok(layout) => {
                    p.settings = std::mem::take(&mut p.pending_settings);
                    let text = format!("{}: {} words", layout.description, layout.words.len());
                    p.layout = Some(*layout);
                    if !animated {
                        p.reset_view();
                    }
                    app.set_status(Level::Info, text);
                }
                Err(e) => app.set_status(Level::Error, e),
            }
        }
        ProjectionResult::Exported { path, result } => match result {
            Ok(()) => {
                app.set_status(Level::Info, format!("projection written to {path}"));
                if let Some(l) = &app.projection.layout {
                    let mut settings = app.projection.settings.clone();
                    if let Some(turn) = turn_setting(l, &app.projection.turn, &path) {
                        settings.insert("turn".into(), turn);
                    }
                    if let Some(r) = app.runs.get_mut(l.run) {
                        r.recorder.run_mut().plots.push(PlotRecord {
                            path: path.clone().into(),
                            method: l.method.clone(),
                            settings,
                        });
                        app.session.changed();
                    }
                }
                app.projection.exported = Some(path);
            }
            Err(e) => app.set_status(Level::Error, e),
        },
        _ => {}
    }
    Vec::new()
}

/// How a turned 3-D layout's picture was seen, for its plot's record: the
/// turn's rows (as `sphere::turn` composes them), written only for images
/// of a turned sphere or cloud (a CSV holds the unturned points).
fn turn_setting(
    layout: &crate::tui::model::projection::Layout,
    turn: &crate::geometry::ube::sphere::Matrix3,
    path: &str,
) -> Option<String> {
    let image = crate::project::plot::ImageFormat::from_path(std::path::Path::new(path)).is_some();
    if !layout.turns() || !image || *turn == crate::geometry::ube::sphere::IDENTITY {
        return None;
    }
    // Rounded first, so no "-0.000000".
    let round = |v: f64| (v * 1e6).round() / 1e6 + 0.0;
    let rows: Vec<String> = turn
        .iter()
        .map(|r| format!("{:.6} {:.6} {:.6}", round(r[0]), round(r[1]), round(r[2])))
        .collect();
    Some(rows.join("; "))
}

/// Degrees a 3-D layout turns per key press (24 presses: a full turn).
pub const TURN_DEGREES: f64 = 15.0;

/// Neighbours listed for a selected word.
const NEAR: usize = 8;

/// Selects `word` in the layout: highlighted, centred, and its nearest
/// words in run A's vectors listed (as the Embedding Projector does).
pub fn select_point(app: &mut App, word: &str) -> Vec<Effect> {
    let Some(layout) = &app.projection.layout else {
        app.set_status(Level::Warn, "nothing projected yet: p projects run A");
        return Vec::new();
    };
    let word = word.trim();
    let lower = word.to_lowercase();
    let Some(i) = layout
        .words
        .iter()
        .position(|w| w == word)
        .or_else(|| layout.words.iter().position(|w| *w == lower))
    else {
        app.set_status(
            Level::Warn,
            format!("'{word}' is not in this projection: type it as the focus and press p"),
        );
        return Vec::new();
    };
    let [x, y] = layout.coords[i];
    let chosen = layout.word_of(i).to_string();
    let near = app
        .runs
        .get(layout.run)
        .and_then(|r| r.embedding.as_ref())
        .and_then(|e| {
            e.neighbors(&chosen, crate::embedding::NeighborParams::k(NEAR))
                .ok()
        })
        .unwrap_or_default();
    let v = &mut app.projection;
    v.picked = Some(i);
    v.near = near.into_iter().map(|n| (n.word, n.score)).collect();
    v.center_on(x, y);
    app.set_status(
        Level::Info,
        format!("selected '{chosen}' (n/N: next/previous word)"),
    );
    Vec::new()
}

/// Navigation on the Projection screen.
/// A click at terminal cell `(column, row)`: selects the point drawn
/// there, as `/` finding its word does.
pub fn click(app: &mut App, column: u16, row: u16) -> Vec<Effect> {
    let plot =
        crate::tui::ui::projection::plot_area(crate::tui::ui::body_area(app.width, app.height));
    let inside = (plot.x..plot.x + plot.width).contains(&column)
        && (plot.y..plot.y + plot.height).contains(&row);
    let v = &app.projection;
    let (Some(layout), true) = (&v.layout, inside) else {
        return Vec::new();
    };
    let hit = v.point_at(plot.width, plot.height, column - plot.x, row - plot.y);
    match hit.map(|i| layout.words[i].clone()) {
        Some(word) => app.user_action(Action::SelectPoint(word)),
        None => {
            app.set_status(
                Level::Info,
                "no point there (click on a dot, or / to find a word)",
            );
            Vec::new()
        }
    }
}

pub fn navigate(app: &mut App, action: Action) -> Vec<Effect> {
    let v = &mut app.projection;
    if v.finding {
        match action {
            Action::Edit(op) => {
                v.find.apply(&op);
            }
            Action::Cancel => v.finding = false,
            Action::Activate => {
                v.finding = false;
                let word = v.find.text().to_string();
                return app.user_action(Action::SelectPoint(word));
            }
            _ => {}
        }
        return Vec::new();
    }
    if v.editing_focus {
        match action {
            Action::Edit(op) => {
                v.focus.apply(&op);
            }
            Action::Cancel => v.editing_focus = false,
            Action::Activate => {
                v.editing_focus = false;
                let text = v.focus.text().to_string();
                return app.user_action(Action::SetProjectionOption("focus".into(), text));
            }
            _ => {}
        }
        return Vec::new();
    }
    if v.options.editing().is_some() {
        return match v.options.typed(&action) {
            Some((name, text)) => app.user_action(Action::SetProjectionOption(name, text)),
            None => Vec::new(),
        };
    }
    let rows = v.rows();
    let at = v.snap_selection();
    match action {
        Action::Up => v.selected = rows[at.saturating_sub(1)],
        Action::Down => v.selected = rows[(at + 1).min(rows.len() - 1)],
        Action::Activate if v.selected == 0 => {
            v.editing_focus = true;
            v.focus.select_all();
        }
        Action::Activate | Action::Left | Action::Right => {
            if let Some((name, text)) = v.options.pressed(v.selected - 1, &action) {
                return app.user_action(Action::SetProjectionOption(name, text));
            }
        }
        Action::ZoomIn => v.zoom = (v.zoom * 1.5).min(1000.0),
        Action::ZoomOut => v.zoom = (v.zoom / 1.5).max(1.0),
        Action::ResetView => {
            v.zoom = 1.0;
            v.pan = (0.0, 0.0);
            if v.turn != crate::geometry::ube::sphere::IDENTITY {
                v.turn = crate::geometry::ube::sphere::IDENTITY;
                v.remap();
            }
        }
        Action::Turn(right, up) => {
            let step = TURN_DEGREES;
            if !v.turn_view(f64::from(right) * step, f64::from(up) * step) {
                app.set_status(
                    Level::Info,
                    "only a 3-D layout turns: method ube, or dims 3 with pca, tsne or umap, then p",
                );
            }
        }
        Action::Pan(dx, dy) => {
            let step = 0.1 / v.zoom;
            v.pan.0 += dx as f64 * step;
            v.pan.1 += dy as f64 * step;
        }
        Action::FindPrompt => {
            v.finding = true;
            v.find.select_all();
        }
        Action::NextPoint | Action::PrevPoint => {
            let Some(layout) = &v.layout else {
                return Vec::new();
            };
            let n = layout.words.len();
            if n == 0 {
                return Vec::new();
            }
            let next = match (v.picked, action == Action::NextPoint) {
                (None, true) => 0,
                (None, false) => n - 1,
                (Some(i), true) => (i + 1) % n,
                (Some(i), false) => (i + n - 1) % n,
            };
            let word = layout.words[next].clone();
            return app.user_action(Action::SelectPoint(word));
        }
        Action::ExportPlotPrompt => {
            let name = match &v.layout {
                Some(l) => format!("run{}-{}.png", l.run + 1, l.method),
                None => "projection.png".into(),
            };
            let default = app.exports.join(name).display().to_string();
            app.prompt(
                PromptKind::ExportPlot,
                "Export projection",
                default,
                "format by extension: .png, .svg or .csv",
            );
        }
        _ => {}
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::model::projection::{Layout, ProjectionView};
    use crate::tui::update::act;

    #[test]
    fn focus_text_selects_the_words() {
        assert_eq!(Selection::parse("", 300), Selection::Top(300));
        assert_eq!(
            Selection::parse(" france ", 50),
            Selection::Neighborhood("france".into(), 50)
        );
        assert_eq!(
            Selection::parse("king, queen man", 50),
            Selection::List(vec!["king".into(), "queen".into(), "man".into()])
        );
    }

    #[test]
    fn zoom_and_pan_shrink_and_move_the_bounds() {
        let mut v = ProjectionView {
            layout: Some(layout("pca", &["a", "b"], vec![[0.0, 0.0], [10.0, 20.0]])),
            ..ProjectionView::default()
        };
        let ([x0, x1], [y0, y1]) = v.bounds().unwrap();
        assert!((x0 + 0.25).abs() < 1e-9 && (x1 - 10.25).abs() < 1e-9);
        assert!((y0 + 0.5).abs() < 1e-9 && (y1 - 20.5).abs() < 1e-9);
        v.zoom = 2.0;
        v.pan = (0.1, 0.0);
        let ([x0, x1], _) = v.bounds().unwrap();
        assert!((x1 - x0 - 5.25).abs() < 1e-9);
        assert!(((x0 + x1) / 2.0 - 6.05).abs() < 1e-9);
    }

    #[test]
    fn a_click_on_a_dot_selects_its_word_at_any_zoom() {
        use ratatui::crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
        let mut app = app();
        (app.width, app.height) = (100, 30);
        app.projection.layout = Some(layout(
            "tsne",
            &["a", "b", "c"],
            vec![[0.0, 0.0], [10.0, 10.0], [5.0, 2.0]],
        ));
        let plot = crate::tui::ui::projection::plot_area(crate::tui::ui::body_area(100, 30));
        // The cell a point is drawn in, as the canvas maps it.
        let cell = |app: &App, [x, y]: [f64; 2]| {
            let ([x0, x1], [y0, y1]) = app.projection.bounds().unwrap();
            let col = ((x - x0) / (x1 - x0) * f64::from(plot.width)) as u16;
            let row = ((y1 - y) / (y1 - y0) * f64::from(plot.height)) as u16;
            (
                plot.x + col.min(plot.width - 1),
                plot.y + row.min(plot.height - 1),
            )
        };
        let click = |app: &mut App, (column, row): (u16, u16)| {
            let m = MouseEvent {
                kind: MouseEventKind::Down(MouseButton::Left),
                column,
                row,
                modifiers: KeyModifiers::NONE,
            };
            crate::tui::update::update(app, crate::tui::msg::Msg::Mouse(m));
        };
        let at = cell(&app, [5.0, 2.0]);
        click(&mut app, at);
        assert_eq!(app.projection.picked, Some(2));
        assert_eq!(app.journal.last(), Some(&Action::SelectPoint("c".into())));
        app.projection.zoom = 3.0;
        app.projection.center_on(5.0, 2.0);
        app.projection.picked = None;
        let at = cell(&app, [5.0, 2.0]);
        assert_eq!(at, (plot.x + plot.width / 2, plot.y + plot.height / 2));
        click(&mut app, at);
        assert_eq!(app.projection.picked, Some(2), "zoomed in");
        // Far from every dot: nothing changes and the status says why.
        click(&mut app, (plot.x + plot.width - 1, plot.y));
        assert_eq!(app.projection.picked, Some(2));
        assert!(
            app.status.text.contains("no point there"),
            "{}",
            app.status.text
        );
        // Outside the plot (the options pane) a click selects nothing.
        click(&mut app, (1, 5));
        assert_eq!(app.projection.picked, Some(2));
    }

    #[test]
    fn a_running_t_sne_animates_and_keeps_the_view_set_meanwhile() {
        let mut app = app();
        let frame = |x: f64| layout("tsne", &["a", "b"], vec![[0.0, 0.0], [x, 1.0]]);
        app.projection.pending = Some(7);
        app.projection.zoom = 5.0;
        answered(
            &mut app,
            ProjectionResult::Preview {
                request: 7,
                layout: Box::new(frame(1.0)),
            },
        );
        assert_eq!(app.projection.zoom, 1.0, "a new layout starts unzoomed");
        assert_eq!(
            app.projection.layout.as_ref().unwrap().coords[1],
            [1.0, 1.0]
        );
        assert!(
            export(&mut app, "p.png", false).is_empty(),
            "not while it forms"
        );
        app.projection.zoom = 2.0;
        // A frame of an older request is ignored.
        let old = ProjectionResult::Preview {
            request: 6,
            layout: Box::new(frame(9.0)),
        };
        answered(&mut app, old);
        answered(
            &mut app,
            ProjectionResult::Preview {
                request: 7,
                layout: Box::new(frame(2.0)),
            },
        );
        assert_eq!(
            app.projection.layout.as_ref().unwrap().coords[1],
            [2.0, 1.0]
        );
        let done = ProjectionResult::Done {
            request: 7,
            result: Ok(Box::new(frame(3.0))),
        };
        answered(&mut app, done);
        assert_eq!(app.projection.zoom, 2.0, "the zoom set while it ran stays");
        assert_eq!(app.projection.pending, None);
        assert_eq!(app.projection.previewing, None);
        assert_eq!(export(&mut app, "p.png", false).len(), 1);
    }

    #[test]
    fn words_are_found_and_stepped_through() {
        let mut app = app();
        app.projection.layout = Some(Layout {
            focus: Some(0),
            ..layout(
                "tsne",
                &["a", "b", "c"],
                vec![[0.0, 0.0], [10.0, 10.0], [5.0, 5.0]],
            )
        });
        act(&mut app, Action::SelectPoint("B".into()));
        assert_eq!(app.projection.picked, Some(1), "case folded");
        act(&mut app, Action::NextPoint);
        assert_eq!(app.projection.picked, Some(2));
        act(&mut app, Action::NextPoint);
        assert_eq!(app.projection.picked, Some(0), "wraps");
        act(&mut app, Action::PrevPoint);
        assert_eq!(app.projection.picked, Some(2));
        act(&mut app, Action::SelectPoint("zebra".into()));
        assert_eq!(app.projection.picked, Some(2), "unchanged");
        assert!(app.status.text.contains("not in this projection"));
        // Zoomed in, the selected word is brought to the centre.
        app.projection.zoom = 4.0;
        act(&mut app, Action::SelectPoint("b".into()));
        let ([x0, x1], [y0, y1]) = app.projection.bounds().unwrap();
        assert!(((x0 + x1) / 2.0 - 10.0).abs() < 1e-9);
        assert!(((y0 + y1) / 2.0 - 10.0).abs() < 1e-9);
    }

    #[test]
    fn a_new_layout_or_deleting_its_run_cancels_the_layout_in_flight() {
        use crate::embedding::Embedding;
        use crate::tui::run::RunEntry;
        let mut app = app();
        for i in 0..2 {
            let words =
                crate::words::WordIndex::from_words((0..10).map(|w| format!("w{w}")).collect());
            let v =
                ndarray::Array2::from_shape_fn((10, 4), |(r, c)| ((r + c * (3 + i)) % 5) as f32);
            let mut run = RunEntry::imported(format!("v{i}.txt").into(), None);
            run.embedding = Some(std::sync::Arc::new(Embedding::new(words, v).unwrap()));
            app.push_run(run);
        }
        app.picks = [Some(0), Some(1)];
        let flag = |effects: &[Effect]| match effects {
            [Effect::Projection(job)] => match job.as_ref() {
                ProjectionJob::Compute { cancel, .. } => cancel.clone(),
                other => panic!("{other:?}"),
            },
            other => panic!("{other:?}"),
        };
        let first = flag(&act(&mut app, Action::Project));
        assert!(!first.is_cancelled());
        let second = flag(&act(&mut app, Action::Project));
        assert!(first.is_cancelled(), "superseded");
        assert!(!second.is_cancelled());
        assert!(app.projection.pending.is_some());
        crate::tui::update::runs::delete(&mut app, 1);
        assert!(
            !second.is_cancelled(),
            "a later run: run A keeps its number"
        );
        assert!(app.projection.pending.is_some());
        crate::tui::update::runs::delete(&mut app, 0);
        assert!(second.is_cancelled(), "its own run is gone");
        assert_eq!(app.projection.pending, None);
    }

    #[test]
    fn b_projects_run_b_with_a_and_asks_for_b_when_none_is_picked() {
        use crate::embedding::Embedding;
        use crate::tui::run::RunEntry;
        let mut app = app();
        for i in 0..2 {
            let words =
                crate::words::WordIndex::from_words((0..10).map(|w| format!("w{w}")).collect());
            let v = ndarray::Array2::from_shape_fn((10, 4), |(r, c)| {
                ((r * 3 + c * (5 + i)) % 7) as f32
            });
            let mut run = RunEntry::imported(format!("v{i}.txt").into(), None);
            run.embedding = Some(std::sync::Arc::new(Embedding::new(words, v).unwrap()));
            app.push_run(run);
        }
        app.picks = [Some(0), None];
        assert!(act(&mut app, Action::ProjectPair).is_empty());
        assert!(app.status.text.contains("no run B"), "{}", app.status.text);
        assert_eq!(app.projection.pending, None);
        app.picks = [Some(0), Some(1)];
        let effects = act(&mut app, Action::ProjectPair);
        let [Effect::Projection(job)] = &effects[..] else {
            panic!("{effects:?}")
        };
        let ProjectionJob::Compute {
            run, pair: Some(b), ..
        } = job.as_ref()
        else {
            panic!("{job:?}")
        };
        assert_eq!((*run, b.run), (0, 1));
        assert!(app.projection.pending.is_some());
        assert_eq!(app.projection.pending_settings["aligned_with"], "#2");
        assert!(
            app.status.text.contains("runs #1 and #2"),
            "{}",
            app.status.text
        );
        // `p` still projects A alone.
        let effects = act(&mut app, Action::Project);
        assert!(matches!(
            &effects[..],
            [Effect::Projection(job)] if matches!(job.as_ref(), ProjectionJob::Compute { pair: None, .. })
        ));
    }

    fn app() -> App {
        let mut app = App::new(&crate::tui::app::AppOptions {
            corpus: "x".into(),
            session: None,
            eval_plan: Default::default(),
            cores: 1,
            exports: "exports".into(),
        });
        app.screen = crate::tui::action::Screen::Projection;
        app
    }

    /// A layout of `words` at `coords` (every word labelled).
    fn layout(method: &str, words: &[&str], coords: Vec<[f64; 2]>) -> Layout {
        let words = words.iter().map(|w| w.to_string()).collect();
        Layout::new(0, method, words, coords)
    }

    #[test]
    fn the_form_shows_the_chosen_methods_options_and_checks_them() {
        let mut app = app();
        let names = |app: &App| -> Vec<&'static str> {
            let v = &app.projection;
            v.visible_options()
                .into_iter()
                .map(|i| v.options.specs()[i].name)
                .collect()
        };
        assert!(names(&app).contains(&"perplexity"));
        assert!(!names(&app).contains(&"k_max"));
        act(
            &mut app,
            Action::SetProjectionOption("method".into(), "ube".into()),
        );
        assert_eq!(
            names(&app),
            [
                "method", "count", "labels", "seed", "k_max", "coverage", "iters", "lr", "update",
                "min_k", "knn"
            ]
        );
        // Down walks the rows shown: focus, then the options ube reads.
        let mut seen = Vec::new();
        for _ in 0..12 {
            act(&mut app, Action::Down);
            seen.push(app.projection.selected);
        }
        let iters = app.projection.options.index("iters").unwrap() + 1;
        assert!(seen.contains(&iters));
        let perplexity = app.projection.options.index("perplexity").unwrap() + 1;
        assert!(!seen.contains(&perplexity), "{seen:?}");
        // ← / → cycle the update rule; a value out of range is refused by
        // its declaration before anything runs.
        app.projection.selected = app.projection.options.index("update").unwrap() + 1;
        act(&mut app, Action::Right);
        assert_eq!(app.projection.options.text("update"), "newton");
        // Back to t-SNE, the selected `update` is not shown: the row above is.
        act(
            &mut app,
            Action::SetProjectionOption("method".into(), "tsne".into()),
        );
        let seed = app.projection.options.index("seed").unwrap() + 1;
        assert_eq!(app.projection.selected, seed);
        act(
            &mut app,
            Action::SetProjectionOption("method".into(), "ube".into()),
        );
        act(
            &mut app,
            Action::SetProjectionOption("lr".into(), "-1".into()),
        );
        assert!(app.status.text.contains("lr"), "{}", app.status.text);
        act(&mut app, Action::Project);
        assert!(
            app.status.text.starts_with("fix lr first"),
            "{}",
            app.status.text
        );
    }

    fn sphere_layout() -> Layout {
        let y = crate::geometry::ube::init::random_sphere(50, 3, 5);
        let sphere: Vec<[f64; 3]> = y.rows().into_iter().map(|r| [r[0], r[1], r[2]]).collect();
        let map = crate::project::ube::picture(&y);
        let words = (0..50).map(|i| format!("w{i}")).collect();
        let coords = map.rows().into_iter().map(|r| [r[0], r[1]]).collect();
        Layout {
            labels: 5,
            sphere: Some(sphere),
            ..Layout::new(0, "ube", words, coords)
        }
    }

    #[test]
    fn turning_the_sphere_moves_its_map_and_a_full_turn_comes_back() {
        let mut app = app();
        let start = sphere_layout();
        app.projection.layout = Some(start.clone());
        let coords = |app: &App| app.projection.layout.as_ref().unwrap().coords.clone();
        let close = |a: &[[f64; 2]], b: &[[f64; 2]]| {
            a.iter()
                .zip(b)
                .all(|(p, q)| (p[0] - q[0]).abs() < 1e-9 && (p[1] - q[1]).abs() < 1e-9)
        };
        act(&mut app, Action::Turn(1, 0));
        assert!(
            !close(&coords(&app), &start.coords),
            "one step moves the map"
        );
        // The sphere itself (what the CSV writes) is untouched.
        assert_eq!(app.projection.layout.as_ref().unwrap().sphere, start.sphere);
        for _ in 1..24 {
            act(&mut app, Action::Turn(1, 0));
        }
        assert!(close(&coords(&app), &start.coords), "24 × 15° = 360°");
        for (right, up) in [(0, 1), (-1, 0), (0, -1)] {
            for _ in 0..24 {
                act(&mut app, Action::Turn(right, up));
            }
            assert!(close(&coords(&app), &start.coords), "({right}, {up})");
        }
        // Turning there and back is no turn; 0 resets a turn.
        act(&mut app, Action::Turn(0, 1));
        act(&mut app, Action::Turn(1, 0));
        act(&mut app, Action::ResetView);
        assert_eq!(app.projection.turn, crate::geometry::ube::sphere::IDENTITY);
        assert!(close(&coords(&app), &start.coords));
        // A layout that is not a sphere does not turn.
        app.projection.layout = Some(Layout {
            sphere: None,
            ..start.clone()
        });
        act(&mut app, Action::Turn(1, 0));
        assert_eq!(coords(&app), start.coords);
        assert!(
            app.status.text.contains("only a 3-D layout turns"),
            "{}",
            app.status.text
        );
    }

    #[test]
    fn a_3d_cloud_turns_with_the_sphere_s_keys_and_resets() {
        let mut app = app();
        let points: Vec<[f64; 3]> = (0..30)
            .map(|i| {
                let t = f64::from(i);
                [t.sin() * 3.0, t.cos(), 0.1 * t - 1.5]
            })
            .collect();
        let flat =
            crate::project::layout::cloud_picture(&points, &crate::geometry::ube::sphere::IDENTITY);
        let words = (0..30).map(|i| format!("w{i}")).collect();
        let start = Layout {
            cloud: Some(points.clone()),
            ..Layout::new(0, "tsne", words, flat.clone())
        };
        app.projection.layout = Some(start);
        let coords = |app: &App| app.projection.layout.as_ref().unwrap().coords.clone();
        // Six quarter-steps right: the depth axis (z) is now across the screen.
        for _ in 0..6 {
            act(&mut app, Action::Turn(1, 0));
        }
        let turned = coords(&app);
        for (p, q) in turned.iter().zip(&points) {
            assert!(
                (p[0].abs() - (q[2] - (-1.5 + 0.1 * 14.5)).abs()).abs() < 1e-9,
                "{p:?} {q:?}"
            );
            assert!((p[1] - (q[1] - mean_y(&points))).abs() < 1e-9);
        }
        assert_eq!(
            app.projection.layout.as_ref().unwrap().cloud.as_ref(),
            Some(&points)
        );
        act(&mut app, Action::ResetView);
        let back = coords(&app);
        assert!(back
            .iter()
            .zip(&flat)
            .all(|(a, b)| (a[0] - b[0]).abs() < 1e-12 && (a[1] - b[1]).abs() < 1e-12));
    }

    fn mean_y(points: &[[f64; 3]]) -> f64 {
        points.iter().map(|p| p[1]).sum::<f64>() / points.len() as f64
    }
}
