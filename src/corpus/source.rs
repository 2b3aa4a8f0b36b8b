//! Opening corpus files: transparent `.gz`/`.bz2`/`.xz` decompression (detected from
//! the magic bytes, so a misnamed file still works) and a line reader that
//! copes with what real files contain.
//!
//! [`LineReader`] never holds more than [`MAX_SEGMENT`] bytes of one line: text8
//! is a single 100 MB line, and memory must not grow with the corpus. Long lines
//! are cut at whitespace into segments. Invalid UTF-8 is decoded lossily and
//! counted; a NUL byte means the input is binary and is an error.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::{Error, Result};

/// The largest piece of one line handed out at once.
pub const MAX_SEGMENT: usize = 1 << 20;

/// The longest line a line-by-line reader (vectors, vocabularies, counts
/// parts, labels, word lists) accepts: a longer one is an error, not a
/// buffer that grows with the file.
pub const MAX_LINE: usize = 16 << 20;

/// [`BufRead::lines`] with each line bounded by [`MAX_LINE`] bytes: a file
/// without line ends (or `/dev/zero`) is an error after that many bytes
/// instead of filling the memory. Errors say which line.
pub trait BoundedLines: BufRead + Sized {
    /// The lines (without `\n` or `\r\n`), each at most [`MAX_LINE`] bytes.
    fn bounded_lines(self) -> Lines<Self> {
        Lines {
            inner: self,
            line: 0,
            done: false,
        }
    }
}

impl<R: BufRead> BoundedLines for R {}

/// The iterator of [`BoundedLines::bounded_lines`].
pub struct Lines<R> {
    inner: R,
    line: usize,
    done: bool,
}

impl<R: BufRead> Iterator for Lines<R> {
    type Item = io::Result<String>;

    fn next(&mut self) -> Option<io::Result<String>> {
        if self.done {
            return None;
        }
        let mut raw = Vec::new();
        let read = (&mut self.inner)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut raw);
        let fail = |done: &mut bool, message: String| {
            *done = true;
            Some(Err(io::Error::new(io::ErrorKind::InvalidData, message)))
        };
        match read {
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
            Ok(0) => None,
            Ok(_) => {
                self.line += 1;
                if raw.last() == Some(&b'\n') {
                    raw.pop();
                    if raw.last() == Some(&b'\r') {
                        raw.pop();
                    }
                } else if raw.len() > MAX_LINE {
                    return fail(
                        &mut self.done,
                        format!(
                            "line {} is longer than {} (no line end); is this a text file?",
                            self.line,
                            crate::memory::human(MAX_LINE as u64)
                        ),
                    );
                }
                match String::from_utf8(raw) {
                    Ok(text) => Some(Ok(text)),
                    Err(_) => fail(
                        &mut self.done,
                        format!("line {} is not UTF-8 text", self.line),
                    ),
                }
            }
        }
    }
}

/// Compression of an input file, from its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Plain bytes.
    None,
    /// gzip (`1f 8b`).
    Gzip,
    /// bzip2 (`BZh`).
    Bzip2,
    /// xz (`fd 37 7a 58 5a 00`).
    Xz,
}

impl Compression {
    /// The name users know the format by.
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "plain",
            Compression::Gzip => "gzip",
            Compression::Bzip2 => "bzip2",
            Compression::Xz => "xz",
        }
    }

    /// The compression a file name asks for (`.gz`, `.bz2`, `.xz`, any
    /// case): what a writer must produce under that name.
    pub fn of_name(path: &Path) -> Self {
        let ext = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        match ext.as_deref() {
            Some("gz") => Compression::Gzip,
            Some("bz2") => Compression::Bzip2,
            Some("xz") => Compression::Xz,
            _ => Compression::None,
        }
    }

    /// Recognises compression from a file's leading bytes.
    pub fn sniff(head: &[u8]) -> Self {
        if head.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if head.len() >= 4 && head.starts_with(b"BZh") && head[3].is_ascii_digit() {
            Compression::Bzip2
        } else if head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0]) {
            Compression::Xz
        } else {
            Compression::None
        }
    }
}

