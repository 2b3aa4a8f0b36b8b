//! The counts file: a vocabulary and its co-occurrence matrix in one
//! versioned, checksummed binary file.
//!
//! Everything is little-endian and every section starts at a multiple of 8
//! bytes, so the file can be memory-mapped and its arrays used in place.
//!
//! ```text
//! header      64 bytes
//!   0   magic        b"WBCOUNTS"
//!   8   version      u32 = 1
//!   12  window size  u32 (0: not known, e.g. imported counts)
//!   16  window kind  u8  (0 symmetric, 1 left-only)
//!   17  weighting    u8  (0 uniform, 1 harmonic 1/d)
//!   18  reserved     6 bytes of 0
//!   24  n            u64  vocabulary size = matrix rows = columns
//!   32  tokens       u64  in-vocabulary tokens counted (0: not known)
//!   40  word bytes   u64  length of the words section, unpadded
//!   48  reserved     16 bytes of 0
//! word counts     n × u64, descending (id order)
//! word ends       n × u64, end of word i in the words section
//! words           UTF-8, zero-padded to a multiple of 8
//! cells           nnz × (column u32, 0 u32, value f64), row after row,
//!                 columns increasing within a row
//! row pointers    (n + 1) × u64, row i's cells are [ptr[i], ptr[i+1])
//! trailer         nnz u64, b"WBCEND\0\0", checksum u64
//! ```
//!
//! The checksum is FNV-1a (64-bit) of every byte before it. The header is
//! written first and the row pointers last, so a count streams straight to
//! the file ([`CountsWriter`] is a [`RowSink`]): the matrix is never whole
//! in memory.

use std::fs::File;
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};

use sprs::CsMat;

use crate::cooc::{RowSink, Weighting, Window, WindowKind};
use crate::corpus::Vocabulary;
use crate::{Error, Result};

/// The file's first bytes.
pub const MAGIC: &[u8; 8] = b"WBCOUNTS";
/// The trailer's marker.
const END: &[u8; 8] = b"WBCEND\0\0";
/// The format version this build writes and reads.
pub const VERSION: u32 = 1;
/// Header bytes.
const HEADER: usize = 64;
/// Trailer bytes.
const TRAILER: usize = 24;
/// Bytes per cell.
const CELL: usize = 16;

pub use crate::corpus::CountsMeta;

/// A counts file read back.
#[derive(Debug, Clone)]
pub struct Counts {
    /// The words, in id order, with their counts.
    pub vocab: Vocabulary,
    /// The `n × n` co-occurrence matrix.
    pub matrix: CsMat<f64>,
    /// Window and token count.
    pub meta: CountsMeta,
}

/// FNV-1a 64 over everything written or read through it.
struct Fnv<T> {
    inner: T,
    hash: u64,
    bytes: u64,
}

impl<T> Fnv<T> {
    fn new(inner: T) -> Fnv<T> {
        Fnv {
            inner,
            hash: 0xcbf2_9ce4_8422_2325,
            bytes: 0,
        }
    }

