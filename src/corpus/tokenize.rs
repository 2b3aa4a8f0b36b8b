//! The tokenizer: Unicode-aware word splitting with options for case,
//! punctuation and numbers, plus rule-based sentence ends.
//!
//! A token is a maximal run of alphanumeric characters (any script, with
//! combining marks), where an apostrophe or hyphen *between* two such characters
//! stays inside the token ("don't", "state-of-the-art"). Numbers may keep inner
//! `.` and `,` ("3.14", "1,000"). Everything else is punctuation: dropped, or
//! emitted one character per token. A `.`, `!` or `?` followed by whitespace or
//! the end of a segment ends a sentence, except after a one-letter word or a
//! common abbreviation ("e.g.", "mr."): a rule-based stand-in for spaCy's splitter
//! used by Soleimani ch.6.2.
//!
//! Tokens are handed to a callback as `&str` from one reused buffer: no
//! allocation per token.

use serde::{Deserialize, Serialize};

/// What to do with number tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Numbers {
    /// Keep them as they are.
    #[default]
    Keep,
    /// Replace every number by the token [`NUMBER_TOKEN`].
    Map,
    /// Drop them.
    Drop,
}

/// The token numbers are mapped to with [`Numbers::Map`].
pub const NUMBER_TOKEN: &str = "<num>";

/// Tokenizer options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenizerConfig {
    /// Lowercase every token.
    pub lowercase: bool,
    /// Drop punctuation (otherwise each punctuation character is a token).
    pub strip_punctuation: bool,
    /// Number handling.
    pub numbers: Numbers,
}

impl Default for TokenizerConfig {
    fn default() -> Self {
        TokenizerConfig {
            lowercase: true,
            strip_punctuation: true,
            numbers: Numbers::Keep,
        }
    }
}

/// Receives the tokenizer's output.
pub trait TokenSink {
    /// One token.
    fn token(&mut self, token: &str);
    /// A sentence ended (only called after at least one token of that sentence).
    fn sentence_end(&mut self);
}

/// Words after which a full stop does not end a sentence.
const ABBREVIATIONS: &[&str] = &[
    "mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "vs", "etc", "eg", "ie", "no", "fig", "inc",
    "ltd", "co", "corp", "gen", "col", "lt", "sgt", "rev", "jan", "feb", "mar", "apr", "jun",
    "jul", "aug", "sep", "sept", "oct", "nov", "dec", "approx", "ca", "cf", "al",
];

/// A reusable tokenizer.
#[derive(Debug, Clone, Default)]
pub struct Tokenizer {
    config: TokenizerConfig,
    buf: String,
    last_word_len: usize,
    last_word_abbrev: bool,
    pending: bool,
}

impl Tokenizer {
    /// A tokenizer with the given options.
    pub fn new(config: TokenizerConfig) -> Self {
        Tokenizer {
            config,
            ..Default::default()
        }
    }

    /// The options in force.
    pub fn config(&self) -> TokenizerConfig {
        self.config
    }

    /// Tokenizes `text`, feeding `sink`. Sentence state carries over between
    /// calls, so a document may arrive in several segments; call
    /// [`Tokenizer::flush`] at the end of a document.
    pub fn feed(&mut self, text: &str, sink: &mut impl TokenSink) {
        let mut chars = text.char_indices().peekable();
        while let Some((start, c)) = chars.next() {
            if c.is_whitespace() {
                continue;
            }
            if is_word_char(c) {
                let mut end = start + c.len_utf8();
                let mut numeric = c.is_numeric();
                while let Some(&(i, d)) = chars.peek() {
                    if is_word_char(d) {
                        numeric &= d.is_numeric();
                        end = i + d.len_utf8();
                        chars.next();
                        continue;
                    }
                    let joins =
                        matches!(d, '\'' | '’' | '-') || (numeric && matches!(d, '.' | ','));
                    if joins {
                        let after = text[i + d.len_utf8()..].chars().next();
                        let ok = match after {
                            Some(a) if numeric && matches!(d, '.' | ',') => a.is_numeric(),
                            Some(a) => is_word_char(a),
                            None => false,
                        };
                        if ok {
                            end = i + d.len_utf8();
                            chars.next();
                            continue;
                        }
                    }
                    break;
                }
                self.word(&text[start..end], numeric, sink);
            } else {
                let ends_sentence = matches!(c, '.' | '!' | '?' | '。' | '！' | '？')
                    && chars
                        .peek()
                        .is_none_or(|&(_, n)| n.is_whitespace() || is_closing(n));
                if !self.config.strip_punctuation {
                    let mut b = [0u8; 4];
                    sink.token(c.encode_utf8(&mut b));
                    self.pending = true;
                }
                if ends_sentence && self.pending {
                    let abbreviation =
                        c == '.' && (self.last_word_len == 1 || self.last_word_abbrev);
                    if !abbreviation {
                        sink.sentence_end();
                        self.pending = false;
                    }
                }
                self.last_word_len = 0;
                self.last_word_abbrev = false;
            }
        }
    }

