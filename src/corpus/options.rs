//! The corpus options, declared once as a schema like a method's
//! hyperparameters: the command line's flags (`--min-count`, `--keep-case`,
//! ...), the Corpus screen's form and their checks all come from [`OPTIONS`],
//! and [`CorpusConfig::from_params`] is the one way from their values to the
//! configuration the readers use.

use super::{
    CorpusConfig, Format, HeldoutConfig, Numbers, ReadConfig, TokenizerConfig, VocabConfig,
};
use crate::schema::{bind_params, choice_names, Choice, ParamSpec, Params};

/// What errors name these options by.
pub const OWNER: &str = "corpus";

choice_names!(Format {
    Auto = "auto",
    Text = "text",
    Lines = "lines",
    Wikipedia = "wiki",
    FastText = "fasttext",
});

choice_names!(Numbers {
    Keep = "keep",
    Map = "map",
    Drop = "drop",
});

/// Every corpus option.
pub static OPTIONS: &[ParamSpec] = &[
    ParamSpec::choice("format", Format::NAMES, "auto", "auto: detect; text: blank lines separate documents; lines: one per line; wiki: XML dump; fasttext: labelled lines"),
    ParamSpec::flag("keep_case", false, "keep the case of tokens (else fold to lower case)"),
    ParamSpec::flag("keep_punct", false, "keep punctuation characters as tokens"),
    ParamSpec::choice("numbers", Numbers::NAMES, "keep", "numbers as they are, all as <num>, or dropped"),
    ParamSpec::int("min_count", 1, 1_000_000_000, 5, "drop words seen fewer times than this"),
    ParamSpec::int("max_vocab", 0, 100_000_000, 0, "keep at most this many most frequent words (0: no limit)"),
    ParamSpec::float("heldout", 0.0, 0.5, 0.05, "share of documents (or 10,000-token pieces) held out for perplexity"),
    ParamSpec::int("memory", 0, 1 << 30, 0, "memory budget of co-occurrence counting in MiB, or with a unit: 512M, 2G (0: half the RAM); counts that do not fit spill to temporary files"),
];

bind_params! {
    /// The corpus options' values, a field per entry of [`OPTIONS`].
    #[derive(Debug, Clone, Copy)]
    struct Values for OPTIONS {
        format: Format,
        keep_case: bool,
        keep_punct: bool,
        numbers: Numbers,
        min_count: u64,
        max_vocab: usize,
        heldout: f64,
        memory: u64,
    }
}

impl CorpusConfig {
    /// The configuration the option values describe (values are already
    /// checked by [`Params`]).
    pub fn from_params(p: &Params) -> CorpusConfig {
        let v = Values::from_params(p);
        CorpusConfig {
            read: ReadConfig {
                format: v.format,
                tokenizer: TokenizerConfig {
                    lowercase: !v.keep_case,
                    strip_punctuation: !v.keep_punct,
                    numbers: v.numbers,
                },
                heldout: HeldoutConfig {
                    fraction: v.heldout,
                    ..HeldoutConfig::default()
                },
                memory_mb: v.memory,
            },
            vocab: VocabConfig {
                min_count: v.min_count.max(1),
                max_size: (v.max_vocab > 0).then_some(v.max_vocab),
            },
        }
    }

    /// The option values of this configuration (to show a session's in the
    /// workbench). A value outside its option's range keeps the default:
    /// the form shows what it can; the session keeps its own copy of the
    /// configuration.
    pub fn to_params(&self) -> Params {
        let t = &self.read.tokenizer;
        Values {
            format: self.read.format,
            keep_case: !t.lowercase,
            keep_punct: !t.strip_punctuation,
            numbers: t.numbers,
            min_count: self.vocab.min_count,
            max_vocab: self.vocab.max_size.unwrap_or(0),
            heldout: self.read.heldout.fraction,
            memory: self.read.memory_mb,
        }
        .to_params()
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
