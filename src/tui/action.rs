//! What the user can do, as values: keys become [`Action`]s through the
//! keymap, and scripts (end-to-end tests, recordings) feed the same actions to
//! [`update`](super::update::update) without a terminal.
//!
//! Two kinds live in one enum: navigation and editing (`Up`, `Activate`,
//! `Edit`...), whose meaning depends on the screen and focus, and user-level
//! actions that carry their data (`SetParam`, `StartTraining`, `Query`...).
//! Navigation resolves to user-level actions, and only those are journaled, so
//! a recording reads as what the user did, not which keys they pressed.

use std::fmt;

/// The screens, in tab order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Screen {
    /// Corpus file, preprocessing and statistics.
    Corpus,
    /// Method, hyperparameters, live charts.
    Train,
    /// Every run of the session.
    Runs,
    /// Nearest neighbours and analogies.
    Neighbors,
    /// Similarity and analogy benchmarks.
    Evaluate,
    /// PCA / t-SNE scatter.
    Projection,
    /// Text classification: MNB and MNB-FM learning curves.
    Classify,
    /// A sweep's runs by hyperparameter and metric.
    HParams,
}

impl Screen {
    /// Every screen in tab order.
    pub const ALL: [Screen; 8] = [
        Screen::Corpus,
        Screen::Train,
        Screen::Runs,
        Screen::Neighbors,
        Screen::Evaluate,
        Screen::Projection,
        Screen::Classify,
        Screen::HParams,
    ];

    /// Tab title.
    pub fn title(self) -> &'static str {
        match self {
            Screen::Corpus => "Corpus",
            Screen::Train => "Train",
            Screen::Runs => "Runs",
            Screen::Neighbors => "Neighbours",
            Screen::Evaluate => "Evaluate",
            Screen::Projection => "Projection",
            Screen::Classify => "Classify",
            Screen::HParams => "HParams",
        }
    }

    /// Tab title where the full titles do not fit (80 columns).
    pub fn short_title(self) -> &'static str {
        match self {
            Screen::Corpus => "Corp",
            Screen::Neighbors => "Neighb",
            Screen::Evaluate => "Eval",
            Screen::Classify => "Class",
            Screen::Projection => "Proj",
            Screen::HParams => "HP",
            other => other.title(),
        }
    }

    /// Position in the tab bar.
    pub fn index(self) -> usize {
        Screen::ALL.iter().position(|s| *s == self).unwrap_or(0)
    }

    /// The screen `delta` tabs away (wrapping).
    pub fn offset(self, delta: isize) -> Screen {
        let n = Screen::ALL.len() as isize;
        Screen::ALL[(self.index() as isize + delta).rem_euclid(n) as usize]
    }
}

/// Which of the two compared runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// The first (or only) run.
    A,
    /// The run compared with it.
    B,
}

impl Slot {
    /// 0 for A, 1 for B.
    pub fn index(self) -> usize {
        match self {
            Slot::A => 0,
            Slot::B => 1,
        }
    }
}

impl fmt::Display for Slot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Slot::A => "A",
            Slot::B => "B",
        })
    }
}

/// A change to a line of text being edited.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditOp {
    /// Insert a character at the cursor.
    Insert(char),
    /// Insert pasted text at the cursor (see [`crate::tui::input::pasted`]).
    Paste(String),
    /// Delete before the cursor.
    Backspace,
    /// Delete at the cursor.
    Delete,
    /// Cursor one left.
    Left,
    /// Cursor one right.
    Right,
    /// Cursor to the start.
    Home,
    /// Cursor to the end.
    End,
    /// Delete the word before the cursor.
    DeleteWord,
    /// Clear the line.
    Clear,
}

