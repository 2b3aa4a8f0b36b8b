//! How a session names its corpus: a path that survives moving the session
//! next to its data, plus size and content hash to notice a changed file.

use std::io::Read;
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::corpus::CorpusConfig;
use crate::{Error, Result};

/// The corpus of a session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CorpusRef {
    /// Path, relative to the session file's directory when it was saved
    /// there, else as given.
    pub path: PathBuf,
    /// Size in bytes of the file as stored (compressed if it is).
    pub bytes: u64,
    /// FNV-1a 64-bit hash of the file's bytes, in hex.
    pub hash: String,
    /// Reading and vocabulary settings.
    pub config: CorpusConfig,
}

/// What [`CorpusRef::check`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CorpusCheck {
    /// Same size and hash.
    Same,
    /// The file differs from the one recorded.
    Changed {
        /// Size and hash recorded in the session (`1234 bytes, hash 0a1b…`).
        recorded: String,
        /// Size and hash of the file now.
        actual: String,
    },
}

impl CorpusRef {
    /// Describes `corpus` (hashing it) with its path as given.
    pub fn of(corpus: &Path, config: CorpusConfig) -> Result<Self> {
        let (bytes, hash) = hash_file(corpus)?;
        Ok(CorpusRef {
            path: corpus.to_path_buf(),
            bytes,
            hash,
            config,
        })
    }

    /// Describes `corpus` (hashing it) for a session to be saved as `session_file`.
    pub fn describe(corpus: &Path, config: CorpusConfig, session_file: &Path) -> Result<Self> {
        let mut r = Self::of(corpus, config)?;
        r.path = path_for_session(corpus, session_file);
        Ok(r)
    }

    /// Whether `other` names the same data read the same way (same bytes and
    /// settings, wherever the file lies).
    pub fn same_data(&self, other: &CorpusRef) -> bool {
        self.bytes == other.bytes && self.hash == other.hash && self.config == other.config
    }

