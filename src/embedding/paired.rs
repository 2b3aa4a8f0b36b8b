//! Formats that keep the matrix and the words in two files: NumPy `.npy` plus
//! a vocabulary file, and the TensorBoard Embedding Projector pair (tensor TSV
//! plus metadata TSV). They let Python and Projector users open a run in one
//! line:
//!
//! ```text
//! m = numpy.load("run1.npy"); words = open("run1.vocab.txt").read().split("\n")[:-1]
//! ```
//!
//! or "Load" in projector.tensorflow.org with `run1.tsv` and `run1.metadata.tsv`.
//!
//! `.npy` version 1.0: the magic `\x93NUMPY`, version bytes, a little-endian
//! `u16` header length, then a Python dict literal padded with spaces to a
//! multiple of 64 bytes and ended by `\n`, then the raw little-endian `f32`s in
//! row-major order. The reader takes `<f4` or `<f8` (the latter narrowed to
//! `f32`), C order, two dimensions.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use ndarray::Array2;

use super::text_line::{check_word, unique_index, Parsed};
use super::Embedding;
use crate::atomic::Fill;
use crate::words::WordIndex;
use crate::{Error, Result};

const NPY_MAGIC: &[u8] = b"\x93NUMPY";

/// True when `head` starts like a `.npy` file.
pub(crate) fn is_npy(head: &[u8]) -> bool {
    head.starts_with(NPY_MAGIC)
}

/// `dir/name.vocab.txt` for `dir/name.npy`: the words of a `.npy` matrix, one a line.
pub fn npy_vocab_path(npy: &Path) -> PathBuf {
    sibling(npy, "vocab.txt")
}

/// `dir/name.metadata.tsv` for `dir/name.tsv`: the Projector's labels, one a line.
pub fn projector_metadata_path(tsv: &Path) -> PathBuf {
    sibling(tsv, "metadata.tsv")
}

fn sibling(path: &Path, ext: &str) -> PathBuf {
    path.with_extension(ext)
}

/// The files of `path` as `.npy` (`f32`): its vocabulary file, then the
/// matrix, for [`atomic::write_all_or_none`] (both land or neither).
pub(crate) fn npy_files<'a>(
    embedding: &'a Embedding,
    path: &Path,
) -> Result<Vec<(PathBuf, Fill<'a>)>> {
    let vectors = embedding.vectors();
    let (n, d) = vectors.dim();
    let mut dict = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': ({n}, {d}), }}");
    // Magic (6) + version (2) + length (2) + dict + '\n' is a multiple of 64.
    let unpadded = NPY_MAGIC.len() + 4 + dict.len() + 1;
    dict.push_str(&" ".repeat((64 - unpadded % 64) % 64));
    dict.push('\n');
    let header_len = u16::try_from(dict.len()).expect("a 2-D shape fits a short header");
    let vocab = npy_vocab_path(path);
    let words = words_fill(embedding.words(), &vocab)?;
    let shown = path.to_path_buf();
    let matrix: Fill<'a> = Box::new(move |out| {
        let io = |e| Error::io(&shown, e);
        out.write_all(NPY_MAGIC).map_err(io)?;
        out.write_all(&[1, 0]).map_err(io)?;
        out.write_all(&header_len.to_le_bytes()).map_err(io)?;
        out.write_all(dict.as_bytes()).map_err(io)?;
        let mut bytes = Vec::with_capacity(4 * d);
        for row in vectors.rows() {
            bytes.clear();
            bytes.extend(row.iter().flat_map(|v| v.to_le_bytes()));
            out.write_all(&bytes).map_err(io)?;
        }
        Ok(())
    });
    Ok(vec![(vocab, words), (path.to_path_buf(), matrix)])
}

