//! GloVe text format: word2vec text without the header. The dimension is the
//! number of values on the first non-blank line; every later line must match.

use std::io::{BufRead, Write};
use std::path::Path;

use ndarray::Array2;

use super::text_line::Parsed;
use super::text_rows::{self, RowsSpec};
use super::word2vec_text::write_rows;
use crate::words::WordIndex;
use crate::Result;

/// Reads the whole file (or its first `limit` words); past `budget` bytes
/// of vectors it stops with an error.
pub(crate) fn read(
    input: impl BufRead,
    path: &Path,
    limit: Option<usize>,
    budget: u64,
) -> Result<Parsed> {
    let spec = RowsSpec {
        limit,
        budget: Some(budget),
        ..RowsSpec::default()
    };
    Parsed::from_rows(text_rows::read(input, path, spec)?, path)
}

/// Writes one line per word, no header.
pub(crate) fn write(
    out: &mut impl Write,
    words: &WordIndex,
    vectors: &Array2<f32>,
    path: &Path,
) -> Result<()> {
    write_rows(out, words, vectors, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(s: &[u8], path: &Path) -> Result<(WordIndex, Array2<f32>, u64)> {
        super::read(s, path, None, u64::MAX).map(|p| (p.index, p.matrix, p.replacements))
    }

    #[test]
    fn dimension_from_first_line() {
        let (w, m, _) = read("\na 1 2\nb 3 4\n".as_bytes(), Path::new("g.txt")).unwrap();
        assert_eq!(w.words(), &["a", "b"]);
        assert_eq!(m.dim(), (2, 2));
        let e = read("a 1 2\nb 3\n".as_bytes(), Path::new("g.txt")).unwrap_err();
        assert_eq!(e.to_string(), "g.txt:2: word 'b' has 1 values, expected 2");
        let e = read("lonely\n".as_bytes(), Path::new("g.txt")).unwrap_err();
        assert!(e.to_string().starts_with("g.txt:1:"), "{e}");
        assert!(read("".as_bytes(), Path::new("g.txt")).is_err());
    }

    #[test]
    fn non_finite_values_and_duplicates_are_located_errors() {
        let e = read("a 1 2\nb NaN 4\n".as_bytes(), Path::new("g.txt")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "g.txt:2: value 1 of word 'b' is 'NaN', expected a finite number"
        );
        let e = read("a 1 2\nb 3 4\na 5 6\n".as_bytes(), Path::new("g.txt")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "g.txt:3: word 'a' appears again (first on line 1); each word must appear once"
        );
    }
}
