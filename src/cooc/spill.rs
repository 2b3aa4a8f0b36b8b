//! Sorted runs on disk: what lets a count exceed its memory budget.
//!
//! When a counter's in-memory runs pass their budget, the largest are
//! written to files in a private temporary directory (`SpillDir`) as
//! little-endian `(key: u64, value: f64)` records in key order. Runs on disk
//! take part in the same merges as runs in memory, in the same order and
//! summing in the same direction (see `RunStack` in `cooc/runs.rs`), so a
//! spilled count is bit-for-bit the in-memory one: only where a run lives
//! changes, never which values are added to which.
//!
//! The directory is removed when the count ends, by success, error or panic
//! (its guard's `Drop`), and by the binary's signal handler on Ctrl-C
//! ([`remove_live_spill_dirs`]), which also closes it: a worker that spills
//! after that gets an error instead of a file, so nothing is left behind
//! the handler. Directories left by a process killed outright (SIGKILL) are
//! removed by the next count that spills into the same folder.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::runs::Run;
use crate::{Error, Result};

/// Bytes of one record on disk.
pub(crate) const RECORD: usize = 16;

/// I/O buffer of each run reader and writer.
const IO_BUFFER: usize = 1 << 18;

/// Spill directories of counts in progress, for the signal handler.
static LIVE: Mutex<Vec<Arc<Shared>>> = Mutex::new(Vec::new());

/// Distinguishes the spill directories of one process.
static NEXT_DIR: AtomicU64 = AtomicU64::new(0);

/// The name of every spill directory starts so (then `PID-N`).
const PREFIX: &str = "wordbench-spill-";

/// Removes the spill directories of every count in progress and lets no
/// worker make another file in them: for a signal handler that is about to
/// end the process.
pub fn remove_live_spill_dirs() {
    remove_live(|_| true);
}

/// Closes and removes the live spill directories that `pick` selects.
fn remove_live(pick: impl Fn(&Path) -> bool) {
    let live: Vec<Arc<Shared>> = match LIVE.lock() {
        Ok(l) => l.iter().filter(|d| pick(&d.path)).cloned().collect(),
        Err(_) => return,
    };
    for dir in live {
        dir.close();
    }
}

/// What the workers and the signal handler share about one directory.
#[derive(Debug)]
struct Shared {
    path: PathBuf,
    /// Held while a file (or the directory) is made, and by [`Shared::close`]:
    /// once closed, nothing new appears, so removing the directory
    /// succeeds (files still being written are unlinked, not recreated).
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    created: bool,
    closed: bool,
}

