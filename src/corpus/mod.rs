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
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

pub use batch::{Batch, Batches, EncodedCorpus};
pub use format::Format;
pub use reader::{HeldoutConfig, ReadConfig, ReadLimits, ReadReport, Split, Visitor};
pub use tokenize::{Numbers, TokenizerConfig};
pub use vocab::{VocabConfig, Vocabulary};

use crate::window::Window;
use crate::{Error, Result};

/// Everything that decides how a corpus file becomes word ids.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct CorpusConfig {
    /// Reading: format, tokenizer, held-out split.
    pub read: ReadConfig,
    /// Vocabulary selection.
    pub vocab: VocabConfig,
}

impl CorpusConfig {
    /// The options that shape a vocabulary from text and are set away from
    /// their defaults, by option name (`min_count`, `keep_case`, ...): a
    /// counts file keeps the vocabulary it was counted with, so opening one
    /// refuses them rather than ignore them.
    pub fn text_options_set(&self) -> Vec<&'static str> {
        let default = CorpusConfig::default();
        let (t, d) = (&self.read.tokenizer, &default.read.tokenizer);
        [
            ("format", self.read.format != default.read.format),
            ("keep_case", t.lowercase != d.lowercase),
            ("keep_punct", t.strip_punctuation != d.strip_punctuation),
            ("numbers", t.numbers != d.numbers),
            ("min_count", self.vocab.min_count != default.vocab.min_count),
            ("max_vocab", self.vocab.max_size != default.vocab.max_size),
            ("heldout", self.read.heldout != default.read.heldout),
        ]
        .into_iter()
        .filter_map(|(name, set)| set.then_some(name))
        .collect()
    }
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
    /// What reading noticed (see [`Corpus::warnings`]).
    warnings: Vec<String>,
}

/// Bounds on the memory of opening a corpus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenLimits {
    /// What one read holds at once.
    pub read: ReadLimits,
    /// Bytes the word counts may take before rare words are pruned.
    pub count_bytes: u64,
}

impl Default for OpenLimits {
    fn default() -> Self {
        OpenLimits {
            read: ReadLimits::default(),
            count_bytes: crate::memory::default_budget(),
        }
    }
}

/// A matrix counted elsewhere and what it was counted with.
#[derive(Debug, Clone)]
pub struct Counted {
    /// The co-occurrence matrix, in vocabulary id order.
    pub matrix: Arc<sprs::CsMat<f64>>,
    /// Window and tokens.
    pub meta: CountsMeta,
}

