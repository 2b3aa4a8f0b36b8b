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
//! by decreasing weight. Version 2 (the first line starts
//! `# wordbench senses 2`) says whether the contexts are the whole sparse
//! sense vector (every context word of positive weight, what induction
//! needs) or a cut to the strongest few; version 1 files (written before
//! version 2) always hold a cut (the 100 strongest by default), still load,
//! and induce on that cut ([`SenseTable::is_whole`] tells them apart).

use std::fmt::Write as _;
use std::io::BufRead;
use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;

use crate::corpus::source::BoundedLines;
use crate::{Error, Result};

/// The start every sidecar file's first line shares.
const MAGIC: &str = "# wordbench senses ";

/// The first line of a sidecar whose senses hold their whole sparse vectors.
const HEADER_WHOLE: &str =
    "# wordbench senses 2 whole: sense<TAB>word<TAB>mass<TAB>context:weight ... (every context of positive weight)";

/// How [`HEADER_WHOLE`] starts (what the reader looks for).
const WHOLE_START: &str = "# wordbench senses 2 whole:";

/// The first line of a sidecar whose senses hold their strongest contexts only.
const HEADER_CUT: &str =
    "# wordbench senses 2 cut: sense<TAB>word<TAB>mass<TAB>context:weight ... (the strongest contexts)";

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
    whole: bool,
}

/// Whether `path` is a sidecar file (it starts with the sidecar's first line).
pub fn is_sidecar(path: &Path) -> bool {
    let mut head = [0u8; MAGIC.len()];
    std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
        .is_ok_and(|()| MAGIC.as_bytes() == head)
}

/// The sidecar path of a vector file: `VECTORS.senses`.
pub fn sidecar_path(vectors: &Path) -> PathBuf {
    let mut name = vectors.as_os_str().to_owned();
    name.push(".senses");
    PathBuf::from(name)
}

impl SenseTable {
    /// A table of `senses` (kept in the given order within each word)
    /// whose contexts are the whole sparse sense vectors.
    pub fn new(senses: Vec<Sense>) -> SenseTable {
        let mut by_word: FxHashMap<String, Vec<usize>> = FxHashMap::default();
        for (i, s) in senses.iter().enumerate() {
            by_word.entry(s.word.clone()).or_default().push(i);
        }
        SenseTable {
            senses,
            by_word,
            whole: true,
        }
    }

    /// The same table, marked as holding only each sense's strongest
    /// contexts (`whole = false`) or its whole sparse vector.
    pub fn with_whole(mut self, whole: bool) -> SenseTable {
        self.whole = whole;
        self
    }

    /// True when every sense holds its whole sparse vector (every context
    /// word of positive weight); false for a cut to the strongest contexts
    /// (a version-1 sidecar, or `label_contexts` > 0), on which induction
    /// misses the contexts that were cut.
    pub fn is_whole(&self) -> bool {
        self.whole
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
    /// (Soleimani eq. 5.2), on the contexts the table holds (the whole
    /// vectors unless [`SenseTable::is_whole`] is false). `None` if `word`
    /// has no senses.
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
        let contexts: usize = self.senses.iter().map(|s| s.contexts.len()).sum();
        let mut out = String::with_capacity(64 * self.senses.len() + 16 * contexts + 128);
        out.push_str(if self.whole { HEADER_WHOLE } else { HEADER_CUT });
        out.push('\n');
        for s in &self.senses {
            let _ = write!(out, "{}\t{}\t{:.6}\t", s.name, s.word, s.mass);
            for (i, (c, w)) in s.contexts.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                let _ = write!(out, "{c}:{}", Weight(*w));
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
        let mut whole = false;
        for (n, line) in input.bounded_lines().enumerate() {
            let line = line.map_err(|e| Error::io(path, e))?;
            if n == 0 && line.starts_with(WHOLE_START) {
                whole = true;
            }
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            senses.push(parse_line(&line).map_err(|message| Error::Parse {
                path: path.to_path_buf(),
                line: n + 1,
                message,
            })?);
        }
        Ok(SenseTable::new(senses).with_whole(whole))
    }
}

/// A context weight as the sidecar writes it: four significant digits,
/// trailing zeros dropped (`3.142`, `0.01234`, `12`), enough for
/// induction's cosines and about half the text of six fixed decimals.
struct Weight(f32);

impl std::fmt::Display for Weight {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let w = self.0;
        if w == 0.0 || !w.is_finite() {
            return write!(f, "{w}");
        }
        let digits = (3 - w.abs().log10().floor() as i32).clamp(0, 12) as usize;
        let text = format!("{w:.digits$}");
        let text = if text.contains('.') {
            text.trim_end_matches('0').trim_end_matches('.')
        } else {
            &text
        };
        f.write_str(text)
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