impl Shared {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// No more files; the directory goes.
    fn close(&self) {
        let mut state = self.state();
        state.closed = true;
        if state.created {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

/// A private temporary directory for one count's runs, made at the first
/// spill and removed on drop.
#[derive(Debug)]
pub(crate) struct SpillDir {
    shared: Arc<Shared>,
    next: AtomicU64,
    spilled: AtomicU64,
}

impl SpillDir {
    /// Names `wordbench-spill-PID-N` under `parent` (created when first
    /// needed), after removing the ones there of processes that no longer
    /// run (killed before they could clean up).
    pub fn create(parent: &Path) -> Result<SpillDir> {
        remove_stale(parent);
        let n = NEXT_DIR.fetch_add(1, Ordering::Relaxed);
        let path = parent.join(format!("{PREFIX}{}-{n}", std::process::id()));
        let shared = Arc::new(Shared {
            path,
            state: Mutex::new(State::default()),
        });
        if let Ok(mut live) = LIVE.lock() {
            live.push(Arc::clone(&shared));
        }
        Ok(SpillDir {
            shared,
            next: AtomicU64::new(0),
            spilled: AtomicU64::new(0),
        })
    }

    /// The directory.
    #[cfg(test)]
    pub fn path(&self) -> &Path {
        &self.shared.path
    }

    /// Runs written so far (spills and merges on disk).
    pub fn spilled(&self) -> u64 {
        self.spilled.load(Ordering::Relaxed)
    }

    /// A new run file, made (with the directory the first time) while no
    /// signal handler can close the directory in between.
    fn new_file(&self) -> Result<RunWriter> {
        let dir = &self.shared.path;
        let mut state = self.shared.state();
        if state.closed {
            return Err(Error::format(
                dir,
                "the count was interrupted; no more runs are spilled",
            ));
        }
        if !state.created {
            std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
            state.created = true;
        }
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        self.spilled.fetch_add(1, Ordering::Relaxed);
        RunWriter::create(&dir.join(format!("run-{n}.bin")))
    }

    /// Writes `run` to a new file.
    pub fn write(&self, run: &Run) -> Result<DiskRun> {
        let mut w = self.new_file()?;
        for (&k, &v) in run.keys.iter().zip(&run.vals) {
            w.push(k, v)?;
        }
        w.finish()
    }

    /// Merges two runs (`a` the older) into a new file: common keys sum as
    /// `a + b`, exactly as [`Run::merge_into`] does.
    pub fn merge(&self, a: &Slot, b: &Slot) -> Result<DiskRun> {
        let mut w = self.new_file()?;
        let (mut ra, mut rb) = (a.reader()?, b.reader()?);
        let (mut x, mut y) = (ra.next()?, rb.next()?);
        loop {
            match (x, y) {
                (Some((ka, va)), Some((kb, vb))) => {
                    if ka < kb {
                        w.push(ka, va)?;
                        x = ra.next()?;
                    } else if kb < ka {
                        w.push(kb, vb)?;
                        y = rb.next()?;
                    } else {
                        w.push(ka, va + vb)?;
                        x = ra.next()?;
                        y = rb.next()?;
                    }
                }
                (Some((k, v)), None) => {
                    w.push(k, v)?;
                    x = ra.next()?;
                }
                (None, Some((k, v))) => {
                    w.push(k, v)?;
                    y = rb.next()?;
                }
                (None, None) => return w.finish(),
            }
        }
    }
}

impl Drop for SpillDir {
    fn drop(&mut self) {
        self.shared.close();
        if let Ok(mut live) = LIVE.lock() {
            live.retain(|d| !Arc::ptr_eq(d, &self.shared));
        }
    }
}

/// Removes the spill directories under `parent` of processes that no
/// longer run (their PID has no `/proc` entry; elsewhere than Linux
/// nothing is removed).
fn remove_stale(parent: &Path) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(PREFIX)) else {
            continue;
        };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        let alive = pid == std::process::id() || Path::new(&format!("/proc/{pid}")).exists();
        if !alive && entry.file_type().is_ok_and(|t| t.is_dir()) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// A run stored in a file of its spill directory.
#[derive(Debug)]
pub(crate) struct DiskRun {
    path: PathBuf,
    len: usize,
}

impl DiskRun {
    /// Removes the file (a run merged into another is no longer needed).
    pub fn remove(self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// A run in memory or on disk.
#[derive(Debug)]
pub(crate) enum Slot {
    /// In memory.
    Mem(Run),
    /// In a spill file.
    Disk(DiskRun),
}

impl Default for Slot {
    fn default() -> Self {
        Slot::Mem(Run::default())
    }
}

impl Slot {
    /// Number of distinct pairs.
    pub fn len(&self) -> usize {
        match self {
            Slot::Mem(r) => r.len(),
            Slot::Disk(d) => d.len,
        }
    }

    /// Bytes of memory held (allocated, not only used).
    pub fn heap_bytes(&self) -> usize {
        match self {
            Slot::Mem(r) => r.heap_bytes(),
            Slot::Disk(_) => 0,
        }
    }

    /// Reads the run in key order.
    pub fn reader(&self) -> Result<RunReader<'_>> {
        Ok(match self {
            Slot::Mem(r) => RunReader::Mem { run: r, at: 0 },
            Slot::Disk(d) => RunReader::Disk {
                path: &d.path,
                file: BufReader::with_capacity(
                    IO_BUFFER,
                    File::open(&d.path).map_err(|e| Error::io(&d.path, e))?,
                ),
                left: d.len,
            },
        })
    }

    /// Frees the run: a file is removed, memory is handed back.
    pub fn release(self) -> Option<Run> {
        match self {
            Slot::Mem(r) => Some(r),
            Slot::Disk(d) => {
                d.remove();
                None
            }
        }
    }
}

/// Sequential access to a run's `(key, value)` records.
pub(crate) enum RunReader<'a> {
    /// A run in memory.
    Mem {
        /// The run.
        run: &'a Run,
        /// Next record.
        at: usize,
    },
    /// A run on disk.
    Disk {
        /// Its file, for errors.
        path: &'a Path,
        /// The open file.
        file: BufReader<File>,
        /// Records not read yet.
        left: usize,
    },
}

impl RunReader<'_> {
    /// The next record, or `None` at the end.
    #[inline]
    pub fn next(&mut self) -> Result<Option<(u64, f64)>> {
        match self {
            RunReader::Mem { run, at } => {
                let item = run.keys.get(*at).map(|&k| (k, run.vals[*at]));
                *at += 1;
                Ok(item)
            }
            RunReader::Disk { path, file, left } => {
                if *left == 0 {
                    return Ok(None);
                }
                let mut buf = [0u8; RECORD];
                file.read_exact(&mut buf).map_err(|e| Error::io(path, e))?;
                *left -= 1;
                let (k, v) = buf.split_at(8);
                Ok(Some((
                    u64::from_le_bytes(k.try_into().expect("8 bytes")),
                    f64::from_le_bytes(v.try_into().expect("8 bytes")),
                )))
            }
        }
    }
}

/// Writes records to a new run file.
struct RunWriter {
    path: PathBuf,
    out: BufWriter<File>,
    len: usize,
}

impl RunWriter {
    fn create(path: &Path) -> Result<RunWriter> {
        let file = File::create(path).map_err(|e| Error::io(path, e))?;
        Ok(RunWriter {
            path: path.to_path_buf(),
            out: BufWriter::with_capacity(IO_BUFFER, file),
            len: 0,
        })
    }