/// Everything the user can do.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    // -- navigation and editing (resolved by the current screen and focus) --
    /// Move the selection up.
    Up,
    /// Move the selection down.
    Down,
    /// HParams: turn the table's order round.
    ReverseSort,
    /// HParams: the next metric on the chart.
    CycleMetric,
    /// HParams: the next (1) or previous (-1) sweep of the session.
    CycleSweep(i8),
    /// Previous value / move left.
    Left,
    /// Next value / move right.
    Right,
    /// Next pane of the screen.
    FocusNext,
    /// Previous pane of the screen.
    FocusPrev,
    /// Enter: edit, toggle, confirm.
    Activate,
    /// Esc: cancel editing, close overlays.
    Cancel,
    /// Edit the line being typed.
    Edit(EditOp),
    /// Tab while typing: complete the word or path.
    Complete,
    /// Answer yes to the open question.
    Yes,
    /// Answer no to the open question.
    No,
    /// Show or hide the key help.
    ToggleHelp,
    /// Show a screen.
    GoTo(Screen),
    /// Next screen.
    NextScreen,
    /// Previous screen.
    PrevScreen,
    /// `q`: quit (asks first when a run would be lost).
    Quit,
    /// Ctrl-C: quit (asking first while a run trains or runs are unsaved).
    Interrupt,
    /// Ctrl-S: save the session (asks for a file the first time).
    SaveSessionPrompt,
    /// Ctrl-O: open a session file.
    OpenSessionPrompt,
    /// Pick the selected run for slot A or B.
    PickSelected(Slot),
    /// Ask for a path and export the selected run's vectors.
    ExportSelectedPrompt,
    /// Evaluate the selected run.
    EvaluateSelected,
    /// Evaluate every run that has vectors and no evaluation yet.
    EvaluateAll,
    /// Replay the selected run (same settings and mid-run changes).
    ReplaySelected,
    /// Ask, then delete the selected run.
    DeleteSelected,
    /// Ask for a name for the selected run.
    RenameSelectedPrompt,
    /// Turn keeping the selected run's vectors in the session on or off.
    ToggleKeepSelected,
    /// Ask for a vectors file to open as an imported run.
    ImportVectorsPrompt,
    /// Ask for a word to find in the selected run's vocabulary.
    FindVocabPrompt,
    /// Show the selected run's vocabulary from this word (or the first word with this prefix).
    FindVocab(String),
    /// Page the vocabulary line forwards (+1) or backwards (-1).
    PageVocab(i8),
    /// Ask for a dataset file to add to the evaluation.
    AddDatasetPrompt,
    /// Remove the most recently added dataset file.
    RemoveLastDataset,
    /// Ask for a path and export the projection.
    ExportPlotPrompt,
    /// Ask where to export the HParams chart.
    ExportChartPrompt,
    /// Open the sweep form (HParams) for the Train screen's method.
    DeclareSweep,
    /// Reset the selected field to its default.
    ResetField,
    /// Pause or resume the running job.
    TogglePause,
    /// Log scale on the charts.
    ToggleLogScale,
    /// Step the charts' smoothing (0, 0.6, 0.9).
    CycleSmoothing,
    /// Step the charts' x axis: steps, epochs, seconds.
    CycleXAxis,
    /// Draw every listed run's curves together (the Runs filter applies).
    ToggleOverlay,
    /// Ask for the selected run's tags.
    TagSelectedPrompt,
    /// Ask for the text that filters the Runs table.
    FilterRunsPrompt,
    /// Switch how several query words combine (3CosAdd / 3CosMul).
    ToggleCombine,
    /// Switch how a single word's neighbours are ranked (cosine / Ŝ walk).
    ToggleRanking,
    /// More neighbours.
    MoreNeighbors,
    /// Fewer neighbours.
    FewerNeighbors,
    /// Zoom the scatter in.
    ZoomIn,
    /// Zoom the scatter out.
    ZoomOut,
    /// Reset zoom and pan.
    ResetView,
    /// Type a word to find in the projection.
    FindPrompt,
    /// Select the next word of the projection (in importance order).
    NextPoint,
    /// Select the previous word.
    PrevPoint,
    /// Pan the scatter by a fraction of the view.
    Pan(i8, i8),
    /// Turn the sphere of a UBE layout (right, up) by a step each, so the
    /// map's centre moves.
    Turn(i8, i8),

    // -- the app's own follow-ups (queued by handlers, never journaled) --
    /// Ask the picked runs the current neighbour question again.
    RefreshNeighbors,
    /// Save the session now if it has a file and changes.
    Autosave,
    /// Show run `n`'s charts on the Train screen.
    ShowRun(usize),
    /// Ask for another file to save the session to (after the session
    /// file changed on disk).
    SaveSessionElsewhere,
    /// Run `n` of a sweep ended: evaluate it and add it to its sweep's table.
    SweepRunEnded(usize),
    /// Run `n` of a pruned sweep reached rung `1` with this value of the
    /// sweep's signal (held-out perplexity, or minus a similarity set's
    /// Spearman: lower is better): it goes on or stops there.
    SweepCheckpoint(usize, usize, Option<f64>),

    // -- user-level actions (journaled) --
    /// Set a corpus option (`path`, `format`, `min-count`...) from text.
    SetCorpusOption(String, String),
    /// Read the corpus with the current options.
    LoadCorpus,
    /// Choose the training method.
    SelectMethod(String),
    /// Set a hyperparameter (or `seed` / `threads`) of the chosen method from text;
    /// while that method trains, a live hyperparameter is also sent to the run.
    SetParam(String, String),
    /// Start a run of the chosen method.
    StartTraining,
    /// Set a field of the sweep form (`grid`, `range`, `random`, `metric`,
    /// `prune`) from text, opening the form for the Train screen's method.
    SetSweepField(String, String),
    /// Queue the runs of the sweep the form declares.
    StartSweep,
    /// Pause the running job.
    Pause,
    /// Resume it.
    Resume,
    /// Stop it early (the vectors trained so far are kept).
    StopTraining,
    /// Pick run `1` (0-based) for a slot.
    PickRun(Slot, usize),
    /// Export a run's vectors to a path (format from the extension).
    ExportRun(usize, String),
    /// Evaluate a run on the bundled (and added) datasets.
    EvaluateRun(usize),
    /// Re-run a run with its recorded settings and changes.
    ReplayRun(usize),
    /// Remove a run from the session.
    DeleteRun(usize),
    /// Name a run.
    RenameRun(usize, String),
    /// Keep (true) or stop keeping run N's vectors beside the session file.
    KeepVectors(usize, bool),
    /// Tag a run (comma- or space-separated tags; empty removes them).
    TagRun(usize, String),
    /// Show only the runs matching every word of the text (empty: all).
    FilterRuns(String),
    /// Open pre-trained vectors (a path; the first N words when given) as a run.
    ImportVectors(String, Option<usize>),
    /// Add a similarity or analogy dataset file.
    AddDataset(String),
    /// Neighbours of a word in the picked runs.
    Query(String),
    /// `a : b :: c : ?` in the picked runs.
    Analogy(String, String, String),
    /// Neighbours shown per run.
    SetK(usize),
    /// Set a projection option (`method`, `words`, `count`...) from text.
    SetProjectionOption(String, String),
    /// Project run A's vectors with the current options.
    Project,
    /// Project runs A and B on shared axes (B rotated onto A).
    ProjectPair,
    /// Export the projection (PNG, SVG or CSV by extension).
    ExportPlot(String),
    /// Export the HParams chart (PNG or SVG by extension).
    ExportChart(String),
    /// Set a Classify field (files, sizes, labels, or a schema option) from text.
    SetClassifyField(String, String),
    /// Run the classification study of the Classify screen.
    Classify,
    /// Select a word of the projection: highlighted, centred, its
    /// neighbours listed.
    SelectPoint(String),
    /// Save the session to a file.
    SaveSession(String),
    /// Open a session file (asking first when runs are not saved).
    OpenSession(String),
    /// Open a session file in place of the current runs, saving them to the
    /// session file first or discarding them.
    OpenSessionNow {
        /// The file.
        path: String,
        /// Save the current session before opening.
        save_first: bool,
    },
    /// Remove an added evaluation file (index among the added ones).
    RemoveDataset(usize),
    /// Carry out a write (`ExportRun`, `ExportPlot`, `SaveSession`) that
    /// replaces the existing file the user said yes to.
    Overwrite(Box<Action>),
    /// Quit now: a run still training is discarded; with a session file,
    /// the session is saved first (without that run).
    QuitNow,
}