/// Opens the regular file `path` for reading, decompressing transparently.
///
/// Fails with a clear error for a missing file, a directory, and a pipe or
/// device ([`check_regular`]): every input but a corpus is read through
/// here, and none of them may block on a FIFO without a writer or read
/// `/dev/zero` for ever. A corpus may be a pipe: see [`open_stream`].
pub fn open(path: &Path) -> Result<Box<dyn BufRead + Send>> {
    check_regular(path)?;
    open_stream(path)
}

/// [`open`], also for a pipe or device (`/dev/stdin`, a FIFO): what a
/// corpus read once, with its format given, may be.
pub fn open_stream(path: &Path) -> Result<Box<dyn BufRead + Send>> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    if meta.is_dir() {
        return Err(Error::IsDirectory {
            path: path.to_path_buf(),
        });
    }
    let mut file =
        BufReader::with_capacity(1 << 16, File::open(path).map_err(|e| Error::io(path, e))?);
    let head = file.fill_buf().map_err(|e| Error::io(path, e))?;
    let compression = Compression::sniff(head);
    if compression == Compression::None {
        return Ok(Box::new(file));
    }
    let read = Arc::new(AtomicU64::new(0));
    let file = CountConsumed {
        inner: file,
        consumed: Arc::clone(&read),
    };
    let decoder: Box<dyn Read + Send> = match compression {
        Compression::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(file)),
        Compression::Bzip2 => Box::new(bzip2::bufread::MultiBzDecoder::new(file)),
        _ => Box::new(xz2::bufread::XzDecoder::new_multi_decoder(file)),
    };
    Ok(Box::new(BufReader::with_capacity(
        1 << 16,
        Located {
            inner: decoder,
            compression,
            decompressed: 0,
            compressed: read,
        },
    )))
}

/// Counts the compressed bytes a decoder has taken from the file, so that a
/// decompression error can say how far into the file it happened.
struct CountConsumed<R> {
    inner: R,
    consumed: Arc<AtomicU64>,
}

impl<R: BufRead> Read for CountConsumed<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(out)?;
        self.consumed.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for CountConsumed<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        self.consumed.fetch_add(amt as u64, Ordering::Relaxed);
        self.inner.consume(amt);
    }
}

/// Refuses anything but a regular file (after symlinks), before opening it:
/// a missing file is the system's error, a directory is
/// [`Error::IsDirectory`], and a pipe, FIFO, device or socket is a one-line
/// error saying what it is. Opening a FIFO would wait for a writer for ever,
/// a device such as `/dev/zero` never ends, and neither can be read twice
/// (format detection reads the start of a file, then the file).
pub fn check_regular(path: &Path) -> Result<()> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    if meta.is_file() {
        return Ok(());
    }
    if meta.is_dir() {
        return Err(Error::IsDirectory {
            path: path.to_path_buf(),
        });
    }
    Err(Error::format(
        path,
        format!(
            "is {}, not a regular file; save what it gives to a file first",
            kind_of(&meta.file_type())
        ),
    ))
}

/// What a file that is not a regular file is, in words.
fn kind_of(kind: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_fifo() {
        "a pipe (FIFO), which can be read only once and waits for a writer"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "a special file"
    }
}

/// A decoder whose errors say where they happened: after how many
/// decompressed bytes, and how far the decoder had read into the compressed
/// file (it reads ahead, so the damage is at or before that byte).
struct Located<D> {
    inner: D,
    compression: Compression,
    decompressed: u64,
    compressed: Arc<AtomicU64>,
}

impl<D: Read> Read for Located<D> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        match self.inner.read(out) {
            Ok(n) => {
                self.decompressed += n as u64;
                Ok(n)
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => Err(e),
            Err(e) => Err(io::Error::new(
                e.kind(),
                format!(
                    "{} data is damaged or cut short after {} bytes of decompressed output \
                     (compressed file read up to byte {}): {e}",
                    self.compression.name(),
                    self.decompressed,
                    self.compressed.load(Ordering::Relaxed)
                ),
            )),
        }
    }
}