    #[inline]
    fn push(&mut self, key: u64, val: f64) -> Result<()> {
        self.len += 1;
        let mut buf = [0u8; RECORD];
        buf[..8].copy_from_slice(&key.to_le_bytes());
        buf[8..].copy_from_slice(&val.to_le_bytes());
        self.out
            .write_all(&buf)
            .map_err(|e| Error::io(&self.path, e))
    }

    fn finish(mut self) -> Result<DiskRun> {
        self.out.flush().map_err(|e| Error::io(&self.path, e))?;
        Ok(DiskRun {
            path: self.path,
            len: self.len,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(keys: &[u64], vals: &[f64]) -> Run {
        Run {
            keys: keys.to_vec(),
            vals: vals.to_vec(),
        }
    }

    fn read_all(slot: &Slot) -> Vec<(u64, f64)> {
        let mut r = slot.reader().unwrap();
        let mut out = Vec::new();
        while let Some(x) = r.next().unwrap() {
            out.push(x);
        }
        out
    }

    #[test]
    fn disk_merges_equal_memory_merges_and_the_directory_goes() {
        let parent = tempfile::tempdir().unwrap();
        let a = run(&[1, 4, 9], &[1.0, 2.0, 0.1]);
        let b = run(&[0, 4, 9, 10], &[5.0, 0.5, 0.2, 1.0]);
        let mut expect = Run::default();
        Run::merge_into(&a, &b, &mut expect);
        let path;
        {
            let dir = SpillDir::create(parent.path()).unwrap();
            path = dir.path().to_path_buf();
            let da = Slot::Disk(dir.write(&a).unwrap());
            let merged = Slot::Disk(dir.merge(&da, &Slot::Mem(b.clone())).unwrap());
            let got = read_all(&merged);
            let want: Vec<_> = expect
                .keys
                .iter()
                .copied()
                .zip(expect.vals.clone())
                .collect();
            assert_eq!(got, want);
            assert_eq!(merged.len(), 5);
            assert_eq!(dir.spilled(), 2);
            assert!(path.exists());
            assert_eq!(std::fs::read_dir(&path).unwrap().count(), 2);
            // What the signal handler does, for this directory only (tests run in parallel).
            remove_live(|d| d == path);
            assert!(!path.exists(), "listed for the signal handler");
            // A worker spilling after the handler gets an error, not a file.
            let e = dir.write(&a).unwrap_err().to_string();
            assert!(
                e.ends_with("the count was interrupted; no more runs are spilled"),
                "{e}"
            );
            assert!(!path.exists(), "not made again");
        }
        assert!(!path.exists());
        assert!(LIVE.lock().unwrap().iter().all(|d| d.path != path));
    }

    #[test]
    fn workers_spilling_while_the_handler_runs_leave_nothing() {
        let parent = tempfile::tempdir().unwrap();
        let dir = SpillDir::create(parent.path()).unwrap();
        let path = dir.path().to_path_buf();
        let a = run(&[1, 2, 3], &[1.0, 2.0, 3.0]);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    // Spill until the directory is closed.
                    while dir.write(&a).is_ok() {}
                });
            }
            while !path.exists() {
                std::thread::yield_now();
            }
            remove_live(|d| d == path);
        });
        assert!(!path.exists(), "no worker made a file after the handler");
        drop(dir);
        assert_eq!(std::fs::read_dir(parent.path()).unwrap().count(), 0);
    }

    #[test]
    fn spill_directories_of_dead_processes_are_swept() {
        let parent = tempfile::tempdir().unwrap();
        // PID 4194304 is above Linux's pid_max: never a running process.
        let dead = parent.path().join("wordbench-spill-4194304-3");
        std::fs::create_dir(&dead).unwrap();
        std::fs::write(dead.join("run-0.bin"), [0u8; 16]).unwrap();
        let mine = parent
            .path()
            .join(format!("wordbench-spill-{}-999999", std::process::id()));
        std::fs::create_dir(&mine).unwrap();
        let other = parent.path().join("wordbench-spill-notes");
        std::fs::create_dir(&other).unwrap();
        let _dir = SpillDir::create(parent.path()).unwrap();
        if Path::new("/proc/self").exists() {
            assert!(!dead.exists(), "a dead process's directory goes");
        }
        assert!(mine.exists(), "this process's are its own business");
        assert!(other.exists(), "only PID-named directories are touched");
    }
}
