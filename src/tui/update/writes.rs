//! What no dialog of the workbench may write over, and the question before
//! replacing a file (docs/writes.md): the exports (`e` on Runs, the
//! projection's export) and the session save dialog check their file with
//! [`crate::outputs`] against the workbench's inputs: the corpus, the
//! session file, the vectors runs import, the added evaluation sets. A file
//! that is one of them, or that is not of the output's kind, is refused;
//! an existing one of the kind is replaced only after a yes, which comes
//! back as [`Action::Overwrite`].

use std::path::Path;

use crate::outputs::{Guard, Kind};
use crate::tui::action::Action;
use crate::tui::app::{App, Level};

/// The workbench's inputs: what no dialog writes over.
fn inputs(app: &App) -> Guard {
    let mut guard = Guard::new();
    if let Some(loaded) = &app.corpus.loaded {
        guard.input("the open corpus", &loaded.reference.path);
    }
    let typed = app.corpus.path.text().trim();
    if !typed.is_empty() {
        guard.input("the corpus", Path::new(typed));
    }
    if let Some(file) = &app.session.path {
        guard.input("the session file", file);
    }
    for (i, run) in app.runs.iter().enumerate() {
        if let Some(corpus) = run.corpus() {
            guard.input(
                format!("the corpus of run #{}", app.run_number(i)),
                &corpus.path,
            );
        }
        if let Some(source) = &run.record().source {
            guard.vectors_input(
                format!("the vectors run #{} opened", app.run_number(i)),
                &source.path,
            );
        }
    }
    for set in &app.eval.added {
        guard.input("an added evaluation set", set);
    }
    guard
}

/// Whether the dialog `dialog` may write `path` (of `kind`) now. A refusal
/// goes to the status line; an existing file of the kind, unless
/// `overwrite`, opens a question whose yes runs `again` as an
/// [`Action::Overwrite`]. A folder that does not exist yet (made on first
/// use, as `exports/`) holds nothing to lose.
pub(crate) fn may_write(
    app: &mut App,
    dialog: &str,
    path: &Path,
    kind: Kind,
    overwrite: bool,
    again: Action,
) -> bool {
    let folder = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !folder.is_dir() {
        return true;
    }
    match inputs(app).output(dialog, path, kind) {
        Err(e) => {
            app.set_status(Level::Error, e.to_string());
            false
        }
        Ok(checked) if checked.replaces.is_empty() || overwrite => true,
        Ok(checked) => {
            let names: Vec<String> = checked
                .replaces
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            app.confirm(
                format!("{} exists. Replace it?", names.join(" and ")),
                Action::Overwrite(Box::new(again)),
            );
            false
        }
    }
}
