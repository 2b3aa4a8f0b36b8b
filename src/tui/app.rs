//! The workbench's state: each screen's (from [`super::model`]) and what
//! they share (status line, dialogs, runs, picks, session), with the queue
//! through which handlers ask for follow-up actions. The handlers that
//! change it live in [`super::update`](mod@super::update); nothing here blocks, draws or
//! spawns, so the whole behaviour is tested without a terminal.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;

use super::action::{Action, Screen, Slot};
use super::input::LineInput;
use super::keymap::Mode;
use super::model::classify::ClassifyView;
use super::model::corpus::CorpusView;
use super::model::evaluate::EvalView;
use super::model::hparams::HParamsView;
use super::model::neighbors::NeighborsView;
use super::model::projection::ProjectionView;
use super::model::runs::RunsView;
use super::model::session::SessionState;
use super::model::sweep_form::SweepForm;
use super::model::train::TrainView;
use super::msg::Effect;
use super::run::RunEntry;
use crate::cooc::CountCache;
use crate::eval::EvalPlan;

pub use super::clock::TICKS_PER_SECOND;

/// How the workbench starts.
#[derive(Debug, Clone)]
pub struct AppOptions {
    /// Corpus opened at start (unless a session names another).
    pub corpus: PathBuf,
    /// Session file to open at start.
    pub session: Option<PathBuf>,
    /// The bundled evaluation datasets.
    pub eval_plan: EvalPlan,
    /// Cores of the machine (training defaults to one less, for the UI).
    pub cores: usize,
    /// The folder exports go to unless the user types another path
    /// (created when the first export is written).
    pub exports: PathBuf,
}

/// Severity of a status message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Progress and results.
    Info,
    /// Something to notice.
    Warn,
    /// Something failed.
    Error,
}

/// The status line.
#[derive(Debug, Clone, PartialEq)]
pub struct Status {
    /// Severity.
    pub level: Level,
    /// One line.
    pub text: String,
}

/// What a prompt's answer is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptKind {
    /// Export run `n`'s vectors.
    ExportRun(usize),
    /// Save the session.
    SaveSession,
    /// Open a session.
    OpenSession,
    /// Add an evaluation dataset.
    AddDataset,
    /// Export the projection.
    ExportPlot,
    /// Export the HParams chart.
    ExportChart,
    /// Name run `n`.
    RenameRun(usize),
    /// Tag run `n`.
    TagRun(usize),
    /// Filter the Runs table.
    FilterRuns,
    /// Open pre-trained vectors as a run.
    ImportVectors,
    /// Find a word in the selected run's vocabulary.
    FindVocab,
}

impl PromptKind {
    /// Whether an empty answer means something (no filter, no name, no
    /// tags) rather than "never mind".
    pub fn takes_empty(self) -> bool {
        matches!(
            self,
            PromptKind::FilterRuns | PromptKind::RenameRun(_) | PromptKind::TagRun(_)
        )
    }
}

/// A dialog over the screen.
#[derive(Debug, Clone, PartialEq)]
pub enum Modal {
    /// A question: y (or Enter) runs `yes`; n runs `no` when there is one
    /// and otherwise closes, as Esc always does.
    Confirm {
        /// The question.
        question: String,
        /// What yes does.
        yes: Action,
        /// What n does, with its label, when it is more than "cancel".
        no: Option<(Action, String)>,
        /// The label of yes.
        yes_label: String,
    },
    /// A line of text to type.
    Prompt {
        /// Title.
        title: String,
        /// What the text is for.
        kind: PromptKind,
        /// The text.
        input: LineInput,
        /// A hint under the input.
        hint: String,
        /// Path completion candidates.
        completions: Vec<String>,
    },
}

/// The whole state.
#[derive(Debug)]
pub struct App {
    /// The screen shown.
    pub screen: Screen,
    /// The help overlay is open.
    pub help: bool,
    /// An open dialog.
    pub modal: Option<Modal>,
    /// The status line.
    pub status: Status,
    /// Corpus screen.
    pub corpus: CorpusView,
    /// Train screen.
    pub train: TrainView,
    /// Every run of the session, in start order.
    pub runs: Vec<RunEntry>,
    /// The largest run number given so far in this session (numbers are
    /// not given twice, also after a delete).
    pub last_run_number: u32,
    /// Runs screen.
    pub runs_view: RunsView,
    /// The runs picked for the A and B slots.
    pub picks: [Option<usize>; 2],
    /// Neighbours screen.
    pub neighbors: NeighborsView,
    /// Evaluate screen.
    pub eval: EvalView,
    /// Projection screen.
    pub projection: ProjectionView,
    /// The Classify screen.
    pub classify: ClassifyView,
    /// HParams screen state.
    pub hparams: HParamsView,
    /// The sweep form, while open (on the HParams screen).
    pub sweep_form: Option<SweepForm>,
    /// Where each run of a pruned sweep stood at its rungs, by run number.
    pub rungs: std::collections::BTreeMap<u32, Vec<crate::sweep::prune::Rung>>,
    /// The tick each sweep started in this workbench was queued at, by its
    /// number (its time budget counts from there).
    pub sweep_started: std::collections::BTreeMap<u32, u64>,
    /// Terminal width in columns (for mouse hit-testing).
    pub width: u16,
    /// Terminal height in rows (for mouse hit-testing).
    pub height: u16,
    /// Session file and save bookkeeping.
    pub session: SessionState,
    /// The user-level actions so far (replayable).
    pub journal: Vec<Action>,
    /// Ticks since start.
    pub tick: u64,
    /// Set when the program should end.
    pub quit: bool,
    /// Where exports go by default.
    pub exports: PathBuf,
    /// Co-occurrence counts shared by the session's count-based runs.
    pub counts: Arc<CountCache>,
    /// Actions handlers asked for, routed after the handler returns.
    pub(crate) queue: VecDeque<Queued>,
    next_id: u64,
}