/// What a precounted matrix records besides the vocabulary: how it was
/// counted (a counts file keeps it in its header).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CountsMeta {
    /// The window the counts were made with (`None`: not known).
    pub window: Option<Window>,
    /// In-vocabulary tokens counted (0: not known).
    pub tokens: u64,
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
    ///
    /// Word counting stays within half the machine's memory: past it, rare
    /// words are pruned as word2vec does (see [`Corpus::open_within`]).
    pub fn open(path: impl AsRef<Path>, config: CorpusConfig) -> Result<Corpus> {
        Corpus::open_within(path, config, OpenLimits::default())
    }

    /// [`Corpus::open`] within explicit limits. When the word counts would
    /// take more than `limits.count_bytes`, the words seen at most once are
    /// dropped, then those seen at most twice the next time, and so on
    /// (word2vec's `ReduceVocab`); a warning says how many types were pruned,
    /// and the counts of the remaining rare words are then lower bounds.
    /// Below the limit nothing changes: the counts are exact.
    pub fn open_within(
        path: impl AsRef<Path>,
        config: CorpusConfig,
        limits: OpenLimits,
    ) -> Result<Corpus> {
        Corpus::open_until(path.as_ref(), config, limits, &NEVER)
    }

    /// [`Corpus::open_within`] that gives up with "reading cancelled" once
    /// `stop` is set (looked at after every piece of at most a few MB): the
    /// workbench stops a load nobody waits for any more.
    pub fn open_until(
        path: &Path,
        config: CorpusConfig,
        limits: OpenLimits,
        stop: &AtomicBool,
    ) -> Result<Corpus> {
        let mut config = config;
        let (format, format_warning) = config.read.format.resolve_noting(path)?;
        config.read.format = format;
        let mut counter = Counter::within(limits.count_bytes);
        let mut visitor = Stoppable {
            inner: &mut counter,
            stop,
        };
        let report = reader::read_within(path, &config.read, limits.read, &mut visitor)?;
        if stop.load(Ordering::Relaxed) {
            return Err(Error::format(path, CANCELLED));
        }
        let mut warnings: Vec<String> = format_warning.into_iter().collect();
        warnings.extend(report.warnings);
        warnings.extend(counter.pruning_warning(path, limits.count_bytes));
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
            warnings,
        })
    }

    /// A corpus without text that stands for the counted corpus: its
    /// vocabulary and co-occurrence matrix, counted elsewhere (a counts
    /// file, opened by `counts::open`). Every count-based method
    /// takes its matrix; its training split is an error and its held-out
    /// split is empty.
    pub fn precounted(
        path: &Path,
        config: CorpusConfig,
        vocab: Vocabulary,
        matrix: sprs::CsMat<f64>,
        meta: CountsMeta,
    ) -> Result<Corpus> {
        let n = vocab.len();
        if n == 0 {
            return Err(Error::format(path, "counts file has an empty vocabulary"));
        }
        let stats = CorpusStats {
            tokens: meta.tokens,
            types: n,
            vocabulary: n,
            train_tokens_in_vocab: vocab.total(),
            ..CorpusStats::default()
        };
        Ok(Corpus {
            path: path.to_path_buf(),
            config,
            vocab,
            stats,
            counted: Some(Counted {
                matrix: Arc::new(matrix),
                meta,
            }),
            warnings: Vec::new(),
        })
    }

    /// The counts of a counts file opened as this corpus (`None` for text).
    pub fn counted(&self) -> Option<&Counted> {
        self.counted.as_ref()
    }

    /// [`Corpus::open`] for training, which reads the corpus again (counts,
    /// batches, held-out samples): a pipe or device, readable once, is refused.
    pub fn open_for_training(path: impl AsRef<Path>, config: CorpusConfig) -> Result<Corpus> {
        Corpus::open_for_training_until(path.as_ref(), config, &NEVER)
    }

    /// [`Corpus::open_for_training`] that gives up once `stop` is set
    /// ([`Corpus::open_until`]).
    pub fn open_for_training_until(
        path: &Path,
        config: CorpusConfig,
        stop: &AtomicBool,
    ) -> Result<Corpus> {
        let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
        if !meta.is_file() && !meta.is_dir() {
            return Err(Error::format(
                path,
                "is a pipe or device, readable once; training reads its corpus several times: save it to a file first",
            ));
        }
        Corpus::open_until(path, config, OpenLimits::default(), stop)
    }

    /// What reading the corpus noticed and worked around, one line each
    /// naming the file: input that does not look like text, an XML file that
    /// is not a Wikipedia dump read as text, runs without whitespace cut
    /// into words, articles read in pieces, rare words pruned to stay within
    /// memory. Callers show them as warnings.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
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

    /// Its size, as corpus-sized defaults read it ([`crate::schema::Auto`]).
    pub fn size(&self) -> crate::schema::CorpusSize {
        crate::schema::CorpusSize {
            vocab: self.vocab().len(),
            tokens: self.stats().train_tokens_in_vocab,
        }
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

/// Bytes one counted type takes besides its text: the map bucket (a
/// `String` and a count, 32 bytes, plus a control byte) at hashbrown's load
/// factor and doubling (up to two buckets a type, three while it grows),
/// and the string's allocation (at least 32 bytes with glibc). An estimate
/// on the safe side: 2 million 8-byte types took about 70 bytes each once
/// the map had grown.
const BYTES_PER_TYPE: u64 = 112;

/// First-pass visitor: word counts per split, pruned past a memory budget.
struct Counter {
    train: FxHashMap<String, u64>,
    heldout_only: FxHashMap<String, u64>,
    tokens: u64,
    heldout_tokens: u64,
    sentences: u64,
    /// Bytes of every counted type's text.
    key_bytes: u64,
    /// Pruning starts past this many bytes of counts.
    max_bytes: u64,
    /// Types seen at most this many times are dropped at the next pruning.
    min_reduce: u64,
    /// Types dropped by pruning so far.
    pruned: u64,
    /// Times the budget was reached.
    reductions: u32,
}

impl Counter {
    fn within(max_bytes: u64) -> Self {
        Counter {
            train: FxHashMap::default(),
            heldout_only: FxHashMap::default(),
            tokens: 0,
            heldout_tokens: 0,
            sentences: 0,
            key_bytes: 0,
            max_bytes,
            min_reduce: 1,
            pruned: 0,
            reductions: 0,
        }
    }

    fn types(&self) -> usize {
        self.train.len()
            + self
                .heldout_only
                .keys()
                .filter(|w| !self.train.contains_key(*w))
                .count()
    }

    fn bytes(&self) -> u64 {
        let entries = (self.train.len() + self.heldout_only.len()) as u64;
        entries * BYTES_PER_TYPE + self.key_bytes
    }

    /// word2vec's `ReduceVocab`: drops the types seen at most `min_reduce`
    /// times and raises `min_reduce`, until the counts take at most three
    /// quarters of the budget (so that pruning is not repeated at every new word).
    fn reduce(&mut self) {
        self.reductions += 1;
        let target = self.max_bytes / 4 * 3;
        while self.bytes() > target && !(self.train.is_empty() && self.heldout_only.is_empty()) {
            let floor = self.min_reduce;
            let mut dropped = 0u64;
            let mut freed = 0u64;
            for map in [&mut self.train, &mut self.heldout_only] {
                map.retain(|w, c| {
                    let keep = *c > floor;
                    if !keep {
                        dropped += 1;
                        freed += w.len() as u64;
                    }
                    keep
                });
            }
            self.pruned += dropped;
            self.key_bytes -= freed;
            self.min_reduce += 1;
        }
    }

    /// The warning for a counting that was pruned.
    fn pruning_warning(&self, path: &Path, budget: u64) -> Option<String> {
        (self.reductions > 0).then(|| {
            format!(
                "{}: the word counts reached the memory budget of {} ({} distinct words kept): \
                 {} rare types were pruned (the last pruning dropped those seen {} times or fewer), \
                 as word2vec does; counts of rare words and the number of types are lower bounds",
                path.display(),
                crate::memory::human(budget),
                self.train.len() + self.heldout_only.len(),
                self.pruned,
                self.min_reduce - 1,
            )
        })
    }
}

/// A flag nobody sets: the reads that cannot be cancelled.
static NEVER: AtomicBool = AtomicBool::new(false);

/// What a cancelled read says.
const CANCELLED: &str = "reading cancelled";

/// A visitor that asks the reader to stop once `stop` is set.
struct Stoppable<'a, V> {
    inner: &'a mut V,
    stop: &'a AtomicBool,
}

