//! What the two text formats share: reading raw lines, lossy UTF-8 decoding
//! with a replacement count, parsing `word v1 .. vd`, and writing it back.

use std::io::{BufRead, Read, Write};
use std::path::Path;

pub(crate) use crate::corpus::source::MAX_LINE;
use crate::words::WordIndex;
use crate::{Error, Result};

/// Reads raw lines (without `\n` / `\r\n`) and decodes them lossily.
pub(crate) struct Lines<R> {
    inner: R,
    raw: Vec<u8>,
    text: String,
    /// 1-based number of the line last returned.
    pub line: usize,
    /// Invalid UTF-8 sequences replaced so far.
    pub replacements: u64,
}

impl<R: BufRead> Lines<R> {
    /// Wraps a (decompressed) input.
    pub fn new(inner: R) -> Self {
        Lines {
            inner,
            raw: Vec::new(),
            text: String::new(),
            line: 0,
            replacements: 0,
        }
    }

    /// The next line and its 1-based number, or `None` at end of input. A
    /// line longer than [`MAX_LINE`] bytes is an error naming it.
    pub fn next_line(&mut self, path: &Path) -> Result<Option<(usize, &str)>> {
        self.raw.clear();
        let n = (&mut self.inner)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut self.raw)
            .map_err(|e| Error::io(path, e))?;
        if n == 0 {
            return Ok(None);
        }
        self.line += 1;
        if self.raw.last() == Some(&b'\n') {
            self.raw.pop();
        } else if self.raw.len() > MAX_LINE {
            return Err(too_long(path, self.line));
        }
        if self.raw.last() == Some(&b'\r') {
            self.raw.pop();
        }
        self.replacements += decode_lossy(&self.raw, &mut self.text);
        Ok(Some((self.line, &self.text)))
    }
}

/// The error for line `line`, which runs past [`MAX_LINE`] bytes without a line end.
pub(crate) fn too_long(path: &Path, line: usize) -> Error {
    Error::parse(
        path,
        line,
        format!(
            "line longer than {} without a line end; a vectors file holds one word and its values a line",
            crate::memory::human(MAX_LINE as u64)
        ),
    )
}

/// Decodes `raw` into `out` (cleared first), replacing each invalid UTF-8
/// sequence by U+FFFD; returns how many were replaced.
pub(crate) fn decode_lossy(raw: &[u8], out: &mut String) -> u64 {
    out.clear();
    if let Ok(s) = std::str::from_utf8(raw) {
        out.push_str(s);
        return 0;
    }
    let mut replaced = 0;
    for chunk in raw.utf8_chunks() {
        out.push_str(chunk.valid());
        if !chunk.invalid().is_empty() {
            out.push(char::REPLACEMENT_CHARACTER);
            replaced += 1;
        }
    }
    replaced
}

/// Parses `word v1 .. vd` (whitespace separated, `dim` values expected) and
/// appends the values to `values`. Returns the word.
pub(crate) fn parse_vector_line<'a>(
    text: &'a str,
    dim: usize,
    values: &mut Vec<f32>,
    path: &Path,
    line: usize,
) -> Result<&'a str> {
    let mut fields = text.split_ascii_whitespace();
    let word = fields
        .next()
        .ok_or_else(|| Error::parse(path, line, "empty line where a word vector was expected"))?;
    let start = values.len();
    let parsed = parse_values(fields, word, dim, values, path, line);
    if parsed.is_err() {
        values.truncate(start);
    }
    parsed?;
    Ok(word)
}

/// Appends exactly `dim` numbers from `fields` to `values`, or fails.
fn parse_values<'a>(
    fields: impl Iterator<Item = &'a str>,
    word: &str,
    dim: usize,
    values: &mut Vec<f32>,
    path: &Path,
    line: usize,
) -> Result<()> {
    let mut found = 0;
    for field in fields {
        found += 1;
        if found > dim {
            continue;
        }
        let v: f32 = field.parse().map_err(|_| {
            Error::parse(
                path,
                line,
                format!("value {found} of word '{word}' is not a number: '{field}'"),
            )
        })?;
        if !v.is_finite() {
            return Err(Error::parse(
                path,
                line,
                format!("value {found} of word '{word}' is '{field}', expected a finite number"),
            ));
        }
        values.push(v);
    }
    if found != dim {
        return Err(Error::parse(
            path,
            line,
            format!("word '{word}' has {found} values, expected {dim}"),
        ));
    }
    Ok(())
}

/// The words as an index, or `(word, again, first)`: the first word seen
/// twice and the positions of its second and first occurrences. Two rows for one word would
/// make lookups pick one silently, so readers turn this into a located error.
pub(crate) fn unique_index(words: Vec<String>) -> Result<WordIndex, (String, usize, usize)> {
    let index = WordIndex::from_words(words);
    let duplicate = index.words().iter().enumerate().find_map(|(i, w)| {
        let first = index.id(w)? as usize;
        (first != i).then(|| (w.clone(), i, first))
    });
    match duplicate {
        None => Ok(index),
        Some(pair) => Err(pair),
    }
}

