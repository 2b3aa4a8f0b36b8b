//! The Runs screen's handlers: picking one or two runs for the other
//! screens (A, and B to compare), exporting vectors, renaming, deleting,
//! evaluating and replaying; and opening pre-trained vectors as runs of
//! kind "imported".

use std::path::PathBuf;
use std::sync::Arc;

use crate::embedding::Embedding;
use crate::outputs::Kind;
use crate::session::store;
use crate::tui::action::{Action, Slot};
use crate::tui::app::{App, Level, PromptKind};
use crate::tui::model::runs::{format_for, parse_tags};
use crate::tui::msg::{Effect, Imported};
use crate::tui::run::{RunEntry, RunStatus};
use crate::tui::update::writes;

/// Picks run `run` for a slot; picking A's run as B (or B's as A) swaps.
pub fn pick(app: &mut App, slot: Slot, run: usize) -> Vec<Effect> {
    if run >= app.runs.len() {
        app.set_status(Level::Warn, "no such run");
        return Vec::new();
    }
    let other = match slot {
        Slot::A => Slot::B,
        Slot::B => Slot::A,
    };
    // A run is never compared with itself: picking the other slot's run
    // moves it, and that slot takes this slot's run (said on the status line).
    let swapped = app.picks[other.index()] == Some(run);
    if swapped {
        app.picks[other.index()] = app.picks[slot.index()];
    }
    app.picks[slot.index()] = Some(run);
    let r = &app.runs[run];
    let note = if r.embedding.is_some() {
        ""
    } else {
        " (no vectors yet)"
    };
    let mut text = format!("{} picked as {slot}{note}", r.label());
    if swapped {
        text.push_str(&match app.picks[other.index()] {
            Some(o) if o != run => {
                format!("; it was {other}, so {other} is now #{}", app.run_number(o))
            }
            _ => format!("; it was {other}, so {other} is now empty"),
        });
    }
    app.set_status(if swapped { Level::Warn } else { Level::Info }, text);
    app.follow_up(Action::RefreshNeighbors);
    Vec::new()
}

/// Exports run `run`'s vectors; a file there is replaced only when
/// `overwrite` (asked first), never an input (docs/writes.md).
pub fn export(app: &mut App, run: usize, path: &str, overwrite: bool) -> Vec<Effect> {
    let Some(embedding) = app.runs.get(run).and_then(|r| r.embedding.clone()) else {
        let why = app.runs.get(run).map_or_else(
            || format!("no run #{}", app.run_number(run)),
            |r| r.no_vectors(),
        );
        app.set_status(Level::Warn, why);
        return Vec::new();
    };
    let again = Action::ExportRun(run, path.to_string());
    let path = PathBuf::from(path);
    let format = format_for(&path);
    if !writes::may_write(
        app,
        "export",
        &path,
        Kind::Vectors(format),
        overwrite,
        again,
    ) {
        return Vec::new();
    }
    app.set_status(
        Level::Info,
        format!("writing {} ({})…", path.display(), format.name()),
    );
    vec![Effect::ExportVectors {
        run,
        embedding,
        path,
        format,
    }]
}