impl<V: Visitor> Visitor for Stoppable<'_, V> {
    fn token(&mut self, token: &str, split: Split) {
        self.inner.token(token, split);
    }

    fn sentence_end(&mut self, split: Split) {
        self.inner.sentence_end(split);
    }

    fn document_end(&mut self) {
        self.inner.document_end();
    }

    fn wants_more(&self) -> bool {
        self.inner.wants_more() && !self.stop.load(Ordering::Relaxed)
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
                self.key_bytes += token.len() as u64;
                if self.bytes() > self.max_bytes {
                    self.reduce();
                }
            }
        }
    }

    fn sentence_end(&mut self, split: Split) {
        if split == Split::Train {
            self.sentences += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stopped_read_fails_naming_the_file() {
        let path = Path::new("tests/fixtures/corpus/lee_background.txt");
        let stop = AtomicBool::new(true);
        let err = Corpus::open_for_training_until(path, CorpusConfig::default(), &stop)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("lee_background.txt") && err.contains("reading cancelled"),
            "{err}"
        );
        stop.store(false, Ordering::Relaxed);
        let c = Corpus::open_for_training_until(path, CorpusConfig::default(), &stop).unwrap();
        let plain = Corpus::open(path, CorpusConfig::default()).unwrap();
        assert_eq!(c.stats(), plain.stats());
    }

    /// `rare` words seen once each (every one distinct) among `common`
    /// words seen many times.
    fn many_types(dir: &Path, rare: usize) -> PathBuf {
        let mut text = String::new();
        for i in 0..rare {
            text.push_str(&format!("the cat sat on mat{i} and "));
            if i % 10 == 9 {
                text.push('\n');
            }
        }
        let path = dir.join("many.txt");
        std::fs::write(&path, text).unwrap();
        path
    }

    fn exact() -> CorpusConfig {
        CorpusConfig {
            read: ReadConfig {
                heldout: HeldoutConfig {
                    fraction: 0.0,
                    ..HeldoutConfig::default()
                },
                ..ReadConfig::default()
            },
            vocab: VocabConfig {
                min_count: 1,
                max_size: None,
            },
        }
    }

    fn within(bytes: u64) -> OpenLimits {
        OpenLimits {
            count_bytes: bytes,
            ..OpenLimits::default()
        }
    }

    #[test]
    fn counting_past_the_budget_prunes_rare_types_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let path = many_types(dir.path(), 2000);
        let full = Corpus::open(&path, exact()).unwrap();
        assert!(full.warnings().is_empty(), "{:?}", full.warnings());
        assert_eq!(full.stats().types, 2005);
        // A budget of about 200 types: the 2000 words seen once are pruned
        // again and again; the five seen 2000 times keep their exact counts.
        let small = Corpus::open_within(&path, exact(), within(200 * BYTES_PER_TYPE)).unwrap();
        let w = small.warnings().join("\n");
        assert!(
            w.contains("many.txt")
                && w.contains("rare types were pruned")
                && w.contains("lower bounds"),
            "{w}"
        );
        for word in ["the", "cat", "sat", "on", "and"] {
            let id = small.vocab().id(word).unwrap();
            let full_id = full.vocab().id(word).unwrap();
            assert_eq!(
                small.vocab().counts()[id as usize],
                full.vocab().counts()[full_id as usize]
            );
        }
        assert!(small.stats().types < 200, "{}", small.stats().types);
        assert_eq!(small.stats().tokens, full.stats().tokens);
    }

    #[test]
    fn below_the_budget_counting_is_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let path = many_types(dir.path(), 300);
        let full = Corpus::open(&path, exact()).unwrap();
        // Just enough for every type: no pruning, the same vocabulary.
        let mut counter = Counter::within(u64::MAX);
        reader::read(&path, &exact().read, &mut counter).unwrap();
        let needed = counter.bytes();
        let tight = Corpus::open_within(&path, exact(), within(needed)).unwrap();
        assert!(tight.warnings().is_empty(), "{:?}", tight.warnings());
        assert_eq!(tight.vocab(), full.vocab());
        assert_eq!(tight.stats(), full.stats());
        // One byte less prunes.
        let over = Corpus::open_within(&path, exact(), within(needed - 1)).unwrap();
        assert_eq!(over.warnings().len(), 1);
    }

    #[test]
    fn reduce_drops_types_at_or_below_a_rising_floor() {
        let mut c = Counter::within(u64::MAX);
        for (w, n) in [("a", 3), ("b", 1), ("c", 2), ("d", 1)] {
            for _ in 0..n {
                c.token(w, Split::Train);
            }
        }
        c.token("e", Split::Heldout);
        // Budget for 3 types: dropping the once-seen (b, d, e) is enough.
        c.max_bytes = 3 * BYTES_PER_TYPE + 8;
        c.reduce();
        let mut kept: Vec<_> = c.train.iter().map(|(w, &n)| (w.as_str(), n)).collect();
        kept.sort();
        assert_eq!(kept, [("a", 3), ("c", 2)]);
        assert!(c.heldout_only.is_empty());
        assert_eq!((c.pruned, c.min_reduce, c.key_bytes), (3, 2, 2));
        // The next pruning drops those seen twice (the target is three
        // quarters of the budget: room for "a" alone).
        c.max_bytes = 160;
        c.reduce();
        assert_eq!(c.train.keys().collect::<Vec<_>>(), ["a"]);
        assert_eq!((c.pruned, c.min_reduce, c.reductions), (4, 3, 2));
    }

    #[test]
    fn a_long_article_is_read_in_pieces_as_one_document_with_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let body = "alpha beta gamma delta ".repeat(2000);
        let xml = format!(
            "<mediawiki>\n<page><title>Long</title><ns>0</ns><revision><text>{body}</text></revision></page>\n\
             <page><title>Short</title><ns>0</ns><revision><text>alpha omega</text></revision></page>\n</mediawiki>\n"
        );
        let path = dir.path().join("long.xml");
        std::fs::write(&path, xml).unwrap();
        let mut config = exact();
        config.read.format = Format::Wikipedia;
        let whole = Corpus::open(&path, config).unwrap();
        assert!(whole.warnings().is_empty(), "{:?}", whole.warnings());
        let limits = OpenLimits {
            read: ReadLimits {
                article_bytes: 1000,
            },
            ..OpenLimits::default()
        };
        let pieces = Corpus::open_within(&path, config, limits).unwrap();
        assert_eq!(pieces.stats().documents, 2);
        assert_eq!(pieces.vocab(), whole.vocab());
        let w = pieces.warnings().join("\n");
        assert!(
            w.contains("long.xml:2: 1 article longer than 1 kB") && w.contains("pieces"),
            "{w}"
        );
    }
}
