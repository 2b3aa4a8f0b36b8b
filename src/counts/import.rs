//! Counts made elsewhere: Stanford GloVe's `cooccur` output, and the
//! `(word, context, count)` part files a Spark job writes (Parquet, or
//! CSV/TSV).
//!
//! Both become a [`Counts`] (vocabulary + matrix) that
//! [`super::file::write`] saves as a counts file. Duplicate cells are summed,
//! so part files may split one cell's count between them.
//!
//! What a counts file cannot hold is refused here, naming the file and line
//! (or record, or Parquet row), rather than imported and found by `train`:
//! a word listed twice in a vocabulary, a count that is negative or not
//! finite, and counts whose total passes [`MAX_TOTAL`].

use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;
use sprs::TriMat;

use super::file::{Counts, CountsMeta};
use super::parquet_parts;
use crate::corpus::source::{self, BoundedLines};
use crate::corpus::Vocabulary;
use crate::{Error, Result};

/// Bytes of one GloVe `cooccur` record: `int word1, int word2, double value`.
const GLOVE_RECORD: usize = 16;

/// The largest total of the counts of one import (2^53): up to it every
/// whole count is exact in an `f64` and every sum of them fits a `u64`.
/// A corpus of a trillion tokens counted with a window of 10 stays 400
/// times below it.
pub const MAX_TOTAL: f64 = 9_007_199_254_740_992.0;

/// Reads a `word count` vocabulary file (GloVe's `vocab_count` output):
/// the words in id order. A word listed twice, or counts summing past
/// [`MAX_TOTAL`], is an error at its line.
pub fn read_vocab_file(path: &Path) -> Result<Vec<(String, u64)>> {
    let reader = source::open(path)?;
    let mut words = Vec::new();
    let mut first_line: FxHashMap<String, usize> = FxHashMap::default();
    let mut total = 0u64;
    for (i, line) in reader.bounded_lines().enumerate() {
        let line = line.map_err(|e| Error::io(path, e))?;
        if line.trim().is_empty() {
            continue;
        }
        let bad = |m: &str| Error::Parse {
            path: path.to_path_buf(),
            line: i + 1,
            message: m.to_string(),
        };
        let mut fields = line.split_whitespace();
        let word = fields.next().ok_or_else(|| bad("expected `word count`"))?;
        let count = fields
            .next()
            .and_then(|c| c.parse::<u64>().ok())
            .ok_or_else(|| bad("expected `word count` with a whole count"))?;
        if let Some(first) = first_line.insert(word.to_string(), i + 1) {
            return Err(bad(&format!(
                "word '{word}' appears again (first on line {first}); each word must appear once"
            )));
        }
        total = total
            .checked_add(count)
            .filter(|&t| t as f64 <= MAX_TOTAL)
            .ok_or_else(|| bad(&format!("the counts sum past {MAX_TOTAL} at this line")))?;
        words.push((word.to_string(), count));
    }
    if words.is_empty() {
        return Err(Error::format(path, "vocabulary file has no words"));
    }
    Ok(words)
}