    fn feed(&mut self, data: &[u8]) {
        let mut h = self.hash;
        for &b in data {
            h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
        self.hash = h;
        self.bytes += data.len() as u64;
    }
}

impl<W: Write> Write for Fnv<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.feed(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Writes a counts file row by row: the header and vocabulary at once,
/// then each row's cells ([`RowSink`]), then [`CountsWriter::finish`].
pub struct CountsWriter<W: Write> {
    out: Fnv<W>,
    path: PathBuf,
    n: usize,
    indptr: Vec<u64>,
    nnz: u64,
}

fn window_bytes(window: Option<Window>) -> [u8; 8] {
    let mut b = [0u8; 8];
    if let Some(w) = window {
        b[..4].copy_from_slice(&(w.size as u32).to_le_bytes());
        b[4] = match w.kind {
            WindowKind::Symmetric => 0,
            WindowKind::LeftOnly => 1,
        };
        b[5] = match w.weighting {
            Weighting::Uniform => 0,
            Weighting::Harmonic => 1,
        };
    }
    b
}

impl<W: Write> CountsWriter<W> {
    /// Starts a file for `vocab`'s words; `path` names the file in errors.
    pub fn new(out: W, path: &Path, vocab: &Vocabulary, meta: CountsMeta) -> Result<Self> {
        let n = vocab.len();
        let mut w = CountsWriter {
            out: Fnv::new(out),
            path: path.to_path_buf(),
            n,
            indptr: Vec::with_capacity(n + 1),
            nnz: 0,
        };
        let words: Vec<&str> = (0..n as u32).map(|i| vocab.word(i)).collect();
        let word_bytes: usize = words.iter().map(|w| w.len()).sum();
        let mut header = Vec::with_capacity(HEADER);
        header.extend_from_slice(MAGIC);
        header.extend_from_slice(&VERSION.to_le_bytes());
        header.extend_from_slice(&window_bytes(meta.window)[..4]);
        header.extend_from_slice(&window_bytes(meta.window)[4..]);
        header.extend_from_slice(&[0u8; 4]);
        debug_assert_eq!(header.len(), 24);
        header.extend_from_slice(&(n as u64).to_le_bytes());
        header.extend_from_slice(&meta.tokens.to_le_bytes());
        header.extend_from_slice(&(word_bytes as u64).to_le_bytes());
        header.resize(HEADER, 0);
        w.put(&header)?;
        let mut section = Vec::with_capacity(16 * n + word_bytes + 8);
        for &c in vocab.counts() {
            section.extend_from_slice(&c.to_le_bytes());
        }
        let mut end = 0u64;
        for word in &words {
            end += word.len() as u64;
            section.extend_from_slice(&end.to_le_bytes());
        }
        for word in &words {
            section.extend_from_slice(word.as_bytes());
        }
        section.resize(section.len().next_multiple_of(8), 0);
        w.put(&section)?;
        w.indptr.push(0);
        Ok(w)
    }

    fn put(&mut self, bytes: &[u8]) -> Result<()> {
        self.out
            .write_all(bytes)
            .map_err(|e| Error::io(&self.path, e))
    }

    /// Writes the row pointers and the trailer; returns the inner writer.
    pub fn finish(mut self) -> Result<W> {
        if self.indptr.len() != self.n + 1 {
            return Err(Error::format(
                &self.path,
                format!(
                    "{} rows written, expected {}",
                    self.indptr.len() - 1,
                    self.n
                ),
            ));
        }
        let mut tail = Vec::with_capacity(8 * self.indptr.len() + 16);
        for &p in &self.indptr {
            tail.extend_from_slice(&p.to_le_bytes());
        }
        tail.extend_from_slice(&self.nnz.to_le_bytes());
        tail.extend_from_slice(END);
        self.put(&tail)?;
        let checksum = self.out.hash;
        self.put(&checksum.to_le_bytes())?;
        Ok(self.out.inner)
    }
}

impl<W: Write> RowSink for CountsWriter<W> {
    fn row(&mut self, cols: &[u32], vals: &[f64]) -> Result<()> {
        let mut buf = Vec::with_capacity(cols.len() * CELL);
        for (&c, &v) in cols.iter().zip(vals) {
            buf.extend_from_slice(&c.to_le_bytes());
            buf.extend_from_slice(&[0u8; 4]);
            buf.extend_from_slice(&v.to_le_bytes());
        }
        self.put(&buf)?;
        self.nnz += cols.len() as u64;
        self.indptr.push(self.nnz);
        Ok(())
    }
}

/// Writes `matrix` (with `vocab`'s words) as a counts file at `path`, atomically.
pub fn write(path: &Path, vocab: &Vocabulary, matrix: &CsMat<f64>, meta: CountsMeta) -> Result<()> {
    crate::atomic::write_with(path, |out| {
        let mut w = CountsWriter::new(out, path, vocab, meta)?;
        for row in matrix.outer_iterator() {
            let cols: Vec<u32> = row.indices().iter().map(|&j| j as u32).collect();
            w.row(&cols, row.data())?;
        }
        w.finish().map(|_| ())
    })
}

/// Whether `path` is a regular file that starts like a counts file (a pipe
/// or device is never read here: its bytes would be lost to its reader).
pub fn is_counts_file(path: &Path) -> bool {
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return false;
    }
    let mut head = [0u8; 8];
    File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| &head == MAGIC)
}

/// Reads exactly what the layout says, hashing as it goes.
struct Input<'a> {
    file: Fnv<BufReader<File>>,
    path: &'a Path,
    len: u64,
}

impl Input<'_> {
    fn bytes(&mut self, n: usize) -> Result<Vec<u8>> {
        let at = self.file.bytes;
        if at + n as u64 > self.len {
            return Err(truncated(self.path, self.len));
        }
        let mut buf = vec![0u8; n];
        self.file
            .inner
            .read_exact(&mut buf)
            .map_err(|e| Error::io(self.path, e))?;
        self.file.feed(&buf);
        Ok(buf)
    }

    fn u64s(&mut self, n: usize) -> Result<Vec<u64>> {
        let bytes = self.bytes(
            n.checked_mul(8)
                .ok_or_else(|| truncated(self.path, self.len))?,
        )?;
        Ok(bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect())
    }
}

