//! The body of both text formats (`word v1 .. vd` lines), parsed in parallel.
//!
//! Parsing numbers is what costs when opening a large text file (glove.6B.300d
//! holds 120 million of them), so the input is read in batches of whole lines
//! that rayon cuts into pieces and parses at once; the pieces are appended in
//! file order, so the result, the line numbers in errors and the first error
//! reported are those of a sequential read. Memory stays close to the `f32`
//! matrix: only one batch of text is held at a time, and the matrix grows in
//! place (a large `Vec` is reallocated by remapping pages, not by copying).

use std::io::BufRead;
use std::path::Path;

use rayon::prelude::*;

use super::text_line::{
    decode_lossy, duplicate_line, parse_vector_line, too_long, unique_index, Parsed, MAX_LINE,
};
use crate::{Error, Result};

/// Bytes of text read and parsed at once.
const BATCH_BYTES: usize = 8 << 20;

/// Bytes of text one parallel task parses.
const PIECE_BYTES: usize = 256 << 10;

/// The word Stanford GloVe appends after the words its header counts.
pub(crate) const GLOVE_UNK: &str = "<unk>";

/// What a text body declares and how much of it to keep.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct RowsSpec {
    /// Words and dimension from a word2vec header, if the file has one.
    pub header: Option<(usize, usize)>,
    /// Keep only the first `limit` words (the rest is not parsed).
    pub limit: Option<usize>,
    /// Lines before the body (1 after a header), for line numbers.
    pub lines_before: usize,
    /// The file's length when known, which bounds what a header may reserve.
    pub size: Option<u64>,
    /// Bytes the matrix may take ([`crate::memory::check_matrix`]); `None`: no bound.
    pub budget: Option<u64>,
}

/// The parsed body.
#[derive(Debug, Default)]
pub(crate) struct Rows {
    pub words: Vec<String>,
    /// The 1-based line of each word, for duplicate-word errors.
    pub lines: Vec<usize>,
    pub values: Vec<f32>,
    pub dim: usize,
    pub replacements: u64,
    /// A trailing `<unk>` line past the header's count was accepted.
    pub unk_after_header: bool,
    /// Reading stopped at the limit although more lines followed.
    pub limited: bool,
}

/// One parsed piece: the rows before its first bad line, and that line's error.
#[derive(Default)]
struct Piece {
    words: Vec<String>,
    lines: Vec<usize>,
    values: Vec<f32>,
    replacements: u64,
    error: Option<Error>,
}

/// Reads every `word v1 .. vd` line of `input` (blank lines are skipped).
pub(crate) fn read(mut input: impl BufRead, path: &Path, spec: RowsSpec) -> Result<Rows> {
    let mut rows = Rows {
        dim: spec.header.map_or(0, |(_, d)| d),
        ..Rows::default()
    };
    if let Some((n, d)) = spec.header {
        // Every value takes two bytes at least: a header that a known file
        // size cannot back is left to fail on the lines themselves.
        let keep = spec.limit.map_or(n, |l| l.min(n)) as u64;
        let backed = spec
            .size
            .is_none_or(|s| keep.saturating_mul(d as u64).saturating_mul(2) <= s);
        if let (Some(budget), true) = (spec.budget, backed) {
            let what = "the header's matrix";
            crate::memory::check_matrix(path, what, keep, d as u64, budget)?;
        }
        let budget = spec
            .size
            .map_or(1 << 20, |s| usize::try_from(s / 2).unwrap_or(usize::MAX));
        let keep = spec.limit.map_or(n, |l| l.min(n));
        rows.words.reserve(keep.min(budget).min(1 << 24));
        rows.values
            .reserve(keep.saturating_mul(d).min(budget).min(1 << 31));
    }
    let mut line = spec.lines_before;
    let mut buf: Vec<u8> = Vec::with_capacity(BATCH_BYTES + (64 << 10));
    let mut done = false;
    while !done {
        let eof = fill_batch(&mut input, &mut buf, path)?;
        let end = if eof {
            buf.len()
        } else {
            memchr::memrchr(b'\n', &buf).map_or(0, |i| i + 1)
        };
        if end == 0 && !eof {
            // A line longer than a batch: read more of it, up to a bound.
            if buf.len() > MAX_LINE {
                return Err(too_long(path, line + 1));
            }
            continue;
        }
        if rows.dim == 0 {
            rows.dim = first_dim(&buf[..end], path, line)?;
        }
        let pieces = parse_batch(&buf[..end], rows.dim, path, line);
        line += memchr::memchr_iter(b'\n', &buf[..end]).count();
        for piece in pieces {
            if append(&mut rows, piece, spec, path)? {
                done = true;
                break;
            }
        }
        buf.drain(..end);
        done |= eof;
    }
    if rows.dim == 0 {
        return Err(Error::format(
            path,
            "empty file, expected lines `word v1 .. vd`",
        ));
    }
    Ok(rows)
}

