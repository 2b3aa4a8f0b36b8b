//! fastText's binary model (`.bin`, from `fasttext skipgram|cbow` or
//! `save_model`): the words with their subword n-gram vectors, so words
//! outside the vocabulary get vectors too ([`super::subwords`]).
//!
//! Layout (little-endian; fastText versions 11 and 12): magic `793712314`
//! and version (`i32`s); the arguments (12 `i32`s: dim, ws, epoch,
//! minCount, neg, wordNgrams, loss, model, bucket, minn, maxn, lrUpdateRate;
//! then `t` as `f64`); the dictionary (`size`, `nwords`, `nlabels` as `i32`,
//! `ntokens` and `pruneidx_size` as `i64`; per entry a NUL-terminated word,
//! its count `i64` and type `i8`, words before labels; then `pruneidx_size`
//! pairs of `i32`); a quantisation flag (`u8`); the input matrix (`m`, `n`
//! as `i64`, then `m x n` `f32`s: `nwords` word rows, then `bucket` n-gram
//! rows); the output matrix, which we do not need.
//!
//! A word's vector is what fastText's `get_word_vector` returns (and what its
//! `.vec` holds): the mean of the word's own row and its n-gram rows. A plain
//! file is memory-mapped: word vectors are computed from the map and the
//! bucket rows stay in it, so memory holds only the word matrix. Quantised
//! models (`.ftz`) store product-quantised codes and are refused with a
//! clear error.
// Unsafe code is denied crate-wide (src/lib.rs) and allowed here: memory-maps fastText models.
#![allow(unsafe_code)]

use std::io::{BufRead, Read};
use std::path::Path;
use std::sync::Arc;

use ndarray::{Array2, Axis};
use rayon::prelude::*;

use super::progress::LoadProgress;
use super::subwords::{Rows, Subwords, MAX_NGRAM};
use super::text_line::{decode_lossy, unique_index, Parsed};
use crate::corpus::source;
use crate::{Error, Result};

/// The first four bytes of a fastText model (`793712314`, little-endian).
pub(crate) const MAGIC: [u8; 4] = 793_712_314i32.to_le_bytes();
/// Newest format version we know.
const VERSION: i32 = 12;
/// fastText's `model_name::sup`.
const SUPERVISED: i32 = 3;
/// Longest word accepted before the file is taken for damaged.
const MAX_WORD_BYTES: usize = 1 << 16;

/// True when `head` starts like a fastText model.
pub(crate) fn is_fasttext(head: &[u8]) -> bool {
    head.starts_with(&MAGIC)
}

/// The arguments that matter for reading vectors.
#[derive(Debug, Clone, Copy)]
struct Args {
    dim: usize,
    bucket: u32,
    minn: usize,
    maxn: usize,
}

/// A little-endian reader that counts the bytes it consumed.
struct Input<R> {
    inner: R,
    pos: u64,
}

impl<R: BufRead> Input<R> {
    fn bytes<const N: usize>(&mut self, path: &Path, what: &str) -> Result<[u8; N]> {
        let mut b = [0u8; N];
        self.inner.read_exact(&mut b).map_err(|e| {
            if e.kind() == std::io::ErrorKind::UnexpectedEof {
                truncated(path, what)
            } else {
                Error::io(path, e)
            }
        })?;
        self.pos += N as u64;
        Ok(b)
    }

    fn i32(&mut self, path: &Path, what: &str) -> Result<i32> {
        self.bytes::<4>(path, what).map(i32::from_le_bytes)
    }

    fn i64(&mut self, path: &Path, what: &str) -> Result<i64> {
        self.bytes::<8>(path, what).map(i64::from_le_bytes)
    }

    /// A NUL-terminated string into `raw` (without the NUL).
    fn cstring(&mut self, raw: &mut Vec<u8>, path: &Path, what: &str) -> Result<()> {
        raw.clear();
        (&mut self.inner)
            .take(MAX_WORD_BYTES as u64 + 1)
            .read_until(0, raw)
            .map_err(|e| Error::io(path, e))?;
        self.pos += raw.len() as u64;
        if raw.pop() != Some(0) {
            return Err(truncated(path, what));
        }
        Ok(())
    }
}

fn truncated(path: &Path, what: &str) -> Error {
    Error::format(
        path,
        format!("fastText model cut short: the file ends inside {what}"),
    )
}

fn bad(path: &Path, message: String) -> Error {
    Error::format(path, format!("fastText model: {message}"))
}

