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
//! ([`remove_live_spill_dirs`]).

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use super::runs::Run;
use crate::{Error, Result};

/// Bytes of one record on disk.
pub(crate) const RECORD: usize = 16;

/// I/O buffer of each run reader and writer.
const IO_BUFFER: usize = 1 << 18;

/// Spill directories of counts in progress, for the signal handler.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Distinguishes the spill directories of one process.
static NEXT_DIR: AtomicU64 = AtomicU64::new(0);

/// Removes the spill directories of every count in progress: for a signal
/// handler that is about to end the process.
pub fn remove_live_spill_dirs() {
    remove_live(|_| true);
}

/// Removes the live spill directories that `pick` selects.
fn remove_live(pick: impl Fn(&Path) -> bool) {
    if let Ok(live) = LIVE.lock() {
        for dir in live.iter().filter(|d| pick(d)) {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// A private temporary directory for one count's runs, made at the first
/// spill and removed on drop.
#[derive(Debug)]
pub(crate) struct SpillDir {
    path: PathBuf,
    created: Mutex<bool>,
    next: AtomicU64,
    spilled: AtomicU64,
}

impl SpillDir {
    /// Names `wordbench-spill-PID-N` under `parent` (created when first needed).
    pub fn create(parent: &Path) -> Result<SpillDir> {
        let n = NEXT_DIR.fetch_add(1, Ordering::Relaxed);
        let path = parent.join(format!("wordbench-spill-{}-{n}", std::process::id()));
        Ok(SpillDir {
            path,
            created: Mutex::new(false),
            next: AtomicU64::new(0),
            spilled: AtomicU64::new(0),
        })
    }

    /// Makes the directory, listed for the signal handler, once.
    fn ensure(&self) -> Result<()> {
        let mut created = self.created.lock().unwrap_or_else(|p| p.into_inner());
        if !*created {
            if let Ok(mut live) = LIVE.lock() {
                live.push(self.path.clone());
            }
            std::fs::create_dir_all(&self.path).map_err(|e| Error::io(&self.path, e))?;
            *created = true;
        }
        Ok(())
    }

    /// The directory.
    #[cfg(test)]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs written so far (spills and merges on disk).
    pub fn spilled(&self) -> u64 {
        self.spilled.load(Ordering::Relaxed)
    }

    fn new_file(&self) -> Result<PathBuf> {
        self.ensure()?;
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        self.spilled.fetch_add(1, Ordering::Relaxed);
        Ok(self.path.join(format!("run-{n}.bin")))
    }

    /// Writes `run` to a new file.
    pub fn write(&self, run: &Run) -> Result<DiskRun> {
        let mut w = RunWriter::create(&self.new_file()?)?;
        for (&k, &v) in run.keys.iter().zip(&run.vals) {
            w.push(k, v)?;
        }
        w.finish()
    }

    /// Merges two runs (`a` the older) into a new file: common keys sum as
    /// `a + b`, exactly as [`Run::merge_into`] does.
    pub fn merge(&self, a: &Slot, b: &Slot) -> Result<DiskRun> {
        let mut w = RunWriter::create(&self.new_file()?)?;
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
        if *self.created.lock().unwrap_or_else(|p| p.into_inner()) {
            let _ = std::fs::remove_dir_all(&self.path);
        }
        if let Ok(mut live) = LIVE.lock() {
            live.retain(|p| p != &self.path);
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
        }
        assert!(!path.exists());
        assert!(LIVE.lock().unwrap().iter().all(|p| p != &path));
    }
}
