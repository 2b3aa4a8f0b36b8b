//! The corpus options, declared once as a schema like a method's
//! hyperparameters: the command line's flags (`--min-count`, `--keep-case`,
//! ...), the Corpus screen's form and their checks all come from [`OPTIONS`],
//! and [`CorpusConfig::from_params`] is the one way from their values to the
//! configuration the readers use.

use super::{
    CorpusConfig, Format, HeldoutConfig, Numbers, ReadConfig, TokenizerConfig, VocabConfig,
};
use crate::schema::{ParamSpec, Params, Value};

/// What errors name these options by.
pub const OWNER: &str = "corpus";

/// Format names, in [`Format`] order.
const FORMATS: &[&str] = &["auto", "text", "lines", "wiki", "fasttext"];

/// Number handling names, in [`Numbers`] order.
const NUMBERS: &[&str] = &["keep", "map", "drop"];

/// Every corpus option.
pub static OPTIONS: &[ParamSpec] = &[
    ParamSpec::choice("format", FORMATS, "auto", "auto: detect; text: blank lines separate documents; lines: one per line; wiki: XML dump; fasttext: labelled lines"),
    ParamSpec::flag("keep_case", false, "keep the case of tokens (else fold to lower case)"),
    ParamSpec::flag("keep_punct", false, "keep punctuation characters as tokens"),
    ParamSpec::choice("numbers", NUMBERS, "keep", "numbers as they are, all as <num>, or dropped"),
    ParamSpec::int("min_count", 1, 1_000_000_000, 5, "drop words seen fewer times than this"),
    ParamSpec::int("max_vocab", 0, 100_000_000, 0, "keep at most this many most frequent words (0: no limit)"),
    ParamSpec::float("heldout", 0.0, 0.5, 0.05, "share of documents (or 10,000-token pieces) held out for perplexity"),
    ParamSpec::int("memory", 0, 1 << 30, 0, "memory budget of co-occurrence counting in MiB, or with a unit: 512M, 2G (0: half the RAM); counts that do not fit spill to temporary files"),
];

impl CorpusConfig {
    /// The configuration the option values describe (values are already
    /// checked by [`Params`]).
    pub fn from_params(p: &Params) -> CorpusConfig {
        let format = match p.choice("format") {
            "text" => Format::Text,
            "lines" => Format::Lines,
            "wiki" => Format::Wikipedia,
            "fasttext" => Format::FastText,
            _ => Format::Auto,
        };
        let numbers = match p.choice("numbers") {
            "map" => Numbers::Map,
            "drop" => Numbers::Drop,
            _ => Numbers::Keep,
        };
        CorpusConfig {
            read: ReadConfig {
                format,
                tokenizer: TokenizerConfig {
                    lowercase: !p.bool("keep_case"),
                    strip_punctuation: !p.bool("keep_punct"),
                    numbers,
                },
                heldout: HeldoutConfig {
                    fraction: p.f64("heldout"),
                    ..HeldoutConfig::default()
                },
                memory_mb: p.usize("memory") as u64,
            },
            vocab: VocabConfig {
                min_count: p.usize("min_count").max(1) as u64,
                max_size: match p.usize("max_vocab") {
                    0 => None,
                    n => Some(n),
                },
            },
        }
    }

    /// The option values of this configuration (to show a session's in the
    /// workbench). Values outside the options' ranges are clamped into them.
    pub fn to_params(&self) -> Params {
        let t = &self.read.tokenizer;
        let format = match self.read.format {
            Format::Auto => "auto",
            Format::Text => "text",
            Format::Lines => "lines",
            Format::Wikipedia => "wiki",
            Format::FastText => "fasttext",
        };
        let numbers = match t.numbers {
            Numbers::Keep => "keep",
            Numbers::Map => "map",
            Numbers::Drop => "drop",
        };
        let values = [
            ("format", Value::Choice(format.into())),
            ("keep_case", Value::Bool(!t.lowercase)),
            ("keep_punct", Value::Bool(!t.strip_punctuation)),
            ("numbers", Value::Choice(numbers.into())),
            ("min_count", Value::Int(self.vocab.min_count as i64)),
            (
                "max_vocab",
                Value::Int(self.vocab.max_size.unwrap_or(0) as i64),
            ),
            ("heldout", Value::Float(self.read.heldout.fraction)),
            ("memory", Value::Int(self.read.memory_mb as i64)),
        ];
        let mut p = Params::defaults(OPTIONS);
        for (name, value) in values {
            // A value out of range keeps the default: the form shows what
            // it can; the session keeps its own copy of the configuration.
            let _ = p.set(OWNER, name, &value);
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_default_configuration() {
        let p = Params::defaults(OPTIONS);
        assert_eq!(CorpusConfig::from_params(&p), CorpusConfig::default());
    }

    #[test]
    fn configurations_round_trip_through_the_options() {
        let p = Params::parse(
            OPTIONS,
            OWNER,
            [
                ("format", "lines"),
                ("keep_case", "true"),
                ("numbers", "map"),
                ("min_count", "2"),
                ("max_vocab", "1000"),
                ("heldout", "0.1"),
                ("memory", "2G"),
            ],
        )
        .unwrap();
        let c = CorpusConfig::from_params(&p);
        assert_eq!(c.read.format, Format::Lines);
        assert!(!c.read.tokenizer.lowercase);
        assert_eq!(c.vocab.max_size, Some(1000));
        assert_eq!((c.read.memory_mb, c.read.memory_bytes()), (2048, 2 << 30));
        assert_eq!(c.to_params(), p);
        let err = Params::parse(OPTIONS, OWNER, [("heldout", "0.9")]).unwrap_err();
        assert!(err.to_string().contains("heldout"), "{err}");
    }
}