/// The files of the Projector's pair for `path`: the metadata TSV, then
/// the tensor TSV (both land or neither).
///
/// A one-column metadata file has no header line, as the Projector expects.
pub(crate) fn projector_files<'a>(
    embedding: &'a Embedding,
    path: &Path,
) -> Result<Vec<(PathBuf, Fill<'a>)>> {
    let metadata = projector_metadata_path(path);
    let words = words_fill(embedding.words(), &metadata)?;
    let shown = path.to_path_buf();
    let tensor: Fill<'a> = Box::new(move |out| {
        let mut line = String::new();
        for row in embedding.vectors().rows() {
            line.clear();
            for (i, v) in row.iter().enumerate() {
                if i > 0 {
                    line.push('\t');
                }
                line.push_str(&v.to_string());
            }
            line.push('\n');
            out.write_all(line.as_bytes())
                .map_err(|e| Error::io(&shown, e))?;
        }
        Ok(())
    });
    Ok(vec![(metadata, words), (path.to_path_buf(), tensor)])
}

/// One word a line; words must be non-empty and free of whitespace
/// (checked now, before any file is written).
fn words_fill<'a>(words: &'a WordIndex, path: &Path) -> Result<Fill<'a>> {
    for (id, word) in words.words().iter().enumerate() {
        check_word(word, id, path)?;
    }
    let shown = path.to_path_buf();
    Ok(Box::new(move |out| {
        for word in words.words() {
            out.write_all(word.as_bytes())
                .and_then(|()| out.write_all(b"\n"))
                .map_err(|e| Error::io(&shown, e))?;
        }
        Ok(())
    }))
}

/// Writes `path` (`.npy`) and its vocabulary file: both or neither.
#[cfg(test)]
pub(crate) fn write_npy(embedding: &Embedding, path: &Path) -> Result<()> {
    crate::atomic::write_all_or_none(npy_files(embedding, path)?)
}

/// Writes the Projector's pair: both or neither.
#[cfg(test)]
pub(crate) fn write_projector(embedding: &Embedding, path: &Path) -> Result<()> {
    crate::atomic::write_all_or_none(projector_files(embedding, path)?)
}

/// Reads a `.npy` matrix (the first `limit` rows) and the words beside it.
///
/// `size` is the file's length when known (a plain file): the declared shape
/// is checked against it, then the matrix is allocated once. A shape whose
/// matrix would take more than `budget` bytes is refused before anything
/// is allocated (a compressed file's shape cannot be checked against its size).
pub(crate) fn read_npy(
    mut input: impl Read,
    path: &Path,
    size: Option<u64>,
    limit: Option<usize>,
    budget: u64,
) -> Result<Parsed> {
    let (n, d, wide) = read_npy_header(&mut input, path)?;
    let keep = limit.map_or(n, |l| l.min(n));
    let width: usize = if wide { 8 } else { 4 };
    let declared = (n as u64)
        .saturating_mul(d as u64)
        .saturating_mul(width as u64);
    // One row is read at a time, even when none is kept.
    crate::memory::check_matrix(
        path,
        "the header's matrix",
        keep.max(1) as u64,
        d as u64,
        budget,
    )?;
    if size.is_some_and(|s| s < declared) {
        return Err(Error::format(
            path,
            format!(
                "the header declares {n} x {d} values ({declared} bytes), but the file holds {} bytes",
                size.unwrap_or_default()
            ),
        ));
    }
    let vocab_path = npy_vocab_path(path);
    let (words, lines) = read_words(&vocab_path, keep)?;
    if lines != n {
        // A pair written apart (or half-written) would put words on rows
        // that are not theirs: a mismatch is an error, never a cut.
        return Err(Error::format(
            &vocab_path,
            format!(
                "holds {lines} words, but {} has {n} rows; the two files do not belong together",
                path.display()
            ),
        ));
    }
    // Both fit the budget (checked above): no product below overflows.
    let cap = if size.is_some() {
        keep * d
    } else {
        keep.saturating_mul(d).min(1 << 24)
    };
    let mut values = Vec::with_capacity(cap);
    let mut bytes = vec![0u8; width * d];
    for row in 0..keep {
        input.read_exact(&mut bytes).map_err(|_| {
            Error::format(
                path,
                format!("ends in row {} of {n}, the header declares more", row + 1),
            )
        })?;
        let start = values.len();
        if wide {
            values.extend(
                bytes
                    .chunks_exact(8)
                    .map(|b| f64::from_le_bytes(b.try_into().expect("8 bytes")) as f32),
            );
        } else {
            values.extend(
                bytes
                    .chunks_exact(4)
                    .map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes"))),
            );
        }
        if let Some(v) = values[start..].iter().position(|v| !v.is_finite()) {
            return Err(Error::format(
                path,
                format!(
                    "row {} ('{}') value {} is not a finite f32",
                    row + 1,
                    words[row],
                    v + 1
                ),
            ));
        }
    }
    let matrix = Array2::from_shape_vec((keep, d), values).expect("keep * d values were read");
    let index = unique_index(words).map_err(|(w, again, first)| {
        Error::parse(
            &vocab_path,
            again + 1,
            format!(
                "word '{w}' appears again (first on line {}); each word must appear once",
                first + 1
            ),
        )
    })?;
    Ok(Parsed {
        index,
        matrix,
        replacements: 0,
        unk_after_header: false,
        limited: keep < n,
    })
}