/// Removes run `run` from the session (its exported files stay on disk).
/// Refused while a later run trains, whose number would shift under it.
pub fn delete(app: &mut App, run: usize) -> Vec<Effect> {
    if run >= app.runs.len() {
        app.set_status(Level::Warn, "no such run");
        return Vec::new();
    }
    if let Some(busy) = app.active_run().filter(|&b| b >= run) {
        app.set_status(
            Level::Warn,
            format!(
                "run #{} is training: stop it first (x on 2 Train)",
                app.run_number(busy)
            ),
        );
        return Vec::new();
    }
    let gone = app.runs.remove(run);
    // An import still reading stops (its answer, if any, is dropped).
    gone.loading.cancel();
    // So does a layout being computed for this run or a later one (the run
    // numbers it names shift); one of earlier runs only goes on.
    if app
        .projection
        .running
        .as_ref()
        .is_some_and(|(last, _)| *last >= run)
    {
        app.projection.cancel_running();
    }
    let shift = |i: usize| match i.cmp(&run) {
        std::cmp::Ordering::Less => Some(i),
        std::cmp::Ordering::Equal => None,
        std::cmp::Ordering::Greater => Some(i - 1),
    };
    for p in &mut app.picks {
        *p = p.and_then(shift);
    }
    app.train.shown = app.train.shown.and_then(shift);
    for r in &mut app.runs {
        r.replay_of = r.replay_of.and_then(shift);
    }
    for answer in &mut app.neighbors.answers {
        let kept = answer.as_ref().and_then(|a| shift(a.run));
        match (answer.as_mut(), kept) {
            (Some(a), Some(i)) => a.run = i,
            _ => *answer = None,
        }
    }
    if let Some(layout) = &mut app.projection.layout {
        match shift(layout.run) {
            Some(i) => layout.run = i,
            None => app.projection.layout = None,
        }
    }
    let last = app.runs.len().saturating_sub(1);
    app.runs_view.selected = app.runs_view.selected.min(last);
    app.eval.selected = app.eval.selected.min(last);
    app.session.changed();
    app.set_status(
        Level::Info,
        format!(
            "deleted {} (the other runs keep their numbers)",
            gone.label()
        ),
    );
    Vec::new()
}

/// Names run `run` (an empty name removes it).
pub fn rename(app: &mut App, run: usize, name: &str) -> Vec<Effect> {
    let Some(r) = app.runs.get_mut(run) else {
        app.set_status(Level::Warn, "no such run");
        return Vec::new();
    };
    let name = name.trim();
    r.recorder.run_mut().label = (!name.is_empty()).then(|| name.to_string());
    let label = r.label();
    app.session.changed();
    let text = if name.is_empty() {
        format!("name removed: the run is {label}")
    } else {
        format!("run is now {label}")
    };
    app.set_status(Level::Info, text);
    Vec::new()
}

/// Keeps run `run`'s vectors beside the session file, or stops keeping
/// them (the kept file goes at the next save).
pub fn keep_vectors(app: &mut App, run: usize, keep: bool) -> Vec<Effect> {
    let Some(r) = app.runs.get_mut(run) else {
        app.set_status(Level::Warn, "no such run");
        return Vec::new();
    };
    if r.is_imported() {
        app.set_status(
            Level::Info,
            "imported vectors are read again from their file: nothing to keep",
        );
        return Vec::new();
    }
    r.keep_vectors = keep;
    let label = r.label();
    let note = if keep {
        format!("{label}: its vectors are kept in the session from the next save")
    } else {
        let size = r
            .recorder
            .run_mut()
            .kept
            .take()
            .map(|k| format!(" ({} freed at the next save)", store::size_text(k.bytes)))
            .unwrap_or_default();
        format!("{label}: its vectors are no longer kept in the session{size}")
    };
    app.session.changed();
    app.set_status(Level::Info, note);
    Vec::new()
}

/// Tags run `run` (an empty text removes its tags).
pub fn tag(app: &mut App, run: usize, text: &str) -> Vec<Effect> {
    let Some(r) = app.runs.get_mut(run) else {
        app.set_status(Level::Warn, "no such run");
        return Vec::new();
    };
    let tags = parse_tags(text);
    let note = if tags.is_empty() {
        format!("{} has no tags", r.label())
    } else {
        format!("{} tagged {}", r.label(), tags.join(", "))
    };
    r.recorder.run_mut().tags = tags;
    app.session.changed();
    app.set_status(Level::Info, note);
    Vec::new()
}

/// Lists only the runs matching every word of `text` (empty: all); the
/// selection moves to a listed run.
pub fn filter(app: &mut App, text: &str) -> Vec<Effect> {
    app.runs_view.set_filter(text);
    let listed = app.runs_view.listed(&app.runs);
    if !listed.contains(&app.runs_view.selected) {
        if let Some(&first) = listed.first() {
            app.runs_view.selected = first;
        }
    }
    let note = match (text.trim().is_empty(), listed.len()) {
        (true, _) => "every run is listed".to_string(),
        (false, 0) => format!(
            "no run matches '{}' (f, then Enter on nothing lists all)",
            text.trim()
        ),
        (false, n) => format!("{n} of {} runs match '{}'", app.runs.len(), text.trim()),
    };
    app.set_status(Level::Info, note);
    Vec::new()
}

