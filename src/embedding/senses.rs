//! The sense inventory of a multi-sense embedding (`--algo senses`): for
//! every sense row (`bank#1`, `bank#2`...) its word, the share of the word's
//! PPMI mass it holds and its strongest context words with their weights (a
//! truncation of the sparse sense vector), kept in a sidecar file next to the
//! vectors so that any tool reads the vectors and wordbench also reads the
//! senses. Sense induction ([`SenseTable::induce`]) compares a sentence's
//! bag of words with those sparse vectors (docs/methods/senses.md).
//!
//! Sidecar format (`VECTORS.senses`, UTF-8 text): a first line starting
//! with `#`, then one line per sense,
//! `sense<TAB>word<TAB>mass<TAB>context:weight context:weight ...`, contexts
//! by decreasing weight.

use std::fmt::Write as _;
use std::io::BufRead;
use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;

use crate::corpus::source::BoundedLines;
use crate::{Error, Result};

/// The first line of a sidecar file.
const HEADER: &str = "# wordbench senses 1: sense<TAB>word<TAB>mass<TAB>context:weight ...";

/// One sense of a word.
#[derive(Debug, Clone, PartialEq)]
pub struct Sense {
    /// The row name in the vector file, `word#j` (1-based, by decreasing mass).
    pub name: String,
    /// The ambiguous word.
    pub word: String,
    /// Fraction of the word's PPMI mass this sense holds.
    pub mass: f32,
    /// Strongest context words and their weights in the sparse sense vector,
    /// by decreasing weight.
    pub contexts: Vec<(String, f32)>,
}

impl Sense {
    /// The first `n` context words, comma-separated: the sense's label.
    pub fn label(&self, n: usize) -> String {
        let words: Vec<&str> = self
            .contexts
            .iter()
            .take(n)
            .map(|(w, _)| w.as_str())
            .collect();
        words.join(", ")
    }
}

/// Which sense a context picks, and every sense's score.
#[derive(Debug, Clone, PartialEq)]
pub struct Induction {
    /// Index into the word's senses (0 = `word#1`) of the highest score;
    /// `None` when every score is 0: nothing in the context supports any
    /// sense, and picking one (the first, or the largest) would be a guess
    /// presented as an answer.
    pub best: Option<usize>,
    /// Cosine of each sense's sparse vector with the context vector.
    pub scores: Vec<f64>,
    /// Context words that occur in some sense vector.
    pub matched: usize,
}

/// Every sense of an embedding, grouped by word.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SenseTable {
    senses: Vec<Sense>,
    by_word: FxHashMap<String, Vec<usize>>,
}

/// Whether `path` is a sidecar file (it starts with the sidecar's first line).
pub fn is_sidecar(path: &Path) -> bool {
    let mut head = [0u8; 18];
    std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
        .is_ok_and(|()| HEADER.as_bytes().starts_with(&head))
}

/// The sidecar path of a vector file: `VECTORS.senses`.
pub fn sidecar_path(vectors: &Path) -> PathBuf {
    let mut name = vectors.as_os_str().to_owned();
    name.push(".senses");
    PathBuf::from(name)
}

impl SenseTable {
    /// A table of `senses` (kept in the given order within each word).
    pub fn new(senses: Vec<Sense>) -> SenseTable {
        let mut by_word: FxHashMap<String, Vec<usize>> = FxHashMap::default();
        for (i, s) in senses.iter().enumerate() {
            by_word.entry(s.word.clone()).or_default().push(i);
        }
        SenseTable { senses, by_word }
    }

    /// All senses.
    pub fn senses(&self) -> &[Sense] {
        &self.senses
    }

    /// Number of senses.
    pub fn len(&self) -> usize {
        self.senses.len()
    }

    /// True when no word has senses.
    pub fn is_empty(&self) -> bool {
        self.senses.is_empty()
    }

    /// Number of words with senses.
    pub fn words(&self) -> usize {
        self.by_word.len()
    }

    /// The senses of `word`, `word#1` first (empty if it has none).
    pub fn of(&self, word: &str) -> Vec<&Sense> {
        self.by_word
            .get(word)
            .map(|ids| ids.iter().map(|&i| &self.senses[i]).collect())
            .unwrap_or_default()
    }

    /// The sense of `word` that `context` (a sentence) picks: the sense
    /// whose sparse vector has the largest cosine with the bag-of-words
    /// counts of the context's tokens, the target word itself left out
    /// (Soleimani eq. 5.2). `None` if `word` has no senses.
    pub fn induce(&self, word: &str, context: &str) -> Option<Induction> {
        let senses = self.of(word);
        if senses.is_empty() {
            return None;
        }
        let mut q: FxHashMap<String, f64> = FxHashMap::default();
        for token in tokens(context).filter(|t| t != word) {
            *q.entry(token).or_default() += 1.0;
        }
        let q_norm = q.values().map(|c| c * c).sum::<f64>().sqrt();
        let mut matched = std::collections::BTreeSet::new();
        let scores: Vec<f64> = senses
            .iter()
            .map(|s| {
                let (mut dot, mut ss) = (0.0f64, 0.0f64);
                for (c, w) in &s.contexts {
                    let w = f64::from(*w);
                    ss += w * w;
                    if let Some(n) = q.get(c) {
                        dot += w * n;
                        matched.insert(c.as_str());
                    }
                }
                if dot == 0.0 {
                    0.0
                } else {
                    dot / (ss.sqrt() * q_norm)
                }
            })
            .collect();
        let best = scores
            .iter()
            .enumerate()
            .fold(0, |b, (i, &s)| if s > scores[b] { i } else { b });
        let best = (scores[best] > 0.0).then_some(best);
        Some(Induction {
            best,
            scores,
            matched: matched.len(),
        })
    }