/// The size in bytes of `path` when it is a plain (uncompressed) regular
/// file, so readers can check a header's declared sizes against it before
/// allocating; `None` for compressed files, pipes and devices, whose length
/// is not known in advance.
pub fn plain_len(path: &Path) -> Result<Option<u64>> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    if !meta.is_file() {
        return Ok(None);
    }
    // Six bytes: xz's magic is that long (four let `.xz` pass as plain).
    let mut head = Vec::with_capacity(6);
    File::open(path)
        .map_err(|e| Error::io(path, e))?
        .take(6)
        .read_to_end(&mut head)
        .map_err(|e| Error::io(path, e))?;
    Ok((Compression::sniff(&head) == Compression::None).then_some(meta.len()))
}

/// Reads up to `n` decompressed bytes from the start of `path` (for format detection).
pub fn peek(path: &Path, n: usize) -> Result<Vec<u8>> {
    let mut buf = Vec::with_capacity(n);
    open(path)?
        .take(n as u64)
        .read_to_end(&mut buf)
        .map_err(|e| Error::io(path, e))?;
    Ok(buf)
}

/// A piece of a line: a whole line, or a whitespace-cut part of a long one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment<'a> {
    /// The decoded text, without the line terminator.
    pub text: &'a str,
    /// 1-based line number the segment belongs to.
    pub line: usize,
    /// True when this segment ends its line.
    pub line_end: bool,
}

/// Reads a decompressed stream as lossily decoded line segments.
pub struct LineReader<R> {
    inner: R,
    path: PathBuf,
    raw: Vec<u8>,
    text: String,
    line: usize,
    offset: u64,
    carry_line_end: bool,
    replacements: u64,
    cuts: u64,
    first_cut: Option<(usize, u64)>,
}

impl<R: BufRead> LineReader<R> {
    /// Wraps `inner`; `path` is used in error messages.
    pub fn new(inner: R, path: &Path) -> Self {
        LineReader {
            inner,
            path: path.to_path_buf(),
            raw: Vec::with_capacity(1 << 16),
            text: String::new(),
            line: 0,
            offset: 0,
            carry_line_end: true,
            replacements: 0,
            cuts: 0,
            first_cut: None,
        }
    }

    /// Number of invalid UTF-8 sequences replaced by U+FFFD so far.
    pub fn replacements(&self) -> u64 {
        self.replacements
    }

    /// Tokens cut because they ran past `2 ×` [`MAX_SEGMENT`] bytes without
    /// whitespace: how many cuts, and the line and decompressed byte offset of
    /// the first.
    pub fn cut_tokens(&self) -> (u64, Option<(usize, u64)>) {
        (self.cuts, self.first_cut)
    }