/// The listed run one row above (`down` false) or below `from`, staying
/// at the ends; from a run the filter hides, the nearest listed one that way.
fn step_listed(app: &App, from: usize, down: bool) -> usize {
    let listed = app.runs_view.listed(&app.runs);
    let next = if down {
        listed.iter().find(|&&i| i > from)
    } else {
        listed.iter().rev().find(|&&i| i < from)
    };
    match next {
        Some(&i) => i,
        None if listed.contains(&from) => from,
        None => listed.first().copied().unwrap_or(from),
    }
}

/// Vectors were written (or not).
pub fn exported(app: &mut App, run: usize, path: PathBuf, result: Result<(), String>) {
    match result {
        Ok(()) => {
            app.set_status(
                Level::Info,
                format!(
                    "run #{} vectors written to {}",
                    app.run_number(run),
                    path.display()
                ),
            );
            if let Some(r) = app.runs.get_mut(run) {
                r.recorder.run_mut().vectors = Some(path.clone());
                r.exported = Some(path);
                app.session.changed();
            }
        }
        Err(e) => app.set_status(Level::Error, e),
    }
}

/// A recorded run's vectors were read back.
pub fn vectors_loaded(app: &mut App, run: usize, result: Result<Arc<Embedding>, String>) {
    match (app.runs.get_mut(run), result) {
        (Some(r), Ok(e)) => r.embedding = Some(e),
        (_, Err(e)) => app.set_status(Level::Warn, format!("run #{}: {e}", app.run_number(run))),
        (None, _) => {}
    }
}

/// Opens pre-trained vectors (the first `limit` words) as a new run of kind
/// "imported": picked as A when nothing is, else as B, like a new training run.
pub fn import(app: &mut App, path: &str, limit: Option<usize>) -> Vec<Effect> {
    let path = PathBuf::from(path.trim());
    if let Err(e) = crate::corpus::source::check_regular(&path) {
        app.set_status(Level::Error, format!("{e} (give a vectors file)"));
        return Vec::new();
    }
    let run = app.runs.len();
    app.push_run(RunEntry::imported(path.clone(), limit));
    app.runs_view.selected = run;
    let slot = match app.picks[Slot::A.index()] {
        None => Slot::A,
        Some(_) => Slot::B,
    };
    app.picks[slot.index()] = Some(run);
    app.set_status(
        Level::Info,
        format!(
            "reading {} as run #{} ({slot})…",
            path.display(),
            app.run_number(run)
        ),
    );
    vec![Effect::ImportVectors {
        run,
        path,
        limit,
        recorded: None,
        progress: Arc::clone(&app.runs[run].loading),
    }]
}

/// Pre-trained vectors were read (or not) for the imported run that was
/// number `run` when it started and whose load handle is `progress`: runs
/// deleted meanwhile may have moved it, and a deleted run's answer (its
/// read cancelled) is dropped.
pub fn imported(
    app: &mut App,
    run: usize,
    progress: &Arc<crate::embedding::LoadProgress>,
    result: Result<Imported, String>,
) {
    let same = |r: &crate::tui::run::RunEntry| Arc::ptr_eq(&r.loading, progress);
    let run = match app.runs.get(run).filter(|r| same(r)) {
        Some(_) => run,
        None => match app.runs.iter().position(same) {
            Some(moved) => moved,
            None => return,
        },
    };
    let Some(r) = app.runs.get_mut(run) else {
        return;
    };
    match result {
        Ok(imported) => {
            let Imported {
                embedding,
                source,
                notes,
            } = imported;
            let text = format!(
                "run #{} imported: {} ({}), {} words x {} dims",
                r.number(),
                source.path.display(),
                source.format,
                embedding.len(),
                embedding.dim()
            );
            r.embedding = Some(embedding);
            r.status = RunStatus::Finished;
            r.exported = Some(source.path.clone());
            let record = r.recorder.run_mut();
            // A session's imported run read again is what the file holds:
            // only a new or changed description is a change to save.
            let changed = record.source.as_ref() != Some(&source)
                || record.vectors.as_ref() != Some(&source.path);
            record.vectors = Some(source.path.clone());
            record.source = Some(source);
            if changed {
                app.session.changed();
            }
            let level = if notes.is_empty() {
                Level::Info
            } else {
                Level::Warn
            };
            let text = std::iter::once(text).chain(notes).collect::<Vec<_>>();
            app.set_status(level, text.join("; "));
            app.follow_up(Action::RefreshNeighbors);
        }
        Err(e) => {
            r.status = RunStatus::Failed(e.clone());
            app.set_status(Level::Error, format!("run #{}: {e}", app.run_number(run)));
        }
    }
}