/// Appends to `buf` until it holds a batch; returns true at end of input.
fn fill_batch(input: &mut impl BufRead, buf: &mut Vec<u8>, path: &Path) -> Result<bool> {
    let target = buf.len().max(BATCH_BYTES / 2) + BATCH_BYTES / 2;
    while buf.len() < target {
        let chunk = input.fill_buf().map_err(|e| Error::io(path, e))?;
        if chunk.is_empty() {
            return Ok(true);
        }
        let take = chunk.len().min(target - buf.len());
        buf.extend_from_slice(&chunk[..take]);
        input.consume(take);
    }
    Ok(false)
}

/// The dimension of a headerless body: the number of values on its first non-blank line.
fn first_dim(text: &[u8], path: &Path, lines_before: usize) -> Result<usize> {
    for (i, raw) in text.split(|&b| b == b'\n').enumerate() {
        let fields = raw
            .split(|b| b.is_ascii_whitespace())
            .filter(|f| !f.is_empty());
        match fields.count() {
            0 => continue,
            1 => {
                return Err(Error::parse(
                    path,
                    lines_before + i + 1,
                    "expected `word v1 .. vd`, found a word without values",
                ))
            }
            n => return Ok(n - 1),
        }
    }
    Ok(0)
}

/// Cuts `text` (whole lines) into pieces at line ends and parses them in parallel.
fn parse_batch(text: &[u8], dim: usize, path: &Path, lines_before: usize) -> Vec<Piece> {
    let mut starts = Vec::new();
    let mut at = 0;
    let mut line = lines_before;
    while at < text.len() {
        let cut = (at + PIECE_BYTES).min(text.len());
        let end = match memchr::memchr(b'\n', &text[cut..]) {
            Some(i) => cut + i + 1,
            None => text.len(),
        };
        starts.push((at, end, line));
        line += memchr::memchr_iter(b'\n', &text[at..end]).count();
        at = end;
    }
    starts
        .into_par_iter()
        .map(|(from, to, before)| parse_piece(&text[from..to], dim, path, before))
        .collect()
}

/// Parses the lines of one piece until the first bad one.
fn parse_piece(text: &[u8], dim: usize, path: &Path, lines_before: usize) -> Piece {
    let mut piece = Piece::default();
    piece.values.reserve(text.len() / 8);
    let mut scratch = String::new();
    for (i, mut raw) in text.split(|&b| b == b'\n').enumerate() {
        if raw.last() == Some(&b'\r') {
            raw = &raw[..raw.len() - 1];
        }
        let line = lines_before + i + 1;
        let decoded = match std::str::from_utf8(raw) {
            Ok(t) => t,
            Err(_) => {
                piece.replacements += decode_lossy(raw, &mut scratch);
                scratch.as_str()
            }
        };
        if decoded.trim().is_empty() {
            continue;
        }
        match parse_vector_line(decoded, dim, &mut piece.values, path, line) {
            Ok(word) => {
                piece.words.push(word.to_string());
                piece.lines.push(line);
            }
            Err(e) => {
                piece.error = Some(e);
                break;
            }
        }
    }
    piece
}

/// Appends a piece in file order, applying the header's count and the limit.
/// Returns true when reading should stop.
fn append(rows: &mut Rows, piece: Piece, spec: RowsSpec, path: &Path) -> Result<bool> {
    rows.replacements += piece.replacements;
    let d = rows.dim;
    for (i, (word, line)) in piece.words.into_iter().zip(piece.lines).enumerate() {
        if spec.limit.is_some_and(|l| rows.words.len() >= l) {
            rows.limited = true;
            return Ok(true);
        }
        if let Some((n, _)) = spec.header {
            if rows.words.len() >= n {
                if rows.words.len() == n && word == GLOVE_UNK && !rows.unk_after_header {
                    rows.unk_after_header = true;
                } else {
                    return Err(Error::parse(
                        path,
                        line,
                        format!("header says {n} words, but more lines follow"),
                    ));
                }
            }
        }
        rows.values
            .extend_from_slice(&piece.values[i * d..(i + 1) * d]);
        rows.words.push(word);
        rows.lines.push(line);
    }
    if let Some(budget) = spec.budget {
        let what = "the matrix read so far";
        crate::memory::check_matrix(path, what, rows.words.len() as u64, d as u64, budget)?;
    }
    match piece.error {
        Some(_) if spec.limit.is_some_and(|l| rows.words.len() >= l) => {
            rows.limited = true;
            Ok(true)
        }
        Some(e) => Err(e),
        None => Ok(false),
    }
}

