//! The streaming token pipeline: file → documents → tokens → units, with the
//! held-out split applied on the way.
//!
//! A *unit* is a document, or a piece of at most `max_unit_tokens` tokens of a
//! longer one (text8 is a single 2-million-token document; word2vec and gensim
//! cut it into 10,000-token pieces as well). Units are the grain of the held-out
//! split: unit `i` is held out when `floor((i+1)·f) > floor(i·f)`, which spreads
//! a fraction `f` of units evenly and deterministically over the corpus. A unit
//! end is also a sentence end, so windows never cross units.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::format::Format;
use super::source::{self, LineReader};
use super::tokenize::{TokenSink, Tokenizer, TokenizerConfig};
use super::wiki;
use crate::{Error, Result};

/// Which part of the corpus a token belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Split {
    /// Counted and trained on.
    Train,
    /// Kept aside for perplexity; never counted or trained on.
    Heldout,
}

/// The held-out split's settings.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct HeldoutConfig {
    /// Fraction of units held out, in `[0, 0.5]`.
    pub fraction: f64,
    /// Longest unit, in tokens.
    pub max_unit_tokens: usize,
}

impl Default for HeldoutConfig {
    fn default() -> Self {
        HeldoutConfig {
            fraction: 0.05,
            max_unit_tokens: 10_000,
        }
    }
}

impl HeldoutConfig {
    /// Checks the ranges.
    pub fn validate(&self) -> Result<()> {
        if !(0.0..=0.5).contains(&self.fraction) {
            return Err(Error::param(
                "heldout",
                format!("{} (expected a fraction in [0, 0.5])", self.fraction),
            ));
        }
        if self.max_unit_tokens == 0 {
            return Err(Error::param("max-unit-tokens", "0 (expected at least 1)"));
        }
        Ok(())
    }

    /// The split of unit number `unit`.
    pub fn split_of(&self, unit: u64) -> Split {
        let f = self.fraction;
        if ((unit + 1) as f64 * f).floor() > (unit as f64 * f).floor() {
            Split::Heldout
        } else {
            Split::Train
        }
    }
}

/// Receives the tokenized corpus.
pub trait Visitor {
    /// One token of the given split.
    fn token(&mut self, token: &str, split: Split);
    /// The sentence in progress ended.
    fn sentence_end(&mut self, split: Split);
    /// A (non-empty) document ended.
    fn document_end(&mut self) {}
    /// Return false to stop reading early.
    fn wants_more(&self) -> bool {
        true
    }
}

/// What a read pass saw besides the tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadReport {
    /// Non-empty documents.
    pub documents: u64,
    /// Invalid UTF-8 sequences replaced by U+FFFD.
    pub replacements: u64,
}

/// How to read a corpus: format, tokenizer and split, and the memory its
/// co-occurrence counts may use.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct ReadConfig {
    /// File format (resolve [`Format::Auto`] first for speed; it is resolved here otherwise).
    pub format: Format,
    /// Tokenizer options.
    pub tokenizer: TokenizerConfig,
    /// Held-out split.
    pub heldout: HeldoutConfig,
    /// Memory budget of co-occurrence counting, in MiB (0: half of the RAM);
    /// runs that do not fit spill to temporary files. It never changes the
    /// corpus's words, only where counting keeps its runs.
    #[serde(default)]
    pub memory_mb: u64,
}

impl ReadConfig {
    /// The counting memory budget in bytes.
    pub fn memory_bytes(&self) -> u64 {
        match self.memory_mb {
            0 => crate::cooc::default_memory(),
            mb => mb << 20,
        }
    }
}