    /// Two senses of `bank` with disjoint context words, 150 each, weights
    /// falling from 10: `a0..a149` for `bank#1`, `b0..b149` for `bank#2`.
    fn disjoint(cut: Option<usize>) -> SenseTable {
        let contexts = |prefix: &str| -> Vec<(String, f32)> {
            (0..150)
                .map(|i| (format!("{prefix}{i}"), 10.0 - 0.05 * i as f32))
                .take(cut.unwrap_or(usize::MAX))
                .collect()
        };
        let senses = ["a", "b"]
            .iter()
            .enumerate()
            .map(|(j, prefix)| Sense {
                name: format!("bank#{}", j + 1),
                word: "bank".into(),
                mass: 0.5,
                contexts: contexts(prefix),
            })
            .collect();
        SenseTable::new(senses).with_whole(cut.is_none())
    }

    #[test]
    fn induction_uses_the_whole_sense_vectors_beyond_the_old_top_100_cut() {
        let whole = disjoint(None);
        // Only the second sense's words: sense 2, whatever their rank.
        let r = whole.induce("bank", "b0 b3 bank b7").unwrap();
        assert_eq!((r.best, r.matched, r.scores[0]), (Some(1), 3, 0.0));
        let r = whole.induce("bank", "b120 b125, b149").unwrap();
        assert_eq!((r.best, r.matched, r.scores[0]), (Some(1), 3, 0.0));
        // cos = Σ w / (‖s_2‖ √3) over the three matched words.
        let w = |i: f64| f64::from(10.0f32 - 0.05 * i as f32);
        let norm: f64 = (0..150)
            .map(|i| w(f64::from(i)).powi(2))
            .sum::<f64>()
            .sqrt();
        let expect = (w(120.0) + w(125.0) + w(149.0)) / (norm * 3f64.sqrt());
        assert!(
            (r.scores[1] - expect).abs() < 1e-9,
            "{} vs {expect}",
            r.scores[1]
        );
        assert!(whole.is_whole());
        // The old sidecar's cut (the 100 strongest contexts) sees none of
        // them: every score 0, no sense picked.
        let cut = disjoint(Some(100));
        assert!(!cut.is_whole());
        let r = cut.induce("bank", "b120 b125, b149").unwrap();
        assert_eq!((r.best, r.matched), (None, 0));
        assert_eq!(r.scores, [0.0, 0.0]);
        // Words of both senses: the one with more (and stronger) support.
        let r = whole.induce("bank", "a140 b1 b2").unwrap();
        assert_eq!(r.best, Some(1));
    }

    #[test]
    fn version_1_sidecars_load_as_a_cut_and_version_2_says_which() {
        let v1 = "# wordbench senses 1: sense<TAB>word<TAB>mass<TAB>context:weight ...\n\
                  bank#1\tbank\t0.600000\triver:2.000000 water:1.000000\n\
                  bank#2\tbank\t0.400000\tmoney:3.000000\n";
        let t = SenseTable::read(v1.as_bytes(), Path::new("old.senses")).unwrap();
        assert!(!t.is_whole());
        assert_eq!(t.of("bank")[0].contexts[1], ("water".to_string(), 1.0));
        assert_eq!(t.induce("bank", "money").unwrap().best, Some(1));
        for table in [disjoint(None), disjoint(Some(100))] {
            let text = table.to_text();
            let back = SenseTable::read(text.as_bytes(), Path::new("v.senses")).unwrap();
            assert_eq!(back.is_whole(), table.is_whole());
            assert_eq!(
                back.of("bank")[1].contexts.len(),
                table.of("bank")[1].contexts.len()
            );
        }
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in [("old", v1.to_string()), ("new", disjoint(None).to_text())] {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            assert!(is_sidecar(&path), "{name}");
        }
    }

    #[test]
    fn weights_are_written_with_four_significant_digits() {
        let text = |w: f32| Weight(w).to_string();
        assert_eq!(text(3.25159), "3.252");
        assert_eq!(text(12.0), "12");
        assert_eq!(text(0.0123456), "0.01235");
        assert_eq!(text(1234.56), "1235");
        assert_eq!(text(0.0), "0");
        assert_eq!(text(2.5), "2.5");
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