impl Parsed {
    /// Checks the rows of a text body for duplicate words and shapes the matrix.
    pub fn from_rows(rows: Rows, path: &Path) -> Result<Parsed> {
        let n = rows.words.len();
        let matrix = ndarray::Array2::from_shape_vec((n, rows.dim), rows.values)
            .expect("n * d values were read");
        let lines = rows.lines;
        let index = unique_index(rows.words)
            .map_err(|(w, again, first)| duplicate_line(&w, lines[again], lines[first], path))?;
        Ok(Parsed {
            index,
            matrix,
            replacements: rows.replacements,
            unk_after_header: rows.unk_after_header,
            limited: rows.limited,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_str(s: &str, spec: RowsSpec) -> Result<Rows> {
        read(s.as_bytes(), Path::new("v.txt"), spec)
    }

    #[test]
    fn pieces_join_in_file_order_with_true_line_numbers() {
        // Long enough to be cut into many pieces and several batches.
        let mut text = String::new();
        for i in 0..60_000 {
            if i % 7 == 0 {
                text.push_str("\r\n");
            }
            text.push_str(&format!("w{i} {i} {}.5 -1e-3\r\n", i % 13));
        }
        let rows = read_str(&text, RowsSpec::default()).unwrap();
        assert_eq!(rows.dim, 3);
        assert_eq!(rows.words.len(), 60_000);
        assert_eq!(rows.words[59_999], "w59999");
        assert_eq!(
            &rows.values[3 * 59_999..],
            &[59_999.0, 4.5, -1e-3],
            "59999 % 13 = 4"
        );
        let last_line = rows.lines[59_999];
        assert_eq!(last_line, 60_000 + 59_999 / 7 + 1);
        text.push_str("bad 1 2\n");
        let e = read_str(&text, RowsSpec::default()).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "v.txt:{}: word 'bad' has 2 values, expected 3",
                last_line + 1
            )
        );
    }

    #[test]
    fn the_limit_stops_before_later_bad_lines() {
        let spec = RowsSpec {
            limit: Some(2),
            ..RowsSpec::default()
        };
        let rows = read_str("a 1 2\nb 3 4\nc oops\n", spec).unwrap();
        assert_eq!(rows.words, ["a", "b"]);
        assert_eq!(rows.values, [1.0, 2.0, 3.0, 4.0]);
        assert!(rows.limited);
        let rows = read_str("a 1 2\nb 3 4\n", spec).unwrap();
        assert!(!rows.limited, "nothing was left out");
    }

    #[test]
    fn an_endless_line_and_a_matrix_over_the_budget_are_refused() {
        let endless = std::io::BufReader::new(std::io::Read::take(std::io::repeat(b'7'), 1 << 26));
        let e = read(endless, Path::new("v.txt"), RowsSpec::default()).unwrap_err();
        assert!(
            e.to_string().starts_with("v.txt:1: line longer than 17 MB"),
            "{e}"
        );
        // A header whose matrix is over the budget: refused before reading.
        let spec = RowsSpec {
            header: Some((1000, 300)),
            lines_before: 1,
            budget: Some(1_000_000),
            ..RowsSpec::default()
        };
        let e = read_str("a 1\n", spec).unwrap_err();
        assert!(e.to_string().contains("1000 x 300 values"), "{e}");
        // Without a header: refused once the rows read pass it.
        let spec = RowsSpec {
            budget: Some(16),
            ..RowsSpec::default()
        };
        assert_eq!(read_str("a 1 2\nb 3 4\n", spec).unwrap().words.len(), 2);
        let e = read_str("a 1 2\nb 3 4\nc 5 6\n", spec).unwrap_err();
        assert!(e.to_string().contains("3 x 2 values"), "{e}");
    }

    #[test]
    fn a_trailing_unk_past_the_header_is_accepted_once() {
        let spec = RowsSpec {
            header: Some((2, 1)),
            lines_before: 1,
            ..RowsSpec::default()
        };
        let rows = read_str("a 1\nb 2\n<unk> 0.5\n", spec).unwrap();
        assert_eq!(rows.words, ["a", "b", "<unk>"]);
        assert!(rows.unk_after_header);
        let e = read_str("a 1\nb 2\n<unk> 0.5\nc 3\n", spec).unwrap_err();
        assert_eq!(
            e.to_string(),
            "v.txt:5: header says 2 words, but more lines follow"
        );
        let e = read_str("a 1\nb 2\nc 3\n", spec).unwrap_err();
        assert_eq!(
            e.to_string(),
            "v.txt:4: header says 2 words, but more lines follow"
        );
    }
}
