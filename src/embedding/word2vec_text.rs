//! word2vec text format: a header line `n d`, then `n` lines `word v1 .. vd`.
//!
//! The C tool writes a trailing space before each newline and gensim does not;
//! both read here. Blank lines are skipped. The header must agree with the
//! body: a line with the wrong number of values, fewer or more than `n` words,
//! is an error naming the line.

use std::io::{BufRead, Write};
use std::path::Path;

use ndarray::Array2;

use super::text_line::{check_word, write_vector_line, Lines, Parsed};
use super::text_rows::{self, RowsSpec};
use crate::words::WordIndex;
use crate::{Error, Result};

/// Parses a header line `n d`, if it is one.
pub(crate) fn parse_header(line: &str) -> Option<(usize, usize)> {
    let mut fields = line.split_ascii_whitespace();
    let n = fields.next()?.parse().ok()?;
    let d = fields.next()?.parse().ok()?;
    fields.next().is_none().then_some((n, d))
}

/// Reads the whole file (or its first `limit` words).
///
/// `size` (the file's length, when known) bounds what is reserved up front:
/// every value takes at least two bytes, so a header cannot reserve more.
/// Stanford GloVe's `-write-header 1` counts the words without the `<unk>`
/// line it appends last; that one extra line is accepted and reported.
/// A matrix over `budget` bytes is refused (from the header, before reading).
pub(crate) fn read(
    mut input: impl BufRead,
    path: &Path,
    size: Option<u64>,
    limit: Option<usize>,
    budget: u64,
) -> Result<Parsed> {
    let header = {
        let mut lines = Lines::new(&mut input);
        let (_, header) = lines.next_line(path)?.ok_or_else(|| {
            Error::format(
                path,
                "empty file, expected a word2vec header `words dimensions`",
            )
        })?;
        let (n, d) = parse_header(header).ok_or_else(|| {
            Error::parse(
                path,
                1,
                format!("expected a header `words dimensions`, found '{header}'"),
            )
        })?;
        if d == 0 {
            return Err(Error::parse(
                path,
                1,
                format!("header `{n} {d}` declares dimension 0; vectors need at least one value"),
            ));
        }
        (n, d)
    };
    let spec = RowsSpec {
        header: Some(header),
        limit,
        lines_before: 1,
        size,
        budget: Some(budget),
    };
    let rows = text_rows::read(input, path, spec)?;
    let (n, _) = header;
    let expected = limit.map_or(n, |l| l.min(n));
    let extra = usize::from(rows.unk_after_header);
    if rows.words.len() != expected + extra {
        return Err(Error::format(
            path,
            format!(
                "header says {n} words, but the file holds {}",
                rows.words.len()
            ),
        ));
    }
    Parsed::from_rows(rows, path)
}

/// Writes the header and one line per word.
pub(crate) fn write(
    out: &mut impl Write,
    words: &WordIndex,
    vectors: &Array2<f32>,
    path: &Path,
) -> Result<()> {
    writeln!(out, "{} {}", vectors.nrows(), vectors.ncols()).map_err(|e| Error::io(path, e))?;
    write_rows(out, words, vectors, path)
}

/// Shared by the text writers: one `word v1 .. vd` line per row.
pub(crate) fn write_rows(
    out: &mut impl Write,
    words: &WordIndex,
    vectors: &Array2<f32>,
    path: &Path,
) -> Result<()> {
    for (id, (word, row)) in words.words().iter().zip(vectors.rows()).enumerate() {
        check_word(word, id, path)?;
        write_vector_line(out, word, row.iter().copied()).map_err(|e| Error::io(path, e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_str(s: &str) -> Result<(WordIndex, Array2<f32>, u64)> {
        read(s.as_bytes(), Path::new("v.txt"), None, None, u64::MAX)
            .map(|p| (p.index, p.matrix, p.replacements))
    }

    #[test]
    fn reads_c_tool_and_gensim_styles() {
        let (w, m, r) = read_str("2 3\nthe 0.1 0.2 0.3 \nof -1 2e-3 4\n").unwrap();
        assert_eq!(w.words(), &["the", "of"]);
        assert_eq!(m.row(1).to_vec(), vec![-1.0, 0.002, 4.0]);
        assert_eq!(r, 0);
        let (w, _, _) = read_str("1 2\r\nx 1 2\r\n\n").unwrap();
        assert_eq!(w.words(), &["x"]);
    }

    #[test]
    fn header_mismatches_are_errors() {
        let e = read_str("3 2\na 1 2\nb 1 2\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "v.txt: header says 3 words, but the file holds 2"
        );
        let e = read_str("1 2\na 1 2\nb 1 2\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "v.txt:3: header says 1 words, but more lines follow"
        );
        let e = read_str("2 2\na 1 2\nb 1\n").unwrap_err();
        assert_eq!(e.to_string(), "v.txt:3: word 'b' has 1 values, expected 2");
        let e = read_str("two 2\na 1 2\n").unwrap_err();
        assert!(
            e.to_string().starts_with("v.txt:1: expected a header"),
            "{e}"
        );
        assert!(read_str("").is_err());
    }

    #[test]
    fn dimension_zero_non_finite_values_and_duplicates_are_located_errors() {
        let e = read_str("2 0\na\nb\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "v.txt:1: header `2 0` declares dimension 0; vectors need at least one value"
        );
        for bad in ["nan", "inf", "-inf", "1e400"] {
            let e = read_str(&format!("2 2\na 1 2\nb 1 {bad}\n")).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!("v.txt:3: value 2 of word 'b' is '{bad}', expected a finite number")
            );
        }
        let e = read_str("3 1\na 1\nb 2\n\na 3\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "v.txt:5: word 'a' appears again (first on line 2); each word must appear once"
        );
    }

    #[test]
    fn a_huge_header_reserves_only_what_the_file_can_hold() {
        let text = "4000000000000 4000000000000\na 1\n";
        let e = read(
            text.as_bytes(),
            Path::new("v.txt"),
            Some(text.len() as u64),
            None,
            1 << 30,
        )
        .unwrap_err();
        assert!(
            e.to_string().starts_with("v.txt:2: word 'a' has 1 values"),
            "{e}"
        );
    }

    #[test]
    fn header_parsing() {
        assert_eq!(parse_header("10 300"), Some((10, 300)));
        assert_eq!(parse_header(" 10  300 "), Some((10, 300)));
        assert_eq!(parse_header("10 300 1"), None);
        assert_eq!(parse_header("the 0.1"), None);
    }
}
