//! Atomic file writes: write to a temporary file beside the target, then
//! rename it into place, so a crash or an error never leaves a partial file.
//!
//! The target is what the path names after following symbolic links (a link
//! stays a link, its target is replaced); an existing target must be a
//! regular file (a FIFO or device node is refused, never replaced), and its
//! permissions carry over to the new file.
//!
//! Temporary files are named `.NAME.tmp-PID-RANDOM` and created exclusively
//! without following links (`O_CREAT | O_EXCL | O_NOFOLLOW`), under a name
//! nobody can guess: a link planted where the temporary file goes cannot
//! redirect the output onto another file (the open fails and another name
//! is drawn). The ones being written are listed, so a signal handler can
//! remove them before the process exits ([`remove_live_temp_files`]); ones
//! left by a process that no longer runs (killed with SIGKILL, a power cut)
//! are removed by the next write of the same target.
//!
//! Outputs made of several files (a `.npy` and its vocabulary, vectors and
//! their sense inventory) land together or not at all ([`write_all_or_none`]):
//! every file is written to its temporary file first, the old ones are kept
//! aside (hard links) while the new ones are renamed into place, and a
//! rename that fails puts the old ones back.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use crate::{Error, Result};

/// Symbolic links followed before giving up (Linux's limit).
const MAX_LINKS: usize = 40;

/// Names drawn for a temporary file before giving up (each taken name is
/// a file someone else made there).
const NAME_TRIES: usize = 32;

/// What fills one file of an output.
pub type Fill<'a> = Box<dyn FnOnce(&mut BufWriter<File>) -> Result<()> + 'a>;

/// Writes `path` through `fill`, atomically. On any error the temporary file is
/// removed and the target is left as it was.
pub fn write_with(
    path: &Path,
    fill: impl FnOnce(&mut BufWriter<File>) -> Result<()>,
) -> Result<()> {
    Staged::write(path, fill)?.commit()
}