    /// Ends the current sentence, if any token is pending.
    pub fn flush(&mut self, sink: &mut impl TokenSink) {
        if self.pending {
            sink.sentence_end();
        }
        self.pending = false;
        self.last_word_len = 0;
        self.last_word_abbrev = false;
    }

    fn word(&mut self, word: &str, numeric: bool, sink: &mut impl TokenSink) {
        self.last_word_len = word.chars().count();
        self.last_word_abbrev = ABBREVIATIONS.iter().any(|a| a.eq_ignore_ascii_case(word));
        if numeric {
            match self.config.numbers {
                Numbers::Keep => {}
                Numbers::Map => {
                    sink.token(NUMBER_TOKEN);
                    self.pending = true;
                    return;
                }
                Numbers::Drop => return,
            }
        }
        self.pending = true;
        if !self.config.lowercase || !word.chars().any(char::is_uppercase) {
            sink.token(word);
            return;
        }
        self.buf.clear();
        if word.is_ascii() {
            self.buf.push_str(word);
            self.buf.make_ascii_lowercase();
        } else {
            self.buf.extend(word.chars().flat_map(char::to_lowercase));
        }
        sink.token(&self.buf);
    }
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || is_mark(c)
}

/// Combining marks (Devanagari vowel signs and the like) belong to their word.
fn is_mark(c: char) -> bool {
    matches!(c as u32, 0x0300..=0x036F | 0x0900..=0x0DFF | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF | 0xFE20..=0xFE2F)
        && !c.is_alphanumeric()
        && !c.is_whitespace()
}

fn is_closing(c: char) -> bool {
    matches!(c, '"' | '\'' | ')' | ']' | '»' | '”' | '’')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Collect(Vec<Vec<String>>, Vec<String>);
    impl TokenSink for Collect {
        fn token(&mut self, t: &str) {
            self.1.push(t.to_string());
        }
        fn sentence_end(&mut self) {
            self.0.push(std::mem::take(&mut self.1));
        }
    }

    fn run(config: TokenizerConfig, text: &str) -> Vec<Vec<String>> {
        let mut t = Tokenizer::new(config);
        let mut c = Collect::default();
        t.feed(text, &mut c);
        t.flush(&mut c);
        c.0
    }

    #[test]
    fn words_sentences_and_case() {
        let s = run(
            TokenizerConfig::default(),
            "Dr. Smith doesn't like state-of-the-art Tech. Café ÉTÉ! 3.14 and 1,000 -- ok?",
        );
        assert_eq!(
            s,
            vec![
                vec!["dr", "smith", "doesn't", "like", "state-of-the-art", "tech"],
                vec!["café", "été"],
                vec!["3.14", "and", "1,000", "ok"],
            ]
        );
    }

    #[test]
    fn punctuation_kept_and_numbers_mapped() {
        let config = TokenizerConfig {
            lowercase: false,
            strip_punctuation: false,
            numbers: Numbers::Map,
        };
        let s = run(config, "Hi, 42 (x). Yes");
        assert_eq!(
            s,
            vec![vec!["Hi", ",", "<num>", "(", "x", ")", "."], vec!["Yes"]]
        );
    }

    #[test]
    fn numbers_dropped_and_non_latin_scripts() {
        let config = TokenizerConfig {
            numbers: Numbers::Drop,
            ..Default::default()
        };
        let s = run(config, "Москва 1999 東京 नमस्ते");
        assert_eq!(s, vec![vec!["москва", "東京", "नमस्ते"]]);
    }

    #[test]
    fn initials_do_not_end_sentences() {
        let s = run(
            TokenizerConfig::default(),
            "J. R. R. Tolkien wrote it. Then",
        );
        assert_eq!(
            s,
            vec![vec!["j", "r", "r", "tolkien", "wrote", "it"], vec!["then"]]
        );
    }
}
