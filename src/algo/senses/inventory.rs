//! How many senses each word gets: from a WordNet-style sense-count file
//! (the bundled WordNet 3.0 counts by default), a WordNet dictionary
//! directory, a frequency rule or one fixed number; then capped, and only
//! words seen often enough are split.

use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;

use crate::corpus::source::{self, BoundedLines};
use crate::{Error, Result};

/// The bundled WordNet 3.0 sense counts (`assets/lexicon/`).
pub const BUNDLED: &str = "lexicon/wordnet-senses.tsv.gz";

/// Where the number of senses comes from (`sense_counts`).
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// A sense-count file or a WordNet dictionary directory.
    Lexicon(PathBuf),
    /// `1 + ⌊log10(count / min_sense_count)⌋`.
    Frequency,
    /// The same `senses` for every word.
    Fixed(usize),
}

impl Source {
    /// Reads `sense_counts`: `wordnet` (bundled), `frequency`, `fixed`
    /// (with `senses`), or a path.
    pub fn parse(text: &str, fixed: usize) -> Source {
        match text {
            "wordnet" => Source::Lexicon(crate::assets::path(BUNDLED)),
            "frequency" => Source::Frequency,
            "fixed" => Source::Fixed(fixed),
            path => Source::Lexicon(PathBuf::from(path)),
        }
    }
}

/// Who is split and into how many senses.
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    /// Sense counts.
    pub source: Source,
    /// Cap on the senses of one word.
    pub max_senses: usize,
    /// Words seen fewer times are not split.
    pub min_count: u64,
}

impl Rule {
    /// The number of senses of each word (`words[i]` seen `counts[i]`
    /// times), 1 for words left whole.
    pub fn senses(&self, words: &[&str], counts: &[u64]) -> Result<Vec<usize>> {
        let lexicon = match &self.source {
            Source::Lexicon(path) => Some(read_lexicon(path)?),
            _ => None,
        };
        Ok(words
            .iter()
            .zip(counts)
            .map(|(w, &c)| {
                if c < self.min_count {
                    return 1;
                }
                let k = match (&self.source, &lexicon) {
                    (_, Some(lex)) => lex.get(*w).copied().unwrap_or(1),
                    (Source::Frequency, _) => frequency_senses(c, self.min_count),
                    (Source::Fixed(k), _) => *k,
                    (Source::Lexicon(_), None) => 1,
                };
                k.clamp(1, self.max_senses)
            })
            .collect())
    }
}

/// `1 + ⌊log10(count / min_count)⌋`: two senses from ten times the
/// minimum count on, three from a hundred times.
pub fn frequency_senses(count: u64, min_count: u64) -> usize {
    let ratio = count as f64 / min_count.max(1) as f64;
    if ratio < 1.0 {
        return 1;
    }
    1 + ratio.log10().floor() as usize
}

/// Sense counts by lemma from a file (`word<TAB>...<TAB>total`, a header
/// line starting with `word` skipped; gzip read transparently) or from a
/// WordNet dictionary directory (`index.noun`, `index.verb`, `index.adj`,
/// `index.adv`: the `synset_cnt` field, summed over parts of speech).
pub fn read_lexicon(path: &Path) -> Result<FxHashMap<String, usize>> {
    let mut out = FxHashMap::default();
    if path.is_dir() {
        for pos in ["noun", "verb", "adj", "adv"] {
            let file = path.join(format!("index.{pos}"));
            if file.is_file() {
                read_wordnet_index(&file, &mut out)?;
            }
        }
        if out.is_empty() {
            return Err(Error::format(
                path,
                "no index.noun, index.verb, index.adj or index.adv with entries: not a WordNet dict directory",
            ));
        }
        return Ok(out);
    }
    let input = source::open(path)?;
    for (n, line) in input.bounded_lines().enumerate() {
        let line = line.map_err(|e| Error::io(path, e))?;
        if line.trim().is_empty() || line.starts_with('#') || (n == 0 && line.starts_with("word\t"))
        {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let total = fields.last().and_then(|t| t.trim().parse::<usize>().ok());
        match (fields.len(), total) {
            (2.., Some(k)) => {
                out.insert(fields[0].to_string(), k);
            }
            _ => {
                return Err(Error::Parse {
                    path: path.to_path_buf(),
                    line: n + 1,
                    message: "expected word<TAB>...<TAB>number of senses".into(),
                })
            }
        }
    }
    Ok(out)
}

/// Adds the `synset_cnt` of every lemma of a WordNet `index.*` file
/// (lines: `lemma pos synset_cnt ...`; licence lines start with spaces).
fn read_wordnet_index(path: &Path, out: &mut FxHashMap<String, usize>) -> Result<()> {
    let input = source::open(path)?;
    for (n, line) in input.bounded_lines().enumerate() {
        let line = line.map_err(|e| Error::io(path, e))?;
        if line.starts_with(' ') || line.trim().is_empty() {
            continue;
        }
        let mut f = line.split(' ');
        let (Some(lemma), Some(_pos), Some(count)) = (f.next(), f.next(), f.next()) else {
            return Err(Error::Parse {
                path: path.to_path_buf(),
                line: n + 1,
                message: "expected lemma pos synset_cnt ...".into(),
            });
        };
        let count: usize = count.parse().map_err(|_| Error::Parse {
            path: path.to_path_buf(),
            line: n + 1,
            message: format!("synset_cnt '{count}' is not a number"),
        })?;
        *out.entry(lemma.to_string()).or_default() += count;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_come_from_the_lexicon_capped_and_only_for_frequent_words() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("s.tsv");
        std::fs::write(&file, "word\tnoun\ttotal\nbank\t10\t18\nriver\t1\t1\n").unwrap();
        let rule = Rule {
            source: Source::Lexicon(file.clone()),
            max_senses: 3,
            min_count: 10,
        };
        let k = rule
            .senses(&["bank", "river", "zzz", "bank"], &[50, 50, 50, 5])
            .unwrap();
        assert_eq!(k, vec![3, 1, 1, 1]);
        std::fs::write(&file, "bank\tx\n").unwrap();
        let e = rule.senses(&["bank"], &[50]).unwrap_err();
        assert!(
            e.to_string()
                .ends_with(":1: expected word<TAB>...<TAB>number of senses"),
            "{e}"
        );
    }

    #[test]
    fn a_wordnet_dict_directory_sums_parts_of_speech() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("index.noun"),
            "  1 licence line\nbank n 10 9 @ ~ 10 0 x\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("index.verb"), "bank v 8 5 @ 8 0 x\n").unwrap();
        let lex = read_lexicon(dir.path()).unwrap();
        assert_eq!(lex["bank"], 18);
    }

    #[test]
    fn the_frequency_rule_and_the_bundled_copy() {
        assert_eq!(frequency_senses(99, 100), 1);
        assert_eq!(frequency_senses(999, 100), 1);
        assert_eq!(frequency_senses(1000, 100), 2);
        assert_eq!(frequency_senses(10_000, 100), 3);
        let lex = read_lexicon(&crate::assets::path(BUNDLED)).unwrap();
        assert_eq!(lex["bank"], 18);
        assert_eq!(lex.len(), 147_306);
    }
}