/// Writes several files as one output: each through its fill, then all are
/// put in place, in order. Either every file holds its new contents or
/// (on any error, also a failed rename half-way) every target is left as
/// it was: a target that did not exist is removed again, an old one is
/// restored from the copy kept aside.
pub fn write_all_or_none(files: Vec<(PathBuf, Fill<'_>)>) -> Result<()> {
    let mut staged = Vec::with_capacity(files.len());
    for (path, fill) in files {
        staged.push(Staged::write(&path, fill)?);
    }
    // Hard links to the old files: they keep their contents while the new
    // ones are renamed over the names.
    let mut kept: Vec<Option<Kept>> = Vec::with_capacity(staged.len());
    for s in &staged {
        kept.push(Kept::aside(s)?);
    }
    let mut done: Vec<(PathBuf, Option<Kept>)> = Vec::new();
    for (s, old) in staged.into_iter().zip(kept) {
        let target = s.target.clone();
        if let Err(e) = s.commit() {
            for (target, old) in done.into_iter().rev() {
                match old {
                    Some(k) => k.restore(&target),
                    None => {
                        let _ = std::fs::remove_file(&target);
                    }
                }
            }
            return Err(e);
        }
        done.push((target, old));
    }
    Ok(())
}

/// A file written to its temporary name beside its target, not yet in
/// place; dropped without [`Staged::commit`], the temporary file goes.
struct Staged {
    /// The path as given (errors name it).
    path: PathBuf,
    /// What it names after following links.
    target: PathBuf,
    /// Whether the target exists now.
    exists: bool,
    /// The temporary file (listed while it exists).
    tmp: Live,
}

impl Staged {
    /// Writes `fill` to a new temporary file beside `path`'s target.
    fn write(path: &Path, fill: impl FnOnce(&mut BufWriter<File>) -> Result<()>) -> Result<Staged> {
        let (target, existing) = check_target(path)?;
        remove_stale(&target);
        let (tmp, file) = create_temp(&target).map_err(|e| Error::io(path, e))?;
        let staged = Staged {
            path: path.to_path_buf(),
            target,
            exists: existing.is_some(),
            tmp,
        };
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
        Ok(staged)
    }

    /// Renames the temporary file over the target.
    fn commit(self) -> Result<()> {
        std::fs::rename(&self.tmp.0, &self.target).map_err(|e| Error::io(&self.path, e))?;
        self.tmp.forget();
        Ok(())
    }
}

/// The old contents of a target, kept under a temporary name (a hard link)
/// while a group of files is put in place.
struct Kept(Live);

impl Kept {
    /// A hard link to `s`'s target when it exists.
    fn aside(s: &Staged) -> Result<Option<Kept>> {
        if !s.exists {
            return Ok(None);
        }
        for _ in 0..NAME_TRIES {
            let name = temp_path(&s.target);
            match std::fs::hard_link(&s.target, &name) {
                Ok(()) => return Ok(Some(Kept(Live::register(&name)))),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(Error::io(&s.path, e)),
            }
        }
        Err(taken(&s.path))
    }

    /// Puts the old contents back at `target`.
    fn restore(self, target: &Path) {
        if std::fs::rename(&self.0 .0, target).is_ok() {
            self.0.forget();
        }
    }
}

/// The error when every temporary name drawn was taken.
fn taken(path: &Path) -> Error {
    Error::format(
        path,
        format!("{NAME_TRIES} temporary names beside it were all taken; refusing to write"),
    )
}

/// Creates a new temporary file beside `target`: exclusively (an existing
/// file or link of that name is never opened) and without following a link.
fn create_temp(target: &Path) -> std::io::Result<(Live, File)> {
    for _ in 0..NAME_TRIES {
        let name = temp_path(target);
        match open_new(&name) {
            Ok(file) => return Ok((Live::register(&name), file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::AlreadyExists,
        format!("{NAME_TRIES} temporary names beside it were all taken"),
    ))
}

/// Opens `path` as a new file: `O_CREAT | O_EXCL`, and `O_NOFOLLOW`.
fn open_new(path: &Path) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    options.open(path)
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
    match create_temp(&target) {
        Ok((probe, _)) => drop(probe),
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

/// The temporary files being written now.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// A temporary file of ours, listed in [`LIVE`] while it exists under its
/// temporary name: dropped, it is removed; [`Live::forget`] (once renamed
/// into place) only takes it off the list.
struct Live(PathBuf);

impl Live {
    fn register(tmp: &Path) -> Live {
        if let Ok(mut live) = LIVE.lock() {
            live.push(tmp.to_path_buf());
        }
        Live(tmp.to_path_buf())
    }

    /// Takes the file off the list and leaves it on disk.
    fn forget(mut self) {
        unlist(&self.0);
        self.0 = PathBuf::new();
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        if !self.0.as_os_str().is_empty() {
            let _ = std::fs::remove_file(&self.0);
            unlist(&self.0);
        }
    }
}

fn unlist(tmp: &Path) {
    if let Ok(mut live) = LIVE.lock() {
        live.retain(|p| p != tmp);
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

/// `dir/.NAME.tmp-PID-RANDOM`: hidden, in the same directory (rename must
/// not cross file systems), with the PID first (stale files of dead
/// processes are found by it) and 64 random bits (unique per write, and
/// not guessable by whoever would plant a link there).
fn temp_path(path: &Path) -> PathBuf {
    path.with_file_name(format!(
        "{}{}-{:016x}",
        temp_prefix(path),
        std::process::id(),
        random_u64()
    ))
}

/// 64 unpredictable bits: the standard library's randomly keyed hasher
/// over a counter and the clock (names only; no result depends on them).
fn random_u64() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    h.write_u128(now);
    h.finish()
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

    #[cfg(unix)]
    #[test]
    fn temporary_files_are_new_unguessable_and_never_followed_links() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim.txt");
        std::fs::write(&victim, b"precious").unwrap();
        // A link planted where a temporary file would go is never opened.
        let planted = dir.path().join(".out.txt.tmp-1-0");
        symlink(&victim, &planted).unwrap();
        let e = open_new(&planted).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::AlreadyExists);
        let dangling = dir.path().join(".out.txt.tmp-1-1");
        symlink(dir.path().join("made-by-link"), &dangling).unwrap();
        assert!(open_new(&dangling).is_err());
        assert!(!dir.path().join("made-by-link").exists());
        // Names carry the PID and 64 random bits: no two are alike.
        let target = dir.path().join("out.txt");
        let names: std::collections::HashSet<PathBuf> =
            (0..1000).map(|_| temp_path(&target)).collect();
        assert_eq!(names.len(), 1000);
        let prefix = format!(".out.txt.tmp-{}-", std::process::id());
        assert!(names.iter().all(|n| {
            let name = n.file_name().unwrap().to_str().unwrap();
            name.strip_prefix(&prefix).is_some_and(|r| r.len() == 16)
        }));
        write_bytes(&target, b"new").unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
    }

    /// The files of `dir` whose name contains `.tmp-`.
    fn temps(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".tmp-"))
            .collect()
    }

    fn text<'a>(t: &'a str) -> Fill<'a> {
        Box::new(move |out| out.write_all(t.as_bytes()).map_err(|e| Error::io("x", e)))
    }

    #[test]
    fn a_group_of_files_lands_together_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("m.npy"), dir.path().join("m.vocab.txt"));
        write_all_or_none(vec![
            (b.clone(), text("old words")),
            (a.clone(), text("old rows")),
        ])
        .unwrap();
        // The second file fails while it is written (a full disk): neither changes.
        let failing: Fill<'_> = Box::new(|out| {
            out.write_all(b"partial").unwrap();
            Err(Error::param("x", "disk full"))
        });
        let e = write_all_or_none(vec![(b.clone(), text("new words")), (a.clone(), failing)]);
        assert!(e.is_err());
        assert_eq!(std::fs::read_to_string(&b).unwrap(), "old words");
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "old rows");
        assert!(temps(dir.path()).is_empty(), "{:?}", temps(dir.path()));
        // The second rename fails (its target became a folder meanwhile):
        // the first file is put back as it was, a new one removed again.
        let c = dir.path().join("new.txt");
        let blocker = a.clone();
        let sabotage: Fill<'_> = Box::new(move |out| {
            std::fs::remove_file(&blocker).unwrap();
            std::fs::create_dir(&blocker).unwrap();
            std::fs::write(blocker.join("x"), b"").unwrap();
            out.write_all(b"new rows").map_err(|e| Error::io("x", e))
        });
        let e = write_all_or_none(vec![
            (b.clone(), text("new words")),
            (c.clone(), text("new file")),
            (a.clone(), sabotage),
        ]);
        assert!(e.is_err());
        assert_eq!(std::fs::read_to_string(&b).unwrap(), "old words");
        assert!(!c.exists(), "a file that was not there is not left");
        assert!(temps(dir.path()).is_empty(), "{:?}", temps(dir.path()));
        // And when all goes well, all land.
        std::fs::remove_dir_all(&a).unwrap();
        write_all_or_none(vec![
            (b.clone(), text("new words")),
            (a.clone(), text("new rows")),
        ])
        .unwrap();
        assert_eq!(std::fs::read_to_string(&b).unwrap(), "new words");
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "new rows");
        assert!(temps(dir.path()).is_empty());
    }
}
