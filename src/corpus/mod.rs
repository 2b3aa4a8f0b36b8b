//! Corpus pipeline: readers, tokenizer, vocabulary and the held-out split.
//!
//! [`Corpus::open`] makes one streaming pass to count words (training split
//! only) and gather statistics; [`Corpus::batches`] then streams the corpus as
//! id-encoded [`Batch`]es on a reader thread, so tokenizing overlaps with
//! whatever consumes them. Memory stays bounded by the vocabulary and one or
//! two batches, whatever the corpus size. [`Corpus::encode`] collects a split in
//! memory for trainers that make many passes.

pub mod batch;
pub mod format;
pub mod options;
pub mod reader;
pub mod source;
pub mod tokenize;
pub mod vocab;
pub mod wiki;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

pub use batch::{Batch, Batches, EncodedCorpus};
pub use format::Format;
pub use reader::{HeldoutConfig, ReadConfig, ReadReport, Split, Visitor};
pub use tokenize::{Numbers, TokenizerConfig};
pub use vocab::{VocabConfig, Vocabulary};

use crate::{Error, Result};

/// Everything that decides how a corpus file becomes word ids.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct CorpusConfig {
    /// Reading: format, tokenizer, held-out split.
    pub read: ReadConfig,
    /// Vocabulary selection.
    pub vocab: VocabConfig,
}

/// Statistics of one corpus pass.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CorpusStats {
    /// Non-empty documents.
    pub documents: u64,
    /// Every token read, held-out included.
    pub tokens: u64,
    /// Distinct token types over the whole corpus.
    pub types: usize,
    /// Words kept in the vocabulary.
    pub vocabulary: usize,
    /// Tokens in the held-out split.
    pub heldout_tokens: u64,
    /// Training tokens that are in the vocabulary.
    pub train_tokens_in_vocab: u64,
    /// Sentences (and unit pieces) in the training split.
    pub sentences: u64,
    /// Invalid UTF-8 sequences that were replaced.
    pub utf8_replacements: u64,
}

/// An opened corpus: its file, configuration, vocabulary and statistics.
#[derive(Debug, Clone)]
pub struct Corpus {
    path: PathBuf,
    config: CorpusConfig,
    vocab: Vocabulary,
    stats: CorpusStats,
    /// The matrix of a counts file opened in place of a corpus.
    counted: Option<Counted>,
}

/// A counts file's matrix and what it was counted with.
#[derive(Debug, Clone)]
pub struct Counted {
    /// The co-occurrence matrix, in vocabulary id order.
    pub matrix: Arc<sprs::CsMat<f64>>,
    /// Window and tokens.
    pub meta: crate::counts::CountsMeta,
}

impl Corpus {
    /// Reads `path` once to build the vocabulary and statistics.
    ///
    /// Fails on a missing, unreadable or binary file, and when no word survives
    /// the vocabulary selection (the error says how many tokens and types were seen).
    ///
    /// A counts file (`wordbench counts`) opens too: its vocabulary and
    /// matrix stand for the corpus in every count-based method, and the
    /// reading and vocabulary options do not apply (it was counted with its own).
    pub fn open(path: impl AsRef<Path>, config: CorpusConfig) -> Result<Corpus> {
        let path = path.as_ref();
        if crate::counts::is_counts_file(path) {
            return Corpus::from_counts_file(path, config);
        }
        let mut config = config;
        config.read.format = config.read.format.resolve(path)?;
        let mut counter = Counter::default();
        let report = reader::read(path, &config.read, &mut counter)?;
        let types = counter.types();
        let vocab = Vocabulary::from_counts(counter.train, config.vocab);
        let stats = CorpusStats {
            documents: report.documents,
            tokens: counter.tokens,
            types,
            vocabulary: vocab.len(),
            heldout_tokens: counter.heldout_tokens,
            train_tokens_in_vocab: vocab.total(),
            sentences: counter.sentences,
            utf8_replacements: report.replacements,
        };
        if vocab.is_empty() {
            return Err(Error::EmptyVocabulary {
                path: path.to_path_buf(),
                tokens: stats.tokens,
                types,
                min_count: config.vocab.min_count,
            });
        }
        Ok(Corpus {
            path: path.to_path_buf(),
            config,
            vocab,
            stats,
            counted: None,
        })
    }