    /// Writes the sidecar text (see the module docs).
    pub fn to_text(&self) -> String {
        let mut out = String::with_capacity(64 * self.senses.len() + HEADER.len());
        out.push_str(HEADER);
        out.push('\n');
        for s in &self.senses {
            let _ = write!(out, "{}\t{}\t{:.6}\t", s.name, s.word, s.mass);
            for (i, (c, w)) in s.contexts.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                let _ = write!(out, "{c}:{w:.6}");
            }
            out.push('\n');
        }
        out
    }

    /// Reads the sidecar of `vectors` if there is one.
    pub fn load_beside(vectors: &Path) -> Result<Option<SenseTable>> {
        let path = sidecar_path(vectors);
        if !path.exists() {
            return Ok(None);
        }
        crate::corpus::source::check_regular(&path)?;
        let file = std::fs::File::open(&path).map_err(|e| Error::io(&path, e))?;
        SenseTable::read(std::io::BufReader::new(file), &path).map(Some)
    }

    /// Parses sidecar text; `path` names the source in errors.
    pub fn read(input: impl BufRead, path: &Path) -> Result<SenseTable> {
        let mut senses = Vec::new();
        for (n, line) in input.bounded_lines().enumerate() {
            let line = line.map_err(|e| Error::io(path, e))?;
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            senses.push(parse_line(&line).map_err(|message| Error::Parse {
                path: path.to_path_buf(),
                line: n + 1,
                message,
            })?);
        }
        Ok(SenseTable::new(senses))
    }
}

fn parse_line(line: &str) -> std::result::Result<Sense, String> {
    let fields: Vec<&str> = line.split('\t').collect();
    if fields.len() != 4 {
        return Err(format!(
            "{} tab-separated fields (expected 4: sense, word, mass, contexts)",
            fields.len()
        ));
    }
    let mass: f32 = fields[2]
        .parse()
        .map_err(|_| format!("mass '{}' is not a number", fields[2]))?;
    let mut contexts = Vec::new();
    for item in fields[3].split(' ').filter(|s| !s.is_empty()) {
        let (c, w) = item
            .rsplit_once(':')
            .ok_or_else(|| format!("context '{item}' is not word:weight"))?;
        let w: f32 = w
            .parse()
            .map_err(|_| format!("context weight '{w}' is not a number"))?;
        contexts.push((c.to_string(), w));
    }
    Ok(Sense {
        name: fields[0].to_string(),
        word: fields[1].to_string(),
        mass,
        contexts,
    })
}

/// The words of a sentence: split on white space, ASCII punctuation trimmed
/// from both ends, lower-cased (the bundled corpora are lower-case).
pub fn tokens(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split_whitespace().filter_map(|t| {
        let t = t.trim_matches(|c: char| c.is_ascii_punctuation());
        (!t.is_empty()).then(|| t.to_lowercase())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sense(name: &str, word: &str, contexts: &[(&str, f32)]) -> Sense {
        Sense {
            name: name.into(),
            word: word.into(),
            mass: 0.5,
            contexts: contexts.iter().map(|(c, w)| (c.to_string(), *w)).collect(),
        }
    }

    fn table() -> SenseTable {
        SenseTable::new(vec![
            sense("bank#1", "bank", &[("river", 2.0), ("water", 1.0)]),
            sense("bank#2", "bank", &[("money", 3.0), ("loan", 1.0)]),
        ])
    }

    #[test]
    fn induction_picks_the_sense_sharing_the_context() {
        let t = table();
        let r = t
            .induce("bank", "He took a LOAN from the bank, money!")
            .unwrap();
        assert_eq!(r.best, Some(1));
        assert_eq!(r.matched, 2);
        assert_eq!(r.scores[0], 0.0);
        // q = counts of 7 distinct tokens (bank removed), each 1: |q| = √7.
        let expect = (3.0 + 1.0) / (10f64.sqrt() * 7f64.sqrt());
        assert!((r.scores[1] - expect).abs() < 1e-12);
        let r = t.induce("bank", "the river water").unwrap();
        assert_eq!(r.best, Some(0));
        // Every score 0 (no context word, or only words of weight 0 in a
        // sense): no sense is picked.
        let none = t.induce("bank", "nothing here").unwrap();
        assert_eq!((none.best, none.matched), (None, 0));
        assert_eq!(none.scores, [0.0, 0.0]);
        let zero = SenseTable::new(vec![
            sense("bank#1", "bank", &[("river", 0.0)]),
            sense("bank#2", "bank", &[("money", 0.0)]),
        ]);
        let r = zero.induce("bank", "river money").unwrap();
        assert_eq!((r.best, r.matched), (None, 2));
        assert!(t.induce("plant", "x").is_none());
    }

    #[test]
    fn sidecar_text_round_trips_and_bad_lines_name_the_line() {
        let t = table();
        let text = t.to_text();
        let back = SenseTable::read(text.as_bytes(), Path::new("v.senses")).unwrap();
        assert_eq!(back.len(), 2);
        assert_eq!(back.of("bank")[1].label(2), "money, loan");
        assert_eq!(back.of("bank")[0].contexts, t.of("bank")[0].contexts);
        let e = SenseTable::read("# h\nbank#1\tbank\tx\t\n".as_bytes(), Path::new("v.senses"))
            .unwrap_err();
        assert_eq!(e.to_string(), "v.senses:2: mass 'x' is not a number");
        assert_eq!(
            sidecar_path(Path::new("out/v.txt")),
            PathBuf::from("out/v.txt.senses")
        );
    }
}