/// Reads the magic, version and arguments.
fn read_args<R: BufRead>(input: &mut Input<R>, path: &Path) -> Result<Args> {
    if input.bytes::<4>(path, "the magic number")? != MAGIC {
        return Err(bad(
            path,
            "not a fastText model (wrong magic number)".into(),
        ));
    }
    let version = input.i32(path, "the version")?;
    if !(11..=VERSION).contains(&version) {
        return Err(bad(
            path,
            format!("format version {version}; versions 11 and 12 are known"),
        ));
    }
    let mut a = [0i32; 12];
    for (v, name) in a.iter_mut().zip([
        "dim",
        "ws",
        "epoch",
        "minCount",
        "neg",
        "wordNgrams",
        "loss",
        "model",
        "bucket",
        "minn",
        "maxn",
        "lrUpdateRate",
    ]) {
        *v = input.i32(path, &format!("the argument {name}"))?;
    }
    input.bytes::<8>(path, "the argument t")?;
    let [dim, _, _, _, _, _, _, model, bucket, minn, mut maxn, _] = a;
    if version == 11 && model == SUPERVISED {
        // fastText: old supervised models do not use character n-grams.
        maxn = 0;
    }
    if dim <= 0 || bucket < 0 || minn < 0 || maxn < 0 {
        return Err(bad(
            path,
            format!(
                "arguments dim {dim}, bucket {bucket}, minn {minn}, maxn {maxn} are out of range"
            ),
        ));
    }
    for (name, n) in [("minn", minn), ("maxn", maxn)] {
        if n as usize > MAX_NGRAM {
            return Err(bad(
                path,
                format!(
                    "argument {name} {n} is out of range: n-grams of at most {MAX_NGRAM} characters \
                     are read (fastText's default maxn is 6); is the header damaged?"
                ),
            ));
        }
    }
    Ok(Args {
        dim: dim as usize,
        bucket: bucket as u32,
        minn: minn as usize,
        maxn: maxn as usize,
    })
}

/// The dictionary's words (labels skipped), raw bytes as stored.
fn read_words<R: BufRead>(input: &mut Input<R>, path: &Path) -> Result<Vec<Vec<u8>>> {
    let size = input.i32(path, "the dictionary size")?;
    let nwords = input.i32(path, "the dictionary size")?;
    let nlabels = input.i32(path, "the dictionary size")?;
    input.i64(path, "the dictionary size")?;
    let pruned = input.i64(path, "the dictionary size")?;
    if size < 0
        || nwords < 0
        || nlabels < 0
        || i64::from(nwords) + i64::from(nlabels) != i64::from(size)
    {
        return Err(bad(
            path,
            format!("dictionary of {size} entries with {nwords} words and {nlabels} labels"),
        ));
    }
    if pruned > 0 {
        return Err(bad(
            path,
            "a pruned (quantised) model; wordbench reads unquantised .bin models".into(),
        ));
    }
    let mut words = Vec::with_capacity((nwords as usize).min(1 << 20));
    let mut raw = Vec::new();
    for i in 0..size as usize {
        let what = format!("dictionary entry {} of {size}", i + 1);
        input.cstring(&mut raw, path, &what)?;
        input.i64(path, &what)?;
        let kind = input.bytes::<1>(path, &what)?[0];
        match (i < nwords as usize, kind) {
            (true, 0) => words.push(raw.clone()),
            (false, 1) => {}
            _ => {
                return Err(bad(
                    path,
                    format!("{what} has type {kind}; words (0) must come before labels (1)"),
                ))
            }
        }
    }
    Ok(words)
}

/// Reads the quantisation flag and the input matrix's shape; checks it.
fn read_shape<R: BufRead>(
    input: &mut Input<R>,
    path: &Path,
    args: Args,
    nwords: usize,
) -> Result<()> {
    if input.bytes::<1>(path, "the quantisation flag")?[0] != 0 {
        return Err(bad(
            path,
            "a quantised model (.ftz); wordbench reads unquantised .bin models \
             (or export its vectors with `fasttext print-word-vectors`)"
                .into(),
        ));
    }
    let m = input.i64(path, "the matrix shape")?;
    let n = input.i64(path, "the matrix shape")?;
    let rows = nwords as i64 + i64::from(args.bucket);
    if m != rows || n != args.dim as i64 {
        return Err(bad(
            path,
            format!(
                "input matrix is {m} x {n}, expected {rows} x {} ({nwords} words + {} buckets)",
                args.dim, args.bucket
            ),
        ));
    }
    Ok(())
}