/// The shape and element width (`true` for `f64`) from a `.npy` header.
fn read_npy_header(input: &mut impl Read, path: &Path) -> Result<(usize, usize, bool)> {
    let bad = |what: String| Error::format(path, format!("not a 2-D float .npy matrix: {what}"));
    let mut lead = [0u8; 8];
    input
        .read_exact(&mut lead)
        .map_err(|_| bad("too short".into()))?;
    if !is_npy(&lead) {
        return Err(bad("no NUMPY magic".into()));
    }
    let len = match lead[6] {
        1 => {
            let mut b = [0u8; 2];
            input.read_exact(&mut b).map_err(|e| Error::io(path, e))?;
            usize::from(u16::from_le_bytes(b))
        }
        2 | 3 => {
            let mut b = [0u8; 4];
            input.read_exact(&mut b).map_err(|e| Error::io(path, e))?;
            u32::from_le_bytes(b) as usize
        }
        v => return Err(bad(format!("unknown version {v}"))),
    };
    if len > 1 << 20 {
        return Err(bad(format!("header of {len} bytes")));
    }
    let mut dict = vec![0u8; len];
    input
        .read_exact(&mut dict)
        .map_err(|_| bad("header cut short".into()))?;
    let dict = String::from_utf8_lossy(&dict);
    let descr = dict_value(&dict, "descr")
        .and_then(|v| {
            // The opening quote may be any character of a damaged header,
            // also one of several bytes: skip it by its own length.
            let quote = v.chars().next()?;
            v[quote.len_utf8()..].split(quote).next()
        })
        .unwrap_or_default();
    let wide = match descr {
        "<f4" => false,
        "<f8" => true,
        other => return Err(bad(format!("element type {other}, expected <f4 or <f8"))),
    };
    if dict_value(&dict, "fortran_order").is_some_and(|v| v.starts_with("True")) {
        return Err(bad(
            "Fortran order; save it with numpy.ascontiguousarray".into()
        ));
    }
    let shape = dict_value(&dict, "shape").unwrap_or_default();
    let dims: Vec<usize> = shape
        .trim_start_matches('(')
        .split(')')
        .next()
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().map_err(|_| bad(format!("shape {shape}"))))
        .collect::<Result<_>>()?;
    match dims[..] {
        [n, d] if d > 0 => Ok((n, d, wide)),
        _ => Err(bad(format!("shape {shape}"))),
    }
}

/// The text after `'key':` in a Python dict literal.
fn dict_value<'a>(dict: &'a str, key: &str) -> Option<&'a str> {
    let at = dict.find(&format!("'{key}'"))?;
    let rest = &dict[at + key.len() + 2..];
    Some(rest.trim_start().strip_prefix(':')?.trim_start())
}

