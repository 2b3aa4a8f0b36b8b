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

use super::text_line::{check_word, decode_lossy, unique_index, Parsed};
use super::word2vec_text::parse_header;
use crate::words::WordIndex;
use crate::{Error, Result};

/// Longest word accepted: a longer run without a space means the file is not
/// word2vec binary (or is damaged).
const MAX_WORD_BYTES: usize = 1 << 16;

/// Reads the whole file: words, matrix and the count of replaced invalid UTF-8 sequences.
///
/// `size` is the file's length when known (a plain file): the header's
/// declared size is checked against it before anything is allocated, so a
/// damaged header cannot ask for terabytes. On a stream of unknown length each
/// vector is read as its bytes arrive, so memory follows the data, not the header.
/// A matrix over `budget` bytes is refused before anything is read.
pub(crate) fn read(
    mut input: impl BufRead,
    path: &Path,
    size: Option<u64>,
    limit: Option<usize>,
    budget: u64,
) -> Result<Parsed> {
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
                header.trim().escape_debug()
            ),
        )
    })?;
    let vector_bytes = check_header(n, d, size.map(|s| s.saturating_sub(raw.len() as u64)), path)?;
    let keep = limit.map_or(n, |l| l.min(n));
    crate::memory::check_matrix(path, "the header's matrix", keep as u64, d as u64, budget)?;
    let mut words = Vec::with_capacity(keep.min(1 << 20));
    // A known size was checked against the header: allocate the matrix once
    // (growing by doubling would need up to twice its memory at the peak).
    let cap = if size.is_some() {
        keep * d
    } else {
        keep.saturating_mul(d).min(1 << 20)
    };
    let mut values = Vec::with_capacity(cap);
    let mut bytes = Vec::new();
    let mut word = String::new();
    let mut replacements = 0;
    for record in 0..keep {
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
        bytes.clear();
        input
            .by_ref()
            .take(vector_bytes)
            .read_to_end(&mut bytes)
            .map_err(|e| Error::io(path, e))?;
        if bytes.len() as u64 != vector_bytes {
            return Err(truncated(
                path,
                record,
                n,
                &format!("the vector of '{}'", word.escape_debug()),
            ));
        }
        let start = values.len();
        values.extend(
            bytes
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        );
        check_finite(&values[start..], record, n, &word, path)?;
        words.push(word.clone());
    }
    skip_newlines(&mut input, path)?;
    let rest = input.fill_buf().map_err(|e| Error::io(path, e))?;
    let limited = keep < n;
    if !rest.is_empty() && !limited {
        return Err(Error::format(
            path,
            format!("header says {n} words, but more data follows them"),
        ));
    }
    let matrix = Array2::from_shape_vec((keep, d), values).expect("n * d values were read");
    let index = unique_index(words).map_err(|(w, again, first)| {
        Error::format(
            path,
            format!(
                "record {} of {n}: word '{}' appears again (first in record {}); each word must appear once",
                again + 1,
                w.escape_debug(),
                first + 1
            ),
        )
    })?;
    Ok(Parsed {
        index,
        matrix,
        replacements,
        unk_after_header: false,
        limited,
    })
}

/// Checks the header `n d` against the bytes that follow it (`body`, when
/// known) and returns the byte length of one vector. Every record holds at
/// least a one-byte word, a space and `4 d` bytes; arithmetic is checked, so a
/// huge `d` is an error rather than an overflow.
fn check_header(n: usize, d: usize, body: Option<u64>, path: &Path) -> Result<u64> {
    if d == 0 {
        return Err(Error::parse(
            path,
            1,
            format!("header `{n} {d}` declares dimension 0; vectors need at least one value"),
        ));
    }
    let vector = (d as u64).checked_mul(4);
    let least = vector
        .and_then(|v| v.checked_add(2))
        .and_then(|r| r.checked_mul(n as u64));
    let fits = match (least, body) {
        (None, _) => false,
        (Some(least), Some(body)) => least <= body,
        (Some(_), None) => true,
    };
    if !fits {
        let have = body.map_or(String::new(), |b| {
            format!(", but the file holds {b} bytes after it")
        });
        return Err(Error::parse(
            path,
            1,
            format!(
                "header `{n} {d}` declares {n} vectors of {d} dimensions, at least {} bytes{have}",
                least.map_or("2^64".to_string(), |l| l.to_string())
            ),
        ));
    }
    Ok(vector.expect("checked above"))
}