/// Reads a fastText `.bin`: its first `limit` words with fastText's word
/// vectors, and the n-gram buckets for words outside the vocabulary.
/// `progress` counts the words whose vectors are computed; cancelling it
/// stops the read. What must be in memory (the word vectors; for a
/// compressed file also the rows read) is refused past `budget` bytes.
pub(crate) fn read(
    path: &Path,
    limit: Option<usize>,
    progress: &LoadProgress,
    budget: u64,
) -> Result<(Parsed, Subwords)> {
    match source::plain_len(path)? {
        Some(len) => read_mapped(path, len, limit, progress, budget),
        None => read_stream(path, limit, progress, budget),
    }
}

/// A plain file: parse the header from the map, keep the matrix in it.
fn read_mapped(
    path: &Path,
    len: u64,
    limit: Option<usize>,
    progress: &LoadProgress,
    budget: u64,
) -> Result<(Parsed, Subwords)> {
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    // SAFETY: the map is read-only; like every reader of memory-mapped files
    // we rely on nobody truncating the file while it is open.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| Error::io(path, e))?;
    let mut input = Input {
        inner: &map[..],
        pos: 0,
    };
    let args = read_args(&mut input, path)?;
    let words = read_words(&mut input, path)?;
    read_shape(&mut input, path, args, words.len())?;
    let offset = input.pos as usize;
    let need = (words.len() as u64 + u64::from(args.bucket)).saturating_mul(args.dim as u64 * 4);
    if len - input.pos < need {
        return Err(truncated(path, "the input matrix"));
    }
    let keep = limit.map_or(words.len(), |l| l.min(words.len()));
    crate::memory::check_matrix(
        path,
        "the word vectors",
        keep as u64,
        args.dim as u64,
        budget,
    )?;
    let map = Arc::new(map);
    let word_rows = Rows::Mapped {
        map: Arc::clone(&map),
        offset,
    };
    let subwords = Subwords::new(
        args.minn,
        args.maxn,
        args.dim,
        args.bucket,
        Rows::Mapped {
            map: Arc::clone(&map),
            offset: offset + words.len() * args.dim * 4,
        },
    );
    let read = finish(path, words, &word_rows, subwords, limit, progress);
    // The pages touched while computing the word vectors leave this process
    // (they stay in the page cache; a later n-gram lookup maps its rows again).
    // SAFETY: a read-only private file mapping, no slice into it is alive.
    let _ = unsafe { map.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) };
    read
}

/// A compressed file: read the needed rows into memory.
fn read_stream(
    path: &Path,
    limit: Option<usize>,
    progress: &LoadProgress,
    budget: u64,
) -> Result<(Parsed, Subwords)> {
    let mut input = Input {
        inner: progress.cancellable(source::open(path)?),
        pos: 0,
    };
    let args = read_args(&mut input, path)?;
    let words = read_words(&mut input, path)?;
    read_shape(&mut input, path, args, words.len())?;
    // The word rows, the bucket rows and the word vectors, all in memory.
    let keep = limit.map_or(words.len(), |l| l.min(words.len())) as u64;
    let rows = (words.len() as u64 + u64::from(args.bucket)).saturating_add(keep);
    crate::memory::check_matrix(path, "the input matrix", rows, args.dim as u64, budget)?;
    let word_rows = read_floats(
        &mut input,
        words.len().saturating_mul(args.dim),
        path,
        "the word rows",
    )?;
    let buckets = read_floats(
        &mut input,
        (args.bucket as usize).saturating_mul(args.dim),
        path,
        "the bucket rows",
    )?;
    let subwords = Subwords::new(
        args.minn,
        args.maxn,
        args.dim,
        args.bucket,
        Rows::Owned(buckets),
    );
    finish(
        path,
        words,
        &Rows::Owned(word_rows),
        subwords,
        limit,
        progress,
    )
}

/// `count` little-endian `f32`s, read in blocks (memory follows the data).
fn read_floats<R: BufRead>(
    input: &mut Input<R>,
    count: usize,
    path: &Path,
    what: &str,
) -> Result<Vec<f32>> {
    let mut values = Vec::with_capacity(count.min(1 << 24));
    let mut block = vec![0u8; 1 << 16];
    while values.len() < count {
        let take = (count - values.len()).saturating_mul(4).min(block.len());
        input.inner.read_exact(&mut block[..take]).map_err(|e| {
            if e.kind() == std::io::ErrorKind::UnexpectedEof {
                truncated(path, what)
            } else {
                Error::io(path, e)
            }
        })?;
        values.extend(
            block[..take]
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        );
    }
    input.pos += count as u64 * 4;
    Ok(values)
}

