//! The HParams screen's keys: select a run, sort the table, choose what the
//! chart plots, pick runs as A or B for the other screens, export the chart.

use std::path::{Path, PathBuf};

use crate::outputs::Kind;
use crate::project::plot::ImageFormat;
use crate::tui::action::Action;
use crate::tui::app::{App, Level, PromptKind};
use crate::tui::model::hparams::{short, Table};
use crate::tui::msg::Effect;
use crate::tui::update::writes;

/// The table of the sweep on screen, if the session has sweeps.
pub fn table(app: &App) -> Option<Table> {
    let sweeps = &app.session.sweeps;
    let record = sweeps.get(app.hparams.sweep.min(sweeps.len().checked_sub(1)?))?;
    let run = |n: u32| {
        app.runs
            .iter()
            .find(|r| r.number() == n)
            .map(|r| r.record())
    };
    Some(Table::of(record, run, &app.hparams))
}

/// Keys of the HParams screen.
pub fn navigate(app: &mut App, action: Action) -> Vec<Effect> {
    let Some(table) = table(app) else {
        if matches!(action, Action::PickSelected(_) | Action::Activate) {
            app.set_status(
                Level::Info,
                "no sweep in this session: run `wordbench sweep ... --out DIR` and open DIR/sweep.ron",
            );
        }
        return Vec::new();
    };
    let view = &mut app.hparams;
    let n = table.order.len();
    view.selected = view.selected.min(n.saturating_sub(1));
    let (sort, _) = table.sort(view);
    let columns = table.columns();
    match action {
        Action::Up => view.selected = view.selected.saturating_sub(1),
        Action::Down => view.selected = (view.selected + 1).min(n.saturating_sub(1)),
        Action::Left => view.sort_by(&table, (sort + columns - 1) % columns),
        Action::Right => view.sort_by(&table, (sort + 1) % columns),
        Action::ReverseSort => view.sort_by(&table, sort),
        Action::CycleXAxis => view.axis = (view.axis + 1) % table.names.len().max(1),
        Action::CycleMetric => {
            view.metric = Some((table.metric(view) + 1) % table.metrics.len().max(1))
        }
        Action::CycleSweep(delta) => {
            let count = app.session.sweeps.len() as isize;
            let next = (view.sweep as isize + isize::from(delta)).rem_euclid(count.max(1));
            *view = Default::default();
            view.sweep = next as usize;
        }
        Action::PickSelected(slot) => match run_index(app, &table) {
            Some(i) => return app.user_action(Action::PickRun(slot, i)),
            None => app.set_status(
                Level::Info,
                "that run is not in the session (skipped or deleted)",
            ),
        },
        Action::Activate => {
            if let Some(i) = run_index(app, &table) {
                app.follow_up(Action::ShowRun(i));
            }
        }
        Action::ExportChartPrompt => {
            let Some(chart) = table.chart(view, String::new()) else {
                app.set_status(Level::Info, "nothing swept to chart");
                return Vec::new();
            };
            let name = format!(
                "sweep{}-{}-by-{}.svg",
                app.hparams.sweep + 1,
                short(&chart.metric),
                chart.name
            );
            let default = app.exports.join(name).display().to_string();
            app.prompt(
                PromptKind::ExportChart,
                "Export the chart",
                default,
                "format by extension: .png or .svg",
            );
        }
        _ => {}
    }
    Vec::new()
}

/// Writes the chart on screen to `path` (PNG or SVG by its extension),
/// asking before it replaces a file (`overwrite` once the user said yes).
pub fn export(app: &mut App, path: &str, overwrite: bool) -> Vec<Effect> {
    let file = Path::new(path);
    let Some(format) = ImageFormat::from_path(file) else {
        app.set_status(
            Level::Error,
            format!("{path}: expected a .png or .svg file"),
        );
        return Vec::new();
    };
    let sweep = app.hparams.sweep;
    let Some(table) = table(app) else {
        app.set_status(Level::Warn, "no sweep in this session to chart");
        return Vec::new();
    };
    let method = app.session.sweeps[sweep.min(app.session.sweeps.len() - 1)]
        .spec
        .method
        .clone();
    let Some(mut chart) = table.chart(&app.hparams, String::new()) else {
        app.set_status(Level::Warn, "nothing swept to chart");
        return Vec::new();
    };
    chart.title = format!(
        "{} by {}: sweep {} of {method}",
        chart.metric,
        chart.name,
        sweep + 1
    );
    let again = Action::ExportChart(path.to_string());
    if !writes::may_write(app, "export", file, Kind::Image, overwrite, again) {
        return Vec::new();
    }
    app.set_status(Level::Info, format!("writing {path}…"));
    vec![Effect::ExportChart {
        chart: Box::new(chart),
        path: PathBuf::from(path),
        format,
    }]
}

/// The chart was written, or why not.
pub fn exported(app: &mut App, path: &Path, result: Result<(), String>) {
    match result {
        Ok(()) => app.set_status(Level::Info, format!("chart written to {}", path.display())),
        Err(e) => app.set_status(Level::Error, e),
    }
}

/// The index among the app's runs of the selected row's run.
fn run_index(app: &App, table: &Table) -> Option<usize> {
    let number = table.selected_run(app.hparams.selected)?;
    app.runs.iter().position(|r| r.number() == number)
}
