//! Atomic file writes: write to a temporary file beside the target, then
//! rename it into place, so a crash or an error never leaves a partial file.
//!
//! The target is what the path names after following symbolic links (a link
//! stays a link, its target is replaced); an existing target must be a
//! regular file (a FIFO or device node is refused, never replaced), and its
//! permissions carry over to the new file.
//!
//! Temporary files are named `.NAME.tmp-PID-N`. The ones being written are
//! listed, so a signal handler can remove them before the process exits
//! ([`remove_live_temp_files`]); ones left by a process that no longer runs
//! (killed with SIGKILL, a power cut) are removed by the next write of the
//! same target.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use crate::{Error, Result};

/// Symbolic links followed before giving up (Linux's limit).
const MAX_LINKS: usize = 40;

/// Writes `path` through `fill`, atomically. On any error the temporary file is
/// removed and the target is left as it was.
pub fn write_with(
    path: &Path,
    fill: impl FnOnce(&mut BufWriter<File>) -> Result<()>,
) -> Result<()> {
    let (target, existing) = check_target(path)?;
    remove_stale(&target);
    let tmp = temp_path(&target);
    let _live = Live::register(&tmp);
    let result = (|| {
        let file = File::create(&tmp).map_err(|e| Error::io(path, e))?;
        if let Some(meta) = &existing {
            file.set_permissions(meta.permissions())
                .map_err(|e| Error::io(path, e))?;
        }
        let mut out = BufWriter::with_capacity(1 << 16, file);
        fill(&mut out)?;
        let file = out
            .into_inner()
            .map_err(|e| Error::io(path, e.into_error()))?;
        file.sync_all().map_err(|e| Error::io(path, e))?;
        std::fs::rename(&tmp, &target).map_err(|e| Error::io(path, e))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// The file `path` names after following symbolic links (also dangling ones:
/// writing creates the link's target), and its metadata when it exists.
/// Directories and non-regular files are errors naming `path`.
pub fn check_target(path: &Path) -> Result<(PathBuf, Option<std::fs::Metadata>)> {
    let mut target = path.to_path_buf();
    for _ in 0..=MAX_LINKS {
        let meta = match std::fs::symlink_metadata(&target) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((target, None)),
            Err(e) => return Err(Error::io(path, e)),
        };
        let kind = meta.file_type();
        if kind.is_symlink() {
            let link = std::fs::read_link(&target).map_err(|e| Error::io(path, e))?;
            target = match target.parent() {
                Some(dir) if link.is_relative() => dir.join(link),
                _ => link,
            };
            continue;
        }
        if kind.is_dir() {
            return Err(Error::IsDirectory {
                path: path.to_path_buf(),
            });
        }
        if !kind.is_file() {
            return Err(Error::format(
                path,
                format!(
                    "is {}, not a regular file; refusing to replace it",
                    special_kind(&kind)
                ),
            ));
        }
        return Ok((target, Some(meta)));
    }
    Err(Error::format(
        path,
        format!("more than {MAX_LINKS} symbolic links to follow"),
    ))
}

/// Checks, before long work, that `path` can be written: its target (after
/// links) is neither a directory nor a special file, and the directory it
/// goes in exists and accepts new files (tried with a probe file, which
/// catches permissions and read-only file systems alike; errors name the
/// directory). Returns the file that will be written, in a canonical
/// directory, so outputs can be compared with each other and with inputs
/// ([`same_file`]).
pub fn check_writable(path: &Path) -> Result<PathBuf> {
    let (target, _) = check_target(path)?;
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        return Err(Error::format(
            path,
            format!("directory {} does not exist", dir.display()),
        ));
    }
    let probe = temp_path(&target);
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
    {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
        }
        Err(e) => {
            return Err(Error::format(
                path,
                format!("directory {} is not writable: {e}", dir.display()),
            ))
        }
    }
    let canonical = dir.canonicalize().map_err(|e| Error::io(path, e))?;
    Ok(match target.file_name() {
        Some(name) => canonical.join(name),
        None => canonical,
    })
}

