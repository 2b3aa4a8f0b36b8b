//! Counts on disk: the counts file, and counts made elsewhere.
//!
//! `wordbench counts CORPUS --out FILE` counts a corpus once, within the
//! memory budget (`--memory`), straight into a counts file ([`mod@file`]): its
//! vocabulary and sparse co-occurrence matrix in one versioned, checksummed,
//! memory-mappable binary file. Every count-based method then reads that
//! file instead of a corpus (`train --counts FILE`; in the workbench a
//! counts file opens like a corpus): count at scale once, factor many times
//! on one machine. [`import`] turns Stanford GloVe's `cooccur` output and a
//! Spark job's `(word, context, count)` part files into the same form.

pub mod file;
pub mod import;
mod parquet_parts;

use std::path::Path;
use std::sync::atomic::AtomicBool;

pub use file::{is_counts_file, read, write, Counts, CountsMeta, CountsWriter};

use crate::cooc::{feed_corpus, CountConfig, CountProgress, Counter};
use crate::corpus::{Corpus, CorpusConfig, Vocabulary};
use crate::{Error, Result};

/// Opens `path` as a corpus: a counts file (`wordbench counts`) stands for
/// the corpus it counted ([`Corpus::precounted`]: its vocabulary and matrix
/// for every count-based method), anything else is read as text
/// ([`Corpus::open`]). Every command and screen that takes a corpus opens it
/// here; the corpus module itself knows no counts file.
pub fn open(path: impl AsRef<Path>, config: CorpusConfig) -> Result<Corpus> {
    let path = path.as_ref();
    if is_counts_file(path) {
        return open_counted(path, config);
    }
    Corpus::open(path, config)
}

/// [`open`] for training ([`Corpus::open_for_training_until`] for a text),
/// giving up once `stop` is set.
pub fn open_for_training_until(
    path: &Path,
    config: CorpusConfig,
    stop: &AtomicBool,
) -> Result<Corpus> {
    if is_counts_file(path) {
        return open_counted(path, config);
    }
    Corpus::open_for_training_until(path, config, stop)
}

/// [`open_for_training_until`] that never gives up.
pub fn open_for_training(path: impl AsRef<Path>, config: CorpusConfig) -> Result<Corpus> {
    open_for_training_until(path.as_ref(), config, &AtomicBool::new(false))
}

/// A counts file as a corpus. The options that shape a vocabulary from text
/// cannot apply (the file keeps the vocabulary it was counted with) and are
/// refused by name rather than ignored.
fn open_counted(path: &Path, config: CorpusConfig) -> Result<Corpus> {
    let set = config.text_options_set();
    if !set.is_empty() {
        return Err(Error::format(
            path,
            format!(
                "a counts file keeps the vocabulary it was counted with, so {} cannot apply; \
                 give them to `wordbench counts` instead, or leave them at their defaults",
                set.join(", ")
            ),
        ));
    }
    let counts = read(path)?;
    Corpus::precounted(path, config, counts.vocab, counts.matrix, counts.meta)
}

/// What counting a corpus into a file did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CountReport {
    /// Words (matrix rows).
    pub words: usize,
    /// In-vocabulary tokens counted.
    pub tokens: u64,
    /// Runs written to temporary files (0: it fit in memory).
    pub spilled_runs: u64,
}

/// Counts `corpus`'s training split under `config` within the corpus's
/// memory budget and streams the result to a counts file at `out`
/// (written atomically; the matrix is never whole in memory).
/// `progress` is called after every batch, when merging starts and when
/// the file is written.
pub fn count_to_file(
    corpus: &Corpus,
    config: &CountConfig,
    out: &Path,
    mut progress: impl FnMut(CountProgress),
) -> Result<CountReport> {
    let n = config
        .max_vocab
        .map_or(corpus.vocab().len(), |m| m.min(corpus.vocab().len()));
    let vocab = head_of(corpus.vocab(), n);
    let mut counter = Counter::with_memory(
        corpus.vocab().len(),
        config,
        corpus.config().read.memory_bytes(),
        &std::env::temp_dir(),
    )?;
    let done = feed_corpus(corpus, &mut counter, &mut progress)?;
    let report = CountReport {
        words: n,
        tokens: counter.tokens(),
        spilled_runs: counter.spilled_runs(),
    };
    let meta = CountsMeta {
        window: Some(config.window),
        tokens: report.tokens,
    };
    crate::atomic::write_with(out, |w| {
        let mut writer = CountsWriter::new(w, out, &vocab, meta)?;
        counter.finish_into(&mut writer)?;
        writer.finish().map(|_| ())
    })?;
    progress(done);
    Ok(report)
}

/// The first `n` words of `vocab`.
pub fn head_of(vocab: &Vocabulary, n: usize) -> Vocabulary {
    if n >= vocab.len() {
        return vocab.clone();
    }
    let pairs = (0..n as u32)
        .map(|i| (vocab.word(i).to_string(), vocab.counts()[i as usize]))
        .collect();
    Vocabulary::from_sorted(pairs).expect("a vocabulary's head is sorted")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_counts_file_refuses_the_options_that_shape_a_vocabulary_from_text() {
        let dir = tempfile::tempdir().unwrap();
        let vocab = Vocabulary::from_sorted(vec![("the".into(), 9), ("a".into(), 4)]).unwrap();
        let mut tri = sprs::TriMat::new((2, 2));
        tri.add_triplet(0, 1, 2.0);
        tri.add_triplet(1, 0, 2.0);
        let meta = CountsMeta {
            window: None,
            tokens: 13,
        };
        let file = dir.path().join("c.wbc");
        write(&file, &vocab, &tri.to_csr(), meta).unwrap();
        assert!(open(&file, CorpusConfig::default()).is_ok());
        let mut config = CorpusConfig::default();
        config.vocab.min_count = 2;
        config.read.tokenizer.lowercase = !config.read.tokenizer.lowercase;
        assert_eq!(config.text_options_set(), ["keep_case", "min_count"]);
        let err = open(&file, config).unwrap_err().to_string();
        assert!(
            err.contains("c.wbc") && err.contains("keep_case, min_count cannot apply"),
            "{err}"
        );
    }
}
