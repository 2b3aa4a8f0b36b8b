//! Reading a plain binary vector file through a memory map.
//!
//! The binary readers take a `BufRead`; [`MapReader`] serves it straight
//! from the mapped file, so no buffer copies the bytes on their way to the
//! matrix. Pages already consumed are handed back to the kernel every
//! [`RELEASE_BYTES`] (`MADV_DONTNEED`: they stay in the page cache, but no
//! longer count in this process's memory), so the peak resident memory of a
//! load stays close to the `f32` matrix being built rather than matrix plus
//! file. Compressed files keep the streaming path (nothing to map).
// Unsafe code is denied crate-wide (src/lib.rs) and allowed here: memory-maps vector files (a file changed underneath is the documented risk).
#![allow(unsafe_code)]

use std::io::{BufRead, Read};
use std::path::Path;

use memmap2::{Advice, Mmap, UncheckedAdvice};

use crate::{Error, Result};

/// Consumed bytes released at once.
const RELEASE_BYTES: usize = 64 << 20;

/// A `BufRead` over a read-only memory map of a whole file.
pub(crate) struct MapReader {
    map: Mmap,
    pos: usize,
    released: usize,
}

impl MapReader {
    /// Maps `path` (a plain, non-empty regular file) for one sequential pass.
    pub fn open(path: &Path) -> Result<MapReader> {
        let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        // SAFETY: the map is read-only; like every reader of memory-mapped
        // files we rely on nobody truncating the file while it is read.
        let map = unsafe { Mmap::map(&file) }.map_err(|e| Error::io(path, e))?;
        // Only a hint: the kernel reads ahead more eagerly.
        let _ = map.advise(Advice::Sequential);
        Ok(MapReader {
            map,
            pos: 0,
            released: 0,
        })
    }

    /// Gives the pages before `pos` back to the kernel once enough accumulated.
    fn release(&mut self) {
        let done = self.pos - self.released;
        if done >= RELEASE_BYTES {
            // SAFETY: a read-only private file mapping: dropped pages are read
            // again from the file if touched, and no slice into them is alive
            // (the bytes before `pos` were consumed).
            let _ = unsafe {
                self.map
                    .unchecked_advise_range(UncheckedAdvice::DontNeed, self.released, done)
            };
            self.released = self.pos;
        }
    }
}

impl Read for MapReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = {
            let rest = self.fill_buf()?;
            let n = rest.len().min(buf.len());
            buf[..n].copy_from_slice(&rest[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for MapReader {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        Ok(&self.map[self.pos..])
    }

    fn consume(&mut self, amt: usize) {
        self.pos = (self.pos + amt).min(self.map.len());
        self.release();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_file_as_a_buffered_stream() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let data: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &data).unwrap();
        let mut r = MapReader::open(&path).unwrap();
        let mut head = [0u8; 10];
        r.read_exact(&mut head).unwrap();
        assert_eq!(head, data[..10]);
        let mut line = Vec::new();
        r.read_until(250, &mut line).unwrap();
        assert_eq!(line, data[10..251]);
        let mut rest = Vec::new();
        r.read_to_end(&mut rest).unwrap();
        assert_eq!(rest, data[251..]);
    }
}
