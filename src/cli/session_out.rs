//! `wordbench train --session-out FILE`: the run is appended to the session
//! in FILE (a new one when there is none), never written over its other
//! runs; a file that is not a session was refused before training
//! (`wordbench::outputs`). When someone else writes the file while the
//! run trains (a workbench autosaving, another `train`), the next save
//! reads what it holds now and appends to that.

use std::path::Path;

use anyhow::{Context, Result};
use wordbench::session::guard::{self, Expect, Fingerprint};
use wordbench::session::{self, CorpusRef, Run, Session};

/// Saves beyond which a file that keeps changing under us is given up.
const TRIES: usize = 4;

/// The session file a run is appended to.
pub struct SessionOut<'a> {
    path: &'a Path,
    /// The runs of others (the file as read), without ours.
    base: Session,
    /// The file as we last read or wrote it.
    seen: Option<Fingerprint>,
    /// Our run as last written (with its number in the file).
    ours: Option<Run>,
}

impl<'a> SessionOut<'a> {
    /// Reads `path` when it holds a session; else a new session of `corpus`.
    pub fn open(path: &'a Path, corpus: CorpusRef) -> Result<SessionOut<'a>> {
        let mut out = SessionOut {
            path,
            base: Session::new(corpus),
            seen: None,
            ours: None,
        };
        out.reread()?;
        Ok(out)
    }

    /// The file name as given.
    pub fn path(&self) -> &Path {
        self.path
    }

    /// Writes the file's runs plus `run`.
    pub fn save(&mut self, run: &Run) -> Result<()> {
        for _ in 0..TRIES {
            let expect = self.seen.clone().map_or(Expect::Nothing, Expect::Same);
            let mut session = self.base.clone();
            let mut run = run.clone();
            // Our run keeps the number it was first saved with, unless
            // another writer's run took it meanwhile.
            run.number = match &self.ours {
                Some(ours) if session.run_index(ours.number).is_none() => ours.number,
                _ => session.next_number(),
            };
            session.runs.push(run.clone());
            match guard::save(&session, self.path, &expect)
                .with_context(|| "--session-out".to_string())?
            {
                Ok(written) => {
                    self.seen = Some(written);
                    self.ours = Some(run);
                    return Ok(());
                }
                Err(_) => self.reread()?,
            }
        }
        anyhow::bail!(
            "--session-out {}: keeps changing while the run is saved; the run is not in it",
            self.path.display()
        )
    }

    /// Takes the file's runs as they are now, without the one we wrote.
    fn reread(&mut self) -> Result<()> {
        self.seen = Fingerprint::of(self.path)?;
        if self.seen.as_ref().is_none_or(|s| s.bytes == 0) {
            return Ok(());
        }
        let mut base = session::load(self.path).with_context(|| {
            format!(
                "--session-out {}: is not a session to append the run to",
                self.path.display()
            )
        })?;
        if let Some(ours) = &self.ours {
            if let Some(i) = base.runs.iter().rposition(|r| r == ours) {
                base.runs.remove(i);
            }
        }
        self.base = base;
        Ok(())
    }
}