/// Reads `path` once, feeding `visitor`.
pub fn read(path: &Path, config: &ReadConfig, visitor: &mut impl Visitor) -> Result<ReadReport> {
    config.heldout.validate()?;
    let format = config.format.resolve(path)?;
    let mut units = Units {
        visitor,
        heldout: config.heldout,
        unit: 0,
        unit_tokens: 0,
        sentence_open: false,
        doc_tokens: 0,
        documents: 0,
    };
    let mut tokenizer = Tokenizer::new(config.tokenizer);
    let input = source::open(path)?;
    let replacements = match format {
        Format::Wikipedia => {
            wiki::for_each_article(input, path, |text| {
                tokenizer.feed(text, &mut units);
                units.end_document(&mut tokenizer);
                Ok(units.visitor.wants_more())
            })?;
            0
        }
        _ => {
            let mut lines = LineReader::new(input, path);
            while let Some(seg) = lines.next_segment()? {
                match format {
                    Format::Text => {
                        if seg.line_end && seg.text.trim().is_empty() {
                            units.end_document(&mut tokenizer);
                        } else {
                            tokenizer.feed(seg.text, &mut units);
                        }
                    }
                    Format::FastText => {
                        tokenizer.feed(strip_labels(seg.text), &mut units);
                        if seg.line_end {
                            units.end_document(&mut tokenizer);
                        }
                    }
                    _ => {
                        tokenizer.feed(seg.text, &mut units);
                        if seg.line_end {
                            units.end_document(&mut tokenizer);
                        }
                    }
                }
                if !units.visitor.wants_more() {
                    break;
                }
            }
            units.end_document(&mut tokenizer);
            lines.replacements()
        }
    };
    Ok(ReadReport {
        documents: units.documents,
        replacements,
    })
}

/// Drops the leading `__label__X` words of a fastText line.
pub fn strip_labels(line: &str) -> &str {
    let mut rest = line.trim_start();
    while let Some(after) = rest.strip_prefix("__label__") {
        rest = after
            .find(char::is_whitespace)
            .map_or("", |i| after[i..].trim_start());
    }
    rest
}

/// Adapts tokenizer output to units and splits.
struct Units<'v, V> {
    visitor: &'v mut V,
    heldout: HeldoutConfig,
    unit: u64,
    unit_tokens: usize,
    sentence_open: bool,
    doc_tokens: u64,
    documents: u64,
}

impl<V: Visitor> Units<'_, V> {
    fn split(&self) -> Split {
        self.heldout.split_of(self.unit)
    }

    fn end_unit(&mut self) {
        if self.unit_tokens > 0 {
            self.close_sentence();
            self.unit += 1;
            self.unit_tokens = 0;
        }
    }

    fn close_sentence(&mut self) {
        if self.sentence_open {
            self.visitor.sentence_end(self.split());
            self.sentence_open = false;
        }
    }

    fn end_document(&mut self, tokenizer: &mut Tokenizer) {
        tokenizer.flush(self);
        self.end_unit();
        if self.doc_tokens > 0 {
            self.documents += 1;
            self.doc_tokens = 0;
            self.visitor.document_end();
        }
    }
}

impl<V: Visitor> TokenSink for Units<'_, V> {
    fn token(&mut self, token: &str) {
        if self.unit_tokens == self.heldout.max_unit_tokens {
            self.end_unit();
        }
        self.visitor.token(token, self.split());
        self.unit_tokens += 1;
        self.doc_tokens += 1;
        self.sentence_open = true;
    }

    fn sentence_end(&mut self) {
        self.close_sentence();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heldout_rule_spreads_units_evenly() {
        let h = HeldoutConfig::default();
        let held: Vec<u64> = (0..100)
            .filter(|&u| h.split_of(u) == Split::Heldout)
            .collect();
        assert_eq!(held, vec![19, 39, 59, 79, 99]);
        let none = HeldoutConfig { fraction: 0.0, ..h };
        assert!((0..1000).all(|u| none.split_of(u) == Split::Train));
    }

    #[test]
    fn strips_fasttext_labels() {
        assert_eq!(
            strip_labels("__label__pos __label__x good movie"),
            "good movie"
        );
        assert_eq!(strip_labels("__label__neg"), "");
        assert_eq!(strip_labels("plain"), "plain");
    }
}