/// Imports Stanford GloVe's `cooccur` output (16-byte records of 1-based
/// word ids into `vocab_path`'s lines, and a weight), with its vocabulary.
pub fn glove(cooccur_path: &Path, vocab_path: &Path) -> Result<Counts> {
    let pairs = read_vocab_file(vocab_path)?;
    let n = pairs.len();
    source::check_regular(cooccur_path)?;
    let file = std::fs::File::open(cooccur_path).map_err(|e| Error::io(cooccur_path, e))?;
    let len = file
        .metadata()
        .map_err(|e| Error::io(cooccur_path, e))?
        .len();
    if len % GLOVE_RECORD as u64 != 0 {
        return Err(Error::format(
            cooccur_path,
            format!(
                "{len} bytes is not a whole number of 16-byte GloVe cooccur records (truncated?)"
            ),
        ));
    }
    let records = (len / GLOVE_RECORD as u64) as usize;
    let mut total = 0.0f64;
    let mut tri = TriMat::with_capacity((n, n), records);
    let mut reader = BufReader::with_capacity(1 << 16, file);
    let mut buf = [0u8; GLOVE_RECORD];
    for r in 0..records {
        reader
            .read_exact(&mut buf)
            .map_err(|e| Error::io(cooccur_path, e))?;
        let w1 = i32::from_le_bytes(buf[..4].try_into().expect("4 bytes"));
        let w2 = i32::from_le_bytes(buf[4..8].try_into().expect("4 bytes"));
        let value = f64::from_le_bytes(buf[8..].try_into().expect("8 bytes"));
        let id = |w: i32| (w >= 1 && w as usize <= n).then(|| w as usize - 1);
        let (Some(i), Some(j)) = (id(w1), id(w2)) else {
            return Err(Error::format(
                cooccur_path,
                format!("record {r}: word ids {w1}, {w2} outside the vocabulary's 1..={n} (wrong vocab file?)"),
            ));
        };
        if !value.is_finite() || value < 0.0 {
            return Err(Error::format(
                cooccur_path,
                format!("record {r}: value {value} is not a finite count of 0 or more"),
            ));
        }
        total += value;
        if total > MAX_TOTAL {
            return Err(Error::format(
                cooccur_path,
                format!("record {r}: the values sum past {MAX_TOTAL}"),
            ));
        }
        tri.add_triplet(i, j, value);
    }
    let vocab = Vocabulary::from_sorted(pairs)
        .map_err(|_| Error::format(vocab_path, "word counts are not in descending order"))?;
    Ok(Counts {
        vocab,
        matrix: tri.to_csr(),
        meta: CountsMeta::default(),
    })
}

/// The part files of a Spark output directory, in name order: every file
/// except `_SUCCESS`-style markers, hidden files and `.crc` checksums.
fn part_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let entries = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let skip = name.starts_with('_') || name.starts_with('.') || name.ends_with(".crc");
        if !skip && entry.path().is_file() {
            files.push(entry.path());
        }
    }
    files.sort();
    if files.is_empty() {
        return Err(Error::format(dir, "no part files in the directory"));
    }
    Ok(files)
}

/// A field without CSV quotes.
fn unquote(field: &str) -> &str {
    let f = field.trim();
    f.strip_prefix('"')
        .and_then(|f| f.strip_suffix('"'))
        .unwrap_or(f)
}

/// The cells of part files read so far, with words numbered as first seen.
#[derive(Default)]
struct Table {
    ids: FxHashMap<String, u32>,
    words: Vec<String>,
    cells: Vec<(u32, u32, f64)>,
    /// The sum of the counts so far (at most [`MAX_TOTAL`]).
    total: f64,
}

impl Table {
    fn id(&mut self, w: &str) -> u32 {
        if let Some(&id) = self.ids.get(w) {
            return id;
        }
        let id = self.words.len() as u32;
        self.ids.insert(w.to_string(), id);
        self.words.push(w.to_string());
        id
    }

    /// Adds a cell; a count that is negative or not finite, or that takes
    /// the total past [`MAX_TOTAL`], is refused with `Err(why)` for the
    /// caller to locate.
    fn add(&mut self, word: &str, context: &str, count: f64) -> Result<(), String> {
        let cell = format!("cell ({word}, {context})");
        if !count.is_finite() || count < 0.0 {
            return Err(format!(
                "{cell}: count {count} is not a finite count of 0 or more"
            ));
        }
        if self.total + count > MAX_TOTAL {
            return Err(format!("{cell}: the counts sum past {MAX_TOTAL} here"));
        }
        self.total += count;
        let (a, b) = (self.id(word), self.id(context));
        self.cells.push((a, b, count));
        Ok(())
    }

