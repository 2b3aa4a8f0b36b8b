//! How far a load has come, for a progress bar drawn by another thread.
//!
//! A reader counts the input bytes it consumed (decompressed, so a
//! compressed file's total is unknown) or, for a fastText model, the words
//! whose vectors it computed; the CLI's bar and the TUI poll the counts.
//! Relaxed atomics: a bar needs no ordering, only eventually-fresh numbers.
//!
//! The same handle cancels the load: the workbench cancels an import whose
//! run is deleted (or when it quits), and the reader stops at its next
//! block of input or word instead of running on unseen.

use std::io::{BufRead, Read};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Work done and the total, in units the reader picks (bytes or words).
#[derive(Debug, Default)]
pub struct LoadProgress {
    done: AtomicU64,
    /// 0 while unknown.
    total: AtomicU64,
    cancelled: AtomicBool,
}

/// What a cancelled read says.
const CANCELLED: &str = "reading cancelled";

impl LoadProgress {
    /// Asks the load to stop: its reader fails with "reading cancelled" at
    /// its next block of input (or next word of a fastText model).
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    /// Whether [`cancel`](Self::cancel) was called.
    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }

    /// An error naming `path` once the load is cancelled.
    pub(crate) fn check(&self, path: &Path) -> crate::Result<()> {
        match self.is_cancelled() {
            true => Err(crate::Error::format(path, CANCELLED)),
            false => Ok(()),
        }
    }

    /// `inner`, failing with "reading cancelled" once the load is cancelled.
    pub(crate) fn cancellable<R>(&self, inner: R) -> Cancellable<'_, R> {
        Cancellable {
            inner,
            progress: self,
        }
    }

    /// Units done so far.
    pub fn done(&self) -> u64 {
        self.done.load(Ordering::Relaxed)
    }

    /// The total, when known.
    pub fn total(&self) -> Option<u64> {
        Some(self.total.load(Ordering::Relaxed)).filter(|&t| t > 0)
    }

    /// The share done, when the total is known (0 to 1).
    pub fn fraction(&self) -> Option<f64> {
        self.total()
            .map(|t| (self.done() as f64 / t as f64).min(1.0))
    }

    /// Starts a count of `total` units (`None`: unknown) from zero.
    pub(crate) fn start(&self, total: Option<u64>) {
        self.done.store(0, Ordering::Relaxed);
        self.total.store(total.unwrap_or(0), Ordering::Relaxed);
    }

    /// Adds `n` units done.
    pub(crate) fn add(&self, n: u64) {
        self.done.fetch_add(n, Ordering::Relaxed);
    }
}

/// The error a cancelled read fails with (not `Interrupted`: readers retry those).
fn cancelled() -> std::io::Error {
    std::io::Error::other(CANCELLED)
}

/// A `BufRead` that fails once its [`LoadProgress`] is cancelled.
pub(crate) struct Cancellable<'a, R> {
    inner: R,
    progress: &'a LoadProgress,
}

impl<R: BufRead> Read for Cancellable<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.progress.is_cancelled() {
            return Err(cancelled());
        }
        self.inner.read(buf)
    }
}

impl<R: BufRead> BufRead for Cancellable<'_, R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if self.progress.is_cancelled() {
            return Err(cancelled());
        }
        self.inner.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        self.inner.consume(amt);
    }
}

/// A `BufRead` that counts the bytes consumed through it into a
/// [`LoadProgress`], and fails once it is cancelled.
pub(crate) struct Counted<'a, R> {
    inner: R,
    progress: &'a LoadProgress,
}

impl<'a, R> Counted<'a, R> {
    pub fn new(inner: R, progress: &'a LoadProgress) -> Self {
        Counted { inner, progress }
    }
}

impl<R: BufRead> Read for Counted<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.progress.is_cancelled() {
            return Err(cancelled());
        }
        let n = self.inner.read(buf)?;
        self.progress.add(n as u64);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Counted<'_, R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if self.progress.is_cancelled() {
            return Err(cancelled());
        }
        self.inner.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        self.progress.add(amt as u64);
        self.inner.consume(amt);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_bytes_read_and_consumed() {
        let p = LoadProgress::default();
        p.start(Some(10));
        let data = b"0123456789";
        let mut r = Counted::new(&data[..], &p);
        let mut two = [0u8; 2];
        r.read_exact(&mut two).unwrap();
        let mut line = Vec::new();
        r.read_until(b'5', &mut line).unwrap();
        assert_eq!(p.done(), 6);
        assert_eq!(p.fraction(), Some(0.6));
        p.start(None);
        assert_eq!((p.done(), p.fraction()), (0, None));
    }

    #[test]
    fn a_cancelled_load_fails_at_its_next_read() {
        let p = LoadProgress::default();
        let data = b"a b c\nd e f\n";
        let mut r = Counted::new(&data[..], &p);
        let mut line = Vec::new();
        r.read_until(b'\n', &mut line).unwrap();
        p.cancel();
        let e = r.read_until(b'\n', &mut line).unwrap_err();
        assert_eq!(e.to_string(), "reading cancelled");
        let mut c = p.cancellable(&data[..]);
        assert!(c.fill_buf().is_err() && c.read(&mut [0; 4]).is_err());
        assert!(p.check(Path::new("v.bin")).is_err());
    }
}