/// True when `a` and `b` name the same file: the same inode when both exist
/// (links of any kind), else the same canonical path.
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return (x.dev(), x.ino()) == (y.dev(), y.ino());
        }
    }
    let canonical = |p: &Path| {
        let dir = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        dir.canonicalize()
            .ok()
            .zip(p.file_name())
            .map(|(d, n)| d.join(n))
    };
    match (canonical(a), canonical(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// "a FIFO", "a character device", ... for a file type that is neither a
/// regular file, a directory nor a link.
fn special_kind(kind: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_char_device() {
            return "a character device";
        }
        if kind.is_block_device() {
            return "a block device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    let _ = kind;
    "a special file"
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
/// The temporary files being written now.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// A temporary file listed in [`LIVE`] while it is written.
struct Live(PathBuf);

impl Live {
    fn register(tmp: &Path) -> Live {
        if let Ok(mut live) = LIVE.lock() {
            live.push(tmp.to_path_buf());
        }
        Live(tmp.to_path_buf())
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        if let Ok(mut live) = LIVE.lock() {
            live.retain(|p| p != &self.0);
        }
    }
}

/// Removes every temporary file being written: for a signal handler that
/// is about to end the process (the targets keep their old contents).
pub fn remove_live_temp_files() {
    remove_live(|_| true);
}

/// Removes the temporary files being written that `pick` selects.
fn remove_live(pick: impl Fn(&Path) -> bool) {
    if let Ok(live) = LIVE.lock() {
        for p in live.iter().filter(|p| pick(p)) {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// The prefix of `target`'s temporary files: `.NAME.tmp-`.
fn temp_prefix(target: &Path) -> String {
    let name = target
        .file_name()
        .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    format!(".{name}.tmp-")
}

/// Removes `target`'s temporary files left by processes that no longer
/// run (their PID has no `/proc` entry; elsewhere than Linux nothing is
/// removed).
fn remove_stale(target: &Path) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let prefix = temp_prefix(target);
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(&prefix)) else {
            continue;
        };
        let pid = rest.split('-').next().and_then(|p| p.parse::<u32>().ok());
        if let Some(pid) = pid {
            let alive = Path::new(&format!("/proc/{pid}")).exists();
            if !alive && pid != std::process::id() {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}

fn temp_path(path: &Path) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    path.with_file_name(format!("{}{}-{n}", temp_prefix(path), std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temp_files_of_dead_processes_are_removed_and_live_ones_can_be() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("v.txt");
        // PID 4194304 is above Linux's pid_max: never a running process.
        let stale = dir.path().join(".v.txt.tmp-4194304-0");
        let other = dir.path().join(".w.txt.tmp-4194304-0");
        std::fs::write(&stale, b"left by a killed run").unwrap();
        std::fs::write(&other, b"another target's").unwrap();
        write_bytes(&p, b"new").unwrap();
        assert!(!stale.exists(), "a dead process's temp file goes");
        assert!(other.exists(), "only this target's are touched");
        // While writing, the temp file is listed; a signal handler removes it.
        let err = write_with(&p, |out| {
            out.write_all(b"partial").unwrap();
            out.flush().unwrap();
            // (Other tests write in parallel: look at this folder only.)
            let mine = || -> Vec<PathBuf> {
                let live = LIVE.lock().unwrap();
                live.iter()
                    .filter(|t| t.starts_with(dir.path()))
                    .cloned()
                    .collect()
            };
            let live = mine();
            assert_eq!(live.len(), 1);
            assert!(live[0].exists());
            remove_live(|t| t.starts_with(dir.path()));
            assert!(!live[0].exists());
            Ok(())
        });
        assert!(err.is_err(), "the rename of a removed file fails");
        assert_eq!(
            std::fs::read(&p).unwrap(),
            b"new",
            "the target keeps its contents"
        );
        let left = LIVE
            .lock()
            .unwrap()
            .iter()
            .any(|t| t.starts_with(dir.path()));
        assert!(!left, "the list forgets it");
    }

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

    #[cfg(unix)]
    #[test]
    fn symlinks_are_written_through_and_permissions_kept() {
        use std::os::unix::fs::{symlink, PermissionsExt};
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.txt");
        write_bytes(&real, b"old").unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o600)).unwrap();
        let link = dir.path().join("link.txt");
        symlink("real.txt", &link).unwrap();
        write_bytes(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(&real).unwrap(), b"new");
        let mode = std::fs::metadata(&real).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        // A dangling link: the write creates its target.
        let dangling = dir.path().join("dangling.txt");
        symlink(dir.path().join("made.txt"), &dangling).unwrap();
        write_bytes(&dangling, b"x").unwrap();
        assert_eq!(std::fs::read(dir.path().join("made.txt")).unwrap(), b"x");
        // A loop is an error, not a hang.
        let a = dir.path().join("a");
        symlink("b", &a).unwrap();
        symlink("a", dir.path().join("b")).unwrap();
        let e = write_bytes(&a, b"x").unwrap_err().to_string();
        assert!(e.ends_with("more than 40 symbolic links to follow"), "{e}");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".tmp-"))
            .collect();
        assert!(names.is_empty(), "{names:?}");
    }

    #[cfg(unix)]
    #[test]
    fn special_files_are_refused_and_left_alone() {
        let e = write_bytes(Path::new("/dev/null"), b"x")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "/dev/null: is a character device, not a regular file; refusing to replace it"
        );
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let e = write_bytes(&fifo, b"x").unwrap_err().to_string();
            assert!(
                e.ends_with("is a FIFO, not a regular file; refusing to replace it"),
                "{e}"
            );
            use std::os::unix::fs::FileTypeExt;
            assert!(std::fs::symlink_metadata(&fifo)
                .unwrap()
                .file_type()
                .is_fifo());
        }
        let e = write_bytes(dir.path(), b"x").unwrap_err().to_string();
        assert!(e.ends_with("is a directory, expected a file"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn writable_checks_name_the_directory_and_compare_links() {
        use std::os::unix::fs::{symlink, PermissionsExt};
        let dir = tempfile::tempdir().unwrap();
        let e = check_writable(&dir.path().join("no/x.txt")).unwrap_err();
        assert!(
            e.to_string().ends_with(&format!(
                "directory {}/no does not exist",
                dir.path().display()
            )),
            "{e}"
        );
        let ro = dir.path().join("ro");
        std::fs::create_dir(&ro).unwrap();
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
        // Root writes anywhere: only check the refusal where it applies.
        if std::fs::write(ro.join("t"), b"").is_err() {
            let e = check_writable(&ro.join("x.txt")).unwrap_err().to_string();
            assert!(
                e.contains(&format!("directory {} is not writable", ro.display())),
                "{e}"
            );
        }
        // /sys accepts no new files, even from root.
        if cfg!(target_os = "linux") && Path::new("/sys/kernel").is_dir() {
            let e = check_writable(Path::new("/sys/wordbench-probe.txt"))
                .unwrap_err()
                .to_string();
            assert!(e.contains("directory /sys is not writable"), "{e}");
        }
        let real = dir.path().join("real.txt");
        std::fs::write(&real, b"x").unwrap();
        let link = dir.path().join("link.txt");
        symlink(&real, &link).unwrap();
        let target = check_writable(&link).unwrap();
        assert_eq!(target, real.canonicalize().unwrap());
        assert!(same_file(&link, &real));
        let fresh = dir.path().join("sub/../fresh.txt");
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        assert!(same_file(&fresh, &dir.path().join("fresh.txt")));
        assert!(!same_file(&fresh, &real));
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".tmp-"))
            .collect();
        assert!(names.is_empty(), "probe files are removed: {names:?}");
    }

    #[test]
    fn missing_directory_is_an_error_naming_the_file() {
        let err = write_bytes(Path::new("/no/such/dir/x.txt"), b"x")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("/no/such/dir/x.txt:"), "{err}");
    }
}
