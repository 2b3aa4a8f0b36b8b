//! Atomic file writes: write to a temporary file beside the target, then
//! rename it into place, so a crash or an error never leaves a partial file.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::{Error, Result};

/// Writes `path` through `fill`, atomically. On any error the temporary file is
/// removed and the target is left as it was.
pub fn write_with(
    path: &Path,
    fill: impl FnOnce(&mut BufWriter<File>) -> Result<()>,
) -> Result<()> {
    if path.is_dir() {
        return Err(Error::IsDirectory {
            path: path.to_path_buf(),
        });
    }
    let tmp = temp_path(path);
    let result = (|| {
        let file = File::create(&tmp).map_err(|e| Error::io(path, e))?;
        let mut out = BufWriter::with_capacity(1 << 16, file);
        fill(&mut out)?;
        let file = out
            .into_inner()
            .map_err(|e| Error::io(path, e.into_error()))?;
        file.sync_all().map_err(|e| Error::io(path, e))?;
        std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Writes `bytes` to `path` atomically.
pub fn write_bytes(path: &Path, bytes: &[u8]) -> Result<()> {
    write_with(path, |out| {
        out.write_all(bytes).map_err(|e| Error::io(path, e))
    })
}

/// `dir/.name.tmp-<pid>-<n>`: hidden, in the same directory (rename must not
/// cross file systems), unique per process and per write (an autosave and an
/// export may run at once).
fn temp_path(path: &Path) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let name = path
        .file_name()
        .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    path.with_file_name(format!(".{name}.tmp-{}-{n}", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failed_write_leaves_no_file_and_keeps_the_old_one() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.txt");
        write_bytes(&p, b"old").unwrap();
        let err = write_with(&p, |out| {
            out.write_all(b"partial").unwrap();
            Err(Error::param("x", "boom"))
        });
        assert!(err.is_err());
        assert_eq!(std::fs::read(&p).unwrap(), b"old");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }

    #[test]
    fn missing_directory_is_an_error_naming_the_file() {
        let err = write_bytes(Path::new("/no/such/dir/x.txt"), b"x")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("/no/such/dir/x.txt:"), "{err}");
    }
}