    /// Reads one TSV/CSV part file (see [`parts`]).
    fn read_text(&mut self, path: &Path) -> Result<()> {
        let reader = source::open(path)?;
        for (i, line) in reader.bounded_lines().enumerate() {
            let line = line.map_err(|e| Error::io(path, e))?;
            if line.trim().is_empty() {
                continue;
            }
            let sep = if line.contains('\t') { '\t' } else { ',' };
            let fields: Vec<&str> = line.split(sep).map(unquote).collect();
            let bad = |m: String| Error::Parse {
                path: path.to_path_buf(),
                line: i + 1,
                message: m,
            };
            if fields.len() != 3 {
                return Err(bad(format!(
                    "expected 3 fields (word, context, count), found {}",
                    fields.len()
                )));
            }
            let Ok(count) = fields[2].parse::<f64>() else {
                if i == 0 {
                    continue; // a header line
                }
                return Err(bad(format!("count '{}' is not a number", fields[2])));
            };
            self.add(fields[0], fields[1], count).map_err(bad)?;
        }
        Ok(())
    }

    /// Reads one Parquet part file (see [`parts`]).
    fn read_parquet(&mut self, path: &Path) -> Result<()> {
        let mut row = 0u64;
        parquet_parts::read(path, |word, context, count| {
            self.add(word, context, count)
                .map_err(|why| Error::format(path, format!("row {row}: {why}")))?;
            row += 1;
            Ok(())
        })
    }
}

/// Whether `path` starts with Parquet's magic bytes.
fn is_parquet(path: &Path) -> Result<bool> {
    let mut head = [0u8; 4];
    let mut file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut got = 0;
    while got < head.len() {
        match file
            .read(&mut head[got..])
            .map_err(|e| Error::io(path, e))?
        {
            0 => break,
            n => got += n,
        }
    }
    Ok(got == head.len() && &head == parquet_parts::MAGIC)
}

/// Imports a directory of `(word, context, count)` part files: Parquet
/// (recognised by its magic bytes; snappy- or gzip-compressed pages), or
/// TSV or CSV (the separator is a tab when the line has one, else a
/// comma), each optionally gzip- or bzip2-compressed, optionally with a
/// header line. A directory may mix them.
///
/// The vocabulary is `vocab_path`'s (`word count` lines) when given, else
/// every word seen, counted by its row sum; ids are by descending count
/// (ties by word), like a corpus's.
pub fn parts(dir: &Path, vocab_path: Option<&Path>) -> Result<Counts> {
    let mut table = Table::default();
    for path in part_files(dir)? {
        if is_parquet(&path)? {
            table.read_parquet(&path)?;
        } else if path.extension().is_some_and(|e| e == "parquet") {
            return Err(Error::format(
                &path,
                "not a Parquet file (no PAR1 magic bytes)",
            ));
        } else {
            table.read_text(&path)?;
        }
    }
    let Table { words, cells, .. } = table;
    let pairs: Vec<(String, u64)> = match vocab_path {
        Some(v) => read_vocab_file(v)?,
        None => {
            let mut sums = vec![0.0f64; words.len()];
            for &(a, _, c) in &cells {
                sums[a as usize] += c;
            }
            words
                .iter()
                .zip(&sums)
                .map(|(w, &s)| (w.clone(), s.round() as u64))
                .collect()
        }
    };
    let mut order: Vec<(String, u64)> = pairs;
    order.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let index: FxHashMap<&str, usize> = order
        .iter()
        .enumerate()
        .map(|(i, (w, _))| (w.as_str(), i))
        .collect();
    let n = order.len();
    let mut remap = Vec::with_capacity(words.len());
    for w in &words {
        match index.get(w.as_str()) {
            Some(&i) => remap.push(i),
            None => {
                return Err(Error::format(
                    vocab_path.unwrap_or(dir),
                    format!("word '{w}' of the part files is not in the vocabulary"),
                ))
            }
        }
    }
    let mut tri = TriMat::with_capacity((n, n), cells.len());
    for (a, b, c) in cells {
        tri.add_triplet(remap[a as usize], remap[b as usize], c);
    }
    let vocab = Vocabulary::from_sorted(order).expect("sorted by descending count");
    Ok(Counts {
        vocab,
        matrix: tri.to_csr(),
        meta: CountsMeta::default(),
    })
}