/// Computes the kept words' vectors (own row + n-gram rows, averaged, as
/// fastText does; `</s>` has no n-grams) and builds the index.
fn finish(
    path: &Path,
    raw_words: Vec<Vec<u8>>,
    word_rows: &Rows,
    subwords: Subwords,
    limit: Option<usize>,
    progress: &LoadProgress,
) -> Result<(Parsed, Subwords)> {
    let nwords = raw_words.len();
    let keep = limit.map_or(nwords, |l| l.min(nwords));
    progress.start(Some(keep as u64));
    progress.check(path)?;
    let dim = subwords.dim();
    let mut matrix = Array2::<f32>::zeros((keep, dim));
    matrix
        .axis_iter_mut(Axis(0))
        .into_par_iter()
        .enumerate()
        .for_each_init(
            || (Vec::new(), Vec::new()),
            |(scratch, buckets), (i, mut row)| {
                if progress.is_cancelled() {
                    return;
                }
                let acc = row.as_slice_mut().expect("rows of a standard matrix");
                word_rows.add_to(i, acc);
                buckets.clear();
                if raw_words[i] != b"</s>" {
                    subwords.push_buckets(&raw_words[i], scratch, buckets);
                }
                for &b in buckets.iter() {
                    subwords.add_bucket(b, acc);
                }
                let scale = 1.0 / (1 + buckets.len()) as f32;
                acc.iter_mut().for_each(|v| *v *= scale);
                progress.add(1);
            },
        );
    progress.check(path)?;
    if let Some((i, _)) = matrix
        .axis_iter(Axis(0))
        .enumerate()
        .find(|(_, r)| r.iter().any(|v| !v.is_finite()))
    {
        return Err(bad(
            path,
            format!("the vector of word {} is not finite", i + 1),
        ));
    }
    let mut replacements = 0;
    let mut words = Vec::with_capacity(keep);
    for raw in &raw_words[..keep] {
        let mut word = String::new();
        replacements += decode_lossy(raw, &mut word);
        words.push(word);
    }
    let index = unique_index(words).map_err(|(w, again, first)| {
        bad(
            path,
            format!(
                "word '{}' appears again at entry {} (first at {})",
                w.escape_debug(),
                again + 1,
                first + 1
            ),
        )
    })?;
    Ok((
        Parsed {
            index,
            matrix,
            replacements,
            unk_after_header: false,
            limited: keep < nwords,
        },
        subwords,
    ))
}

#[cfg(test)]
mod tests {
    use super::super::subwords::fasttext_hash;
    use super::*;

    /// A model of dim 2, 3 buckets, 3-grams only, with the words `ab` and
    /// `</s>` (+ `labels` labels); row r of the input matrix is (r, -r).
    fn model(labels: &[&str], quantised: bool) -> Vec<u8> {
        let mut b = MAGIC.to_vec();
        b.extend(12i32.to_le_bytes());
        for a in [2i32, 5, 1, 1, 5, 1, 2, 2, 3, 3, 3, 100] {
            b.extend(a.to_le_bytes());
        }
        b.extend(1e-4f64.to_le_bytes());
        let n = 2 + labels.len() as i32;
        for a in [n, 2, labels.len() as i32] {
            b.extend(a.to_le_bytes());
        }
        b.extend(10i64.to_le_bytes());
        b.extend((-1i64).to_le_bytes());
        let entries = [("ab", 0u8), ("</s>", 0)]
            .into_iter()
            .chain(labels.iter().map(|l| (*l, 1)));
        for (w, kind) in entries {
            b.extend(w.as_bytes());
            b.push(0);
            b.extend(3i64.to_le_bytes());
            b.push(kind);
        }
        b.push(u8::from(quantised));
        b.extend(5i64.to_le_bytes());
        b.extend(2i64.to_le_bytes());
        for r in 0..5 {
            b.extend((r as f32).to_le_bytes());
            b.extend((-(r as f32)).to_le_bytes());
        }
        b
    }

