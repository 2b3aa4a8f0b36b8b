//! word2vec binary format: a text header line `n d`, then per word the word's
//! bytes, one space, and `d` little-endian `f32`s.
//!
//! The C tool writes a `\n` after each vector and gensim does not, so leading
//! newlines before a word are skipped. A record cut short by the end of the
//! file, or more or fewer records than the header says, is an error naming the
//! record.

use std::io::{BufRead, Read, Write};
use std::path::Path;

use ndarray::Array2;

use super::text_line::{check_word, decode_lossy};
use super::word2vec_text::parse_header;
use crate::words::WordIndex;
use crate::{Error, Result};

/// Longest word accepted: a longer run without a space means the file is not
/// word2vec binary (or is damaged).
const MAX_WORD_BYTES: usize = 1 << 16;

/// Reads the whole file: words, matrix and the count of replaced invalid UTF-8 sequences.
pub(crate) fn read(mut input: impl BufRead, path: &Path) -> Result<(WordIndex, Array2<f32>, u64)> {
    let mut raw = Vec::new();
    input
        .by_ref()
        .take(4096)
        .read_until(b'\n', &mut raw)
        .map_err(|e| Error::io(path, e))?;
    let header = String::from_utf8_lossy(&raw);
    let (n, d) = parse_header(header.trim()).ok_or_else(|| {
        Error::parse(
            path,
            1,
            format!(
                "expected a header `words dimensions`, found '{}'",
                header.trim()
            ),
        )
    })?;
    let mut words = Vec::with_capacity(n.min(1 << 24));
    let mut values = Vec::with_capacity(n.saturating_mul(d).min(1 << 28));
    let mut bytes = vec![0u8; 4 * d];
    let mut word = String::new();
    let mut replacements = 0;
    for record in 0..n {
        skip_newlines(&mut input, path)?;
        raw.clear();
        input
            .by_ref()
            .take(MAX_WORD_BYTES as u64 + 1)
            .read_until(b' ', &mut raw)
            .map_err(|e| Error::io(path, e))?;
        if raw.last() != Some(&b' ') {
            return Err(truncated(path, record, n, "its word"));
        }
        raw.pop();
        replacements += decode_lossy(&raw, &mut word);
        input.read_exact(&mut bytes).map_err(|e| match e.kind() {
            std::io::ErrorKind::UnexpectedEof => {
                truncated(path, record, n, &format!("the vector of '{word}'"))
            }
            _ => Error::io(path, e),
        })?;
        values.extend(
            bytes
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        );
        words.push(word.clone());
    }
    skip_newlines(&mut input, path)?;
    let rest = input.fill_buf().map_err(|e| Error::io(path, e))?;
    if !rest.is_empty() {
        return Err(Error::format(
            path,
            format!("header says {n} words, but more data follows them"),
        ));
    }
    let matrix = Array2::from_shape_vec((n, d), values).expect("n * d values were read");
    Ok((WordIndex::from_words(words), matrix, replacements))
}

/// Consumes `\n` / `\r` bytes before a record.
fn skip_newlines(input: &mut impl BufRead, path: &Path) -> Result<()> {
    loop {
        let buf = input.fill_buf().map_err(|e| Error::io(path, e))?;
        let skip = buf
            .iter()
            .take_while(|&&b| b == b'\n' || b == b'\r')
            .count();
        let done = skip < buf.len() || buf.is_empty();
        input.consume(skip);
        if done {
            return Ok(());
        }
    }
}

fn truncated(path: &Path, record: usize, n: usize, what: &str) -> Error {
    Error::format(
        path,
        format!(
            "truncated binary data: record {} of {n} ends before {what} is complete",
            record + 1
        ),
    )
}

/// Writes the header, then `word ` + little-endian floats + `\n` per word (as the C tool does).
pub(crate) fn write(
    out: &mut impl Write,
    words: &WordIndex,
    vectors: &Array2<f32>,
    path: &Path,
) -> Result<()> {
    let io = |e| Error::io(path, e);
    writeln!(out, "{} {}", vectors.nrows(), vectors.ncols()).map_err(io)?;
    let mut bytes = Vec::with_capacity(4 * vectors.ncols());
    for (id, (word, row)) in words.words().iter().zip(vectors.rows()).enumerate() {
        check_word(word, id, path)?;
        bytes.clear();
        bytes.extend(row.iter().flat_map(|v| v.to_le_bytes()));
        out.write_all(word.as_bytes()).map_err(io)?;
        out.write_all(b" ").map_err(io)?;
        out.write_all(&bytes).map_err(io)?;
        out.write_all(b"\n").map_err(io)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    fn record(word: &[u8], v: &[f32]) -> Vec<u8> {
        let mut r = word.to_vec();
        r.push(b' ');
        r.extend(v.iter().flat_map(|x| x.to_le_bytes()));
        r
    }

    #[test]
    fn reads_with_and_without_newlines_and_bad_utf8() {
        let mut data = b"2 2\n".to_vec();
        data.extend(record(b"a\xffb", &[1.0, -2.0]));
        data.extend(record(b"c", &[0.5, 10.0]));
        data.push(b'\n');
        let (w, m, r) = read(&data[..], Path::new("v.bin")).unwrap();
        assert_eq!(w.words(), &["a\u{fffd}b", "c"]);
        assert_eq!(m, array![[1.0, -2.0], [0.5, 10.0]]);
        assert_eq!(r, 1);
    }

    #[test]
    fn a_vector_byte_equal_to_newline_or_space_is_data() {
        // 0x0a and 0x20 inside the floats must not be taken as separators.
        let v = f32::from_le_bytes([0x0a, 0x20, 0x0a, 0x3f]);
        let mut data = b"1 1\n".to_vec();
        data.extend(record(b"x", &[v]));
        let (_, m, _) = read(&data[..], Path::new("v.bin")).unwrap();
        assert_eq!(m[[0, 0]].to_bits(), v.to_bits());
    }

    #[test]
    fn truncation_and_count_mismatch() {
        let mut data = b"2 2\n".to_vec();
        data.extend(record(b"a", &[1.0, 2.0]));
        let e = read(&data[..], Path::new("v.bin")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "v.bin: truncated binary data: record 2 of 2 ends before its word is complete"
        );
        data.extend(&record(b"b", &[1.0, 2.0])[..5]);
        let e = read(&data[..], Path::new("v.bin")).unwrap_err();
        assert!(
            e.to_string()
                .contains("record 2 of 2 ends before the vector of 'b'"),
            "{e}"
        );
        let mut data = b"1 2\n".to_vec();
        data.extend(record(b"a", &[1.0, 2.0]));
        data.extend(record(b"b", &[1.0, 2.0]));
        let e = read(&data[..], Path::new("v.bin")).unwrap_err();
        assert!(
            e.to_string().contains("header says 1 words, but more data"),
            "{e}"
        );
    }

    #[test]
    fn write_then_read() {
        let words = WordIndex::from_words(vec!["é".into(), "b".into()]);
        let m = array![[1.5f32, f32::MIN_POSITIVE], [-0.0, 3.0]];
        let mut out = Vec::new();
        write(&mut out, &words, &m, Path::new("v.bin")).unwrap();
        let (w, back, _) = read(&out[..], Path::new("v.bin")).unwrap();
        assert_eq!(w, words);
        assert_eq!(back.mapv(f32::to_bits), m.mapv(f32::to_bits));
    }
}
