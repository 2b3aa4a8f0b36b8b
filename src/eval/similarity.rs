//! Word similarity benchmarks (WordSim-353, SimLex-999, MEN, RG-65, ...).
//!
//! File format, as these sets are distributed: one pair per line, fields
//! separated by tabs (or, when a line has no tab, by spaces); blank lines and
//! `#` comments are skipped. The first non-comment line may be a header
//! ("word1 word2 SimLex999 ..."): it is skipped when it has no number after
//! the two words (a first line whose score is `nan`, `inf` or out of range,
//! like `1e400`, is an error, not a header). The score column is the first numeric column after the two
//! words on the first data line (column 3 for WordSim/MEN; the SimLex999
//! column of SimLex's original 10-column file, past its POS column); every
//! later line must have a number there, or reading fails with `file:line`.
//! Words are lowercased. A file without any pair is an error.
//!
//! Evaluation follows gensim's `evaluate_word_pairs`: pairs with a word
//! missing from the vectors are skipped (and counted), the cosine of the
//! others is correlated with the human scores by Spearman (tie-aware) and
//! Pearson.

use std::io::BufRead;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::lookup::WordLookup;
use super::{dataset_name, f64_or_nan};
use crate::corpus::source::{self, LineReader};
use crate::embedding::Embedding;
use crate::stats::{pearson, spearman};
use crate::{Error, Result};

/// One judged pair.
#[derive(Debug, Clone, PartialEq)]
pub struct WordPair {
    /// First word (lowercase).
    pub first: String,
    /// Second word (lowercase).
    pub second: String,
    /// Human similarity score.
    pub score: f64,
}

/// A similarity benchmark: its name (file stem) and pairs.
#[derive(Debug, Clone, PartialEq)]
pub struct SimilarityDataset {
    /// Dataset name, the file stem (`wordsim353` for `wordsim353.tsv`).
    pub name: String,
    /// The pairs in file order.
    pub pairs: Vec<WordPair>,
}

/// Scores of one embedding on one similarity dataset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SimilarityResult {
    /// Dataset name (file stem).
    pub dataset: String,
    /// Spearman's rho between cosines and human scores over the found pairs (NaN/null if < 2).
    #[serde(deserialize_with = "f64_or_nan")]
    pub spearman: f64,
    /// Pearson's r between cosines and human scores over the found pairs (NaN/null if < 2).
    #[serde(deserialize_with = "f64_or_nan")]
    pub pearson: f64,
    /// Pairs in the dataset.
    pub pairs: usize,
    /// Pairs whose two words both have vectors (the ones scored).
    pub found: usize,
}

/// Options of a similarity evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SimilarityConfig {
    /// Only the first `restrict` rows (most frequent words) count as known; `None` = all.
    pub restrict: Option<usize>,
}

impl SimilarityDataset {
    /// Reads a dataset file (plain, `.gz` or `.bz2`).
    pub fn read(path: impl AsRef<Path>) -> Result<SimilarityDataset> {
        let path = path.as_ref();
        Self::from_reader(source::open(path)?, path)
    }

    /// Parses a dataset from `input`; `path` names it (stem) and appears in errors.
    pub fn from_reader(input: impl BufRead, path: &Path) -> Result<SimilarityDataset> {
        let mut lines = LineReader::new(input, path);
        let mut column = None;
        let mut header_skipped = false;
        let mut pairs = Vec::new();
        while let Some(seg) = lines.next_segment()? {
            let text = seg.text.trim();
            if text.is_empty() || text.starts_with('#') {
                continue;
            }
            let fields: Vec<&str> = if text.contains('\t') {
                text.split('\t').map(str::trim).collect()
            } else {
                text.split_whitespace().collect()
            };
            let col = match column {
                Some(c) => c,
                None => match score_column(&fields) {
                    Some(c) => *column.insert(c),
                    None if non_finite_column(&fields).is_some() => {
                        let c = non_finite_column(&fields).unwrap_or(2);
                        return Err(Error::parse(
                            path,
                            seg.line,
                            format!(
                                "score in column {} is '{}', expected a finite number \
                                 (not read as a header: headers hold no numbers)",
                                c + 1,
                                fields[c]
                            ),
                        ));
                    }
                    None if !header_skipped => {
                        header_skipped = true;
                        continue;
                    }
                    None => {
                        return Err(Error::parse(
                            path,
                            seg.line,
                            "expected `word1 word2 score`, found no number after the two words",
                        ))
                    }
                },
            };
            pairs.push(parse_pair(&fields, col, path, seg.line)?);
        }
        if pairs.is_empty() {
            return Err(Error::format(
                path,
                "no word pairs, expected lines `word1 word2 score`",
            ));
        }
        Ok(SimilarityDataset {
            name: dataset_name(path),
            pairs,
        })
    }
}

/// The first column after the two words that holds a number.
fn score_column(fields: &[&str]) -> Option<usize> {
    (2..fields.len()).find(|&i| fields[i].parse::<f64>().is_ok_and(f64::is_finite))
}

/// The first column after the two words that parses as a number but not a
/// finite one (`nan`, `inf`, `1e400`).
fn non_finite_column(fields: &[&str]) -> Option<usize> {
    (2..fields.len()).find(|&i| fields[i].parse::<f64>().is_ok_and(|v| !v.is_finite()))
}

