//! GloVe text format: word2vec text without the header. The dimension is the
//! number of values on the first non-blank line; every later line must match.

use std::io::{BufRead, Write};
use std::path::Path;

use ndarray::Array2;

use super::text_line::{duplicate_line, parse_vector_line, unique_index, Lines};
use super::word2vec_text::write_rows;
use crate::words::WordIndex;
use crate::{Error, Result};

/// Reads the whole file: words, matrix and the count of replaced invalid UTF-8 sequences.
pub(crate) fn read(input: impl BufRead, path: &Path) -> Result<(WordIndex, Array2<f32>, u64)> {
    let mut lines = Lines::new(input);
    let mut words = Vec::new();
    let mut values = Vec::new();
    let mut dim = None;
    let mut word_lines = Vec::new();
    while let Some((line, text)) = lines.next_line(path)? {
        if text.trim().is_empty() {
            continue;
        }
        let d = *dim.get_or_insert_with(|| text.split_ascii_whitespace().count() - 1);
        if d == 0 {
            return Err(Error::parse(
                path,
                line,
                "expected `word v1 .. vd`, found a word without values",
            ));
        }
        let word = parse_vector_line(text, d, &mut values, path, line)?;
        words.push(word.to_string());
        word_lines.push(line);
    }
    let d = dim.ok_or_else(|| Error::format(path, "empty file, expected lines `word v1 .. vd`"))?;
    let matrix = Array2::from_shape_vec((words.len(), d), values).expect("n * d values were read");
    let index = unique_index(words).map_err(|(w, again, first)| {
        duplicate_line(&w, word_lines[again], word_lines[first], path)
    })?;
    Ok((index, matrix, lines.replacements))
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
