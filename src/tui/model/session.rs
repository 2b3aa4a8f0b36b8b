//! The session file the workbench saves to and the bookkeeping that keeps
//! saves in order: what changed since the last save, the save in flight,
//! one queued behind it, and what to do once it is written.

use std::path::{Path, PathBuf};

use crate::session::guard::{Expect, Fingerprint};
use crate::tui::run::RunEntry;

/// Seconds between autosaves while a run trains.
pub const AUTOSAVE_SECONDS: u64 = 2;

/// What to do once the save in flight has succeeded.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum AfterSave {
    /// Open this session file.
    Open(PathBuf),
    /// Leave the program.
    Quit,
}

/// The session file and whether what is on screen was saved.
#[derive(Debug, Clone)]
pub struct SessionState {
    /// The session file, once one was read, saved, or found missing at start.
    pub path: Option<PathBuf>,
    /// The file given at start, to read before it may become `path`.
    pub opening: Option<PathBuf>,
    /// Counts changes to what session files hold.
    pub(crate) revision: u64,
    /// The revision the file holds.
    pub(crate) saved_revision: u64,
    /// The revision being written, while a save is in flight.
    pub(crate) saving: Option<u64>,
    /// When the last save started (autosave interval).
    pub(crate) last_save_tick: u64,
    /// What to do once the save in flight succeeds.
    pub(crate) after_save: Option<AfterSave>,
    /// A save asked for while another was being written (path, autosave):
    /// saves are written one at a time, so the newest state is written last.
    pub(crate) queued: Option<(PathBuf, bool)>,
    /// A save made to quit failed: the next quit leaves without one.
    pub(crate) quit_save_failed: bool,
    /// Runs of the opened file this build cannot show (an unknown method,
    /// say, from a newer build): written back unchanged on every save.
    pub kept: Vec<crate::session::Run>,
    /// The sweeps of the opened file (their runs are among the runs on
    /// screen): the HParams screen reads them, every save writes them back.
    pub sweeps: Vec<crate::session::SweepRecord>,
    /// `path` as this workbench last read or wrote it: a save over a file
    /// that differs (another workbench, a hand edit) asks first.
    pub(crate) on_disk: Option<Fingerprint>,
    /// A save found the file changed (or there unexpectedly) and asked:
    /// autosaves wait until a save succeeds.
    pub(crate) blocked: bool,
    /// A file the user said may be replaced, whatever session it holds.
    pub(crate) overwrite: Option<PathBuf>,
}

impl SessionState {
    /// State for an optional file given at start.
    pub fn new(opening: Option<PathBuf>) -> Self {
        SessionState {
            path: None,
            opening,
            revision: 0,
            saved_revision: 0,
            saving: None,
            last_save_tick: 0,
            after_save: None,
            queued: None,
            quit_save_failed: false,
            kept: Vec::new(),
            sweeps: Vec::new(),
            on_disk: None,
            blocked: false,
            overwrite: None,
        }
    }

    /// What the next save to `path` (the session file) should find there.
    pub(crate) fn expect(&self, path: &Path) -> Expect {
        if self.overwrite.as_deref() == Some(path) {
            return Expect::AnySession;
        }
        self.on_disk.clone().map_or(Expect::Nothing, Expect::Same)
    }

    /// Something that session files hold changed.
    pub fn changed(&mut self) {
        self.revision += 1;
    }

    /// Whether runs exist that the session file does not hold yet.
    pub fn unsaved(&self, runs: &[RunEntry]) -> bool {
        !runs.is_empty() && self.revision != self.saved_revision
    }
}