impl Action {
    /// Whether this action is user-level (journaled, replayable on its own).
    pub fn is_user_level(&self) -> bool {
        matches!(
            self,
            Action::SetCorpusOption(..)
                | Action::LoadCorpus
                | Action::SelectMethod(_)
                | Action::SetParam(..)
                | Action::StartTraining
                | Action::SetSweepField(..)
                | Action::StartSweep
                | Action::Pause
                | Action::Resume
                | Action::StopTraining
                | Action::PickRun(..)
                | Action::ExportRun(..)
                | Action::EvaluateRun(_)
                | Action::ReplayRun(_)
                | Action::DeleteRun(_)
                | Action::RenameRun(..)
                | Action::KeepVectors(..)
                | Action::TagRun(..)
                | Action::FilterRuns(_)
                | Action::ImportVectors(..)
                | Action::AddDataset(_)
                | Action::Query(_)
                | Action::Analogy(..)
                | Action::SetK(_)
                | Action::SetProjectionOption(..)
                | Action::Project
                | Action::ProjectPair
                | Action::ExportPlot(_)
                | Action::ExportChart(_)
                | Action::SetClassifyField(..)
                | Action::Classify
                | Action::SelectPoint(_)
                | Action::SaveSession(_)
                | Action::OpenSession(_)
                | Action::OpenSessionNow { .. }
                | Action::RemoveDataset(_)
                | Action::Overwrite(_)
                | Action::GoTo(_)
                | Action::QuitNow
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn screens_wrap_in_tab_order() {
        assert_eq!(Screen::Corpus.offset(1), Screen::Train);
        assert_eq!(Screen::Corpus.offset(-1), Screen::HParams);
        assert_eq!(Screen::HParams.offset(1), Screen::Corpus);
        assert_eq!(Screen::Evaluate.index(), 4);
    }

    #[test]
    fn only_data_carrying_actions_are_journaled() {
        assert!(Action::SetParam("dim".into(), "50".into()).is_user_level());
        assert!(Action::GoTo(Screen::Runs).is_user_level());
        assert!(!Action::Down.is_user_level());
        assert!(!Action::Edit(EditOp::Insert('a')).is_user_level());
    }
}
