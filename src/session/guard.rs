//! Saving a session file without losing what someone else put there.
//!
//! Two workbenches on one file, `wordbench train --session-out` appending
//! to it, or a hand edit while it is open: the last save would silently
//! win. So a writer remembers what the file was when it last read or wrote
//! it ([`Fingerprint`]: modification time, size and content hash) and says
//! what it expects to find ([`Expect`]); a file that differs is not
//! written but reported ([`Blocked`]), for the caller to ask. Whatever is
//! expected, a file that is not a session is never replaced by one.
//!
//! (The check and the rename are not one step: a writer that changes the
//! file in between still loses. That window is a few milliseconds, the
//! hours a workbench stays open are what this guards.)

use std::path::Path;
use std::time::SystemTime;

use super::corpus_ref::hash_file;
use super::{file, Session};
use crate::{Error, Result};

/// What a session file was when last read or written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fingerprint {
    /// Modification time, where the file system keeps one.
    pub modified: Option<SystemTime>,
    /// Size in bytes.
    pub bytes: u64,
    /// FNV-1a 64 hash of its bytes (hex), as for corpora.
    pub hash: String,
}

impl Fingerprint {
    /// The fingerprint of `path` now, `None` when there is no such file.
    pub fn of(path: &Path) -> Result<Option<Fingerprint>> {
        let meta = match std::fs::metadata(path) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(path, e)),
        };
        let (bytes, hash) = hash_file(path)?;
        Ok(Some(Fingerprint {
            modified: meta.modified().ok(),
            bytes,
            hash,
        }))
    }
}

/// What a save expects to find at its path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expect {
    /// No file (a new session, or one saved under a new name).
    Nothing,
    /// The file as this writer last read or wrote it.
    Same(Fingerprint),
    /// Any session (the user said to replace it).
    AnySession,
}

/// Why a guarded save wrote nothing, for the caller to ask the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Blocked {
    /// A session file is there, where none was expected.
    Exists,
    /// The file changed on disk since it was read or written here.
    Changed,
}

/// Saves `session` to `path` (atomically) when the file there is what
/// `expect` says; returns the new file's fingerprint, or why it did not
/// write. A file there that is not a session (and not what this writer
/// wrote) is an error: it is never replaced.
pub fn save(
    session: &Session,
    path: &Path,
    expect: &Expect,
) -> Result<std::result::Result<Fingerprint, Blocked>> {
    let now = Fingerprint::of(path)?;
    let ours = matches!((expect, &now), (Expect::Same(fp), Some(n)) if fp == n);
    if let Some(n) = &now {
        if !ours && n.bytes > 0 {
            if let Err(e) = file::load(path) {
                return Err(Error::Refused(format!(
                    "{}: is not a wordbench session ({e}); refusing to replace it",
                    path.display()
                )));
            }
        }
    }
    match (expect, &now) {
        (Expect::Nothing, Some(_)) => return Ok(Err(Blocked::Exists)),
        (Expect::Same(_), Some(_)) if !ours => return Ok(Err(Blocked::Changed)),
        _ => {}
    }
    file::save(session, path)?;
    let written = Fingerprint::of(path)?
        .ok_or_else(|| Error::format(path, "is gone right after it was written"))?;
    Ok(Ok(written))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::file::tests::sample;

    #[test]
    fn a_changed_or_unexpected_file_blocks_the_save_and_keeps_its_contents() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.ron");
        let s = sample();
        // A new file.
        let fp = save(&s, &p, &Expect::Nothing).unwrap().unwrap();
        assert_eq!(Fingerprint::of(&p).unwrap(), Some(fp.clone()));
        // Saving again over what we wrote.
        let mut more = s.clone();
        more.push_run(s.runs[0].clone());
        let fp2 = save(&more, &p, &Expect::Same(fp.clone())).unwrap().unwrap();
        assert_ne!(fp, fp2);
        // Someone else writes it: the stale fingerprint blocks the save.
        let theirs = file::to_string(&s)
            .unwrap()
            .replace("\"baseline\"", "\"theirs\"");
        std::fs::write(&p, &theirs).unwrap();
        assert_eq!(
            save(&more, &p, &Expect::Same(fp2.clone())).unwrap(),
            Err(Blocked::Changed)
        );
        assert_eq!(std::fs::read_to_string(&p).unwrap(), theirs, "kept");
        assert_eq!(
            save(&more, &p, &Expect::Nothing).unwrap(),
            Err(Blocked::Exists)
        );
        // Told to replace it.
        save(&more, &p, &Expect::AnySession).unwrap().unwrap();
        assert_eq!(file::load(&p).unwrap(), more);
        // A file deleted meanwhile is written again (nothing to lose).
        std::fs::remove_file(&p).unwrap();
        assert!(save(&s, &p, &Expect::Same(fp2)).unwrap().is_ok());
    }

    #[test]
    fn a_file_that_is_not_a_session_is_never_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("notes.txt");
        std::fs::write(&p, "my notes\n").unwrap();
        for expect in [Expect::Nothing, Expect::AnySession] {
            let e = save(&sample(), &p, &expect).unwrap_err().to_string();
            assert!(
                e.starts_with(&format!("{}: is not a wordbench session (", p.display()))
                    && e.ends_with("); refusing to replace it"),
                "{e}"
            );
            assert_eq!(std::fs::read_to_string(&p).unwrap(), "my notes\n");
        }
        // An empty file holds nothing to lose.
        std::fs::write(&p, "").unwrap();
        assert_eq!(
            save(&sample(), &p, &Expect::Nothing).unwrap(),
            Err(Blocked::Exists)
        );
        assert!(save(&sample(), &p, &Expect::AnySession).unwrap().is_ok());
    }
}