    fn read_bytes(bytes: &[u8]) -> Result<(Parsed, Subwords)> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.bin");
        std::fs::write(&path, bytes).unwrap();
        read(&path, None, &LoadProgress::default(), u64::MAX)
    }

    #[test]
    fn word_vectors_average_the_word_row_and_its_ngram_rows() {
        let (parsed, subwords) = read_bytes(&model(&["__label__x"], false)).unwrap();
        assert_eq!(
            parsed.index.words(),
            &["ab", "</s>"],
            "labels are not words"
        );
        // "ab": row 0 and the buckets of "<ab" and "ab>", i.e. rows 2 + h % 3.
        let rows: Vec<f32> = ["<ab", "ab>"]
            .iter()
            .map(|g| (2 + fasttext_hash(g.as_bytes()) % 3) as f32)
            .collect();
        let mean = (0.0 + rows[0] + rows[1]) / 3.0;
        assert_eq!(parsed.matrix.row(0).to_vec(), vec![mean, -mean]);
        // "</s>" has no n-grams: its own row only.
        assert_eq!(parsed.matrix.row(1).to_vec(), vec![1.0, -1.0]);
        let oov = subwords.vector("abc").unwrap();
        let grams: Vec<f32> = ["<ab", "abc", "bc>"]
            .iter()
            .map(|g| (2 + fasttext_hash(g.as_bytes()) % 3) as f32)
            .collect();
        let mean = grams.iter().sum::<f32>() / 3.0;
        assert!((oov[0] - mean).abs() < 1e-6 && (oov[1] + mean).abs() < 1e-6);
    }

    #[test]
    fn quantised_and_malformed_models_are_refused_clearly() {
        let err = read_bytes(&model(&[], true)).unwrap_err().to_string();
        assert!(err.contains("quantised model (.ftz)"), "{err}");
        let mut bad_version = model(&[], false);
        bad_version[4] = 13;
        let err = read_bytes(&bad_version).unwrap_err().to_string();
        assert!(err.contains("format version 13"), "{err}");
        let mut not_ft = model(&[], false);
        not_ft[0] = 0;
        let err = read_bytes(&not_ft).unwrap_err().to_string();
        assert!(err.contains("wrong magic number"), "{err}");
        let full = model(&[], false);
        let err = read_bytes(&full[..full.len() - 3]).unwrap_err().to_string();
        assert!(
            err.contains("cut short") && err.contains("input matrix"),
            "{err}"
        );
        // A label among the words.
        let mut swapped = model(&[], false);
        let at = swapped.windows(5).position(|w| w == b"</s>\0").unwrap() + 5 + 8;
        swapped[at] = 1;
        let err = read_bytes(&swapped).unwrap_err().to_string();
        assert!(err.contains("entry 2 of 2 has type 1"), "{err}");
    }

    #[test]
    fn absurd_ngram_lengths_and_matrices_over_the_budget_are_refused() {
        // maxn is the 11th argument, minn the 10th: i32s from byte 8.
        for (at, name) in [(8 + 4 * 10, "maxn"), (8 + 4 * 9, "minn")] {
            let mut m = model(&[], false);
            m[at..at + 4].copy_from_slice(&100_000i32.to_le_bytes());
            let err = read_bytes(&m).unwrap_err().to_string();
            assert!(
                err.contains(&format!("argument {name} 100000 is out of range")),
                "{err}"
            );
        }
        let mut m = model(&[], false);
        m[8 + 40..8 + 44].copy_from_slice(&(MAX_NGRAM as i32).to_le_bytes());
        assert!(read_bytes(&m).is_ok(), "maxn {MAX_NGRAM} is read");
        // The word vectors must fit the budget (here 15 bytes: 2 x 2 floats).
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.bin");
        std::fs::write(&path, model(&[], false)).unwrap();
        let err = read(&path, None, &LoadProgress::default(), 15)
            .unwrap_err()
            .to_string();
        assert!(err.contains("the word vectors of 2 x 2 values"), "{err}");
        assert!(read(&path, Some(1), &LoadProgress::default(), 15).is_ok());
    }

    #[test]
    fn a_cancelled_read_stops() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.bin");
        std::fs::write(&path, model(&[], false)).unwrap();
        let progress = LoadProgress::default();
        progress.cancel();
        let err = read(&path, None, &progress, u64::MAX)
            .unwrap_err()
            .to_string();
        assert!(err.ends_with("reading cancelled"), "{err}");
    }

    #[test]
    fn detection_by_magic() {
        assert!(is_fasttext(&model(&[], false)));
        assert!(!is_fasttext(b"2 3\n"));
        assert_eq!(
            super::super::format::detect_bytes(&model(&[], false)),
            super::super::VectorFormat::FastTextBin
        );
    }
}