/// Words a vocabulary page moves by.
pub const VOCAB_PAGE: usize = 20;

/// Starts the vocabulary line of run `run` at `text` (exact word, else the
/// first word in rank order that starts with it).
fn find_vocab(app: &mut App, run: usize, text: &str) {
    let Some(e) = app.runs.get(run).and_then(|r| r.embedding.clone()) else {
        app.set_status(
            Level::Warn,
            app.runs
                .get(run)
                .map_or_else(String::new, |r| r.no_vectors()),
        );
        return;
    };
    let text = text.trim();
    let words = e.words();
    let found = words
        .id(text)
        .map(|id| id as usize)
        .or_else(|| words.words().iter().position(|w| w.starts_with(text)));
    match found {
        Some(rank) => {
            app.runs_view.vocab_from = rank;
            app.set_status(
                Level::Info,
                format!(
                    "{}: rank {} of {}",
                    words.words()[rank],
                    rank + 1,
                    words.len()
                ),
            );
        }
        None => app.set_status(
            Level::Warn,
            format!(
                "no word starts with '{text}' in run #{}",
                app.run_number(run)
            ),
        ),
    }
}

/// Navigation on the Runs screen.
pub fn navigate(app: &mut App, action: Action) -> Vec<Effect> {
    let n = app.runs.len();
    let sel = app.runs_view.selected.min(n.saturating_sub(1));
    match action {
        Action::ImportVectorsPrompt => app.prompt(
            PromptKind::ImportVectors,
            "Open pre-trained vectors",
            String::new(),
            "word2vec text/binary, GloVe, fastText .vec, .npy; .gz/.bz2/.xz (Tab completes)",
        ),
        Action::FindVocabPrompt => app.prompt(
            PromptKind::FindVocab,
            "Find a word",
            String::new(),
            "a word or its first letters: the vocabulary line starts there",
        ),
        Action::FindVocab(text) => find_vocab(app, sel, &text),
        Action::PageVocab(step) => {
            let n = app
                .runs
                .get(sel)
                .and_then(|r| r.embedding.as_ref())
                .map_or(0, |e| e.len());
            let from = app.runs_view.vocab_from as i64 + i64::from(step) * VOCAB_PAGE as i64;
            app.runs_view.vocab_from = from.clamp(0, n.saturating_sub(1) as i64) as usize;
        }
        Action::Up => app.runs_view.selected = step_listed(app, sel, false),
        Action::Down => app.runs_view.selected = step_listed(app, sel, true),
        Action::FilterRunsPrompt => app.prompt(
            PromptKind::FilterRuns,
            "Filter runs",
            app.runs_view.filter_text(),
            "words every listed run contains (name, method, settings, tags, corpus, status); empty lists all",
        ),
        _ if n == 0 => {
            if !matches!(action, Action::Cancel) {
                app.set_status(Level::Info, "no runs yet: train one on 2 Train");
            }
        }
        _ if !app.runs_view.lists(&app.runs[sel]) => {
            app.set_status(
                Level::Info,
                "no listed run is selected: f changes the filter",
            );
        }
        Action::TagSelectedPrompt => {
            let current = app.runs[sel].record().tags.join(", ");
            app.prompt(
                PromptKind::TagRun(sel),
                &format!("Tags of run #{}", app.run_number(sel)),
                current,
                "comma- or space-separated; f on Runs filters by them; saved in the session",
            );
        }
        Action::PickSelected(slot) => return app.user_action(Action::PickRun(slot, sel)),
        Action::EvaluateSelected => return app.user_action(Action::EvaluateRun(sel)),
        Action::ReplaySelected => return app.user_action(Action::ReplayRun(sel)),
        Action::ToggleKeepSelected => {
            let keep = !app.runs[sel].keep_vectors;
            return app.user_action(Action::KeepVectors(sel, keep));
        }
        Action::DeleteSelected => {
            let question = format!(
                "Delete {}? It leaves the session (exported files stay on disk).",
                app.runs[sel].label()
            );
            app.confirm(question, Action::DeleteRun(sel));
        }
        Action::RenameSelectedPrompt => {
            let current = app.runs[sel].record().label.clone().unwrap_or_default();
            app.prompt(
                PromptKind::RenameRun(sel),
                &format!("Name run #{}", app.run_number(sel)),
                current,
                "shown in every table and saved in the session",
            );
        }
        Action::Activate => {
            app.follow_up(Action::ShowRun(sel));
            return Vec::new();
        }
        Action::ExportSelectedPrompt => {
            let r = &app.runs[sel];
            let name = format!("run{}-{}.txt", r.number(), r.method.name);
            let default = app.exports.join(name).display().to_string();
            app.prompt(
                PromptKind::ExportRun(sel),
                &format!("Export run #{} vectors", app.run_number(sel)),
                default,
                "by extension: .txt word2vec text, .bin binary, .glove GloVe, .npy NumPy, .tsv Projector",
            );
        }
        _ => {}
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embedding::format::{read_observed, ReadOptions};
    use crate::tui::runtime::import_vectors;
    use crate::tui::update::tests::options;

    /// The class of "deleting an importing run leaves its thread reading
    /// for ever": the deleted run's read is cancelled (its reader fails at
    /// its next block), its late answer is dropped, and the answer of a
    /// run that moved up finds it.
    #[test]
    fn deleting_an_importing_run_cancels_its_read_and_drops_its_answer() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.txt"), dir.path().join("b.txt"));
        std::fs::write(&a, "1 2\nx 1 2\n").unwrap();
        std::fs::write(&b, "2 2\ny 1 2\nz 3 4\n").unwrap();
        let mut app = App::new(&options());
        assert_eq!(import(&mut app, a.to_str().unwrap(), None).len(), 1);
        assert_eq!(import(&mut app, b.to_str().unwrap(), None).len(), 1);
        let (pa, pb) = (
            Arc::clone(&app.runs[0].loading),
            Arc::clone(&app.runs[1].loading),
        );
        delete(&mut app, 0);
        assert!(pa.is_cancelled() && !pb.is_cancelled());
        let e = read_observed(&a, ReadOptions::default(), &pa).unwrap_err();
        assert!(e.to_string().ends_with("reading cancelled"), "{e}");
        imported(&mut app, 0, &pa, Err(e.to_string()));
        assert_eq!(app.runs.len(), 1);
        assert!(matches!(app.runs[0].status, RunStatus::Importing));
        let answer = import_vectors(&b, None, None, &pb).unwrap();
        imported(&mut app, 1, &pb, Ok(answer));
        assert!(matches!(app.runs[0].status, RunStatus::Finished));
        assert_eq!(app.runs[0].embedding.as_ref().unwrap().len(), 2);
    }

    /// A directory or a device given to import is said to be one.
    #[test]
    fn importing_a_directory_or_a_device_says_what_it_is() {
        let mut app = App::new(&options());
        let dir = tempfile::tempdir().unwrap();
        assert!(import(&mut app, dir.path().to_str().unwrap(), None).is_empty());
        assert!(
            app.status.text.contains("is a directory"),
            "{}",
            app.status.text
        );
        assert!(import(&mut app, "/dev/null", None).is_empty());
        assert!(app.status.text.contains("is a character device"));
        assert!(app.runs.is_empty());
    }

    use crate::tui::action::{EditOp, Screen};
    use crate::tui::app::{AppOptions, Modal};
    use crate::tui::update::act;

    fn app_with_runs(n: usize) -> App {
        let mut app = App::new(&AppOptions {
            corpus: "x".into(),
            session: None,
            eval_plan: Default::default(),
            cores: 2,
            exports: "exports".into(),
        });
        let m = crate::algo::find("sgns").unwrap();
        for _ in 0..n {
            let params = crate::schema::Params::defaults(m.schema);
            let mut r = RunEntry::new(m, params, 1, 1, crate::tui::run::tests::corpus_ref());
            r.status = RunStatus::Finished;
            app.push_run(r);
        }
        app.screen = Screen::Runs;
        app
    }

    /// Opens a prompt with `key`, empties it (Ctrl-U) and presses Enter.
    fn answer_empty(app: &mut App, key: Action) {
        act(app, key);
        assert!(matches!(app.modal, Some(Modal::Prompt { .. })));
        act(app, Action::Edit(EditOp::Clear));
        act(app, Action::Activate);
        assert!(app.modal.is_none());
    }

    #[test]
    fn an_empty_answer_clears_the_filter_the_name_and_the_tags() {
        let mut app = app_with_runs(2);
        filter(&mut app, "nothing-matches");
        assert!(app.runs_view.listed(&app.runs).is_empty());
        answer_empty(&mut app, Action::FilterRunsPrompt);
        assert_eq!(app.runs_view.listed(&app.runs), [0, 1]);
        assert_eq!(app.status.text, "every run is listed");

        rename(&mut app, 0, "small");
        tag(&mut app, 0, "a, b");
        app.runs_view.selected = 0;
        answer_empty(&mut app, Action::RenameSelectedPrompt);
        assert_eq!(app.runs[0].record().label, None);
        assert_eq!(app.runs[0].label(), "#1 sgns defaults");
        answer_empty(&mut app, Action::TagSelectedPrompt);
        assert!(app.runs[0].record().tags.is_empty());
        assert_eq!(app.status.text, "#1 sgns defaults has no tags");
    }

    /// A layout being computed stops when a run it names, or an earlier
    /// one, is deleted (its numbers would shift), and goes on when a later
    /// run goes (as a sweep's skipped queued runs do).
    #[test]
    fn deleting_a_run_stops_only_a_layout_whose_runs_it_shifts() {
        let mut app = app_with_runs(4);
        let flag = crate::tui::model::cancel::CancelFlag::default();
        app.projection.running = Some((1, flag.clone()));
        app.projection.pending = Some(7);
        delete(&mut app, 3);
        assert!(!flag.is_cancelled());
        assert_eq!(
            app.projection.pending,
            Some(7),
            "its answer is still awaited"
        );
        delete(&mut app, 2);
        assert!(!flag.is_cancelled());
        delete(&mut app, 1);
        assert!(flag.is_cancelled());
        assert_eq!(app.projection.pending, None);
        assert!(app.projection.running.is_none());
    }

    #[test]
    fn picking_a_s_run_as_b_says_that_they_swapped() {
        let mut app = app_with_runs(3);
        app.picks = [Some(0), Some(2)];
        pick(&mut app, Slot::B, 0);
        assert_eq!(app.picks, [Some(2), Some(0)]);
        assert_eq!(app.status.level, Level::Warn);
        assert!(
            app.status.text.ends_with("it was A, so A is now #3"),
            "{}",
            app.status.text
        );
        app.picks = [Some(1), None];
        pick(&mut app, Slot::B, 1);
        assert_eq!(app.picks, [None, Some(1)]);
        assert!(
            app.status.text.ends_with("it was A, so A is now empty"),
            "{}",
            app.status.text
        );
        pick(&mut app, Slot::A, 0);
        assert_eq!(app.status.level, Level::Info, "no swap, no warning");
    }
}