    /// The next segment, or `None` at end of input.
    pub fn next_segment(&mut self) -> Result<Option<Segment<'_>>> {
        self.raw.clear();
        if self.carry_line_end {
            self.line += 1;
        }
        let mut line_end = false;
        loop {
            let buf = self
                .inner
                .fill_buf()
                .map_err(|e| Error::io(&self.path, e))?;
            if buf.is_empty() {
                break;
            }
            let room = MAX_SEGMENT - self.raw.len();
            let window = &buf[..buf.len().min(room)];
            if let Some(i) = memchr::memchr(b'\n', window) {
                self.raw.extend_from_slice(&window[..i]);
                self.inner.consume(i + 1);
                line_end = true;
                break;
            }
            let n = window.len();
            self.raw.extend_from_slice(window);
            self.inner.consume(n);
            if self.raw.len() >= MAX_SEGMENT {
                self.finish_token()?;
                break;
            }
        }
        if self.raw.is_empty() && !line_end {
            return Ok(None);
        }
        if let Some(i) = memchr::memchr(0, &self.raw) {
            return Err(Error::Binary {
                path: self.path.clone(),
                offset: self.offset + i as u64,
            });
        }
        self.offset += self.raw.len() as u64 + u64::from(line_end);
        let at_eof = !line_end && self.inner.fill_buf().map(|b| b.is_empty()).unwrap_or(true);
        let ends_line = line_end || at_eof;
        self.carry_line_end = ends_line;
        if self.raw.last() == Some(&b'\r') && line_end {
            self.raw.pop();
        }
        self.decode();
        Ok(Some(Segment {
            text: &self.text,
            line: self.line,
            line_end: ends_line,
        }))
    }

    /// Extends an over-long segment to the end of its last token, so that no
    /// token (or UTF-8 sequence) is cut in two.
    fn finish_token(&mut self) -> Result<()> {
        if self.raw.last().is_some_and(|b| b.is_ascii_whitespace()) {
            return Ok(());
        }
        loop {
            let buf = self
                .inner
                .fill_buf()
                .map_err(|e| Error::io(&self.path, e))?;
            if buf.is_empty() {
                return Ok(());
            }
            let room = 2 * MAX_SEGMENT - self.raw.len().min(2 * MAX_SEGMENT);
            let ahead = &buf[..buf.len().min(room)];
            match ahead.iter().position(|b| b.is_ascii_whitespace()) {
                Some(i) => {
                    self.raw.extend_from_slice(&buf[..i]);
                    self.inner.consume(i);
                    return Ok(());
                }
                None => {
                    if buf.len() <= room {
                        let n = buf.len();
                        self.raw.extend_from_slice(buf);
                        self.inner.consume(n);
                        continue;
                    }
                    // Cut the run before the character that starts at or
                    // before the limit, so no UTF-8 sequence is split.
                    let n = (0..=room)
                        .rev()
                        .find(|&i| buf[i] & 0xC0 != 0x80)
                        .unwrap_or(0);
                    self.raw.extend_from_slice(&buf[..n]);
                    self.inner.consume(n);
                    self.cuts += 1;
                    let at = self.offset + self.raw.len() as u64;
                    self.first_cut.get_or_insert((self.line, at));
                    return Ok(());
                }
            }
        }
    }

    fn decode(&mut self) {
        self.text.clear();
        match std::str::from_utf8(&self.raw) {
            Ok(s) => self.text.push_str(s),
            Err(_) => {
                for chunk in self.raw.utf8_chunks() {
                    self.text.push_str(chunk.valid());
                    if !chunk.invalid().is_empty() {
                        self.text.push(char::REPLACEMENT_CHARACTER);
                        self.replacements += 1;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Segments = Vec<(String, usize, bool)>;

    fn segments(bytes: &[u8]) -> Result<(Segments, u64)> {
        let mut r = LineReader::new(bytes, Path::new("t.txt"));
        let mut out = Vec::new();
        while let Some(s) = r.next_segment()? {
            out.push((s.text.to_string(), s.line, s.line_end));
        }
        Ok((out, r.replacements()))
    }

    #[test]
    fn lines_crlf_and_missing_final_newline() {
        let (s, _) = segments(b"a b\r\n\nc").unwrap();
        assert_eq!(
            s,
            vec![
                ("a b".into(), 1, true),
                ("".into(), 2, true),
                ("c".into(), 3, true)
            ]
        );
    }

    #[test]
    fn invalid_utf8_is_replaced_and_counted() {
        let (s, n) = segments(b"ok \xff\xfe x\n").unwrap();
        assert_eq!(n, 2, "one replacement per invalid byte, as from_utf8_lossy");
        assert_eq!(s[0].0, "ok \u{fffd}\u{fffd} x");
    }

    #[test]
    fn nul_byte_is_binary() {
        let err = segments(b"abc\n\0def").unwrap_err();
        assert!(matches!(err, Error::Binary { offset: 4, .. }), "{err}");
    }

    #[test]
    fn long_line_is_cut_at_whitespace() {
        let word = "abcdefg ";
        let line: String = word.repeat(MAX_SEGMENT / word.len() + 10);
        let (s, _) = segments(line.as_bytes()).unwrap();
        assert!(s.len() >= 2);
        assert!(s.iter().all(|(_, l, _)| *l == 1));
        assert!(!s[0].2 && s.last().unwrap().2);
        let joined: String = s.iter().map(|x| x.0.as_str()).collect();
        assert_eq!(joined, line);
        assert!(s
            .iter()
            .all(|x| x.0.split_whitespace().all(|t| t == "abcdefg")));
    }

    #[test]
    fn a_run_without_whitespace_is_cut_between_characters_and_noted() {
        let run = "é".repeat(3 * MAX_SEGMENT / 2);
        let line = format!("a {run} b\n");
        let mut r = LineReader::new(line.as_bytes(), Path::new("t.txt"));
        let mut joined = String::new();
        while let Some(s) = r.next_segment().unwrap() {
            assert!(s.text.len() <= 2 * MAX_SEGMENT + 2);
            joined.push_str(s.text);
        }
        assert_eq!(r.replacements(), 0, "a UTF-8 sequence was split");
        assert_eq!(joined, line.trim_end());
        let (cuts, first) = r.cut_tokens();
        assert_eq!(cuts, 1);
        assert_eq!(first, Some((1, 2 * MAX_SEGMENT as u64)));
    }

    #[test]
    fn sniff_compression() {
        assert_eq!(Compression::sniff(&[0x1f, 0x8b, 8]), Compression::Gzip);
        assert_eq!(Compression::sniff(b"BZh91AY"), Compression::Bzip2);
        assert_eq!(Compression::sniff(b"\xfd7zXZ\x00\x00"), Compression::Xz);
        assert_eq!(Compression::sniff(b"hello"), Compression::None);
        assert_eq!(Compression::of_name(Path::new("v.txt.XZ")), Compression::Xz);
        assert_eq!(Compression::of_name(Path::new("v.bz2")), Compression::Bzip2);
        assert_eq!(
            Compression::of_name(Path::new("v.gz.txt")),
            Compression::None
        );
        // A plain length only for an uncompressed file (xz's magic is 6 bytes).
        let dir = tempfile::tempdir().unwrap();
        let (xz, txt) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::write(&xz, b"\xfd7zXZ\x00rest").unwrap();
        std::fs::write(&txt, b"\xfd7zXY\x00rest").unwrap();
        assert_eq!(plain_len(&xz).unwrap(), None);
        assert_eq!(plain_len(&txt).unwrap(), Some(10));
    }

    #[test]
    fn only_regular_files_are_opened_whole() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f.txt");
        std::fs::write(&file, "x\n").unwrap();
        assert!(check_regular(&file).is_ok());
        assert!(matches!(
            check_regular(dir.path()),
            Err(Error::IsDirectory { .. })
        ));
        let e = open(Path::new("/dev/null")).err().unwrap().to_string();
        assert_eq!(
            e,
            "/dev/null: is a character device, not a regular file; save what it gives to a file first"
        );
        assert!(
            open_stream(Path::new("/dev/null")).is_ok(),
            "a corpus may be one"
        );
        let missing = check_regular(&dir.path().join("nope")).unwrap_err();
        assert!(matches!(missing, Error::Io { .. }));
    }

    #[test]
    fn bounded_lines_end_at_max_line_with_the_line_named() {
        let text = b"a\r\nb\n\xffc\n";
        let lines: Vec<_> = (&text[..]).bounded_lines().collect();
        assert_eq!(lines[0].as_ref().unwrap(), "a");
        assert_eq!(lines[1].as_ref().unwrap(), "b");
        assert_eq!(
            lines[2].as_ref().unwrap_err().to_string(),
            "line 3 is not UTF-8 text"
        );
        assert_eq!(lines.len(), 3, "nothing after an error");
        let endless = std::io::BufReader::new(std::io::repeat(b'x').take(2 * MAX_LINE as u64));
        let mut lines = endless.bounded_lines();
        let e = lines.next().unwrap().unwrap_err().to_string();
        assert!(e.starts_with("line 1 is longer than 17 MB"), "{e}");
        assert!(lines.next().is_none());
    }
}