/// A vector value that is NaN or infinite is an error naming its record and word.
fn check_finite(values: &[f32], record: usize, n: usize, word: &str, path: &Path) -> Result<()> {
    match values.iter().position(|v| !v.is_finite()) {
        None => Ok(()),
        Some(i) => Err(Error::format(
            path,
            format!(
                "record {} of {n}, word '{}': value {} is {}, expected a finite number",
                record + 1,
                word.escape_debug(),
                i + 1,
                values[i]
            ),
        )),
    }
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

    fn read(input: &[u8], path: &Path, size: Option<u64>) -> Result<(WordIndex, Array2<f32>, u64)> {
        super::read(input, path, size, None, u64::MAX).map(|p| (p.index, p.matrix, p.replacements))
    }
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
        let (w, m, r) = read(&data[..], Path::new("v.bin"), None).unwrap();
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
        let (_, m, _) = read(&data[..], Path::new("v.bin"), None).unwrap();
        assert_eq!(m[[0, 0]].to_bits(), v.to_bits());
    }

    #[test]
    fn truncation_and_count_mismatch() {
        let mut data = b"2 2\n".to_vec();
        data.extend(record(b"a", &[1.0, 2.0]));
        let e = read(&data[..], Path::new("v.bin"), None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "v.bin: truncated binary data: record 2 of 2 ends before its word is complete"
        );
        data.extend(&record(b"b", &[1.0, 2.0])[..5]);
        let e = read(&data[..], Path::new("v.bin"), None).unwrap_err();
        assert!(
            e.to_string()
                .contains("record 2 of 2 ends before the vector of 'b'"),
            "{e}"
        );
        let mut data = b"1 2\n".to_vec();
        data.extend(record(b"a", &[1.0, 2.0]));
        data.extend(record(b"b", &[1.0, 2.0]));
        let e = read(&data[..], Path::new("v.bin"), None).unwrap_err();
        assert!(
            e.to_string().contains("header says 1 words, but more data"),
            "{e}"
        );
    }

    #[test]
    fn huge_or_zero_dimensions_are_refused_before_allocating() {
        let p = Path::new("v.bin");
        let e = read(&b"1 0\nx \n"[..], p, Some(7)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "v.bin:1: header `1 0` declares dimension 0; vectors need at least one value"
        );
        let huge = format!("1 {}\nx ", usize::MAX);
        let e = read(huge.as_bytes(), p, None).unwrap_err();
        assert!(e.to_string().starts_with("v.bin:1: header `1 "), "{e}");
        assert!(e.to_string().contains("at least 2^64 bytes"), "{e}");
        let big = b"1000 1000000\nx ";
        let e = read(&big[..], p, Some(big.len() as u64)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "v.bin:1: header `1000 1000000` declares 1000 vectors of 1000000 dimensions, \
             at least 4000002000 bytes, but the file holds 2 bytes after it"
        );
        // Unknown length (a pipe, gzip): memory follows the data, not the header.
        let e = read(&b"1 1000000000000\nx \x01\x02"[..], p, None).unwrap_err();
        assert!(e.to_string().contains("truncated binary data"), "{e}");
        // A matrix over the memory budget is refused, with both sizes.
        let data = b"1000 1000\nx ";
        let e = super::read(&data[..], p, None, None, 1 << 20).unwrap_err();
        assert_eq!(
            e.to_string(),
            "v.bin: the header's matrix of 1000 x 1000 values would need about 4 MB of memory, \
             more than the budget of 1 MB (half of this machine's memory); read fewer words (--limit)"
        );
        assert!(super::read(&data[..], p, None, Some(10), 1 << 20)
            .unwrap_err()
            .to_string()
            .contains("truncated"));
    }

    #[test]
    fn non_finite_values_and_duplicate_words_are_errors() {
        let p = Path::new("v.bin");
        let mut data = b"2 2\n".to_vec();
        data.extend(record(b"a", &[1.0, 2.0]));
        data.extend(record(b"b", &[f32::NAN, 2.0]));
        let e = read(&data[..], p, None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "v.bin: record 2 of 2, word 'b': value 1 is NaN, expected a finite number"
        );
        let mut data = b"2 1\n".to_vec();
        data.extend(record(b"a", &[1.0]));
        data.extend(record(b"a", &[2.0]));
        let e = read(&data[..], p, None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "v.bin: record 2 of 2: word 'a' appears again (first in record 1); each word must appear once"
        );
    }

    #[test]
    fn write_then_read() {
        let words = WordIndex::from_words(vec!["é".into(), "b".into()]);
        let m = array![[1.5f32, f32::MIN_POSITIVE], [-0.0, 3.0]];
        let mut out = Vec::new();
        write(&mut out, &words, &m, Path::new("v.bin")).unwrap();
        let (w, back, _) = read(&out[..], Path::new("v.bin"), None).unwrap();
        assert_eq!(w, words);
        assert_eq!(back.mapv(f32::to_bits), m.mapv(f32::to_bits));
    }
}