fn truncated(path: &Path, len: u64) -> Error {
    Error::format(
        path,
        format!("counts file is truncated ({len} bytes; sections extend past the end)"),
    )
}

fn corrupt(path: &Path, what: &str) -> Error {
    Error::format(path, format!("counts file is corrupt: {what}"))
}

fn le_u64(b: &[u8]) -> u64 {
    u64::from_le_bytes(b[..8].try_into().expect("8 bytes"))
}

/// Reads a counts file, checking its magic, version, layout and checksum;
/// every problem is a one-line error naming the file.
pub fn read(path: &Path) -> Result<Counts> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
    let mut input = Input {
        file: Fnv::new(BufReader::with_capacity(1 << 16, file)),
        path,
        len,
    };
    if len < (HEADER + TRAILER) as u64 {
        if len >= 8 && input.bytes(8)? != MAGIC {
            return Err(not_counts(path));
        }
        return Err(truncated(path, len));
    }
    let header = input.bytes(HEADER)?;
    if &header[..8] != MAGIC {
        return Err(not_counts(path));
    }
    let version = u32::from_le_bytes(header[8..12].try_into().expect("4 bytes"));
    if version != VERSION {
        return Err(Error::format(
            path,
            format!("counts file version {version} is not supported (this build reads version {VERSION})"),
        ));
    }
    let window = parse_window(path, &header[12..18])?;
    let n = le_u64(&header[24..]);
    let tokens = le_u64(&header[32..]);
    let word_bytes = le_u64(&header[40..]);
    if n > len / 16 || word_bytes > len {
        return Err(truncated(path, len));
    }
    let n = n as usize;
    let counts = input.u64s(n)?;
    let ends = input.u64s(n)?;
    let padded = (word_bytes as usize).next_multiple_of(8);
    let words = input.bytes(padded)?;
    let mut pairs = Vec::with_capacity(n);
    let mut start = 0usize;
    for (i, (&end, &count)) in ends.iter().zip(&counts).enumerate() {
        let end = end as usize;
        if end < start || end > word_bytes as usize {
            return Err(corrupt(path, &format!("word {i} has a bad offset")));
        }
        let word = std::str::from_utf8(&words[start..end])
            .map_err(|_| corrupt(path, &format!("word {i} is not UTF-8")))?;
        pairs.push((word.to_string(), count));
        start = end;
    }
    // The cells come before their count is known: the trailer says it.
    let cells_at = input.file.bytes;
    let rest = len - cells_at;
    let tail = (n as u64 + 1) * 8 + TRAILER as u64;
    if rest < tail || !(rest - tail).is_multiple_of(CELL as u64) {
        return Err(truncated(path, len));
    }
    let nnz = ((rest - tail) / CELL as u64) as usize;
    let mut indices = Vec::with_capacity(nnz);
    let mut data = Vec::with_capacity(nnz);
    let mut left = nnz;
    while left > 0 {
        let chunk = left.min(1 << 16);
        let bytes = input.bytes(chunk * CELL)?;
        for c in bytes.chunks_exact(CELL) {
            let col = u32::from_le_bytes(c[..4].try_into().expect("4 bytes")) as usize;
            if col >= n {
                return Err(corrupt(path, &format!("column {col} out of range")));
            }
            indices.push(col);
            data.push(f64::from_le_bytes(c[8..].try_into().expect("8 bytes")));
        }
        left -= chunk;
    }
    let indptr: Vec<usize> = input.u64s(n + 1)?.into_iter().map(|p| p as usize).collect();
    let trailer = input.bytes(16)?;
    let expected = input.file.hash;
    let stored = input.bytes(8)?;
    if le_u64(&trailer) != nnz as u64 || &trailer[8..] != END {
        return Err(corrupt(path, "bad trailer"));
    }
    if le_u64(&stored) != expected {
        return Err(corrupt(path, "checksum mismatch"));
    }
    check_vocabulary(&pairs, path)?;
    let vocab = Vocabulary::from_sorted(pairs)
        .map_err(|_| corrupt(path, "word counts are not in descending order"))?;
    let matrix = CsMat::try_new((n, n), indptr, indices, data)
        .map_err(|e| corrupt(path, &format!("bad matrix layout ({})", e.3)))?;
    Ok(Counts {
        vocab,
        matrix,
        meta: CountsMeta { window, tokens },
    })
}

/// A word stored twice (two rows for one word: lookups would pick one
/// silently) or counts whose total overflows are damage.
fn check_vocabulary(pairs: &[(String, u64)], path: &Path) -> Result<()> {
    let mut first = std::collections::HashMap::with_capacity(pairs.len());
    let mut total = 0u64;
    for (i, (word, count)) in pairs.iter().enumerate() {
        if let Some(j) = first.insert(word.as_str(), i) {
            return Err(corrupt(
                path,
                &format!("word {i} '{word}' appears again (first as word {j})"),
            ));
        }
        total = total
            .checked_add(*count)
            .ok_or_else(|| corrupt(path, &format!("the word counts overflow at word {i}")))?;
    }
    Ok(())
}