    /// Opens a counts file as a corpus without text.
    fn from_counts_file(path: &Path, config: CorpusConfig) -> Result<Corpus> {
        let counts = crate::counts::read(path)?;
        let n = counts.vocab.len();
        if n == 0 {
            return Err(Error::format(path, "counts file has an empty vocabulary"));
        }
        let stats = CorpusStats {
            tokens: counts.meta.tokens,
            types: n,
            vocabulary: n,
            train_tokens_in_vocab: counts.vocab.total(),
            ..CorpusStats::default()
        };
        Ok(Corpus {
            path: path.to_path_buf(),
            config,
            vocab: counts.vocab,
            stats,
            counted: Some(Counted {
                matrix: Arc::new(counts.matrix),
                meta: counts.meta,
            }),
        })
    }

    /// The counts of a counts file opened as this corpus (`None` for text).
    pub fn counted(&self) -> Option<&Counted> {
        self.counted.as_ref()
    }

    /// [`Corpus::open`] for training, which reads the corpus again (counts,
    /// batches, held-out samples): a pipe or device, readable once, is refused.
    pub fn open_for_training(path: impl AsRef<Path>, config: CorpusConfig) -> Result<Corpus> {
        let path = path.as_ref();
        let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
        if !meta.is_file() && !meta.is_dir() {
            return Err(Error::format(
                path,
                "is a pipe or device, readable once; training reads its corpus several times: save it to a file first",
            ));
        }
        Corpus::open(path, config)
    }

    /// The corpus file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The configuration, with the format resolved.
    pub fn config(&self) -> &CorpusConfig {
        &self.config
    }

    /// The vocabulary (training split counts).
    pub fn vocab(&self) -> &Vocabulary {
        &self.vocab
    }

    /// Statistics of the opening pass.
    pub fn stats(&self) -> &CorpusStats {
        &self.stats
    }

    /// Streams one split as id batches of about `batch_tokens` in-vocabulary
    /// tokens (out-of-vocabulary tokens are dropped, as word2vec and GloVe do).
    ///
    /// A counts file has no text: its training split is an error naming it,
    /// its held-out split is empty (so there is no held-out perplexity).
    pub fn batches(&self, split: Split, batch_tokens: usize) -> Batches {
        if self.counted.is_some() {
            return Batches::done(match split {
                Split::Train => Some(Error::format(
                    &self.path,
                    "is a counts file (co-occurrence counts, no text): this needs the corpus text; only count-based methods take a counts file",
                )),
                Split::Heldout => None,
            });
        }
        Batches::spawn(self, split, batch_tokens)
    }

    /// Collects one split in memory.
    pub fn encode(&self, split: Split) -> Result<EncodedCorpus> {
        EncodedCorpus::collect(self.batches(split, 1 << 20))
    }
}

/// First-pass visitor: word counts per split.
#[derive(Default)]
struct Counter {
    train: FxHashMap<String, u64>,
    heldout_only: FxHashMap<String, u64>,
    tokens: u64,
    heldout_tokens: u64,
    sentences: u64,
}

impl Counter {
    fn types(&self) -> usize {
        self.train.len()
            + self
                .heldout_only
                .keys()
                .filter(|w| !self.train.contains_key(*w))
                .count()
    }
}

impl Visitor for Counter {
    fn token(&mut self, token: &str, split: Split) {
        self.tokens += 1;
        let map = match split {
            Split::Train => &mut self.train,
            Split::Heldout => {
                self.heldout_tokens += 1;
                &mut self.heldout_only
            }
        };
        match map.get_mut(token) {
            Some(c) => *c += 1,
            None => {
                map.insert(token.to_string(), 1);
            }
        }
    }

    fn sentence_end(&mut self, split: Split) {
        if split == Split::Train {
            self.sentences += 1;
        }
    }
}