/// An action a handler queued, and whether it stands for the user's intent
/// (journaled when user-level) or is the app's own follow-up.
#[derive(Debug, Clone)]
pub(crate) struct Queued {
    pub(crate) action: Action,
    pub(crate) journal: bool,
}

impl App {
    /// The initial state.
    pub fn new(options: &AppOptions) -> App {
        App {
            screen: Screen::Corpus,
            help: false,
            modal: None,
            status: Status {
                level: Level::Info,
                text: "welcome: press ? for keys, 2 to train".into(),
            },
            corpus: CorpusView::new(&options.corpus),
            train: TrainView::new(options.cores),
            runs: Vec::new(),
            last_run_number: 0,
            runs_view: RunsView::default(),
            picks: [None, None],
            neighbors: NeighborsView::default(),
            eval: EvalView::new(options.eval_plan.clone()),
            projection: ProjectionView::default(),
            classify: ClassifyView::new(crate::assets::path(crate::assets::LABELLED)),
            hparams: HParamsView::default(),
            sweep_form: None,
            rungs: Default::default(),
            sweep_started: Default::default(),
            width: 80,
            height: 24,
            session: SessionState::new(options.session.clone()),
            journal: Vec::new(),
            tick: 0,
            quit: false,
            exports: options.exports.clone(),
            counts: Arc::default(),
            queue: VecDeque::new(),
            next_id: 0,
        }
    }

    /// Queues what the user asked for through navigation (Enter on a
    /// method, a cycled option): routed next and journaled like a key for it.
    /// It has no effects of its own (those come when it is routed), so a
    /// handler can end with `return app.user_action(action)`.
    pub fn user_action(&mut self, action: Action) -> Vec<Effect> {
        self.queue.push_back(Queued {
            action,
            journal: true,
        });
        Vec::new()
    }

    /// Queues the app's own follow-up (refresh the neighbours, autosave,
    /// load the corpus a session names): routed next, never journaled.
    pub fn follow_up(&mut self, action: Action) {
        self.queue.push_back(Queued {
            action,
            journal: false,
        });
    }

    /// A fresh request id.
    pub fn next_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// Shows a message on the status line.
    pub fn set_status(&mut self, level: Level, text: impl Into<String>) {
        self.status = Status {
            level,
            text: text.into(),
        };
    }

    /// Adds a new run and returns its place: it gets the next number never
    /// given in this session (`#3` stays `#3` whatever is deleted before it).
    pub fn push_run(&mut self, mut entry: RunEntry) -> usize {
        entry.set_number(self.last_run_number + 1);
        self.push_recorded(entry)
    }

    /// Adds a run read from a session file, keeping its number, and returns
    /// its place.
    pub fn push_recorded(&mut self, entry: RunEntry) -> usize {
        self.last_run_number = self.last_run_number.max(entry.number());
        self.runs.push(entry);
        self.runs.len() - 1
    }

    /// The run's number as shown (`#3`), from its place.
    pub fn run_number(&self, index: usize) -> u32 {
        self.runs.get(index).map_or(0, RunEntry::number)
    }

    /// The run being trained, if any.
    pub fn active_run(&self) -> Option<usize> {
        self.runs.iter().position(|r| r.status.is_active())
    }

    /// The run picked for a slot.
    pub fn picked(&self, slot: Slot) -> Option<(usize, &RunEntry)> {
        let i = self.picks[slot.index()]?;
        self.runs.get(i).map(|r| (i, r))
    }

    /// Whether a line of text is being typed.
    pub fn typing(&self) -> bool {
        match &self.modal {
            Some(Modal::Prompt { .. }) => return true,
            Some(Modal::Confirm { .. }) => return false,
            None => {}
        }
        match self.screen {
            Screen::Corpus => self.corpus.typing(),
            Screen::Train => self.train.typing(),
            Screen::Neighbors => self.neighbors.editing,
            Screen::Projection => self.projection.typing(),
            Screen::Classify => self.classify.typing(),
            Screen::HParams => self.sweep_form.as_ref().is_some_and(SweepForm::typing),
            Screen::Runs | Screen::Evaluate => false,
        }
    }

    /// Whether runs or classification studies exist that the session file
    /// does not hold yet.
    pub fn unsaved(&self) -> bool {
        let work = !self.runs.is_empty() || !self.classify.history.is_empty();
        work && self.session.revision != self.session.saved_revision
    }

    /// The keymap mode.
    pub fn mode(&self) -> Mode {
        Mode {
            screen: self.screen,
            typing: self.typing(),
            confirm: matches!(self.modal, Some(Modal::Confirm { .. })),
            help: self.help,
        }
    }

    /// Opens a prompt.
    pub fn prompt(&mut self, kind: PromptKind, title: &str, text: String, hint: &str) {
        self.modal = Some(Modal::Prompt {
            title: title.into(),
            kind,
            input: LineInput::selected(text),
            hint: hint.into(),
            completions: Vec::new(),
        });
    }

    /// Asks a yes/no question.
    pub fn confirm(&mut self, question: impl Into<String>, yes: Action) {
        self.modal = Some(Modal::Confirm {
            question: question.into(),
            yes,
            no: None,
            yes_label: "yes".into(),
        });
    }

    /// Offers two actions (y and n) besides cancelling (Esc).
    pub fn choose(&mut self, question: impl Into<String>, yes: (Action, &str), no: (Action, &str)) {
        self.modal = Some(Modal::Confirm {
            question: question.into(),
            yes: yes.0,
            no: Some((no.0, no.1.to_string())),
            yes_label: yes.1.to_string(),
        });
    }
}
