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

pub use file::{is_counts_file, read, write, Counts, CountsMeta, CountsWriter};

use crate::cooc::{feed_corpus, CountConfig, CountProgress, Counter};
use crate::corpus::{Corpus, Vocabulary};
use crate::Result;

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