/// The error for a word that appears on line `again` after line `first`.
pub(crate) fn duplicate_line(word: &str, again: usize, first: usize, path: &Path) -> Error {
    Error::parse(
        path,
        again,
        format!("word '{word}' appears again (first on line {first}); each word must appear once"),
    )
}

/// What a reader hands back: the words, the matrix and what it noticed.
#[derive(Debug)]
pub(crate) struct Parsed {
    pub index: WordIndex,
    pub matrix: ndarray::Array2<f32>,
    /// Invalid UTF-8 sequences replaced in words.
    pub replacements: u64,
    /// A Stanford GloVe `<unk>` line past the header's count was accepted.
    pub unk_after_header: bool,
    /// Reading stopped at the limit although more words followed.
    pub limited: bool,
}

/// Writes `word v1 .. vd\n`. Floats use Rust's shortest round-trip form, so
/// reading the file back gives the same `f32` bits.
pub(crate) fn write_vector_line(
    out: &mut impl Write,
    word: &str,
    values: impl Iterator<Item = f32>,
) -> std::io::Result<()> {
    out.write_all(word.as_bytes())?;
    for v in values {
        write!(out, " {v}")?;
    }
    out.write_all(b"\n")
}

/// A word a whitespace-separated format can hold: non-empty, no ASCII whitespace.
pub(crate) fn check_word(word: &str, id: usize, path: &Path) -> Result<()> {
    if word.is_empty() || word.bytes().any(|b| b.is_ascii_whitespace()) {
        return Err(Error::format(
            path,
            format!("word #{id} {word:?} is empty or contains whitespace, which this format cannot store"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_reports_bad_lines() {
        let p = Path::new("v.txt");
        let mut vals = Vec::new();
        assert_eq!(
            parse_vector_line("cat 1 -2.5 3e-2 ", 3, &mut vals, p, 2).unwrap(),
            "cat"
        );
        assert_eq!(vals, vec![1.0, -2.5, 0.03]);
        let e = parse_vector_line("dog 1 2", 3, &mut vals, p, 7).unwrap_err();
        assert_eq!(
            e.to_string(),
            "v.txt:7: word 'dog' has 2 values, expected 3"
        );
        let e = parse_vector_line("dog 1 2 3 4", 3, &mut vals, p, 8).unwrap_err();
        assert_eq!(
            e.to_string(),
            "v.txt:8: word 'dog' has 4 values, expected 3"
        );
        let e = parse_vector_line("dog 1 x 3", 3, &mut vals, p, 9).unwrap_err();
        assert_eq!(
            e.to_string(),
            "v.txt:9: value 2 of word 'dog' is not a number: 'x'"
        );
        assert_eq!(vals.len(), 3, "failed lines leave no values behind");
    }

    #[test]
    fn lossy_lines_count_replacements() {
        let data: &[u8] = b"ok\r\nb\xffd 1\nlast";
        let mut lines = Lines::new(data);
        let p = Path::new("x");
        assert_eq!(lines.next_line(p).unwrap(), Some((1, "ok")));
        assert_eq!(lines.next_line(p).unwrap(), Some((2, "b\u{fffd}d 1")));
        assert_eq!(lines.next_line(p).unwrap(), Some((3, "last")));
        assert_eq!(lines.next_line(p).unwrap(), None);
        assert_eq!((lines.line, lines.replacements), (3, 1));
    }

    #[test]
    fn a_line_without_end_is_refused_after_max_line_bytes() {
        let p = Path::new("x");
        let mut long = vec![b'7'; MAX_LINE];
        long.push(b'\n');
        long.extend(b"next");
        let mut lines = Lines::new(&long[..]);
        assert_eq!(lines.next_line(p).unwrap().unwrap().1.len(), MAX_LINE);
        assert_eq!(lines.next_line(p).unwrap(), Some((2, "next")));
        let endless = std::io::repeat(0).take(4 * MAX_LINE as u64);
        let mut lines = Lines::new(std::io::BufReader::new(endless));
        let e = lines.next_line(p).unwrap_err().to_string();
        assert!(e.starts_with("x:1: line longer than 17 MB"), "{e}");
    }

    #[test]
    fn written_floats_round_trip_exactly() {
        let vals = [0.1f32, -1.0e-7, f32::MAX, f32::MIN_POSITIVE, 0.0];
        let mut out = Vec::new();
        write_vector_line(&mut out, "w", vals.iter().copied()).unwrap();
        let text = String::from_utf8(out).unwrap();
        let mut back = Vec::new();
        parse_vector_line(text.trim_end(), 5, &mut back, Path::new("x"), 1).unwrap();
        assert_eq!(
            back.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            vals.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
        );
        assert!(check_word("a b", 0, Path::new("x")).is_err());
        assert!(check_word("", 0, Path::new("x")).is_err());
        assert!(check_word("naïve", 0, Path::new("x")).is_ok());
    }
}