    /// The file name, for tables.
    pub fn name(&self) -> String {
        self.path.file_name().map_or_else(
            || self.path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    }

    /// The corpus path resolved against the session file's directory (or the
    /// working directory), with a clear error when it is nowhere.
    pub fn resolve(&self, session_file: &Path) -> Result<PathBuf> {
        let base = session_file.parent().unwrap_or(Path::new("."));
        let candidates = [base.join(&self.path), self.path.clone()];
        // The first that exists; a directory or a device is said to be one.
        let found = candidates.into_iter().find(|p| p.exists()).ok_or_else(|| {
            Error::format(
                session_file,
                format!(
                    "corpus {} not found (looked next to the session and in the working directory)",
                    crate::quote::path(&self.path)
                ),
            )
        })?;
        match crate::corpus::source::check_regular(&found) {
            Ok(()) => Ok(found),
            Err(e) => Err(Error::format(session_file, format!("corpus {e}"))),
        }
    }

    /// Compares the file at `path` with the recorded size and hash.
    pub fn check(&self, path: &Path) -> Result<CorpusCheck> {
        let (bytes, hash) = hash_file(path)?;
        Ok(if bytes == self.bytes && hash == self.hash {
            CorpusCheck::Same
        } else {
            // Both size and hash: a session edited by hand may have one
            // right and not the other, and "hash x, recorded x" says nothing.
            CorpusCheck::Changed {
                recorded: format!("{} bytes, hash {}", self.bytes, self.hash),
                actual: format!("{bytes} bytes, hash {hash}"),
            }
        })
    }
}

/// Size and FNV-1a 64 hash (hex) of a file's bytes.
pub fn hash_file(path: &Path) -> Result<(u64, String)> {
    let mut file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut buf = vec![0u8; 1 << 16];
    let mut h = FNV_OFFSET;
    let mut bytes = 0u64;
    loop {
        let n = file.read(&mut buf).map_err(|e| Error::io(path, e))?;
        if n == 0 {
            break;
        }
        bytes += n as u64;
        h = fnv1a(h, &buf[..n]);
    }
    Ok((bytes, format!("{h:016x}")))
}

/// FNV-1a 64 hash (hex) of `bytes`, as [`hash_file`] gives for a file holding them.
pub fn fnv_hex(bytes: &[u8]) -> String {
    format!("{:016x}", fnv1a(FNV_OFFSET, bytes))
}

/// FNV-1a 64's starting state.
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a 64: `h` advanced over `bytes`.
fn fnv1a(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// How a session saved as `session_file` refers to `target` (a corpus or
/// vectors): relative to the session's directory, so a session and its files
/// can move together.
pub fn path_for_session(target: &Path, session_file: &Path) -> PathBuf {
    relative_to(target, session_file.parent().unwrap_or(Path::new(".")))
}

/// A path read from a session saved as `session_file`, made usable from the
/// working directory: next to the session if the file is there, else as
/// written if that exists from the working directory, else next to the
/// session (where the session says it is, for the error message).
pub fn resolve_path(path: &Path, session_file: &Path) -> PathBuf {
    if path.is_absolute() {
        return path.to_path_buf();
    }
    let beside = session_file.parent().unwrap_or(Path::new(".")).join(path);
    if let Ok(found) = beside.canonicalize() {
        found
    } else if path.exists() {
        path.to_path_buf()
    } else {
        beside
    }
}

/// `target` relative to directory `base` when both resolve; `target` as given otherwise.
fn relative_to(target: &Path, base: &Path) -> PathBuf {
    let (Ok(t), Ok(b)) = (target.canonicalize(), base.canonicalize()) else {
        return target.to_path_buf();
    };
    let tc: Vec<Component> = t.components().collect();
    let bc: Vec<Component> = b.components().collect();
    let common = tc.iter().zip(&bc).take_while(|(a, b)| a == b).count();
    if common == 0 {
        return t;
    }
    let mut rel = PathBuf::new();
    for _ in common..bc.len() {
        rel.push("..");
    }
    for c in &tc[common..] {
        rel.push(c.as_os_str());
    }
    rel
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_of_known_strings() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.txt");
        std::fs::write(&p, b"a").unwrap();
        assert_eq!(hash_file(&p).unwrap(), (1, "af63dc4c8601ec8c".to_string()));
        std::fs::write(&p, b"").unwrap();
        assert_eq!(hash_file(&p).unwrap().1, "cbf29ce484222325");
        assert_eq!(fnv_hex(b"a"), "af63dc4c8601ec8c");
    }

    #[test]
    fn paths_are_stored_relative_to_the_session() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("data")).unwrap();
        std::fs::create_dir_all(dir.path().join("sessions")).unwrap();
        let corpus = dir.path().join("data/c.txt");
        std::fs::write(&corpus, "the cat").unwrap();
        let session = dir.path().join("sessions/s.ron");
        let r = CorpusRef::describe(&corpus, CorpusConfig::default(), &session).unwrap();
        assert_eq!(r.path, PathBuf::from("../data/c.txt"));
        assert_eq!(
            r.resolve(&session).unwrap(),
            dir.path().join("sessions/../data/c.txt")
        );
        assert_eq!(r.check(&corpus).unwrap(), CorpusCheck::Same);
        std::fs::write(&corpus, "the dog").unwrap();
        assert!(matches!(
            r.check(&corpus).unwrap(),
            CorpusCheck::Changed { .. }
        ));
        // Same bytes, another recorded size: said in sizes, not only hashes.
        std::fs::write(&corpus, "the cat").unwrap();
        let edited = CorpusRef {
            bytes: 99,
            ..r.clone()
        };
        match edited.check(&corpus).unwrap() {
            CorpusCheck::Changed { recorded, actual } => {
                assert_eq!(recorded, format!("99 bytes, hash {}", r.hash));
                assert_eq!(actual, format!("7 bytes, hash {}", r.hash));
            }
            same => panic!("{same:?}"),
        }
        std::fs::remove_file(&corpus).unwrap();
        let err = r.resolve(&session).unwrap_err().to_string();
        assert!(err.contains("corpus ../data/c.txt not found"), "{err}");
        // A directory where the corpus was is said to be one.
        std::fs::create_dir(&corpus).unwrap();
        let err = r.resolve(&session).unwrap_err().to_string();
        assert!(
            err.contains("corpus ") && err.contains("c.txt: is a directory, expected a file"),
            "{err}"
        );
    }
}