fn not_counts(path: &Path) -> Error {
    Error::format(path, "not a wordbench counts file (bad magic bytes)")
}

fn parse_window(path: &Path, b: &[u8]) -> Result<Option<Window>> {
    let size = u32::from_le_bytes(b[..4].try_into().expect("4 bytes")) as usize;
    if size == 0 {
        return Ok(None);
    }
    let kind = match b[4] {
        0 => WindowKind::Symmetric,
        1 => WindowKind::LeftOnly,
        k => return Err(corrupt(path, &format!("unknown window kind {k}"))),
    };
    let weighting = match b[5] {
        0 => Weighting::Uniform,
        1 => Weighting::Harmonic,
        w => return Err(corrupt(path, &format!("unknown weighting {w}"))),
    };
    Ok(Some(Window {
        size,
        kind,
        weighting,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> (Vocabulary, CsMat<f64>) {
        let vocab =
            Vocabulary::from_sorted(vec![("the".into(), 9), ("café".into(), 4), ("a".into(), 4)])
                .unwrap();
        let mut tri = sprs::TriMat::new((3, 3));
        tri.add_triplet(0, 1, 2.5);
        tri.add_triplet(1, 0, 2.5);
        tri.add_triplet(2, 2, 1.0 / 3.0);
        tri.add_triplet(0, 2, 7.0);
        (vocab, tri.to_csr())
    }

    fn meta() -> CountsMeta {
        CountsMeta {
            window: Some(Window::symmetric(10, Weighting::Harmonic)),
            tokens: 17,
        }
    }

    #[test]
    fn files_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.wbc");
        let (vocab, matrix) = sample();
        write(&path, &vocab, &matrix, meta()).unwrap();
        assert!(is_counts_file(&path));
        let back = read(&path).unwrap();
        assert_eq!(back.vocab, vocab);
        assert_eq!(back.matrix, matrix);
        assert_eq!(back.meta, meta());
        // The layout: header, 3 counts, 3 ends, 10 word bytes padded to 16,
        // 4 cells, 4 row pointers, trailer.
        let len = std::fs::metadata(&path).unwrap().len();
        assert_eq!(len, 64 + 24 + 24 + 16 + 4 * 16 + 32 + 24);
    }

    #[test]
    fn a_word_stored_twice_or_overflowing_counts_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.wbc");
        let (_, matrix) = sample();
        let twice =
            Vocabulary::from_sorted(vec![("the".into(), 9), ("a".into(), 4), ("a".into(), 4)])
                .unwrap();
        write(&path, &twice, &matrix, meta()).unwrap();
        let e = read(&path).unwrap_err().to_string();
        assert!(
            e.contains("c.wbc") && e.contains("word 2 'a' appears again (first as word 1)"),
            "{e}"
        );
        let huge = Vocabulary::from_sorted(vec![
            ("the".into(), u64::MAX),
            ("café".into(), 4),
            ("a".into(), 4),
        ])
        .unwrap();
        write(&path, &huge, &matrix, meta()).unwrap();
        let e = read(&path).unwrap_err().to_string();
        assert!(e.contains("the word counts overflow at word 1"), "{e}");
    }

    #[test]
    fn damaged_files_give_one_line_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.wbc");
        let (vocab, matrix) = sample();
        write(&path, &vocab, &matrix, meta()).unwrap();
        let good = std::fs::read(&path).unwrap();
        let check = |bytes: &[u8], expect: &str| {
            let p = dir.path().join("bad.wbc");
            std::fs::write(&p, bytes).unwrap();
            let msg = read(&p).unwrap_err().to_string();
            assert!(msg.contains(expect), "{msg}");
            assert!(msg.contains("bad.wbc") && !msg.contains('\n'), "{msg}");
        };
        let mut flipped = good.clone();
        flipped[200] ^= 1;
        check(&flipped, "checksum mismatch");
        for cut in [10, 70, 150, good.len() - 1] {
            check(&good[..cut], "truncated");
        }
        let mut version = good.clone();
        version[8] = 2;
        check(&version, "version 2 is not supported");
        check(
            b"hello world, this is text and not counts at all, no no no no no no no no",
            "not a wordbench counts file",
        );
        let mut longer = good.clone();
        longer.extend_from_slice(&[0; 16]);
        check(&longer, "corrupt");
    }
}