/// The first `keep` lines of a vocabulary file, and how many lines it has
/// in all (each line bounded, like every line reader's; lines past `keep`
/// are counted, not kept).
fn read_words(path: &Path, keep: usize) -> Result<(Vec<String>, usize)> {
    let mut lines = super::text_line::Lines::new(crate::corpus::source::open(path)?);
    let mut words = Vec::with_capacity(keep.min(1 << 20));
    let mut count = 0;
    while let Some((_, word)) = lines.next_line(path)? {
        if words.len() < keep {
            words.push(word.to_string());
        }
        count += 1;
    }
    Ok((words, count))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    fn small() -> Embedding {
        let words = WordIndex::from_words(vec!["the".into(), "naïve".into(), "x".into()]);
        Embedding::new(words, array![[1.0, -0.5], [0.1, 3e-8], [0.0, 2.0]]).unwrap()
    }

    #[test]
    fn npy_header_is_64_byte_aligned_and_reads_back_bit_for_bit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.npy");
        write_npy(&small(), &path).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
        assert_eq!((10 + header_len) % 64, 0);
        assert_eq!(bytes.len(), 10 + header_len + 3 * 2 * 4);
        let dict = std::str::from_utf8(&bytes[10..10 + header_len]).unwrap();
        assert!(dict.starts_with("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }"));
        assert!(dict.ends_with(" \n"));
        assert_eq!(
            std::fs::read_to_string(dir.path().join("v.vocab.txt")).unwrap(),
            "the\nnaïve\nx\n"
        );
        let back = read_npy(&bytes[..], &path, None, None, u64::MAX).unwrap();
        assert_eq!(back.index.words(), small().words().words());
        assert_eq!(back.matrix, small().vectors());
        let two = read_npy(&bytes[..], &path, None, Some(2), u64::MAX).unwrap();
        assert_eq!((two.matrix.nrows(), two.limited), (2, true));
    }

    #[test]
    fn a_header_quoting_with_a_multibyte_character_is_refused_not_a_panic() {
        // Found by tests/it/reader_fuzz.rs: a damaged byte where the quote of
        // 'descr' stands became U+FFFD (three bytes) in the header's text.
        for quote in ["\u{fffd}", "é", "'"] {
            let dict = format!(
                "{{'descr': {quote}<f4{quote}, 'fortran_order': False, 'shape': (1, 2), }}"
            );
            let mut bytes = NPY_MAGIC.to_vec();
            bytes.extend([1, 0]);
            bytes.extend((dict.len() as u16).to_le_bytes());
            bytes.extend(dict.as_bytes());
            let path = Path::new("q.npy");
            let read = read_npy_header(&mut &bytes[..], path);
            // A quote of any character is read as one: the header is whole.
            assert_eq!(read.unwrap(), (1, 2, false), "{quote}");
        }
        let mut bytes = NPY_MAGIC.to_vec();
        let dict = b"{'descr': \xff<f4', 'shape': (1, 2), }";
        bytes.extend([1, 0]);
        bytes.extend((dict.len() as u16).to_le_bytes());
        bytes.extend(dict);
        let err = read_npy_header(&mut &bytes[..], Path::new("q.npy")).unwrap_err();
        assert!(err.to_string().contains("q.npy"), "{err}");
    }

    #[test]
    fn npy_float64_and_bad_headers() {
        let dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2), }";
        let mut bytes = NPY_MAGIC.to_vec();
        bytes.extend([1, 0]);
        bytes.extend((dict.len() as u16).to_le_bytes());
        bytes.extend(dict.as_bytes());
        bytes.extend(0.5f64.to_le_bytes());
        bytes.extend((-2.0f64).to_le_bytes());
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.npy");
        std::fs::write(dir.path().join("m.vocab.txt"), "w\n").unwrap();
        let back = read_npy(&bytes[..], &path, None, None, u64::MAX).unwrap();
        assert_eq!(back.matrix, array![[0.5f32, -2.0]]);
        let mut int = bytes.clone();
        let at = int.windows(3).position(|w| w == b"<f8").unwrap();
        int[at + 1] = b'i';
        let e = read_npy(&int[..], &path, None, None, u64::MAX).unwrap_err();
        assert!(e.to_string().contains("element type <i8"), "{e}");
        let e = read_npy(&bytes[..bytes.len() - 8], &path, None, None, u64::MAX).unwrap_err();
        assert!(e.to_string().contains("ends in row 1 of 1"), "{e}");
        // A plain file's size is checked against the shape before allocating.
        let e = read_npy(&bytes[..], &path, Some(12), None, u64::MAX).unwrap_err();
        assert!(
            e.to_string().contains("(16 bytes), but the file holds 12"),
            "{e}"
        );
    }

    /// A `.npy` of `shape` whose data is `data`.
    fn npy(descr: &str, shape: &str, data: &[u8]) -> Vec<u8> {
        let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
        let mut bytes = NPY_MAGIC.to_vec();
        bytes.extend([1, 0]);
        bytes.extend((dict.len() as u16).to_le_bytes());
        bytes.extend(dict.as_bytes());
        bytes.extend(data);
        bytes
    }

    #[test]
    fn shapes_beyond_the_memory_budget_are_refused_before_allocating() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.npy");
        std::fs::write(dir.path().join("m.vocab.txt"), "w\n").unwrap();
        let budget = 1 << 30;
        // A stream (compressed file): the shape alone decides, before the
        // vocabulary is read and before a row buffer is allocated; a width
        // times dimension that wraps 64 bits is refused too.
        for (descr, shape) in [
            ("<f4", "(1000000, 1000000)"),
            ("<f4", "(1, 1099511627776)"),
            ("<f8", "(1, 4611686018427387904)"),
            ("<f8", "(18446744073709551615, 18446744073709551615)"),
        ] {
            let bytes = npy(descr, shape, &[0; 16]);
            let e = read_npy(&bytes[..], &path, None, None, budget)
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("m.npy: the header's matrix of") && e.contains("--limit"),
                "{shape}: {e}"
            );
        }
        // Within the budget the usual checks apply (a row cut short).
        let bytes = npy("<f4", "(1, 2)", &[0; 4]);
        let e = read_npy(&bytes[..], &path, None, None, budget).unwrap_err();
        assert!(e.to_string().contains("ends in row 1 of 1"), "{e}");
        // The limit is what must fit: no memory refusal (the one-word
        // vocabulary of a billion-row matrix is then refused as a pair
        // that does not belong together).
        let bytes = npy("<f4", "(1000000000, 2)", &[0; 8]);
        let e = read_npy(&bytes[..], &path, None, Some(1), budget).unwrap_err();
        assert!(e.to_string().contains("do not belong together"), "{e}");
    }

    #[test]
    fn projector_pair_has_one_row_and_one_label_per_word() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.tsv");
        write_projector(&small(), &path).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "1\t-0.5\n0.1\t0.00000003\n0\t2\n"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("p.metadata.tsv")).unwrap(),
            "the\nnaïve\nx\n"
        );
    }

    #[test]
    fn a_vocabulary_that_does_not_match_its_matrix_is_an_error_naming_both() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.npy");
        write_npy(&small(), &path).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let vocab = dir.path().join("v.vocab.txt");
        for words in ["the\nnaïve\nx\nextra\n", "the\nnaïve\n"] {
            std::fs::write(&vocab, words).unwrap();
            for limit in [None, Some(2)] {
                let e = read_npy(&bytes[..], &path, None, limit, u64::MAX)
                    .unwrap_err()
                    .to_string();
                let n = words.lines().count();
                assert_eq!(
                    e,
                    format!(
                        "{}: holds {n} words, but {} has 3 rows; the two files do not belong together",
                        vocab.display(),
                        path.display()
                    )
                );
            }
        }
    }

    #[test]
    fn a_pair_whose_matrix_fails_keeps_the_old_pair() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.npy");
        write_npy(&small(), &path).unwrap();
        let (old_npy, old_vocab) = (
            std::fs::read(&path).unwrap(),
            std::fs::read(dir.path().join("v.vocab.txt")).unwrap(),
        );
        // A word that cannot be stored: refused before either file is written.
        let words = WordIndex::from_words(vec!["a b".into(), "c".into()]);
        let bad = Embedding::new(words, array![[1.0], [2.0]]).unwrap();
        assert!(write_npy(&bad, &path).is_err());
        // The matrix fails while written, after the vocabulary was: neither lands.
        let words = WordIndex::from_words(vec!["p".into(), "q".into()]);
        let two = Embedding::new(words, array![[1.0], [2.0]]).unwrap();
        let mut files = npy_files(&two, &path).unwrap();
        files[1].1 = Box::new(|_| Err(Error::format("v.npy", "no space left on device")));
        assert!(crate::atomic::write_all_or_none(files).is_err());
        assert_eq!(std::fs::read(&path).unwrap(), old_npy);
        assert_eq!(
            std::fs::read(dir.path().join("v.vocab.txt")).unwrap(),
            old_vocab
        );
    }
}
