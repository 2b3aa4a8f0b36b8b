//! The streaming token pipeline: file → documents → tokens → units, with the
//! held-out split applied on the way.
//!
//! A *unit* is a document, or a piece of at most `max_unit_tokens` tokens of a
//! longer one (text8 is a single 2-million-token document; word2vec and gensim
//! cut it into 10,000-token pieces as well). Units are the grain of the held-out
//! split: unit `i` is held out when `floor((i+1)·f) > floor(i·f)`, which spreads
//! a fraction `f` of units evenly and deterministically over the corpus. A unit
//! end is also a sentence end, so windows never cross units.

use std::io::BufRead;
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
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadReport {
    /// Non-empty documents.
    pub documents: u64,
    /// Invalid UTF-8 sequences replaced by U+FFFD.
    pub replacements: u64,
    /// What the reader noticed and worked around (input that does not look
    /// like text, tokens cut, articles read in pieces), one line each, naming
    /// the file.
    pub warnings: Vec<String>,
}

/// Bounds on what one read holds at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadLimits {
    /// Longest piece of one Wikipedia article cleaned at once (bytes).
    pub article_bytes: usize,
}

impl Default for ReadLimits {
    fn default() -> Self {
        ReadLimits {
            article_bytes: wiki::MAX_PIECE,
        }
    }
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
            0 => crate::memory::default_budget(),
            mb => mb << 20,
        }
    }
}

/// Reads `path` once, feeding `visitor`.
pub fn read(path: &Path, config: &ReadConfig, visitor: &mut impl Visitor) -> Result<ReadReport> {
    read_within(path, config, ReadLimits::default(), visitor)
}

/// [`read`] with explicit [`ReadLimits`].
pub fn read_within(
    path: &Path,
    config: &ReadConfig,
    limits: ReadLimits,
    visitor: &mut impl Visitor,
) -> Result<ReadReport> {
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
    let mut input = source::open_stream(path)?;
    let mut warnings = Vec::new();
    let head = input.fill_buf().map_err(|e| Error::io(path, e))?;
    if let Some(w) = not_text_warning(path, head) {
        warnings.push(w);
    }
    let replacements = match format {
        Format::Wikipedia => {
            let mut long = LongArticles::default();
            let options = wiki::StripOptions::default();
            wiki::for_each_piece(input, path, &options, limits.article_bytes, |piece| {
                tokenizer.feed(piece.text, &mut units);
                if piece.article_end {
                    units.end_document(&mut tokenizer);
                } else {
                    long.note(&piece);
                }
                Ok(units.visitor.wants_more())
            })?;
            warnings.extend(long.warnings(path, limits.article_bytes));
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
            if let (cuts, Some((line, offset))) = lines.cut_tokens() {
                warnings.push(format!(
                    "{}:{line}: a run of more than {} without whitespace (byte {offset} of the {}) \
                     was cut into pieces read as separate words ({cuts} cut{} in all); is this text?",
                    path.display(),
                    crate::memory::human(2 * source::MAX_SEGMENT as u64),
                    stream_name(path),
                    if cuts == 1 { "" } else { "s" },
                ));
            }
            lines.replacements()
        }
    };
    Ok(ReadReport {
        documents: units.documents,
        replacements,
        warnings,
    })
}

/// "decompressed text" or "file", for byte offsets.
fn stream_name(path: &Path) -> &'static str {
    match source::plain_len(path) {
        Ok(Some(_)) => "file",
        _ => "decompressed text",
    }
}

/// Articles read in pieces, for one warning.
#[derive(Default)]
struct LongArticles {
    articles: u64,
    last_line: Option<Option<u64>>,
    first_line: Option<u64>,
    cut_words: u64,
}

impl LongArticles {
    fn note(&mut self, piece: &wiki::Piece<'_>) {
        if self.last_line != Some(piece.line) {
            self.articles += 1;
            self.last_line = Some(piece.line);
            if self.articles == 1 {
                self.first_line = piece.line;
            }
        }
        self.cut_words += u64::from(piece.cut_word);
    }

    fn warnings(&self, path: &Path, limit: usize) -> Vec<String> {
        if self.articles == 0 {
            return Vec::new();
        }
        let at = self.first_line.map_or(String::new(), |l| format!(":{l}"));
        let mut out = vec![format!(
            "{}{at}: {} article{} longer than {} of wikitext {} cleaned and read in pieces of about that size \
             (markup crossing a cut may be left in the text)",
            path.display(),
            self.articles,
            if self.articles == 1 { "" } else { "s" },
            crate::memory::human(limit as u64),
            if self.articles == 1 { "was" } else { "were" },
        )];
        if self.cut_words > 0 {
            out.push(format!(
                "{}{at}: {} run{} of more than {} without whitespace in an article {} cut into separate words; is this text?",
                path.display(),
                self.cut_words,
                if self.cut_words == 1 { "" } else { "s" },
                crate::memory::human(limit as u64 / 2),
                if self.cut_words == 1 { "was" } else { "were" },
            ));
        }
        out
    }
}

/// A warning when the first bytes of a stream do not look like text: many
/// control characters or invalid UTF-8 sequences (random or compressed data
/// with no NUL byte, which is an error of its own).
pub fn not_text_warning(path: &Path, head: &[u8]) -> Option<String> {
    if head.len() < 64 {
        return None;
    }
    let mut odd = 0usize;
    for chunk in head.utf8_chunks() {
        odd += chunk.invalid().len();
        odd += chunk
            .valid()
            .bytes()
            .filter(|&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0c) || b == 0x7f)
            .count();
    }
    // Text in a legacy 8-bit encoding has a few per cent; random bytes about half.
    (odd * 5 > head.len()).then(|| {
        format!(
            "{}: does not look like text ({} of the first {} bytes are control characters or invalid UTF-8); \
             reading it anyway",
            path.display(),
            odd,
            head.len()
        )
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
    fn input_that_does_not_look_like_text_is_noticed() {
        let path = Path::new("x.txt");
        let prose = "The quick brown fox jumps over the lazy dog.\tÉté, naïve!\r\n".repeat(40);
        assert_eq!(not_text_warning(path, prose.as_bytes()), None);
        // Latin-1 text read as UTF-8: a few invalid bytes, still text.
        let latin1: Vec<u8> = prose
            .replace('É', "E")
            .replace('é', "\u{1}")
            .bytes()
            .map(|b| if b == 1 { 0xE9 } else { b })
            .collect();
        assert_eq!(not_text_warning(path, &latin1), None);
        // Random bytes without a NUL.
        let mut x = 12345u32;
        let random: Vec<u8> = (0..4096)
            .map(|_| {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                ((x >> 16) as u8).max(1)
            })
            .collect();
        let w = not_text_warning(path, &random).unwrap();
        assert!(w.starts_with("x.txt: does not look like text"), "{w}");
        // Too little to judge.
        assert_eq!(not_text_warning(path, &random[..10]), None);
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