fn parse_pair(fields: &[&str], col: usize, path: &Path, line: usize) -> Result<WordPair> {
    if fields.len() <= col {
        return Err(Error::parse(
            path,
            line,
            format!(
                "expected at least {} fields (word1 word2 ... score), found {}",
                col + 1,
                fields.len()
            ),
        ));
    }
    let score: f64 = fields[col]
        .parse()
        .ok()
        .filter(|s: &f64| s.is_finite())
        .ok_or_else(|| {
            Error::parse(
                path,
                line,
                format!(
                    "score in column {} is not a number: '{}'",
                    col + 1,
                    fields[col]
                ),
            )
        })?;
    if fields[0].is_empty() || fields[1].is_empty() {
        return Err(Error::parse(path, line, "empty word"));
    }
    Ok(WordPair {
        first: fields[0].to_lowercase(),
        second: fields[1].to_lowercase(),
        score,
    })
}

/// Correlates the embedding's cosines with the dataset's scores.
pub fn evaluate_similarity(
    embedding: &Embedding,
    dataset: &SimilarityDataset,
    config: SimilarityConfig,
) -> SimilarityResult {
    let lookup = WordLookup::new(embedding.words(), config.restrict);
    let (human, model): (Vec<f64>, Vec<f64>) = dataset
        .pairs
        .iter()
        .filter_map(|p| {
            let a = lookup.id(&p.first)?;
            let b = lookup.id(&p.second)?;
            Some((p.score, embedding.cosine(a, b)))
        })
        .unzip();
    SimilarityResult {
        dataset: dataset.name.clone(),
        spearman: spearman(&human, &model),
        pearson: pearson(&human, &model),
        pairs: dataset.pairs.len(),
        found: human.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::words::WordIndex;
    use ndarray::array;

    fn parse(text: &str) -> Result<SimilarityDataset> {
        SimilarityDataset::from_reader(text.as_bytes(), Path::new("dir/ws.tsv"))
    }

    #[test]
    fn formats_comments_and_headers() {
        let d = parse("# comment\n\nTiger\tCat\t7.35\nbook paper 7.46\n").unwrap();
        assert_eq!(d.name, "ws");
        assert_eq!(d.pairs.len(), 2);
        assert_eq!(
            d.pairs[0],
            WordPair {
                first: "tiger".into(),
                second: "cat".into(),
                score: 7.35
            }
        );
        assert_eq!(d.pairs[1].score, 7.46);
        // SimLex's original layout: a header, then a POS column before the score.
        let d = parse("word1\tword2\tPOS\tSimLex999\tconc(w1)\nold\tnew\tA\t1.58\t2.72\n").unwrap();
        assert_eq!(
            d.pairs,
            vec![WordPair {
                first: "old".into(),
                second: "new".into(),
                score: 1.58
            }]
        );
    }

    #[test]
    fn malformed_lines_name_file_and_line() {
        let e = parse("a b 1\n# x\nc d\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "dir/ws.tsv:3: expected at least 3 fields (word1 word2 ... score), found 2"
        );
        let e = parse("a b 1\nc d high\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "dir/ws.tsv:2: score in column 3 is not a number: 'high'"
        );
        for bad in ["nan", "1e400", "-inf"] {
            let e = parse(&format!("a b {bad}\nc d 1\n")).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!(
                    "dir/ws.tsv:1: score in column 3 is '{bad}', expected a finite number \
                     (not read as a header: headers hold no numbers)"
                )
            );
        }
        for empty in ["", "# only a comment\n\n", "word1 word2 score\n"] {
            let e = parse(empty).unwrap_err();
            assert_eq!(
                e.to_string(),
                "dir/ws.tsv: no word pairs, expected lines `word1 word2 score`"
            );
        }
        let e = parse("w1 w2 score\nc d high\n").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("dir/ws.tsv:2: expected `word1 word2 score`"),
            "{e}"
        );
    }

    #[test]
    fn evaluation_skips_oov_and_correlates() {
        let words = WordIndex::from_words(["a", "b", "c", "d"].map(String::from).to_vec());
        // cos(a,b) = 1, cos(a,c) = 0.6, cos(a,d) = 0 (and d-a is the least similar pair).
        let e = Embedding::new(
            words,
            array![[1.0, 0.0], [2.0, 0.0], [0.6, 0.8], [0.0, 1.0]],
        )
        .unwrap();
        let d = parse("a b 9\na c 5\na d 1\na zzz 3\n").unwrap();
        let r = evaluate_similarity(&e, &d, SimilarityConfig::default());
        assert_eq!((r.pairs, r.found), (4, 3));
        assert!((r.spearman - 1.0).abs() < 1e-12);
        // Pearson of [9,5,1] with [1,0.6,0]: centred [4,0,-4], [0.4667,0.0667,-0.5333];
        // sxy = 4, sxx = 32, syy = 0.5067 -> r = 4 / sqrt(16.2133) = 0.99340.
        let syy: f64 = [1.4 / 3.0, 0.2 / 3.0, -1.6 / 3.0]
            .iter()
            .map(|v: &f64| v * v)
            .sum();
        assert!(
            (r.pearson - 4.0 / (32.0 * syy).sqrt()).abs() < 1e-6,
            "{}",
            r.pearson
        );
        let r = evaluate_similarity(&e, &d, SimilarityConfig { restrict: Some(3) });
        assert_eq!(r.found, 2);
        let json = serde_json::to_string(&r).unwrap();
        assert!(json.starts_with(r#"{"dataset":"ws","spearman":"#), "{json}");
    }
}
