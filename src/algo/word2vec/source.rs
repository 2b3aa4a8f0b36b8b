//! Where SGNS and CBOW get their sentences: all token ids in memory, or the
//! corpus re-read from disk each epoch when the ids do not fit the memory
//! budget (as gensim streams its corpus).
//!
//! Token ids take 4 bytes each, plus 8 per sentence bound. When that is more
//! than the corpus's memory budget (`--memory`, the budget co-occurrence
//! counting keeps to; default half the RAM), the trainer keeps only the
//! sentences of the step it trains: one streaming pass plans the chunks
//! (it needs only the sentence lengths), and every epoch reads the corpus
//! again from its start. The sentences, and so the chunks, their learning
//! rates and random streams, are the same as in memory: one thread trains
//! bit for bit the same vectors either way.

use std::ops::Range;
use std::sync::Arc;

use crate::corpus::{Batch, Batches, Corpus, Split};
use crate::train::plan::Plan;
use crate::Result;

/// In-vocabulary tokens per batch read while streaming.
const STREAM_BATCH_TOKENS: usize = 1 << 16;

/// Bytes the training split's ids take in memory (ids and sentence bounds).
pub fn encoded_bytes(corpus: &Corpus) -> u64 {
    let s = corpus.stats();
    4 * s.train_tokens_in_vocab + 8 * (s.sentences + 1)
}

/// Sentences of the training split, held whole or read step by step.
pub enum Sentences {
    /// Every sentence in memory.
    Memory(Batch),
    /// Re-read from the corpus file as steps ask for them.
    Stream(Stream),
}

impl Sentences {
    /// The sentences of `range` (indices into the training split in
    /// reading order), ready for [`Sentences::window`]. `restart` is true at
    /// an epoch's first step: a stream reads the corpus from its start.
    pub fn load(&mut self, range: Range<usize>, restart: bool) -> Result<()> {
        match self {
            Sentences::Memory(_) => Ok(()),
            Sentences::Stream(s) => s.load(range, restart),
        }
    }

    /// The batch holding the loaded sentences, and the index of its first
    /// sentence: sentence `i` is `batch.sentence(i - first)`.
    pub fn window(&self) -> (&Batch, usize) {
        match self {
            Sentences::Memory(b) => (b, 0),
            Sentences::Stream(s) => (&s.buffer, s.first),
        }
    }
}

/// The training split read again and again, keeping only the sentences of
/// the current step (and the rest of the last batch read).
pub struct Stream {
    corpus: Arc<Corpus>,
    batches: Option<Batches>,
    /// Sentences `first..first + buffer.sentences_len()`.
    buffer: Batch,
    first: usize,
}

impl Stream {
    /// A stream over `corpus`'s training split (nothing read yet).
    pub fn new(corpus: Arc<Corpus>) -> Self {
        Stream {
            corpus,
            batches: None,
            buffer: Batch::default(),
            first: 0,
        }
    }

    /// Plans the run in one streaming pass over the sentence lengths
    /// (nothing of the corpus is kept but the chunks' bounds).
    pub fn plan(corpus: &Corpus, epochs: usize, step_words: usize) -> Result<Plan> {
        let mut error = None;
        let lengths = corpus
            .batches(Split::Train, STREAM_BATCH_TOKENS)
            .map_while(|b| b.map_err(|e| error = Some(e)).ok())
            .flat_map(|b| b.sentences().map(<[u32]>::len).collect::<Vec<_>>());
        let plan = Plan::new(lengths, epochs, step_words);
        match error {
            Some(e) => Err(e),
            None => Ok(plan),
        }
    }

    fn load(&mut self, range: Range<usize>, restart: bool) -> Result<()> {
        if restart || range.start < self.first || self.batches.is_none() {
            self.batches = Some(self.corpus.batches(Split::Train, STREAM_BATCH_TOKENS));
            self.buffer = Batch::default();
            self.first = 0;
        }
        self.drop_before(range.start);
        while self.first + self.buffer.sentences_len() < range.end {
            let Some(batch) = self.batches.as_mut().and_then(Iterator::next) else {
                return Err(crate::Error::format(
                    self.corpus.path(),
                    "the corpus ended before its planned sentences (changed while training?)",
                ));
            };
            self.append(&batch?);
            self.drop_before(range.start);
        }
        Ok(())
    }

    /// Forgets the sentences before `start`.
    fn drop_before(&mut self, start: usize) {
        let k = start
            .saturating_sub(self.first)
            .min(self.buffer.sentences_len());
        if k == 0 {
            return;
        }
        let cut = self.buffer.bounds[k];
        self.buffer.ids.drain(..cut);
        self.buffer.bounds.drain(..k);
        for b in &mut self.buffer.bounds {
            *b -= cut;
        }
        self.first += k;
    }

    fn append(&mut self, batch: &Batch) {
        let offset = self.buffer.ids.len();
        self.buffer.ids.extend_from_slice(&batch.ids);
        self.buffer
            .bounds
            .extend(batch.bounds[1..].iter().map(|&x| x + offset));
    }
}
