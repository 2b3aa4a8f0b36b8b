//! Id-encoded sentences, streamed in batches or collected in memory.

use std::sync::mpsc::{sync_channel, Receiver};
use std::thread::JoinHandle;

use super::reader::{self, Split, Visitor};
use super::{Corpus, Vocabulary};
use crate::Result;

/// Sentences as word ids: sentence `i` is `ids[bounds[i]..bounds[i + 1]]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Batch {
    /// In-vocabulary token ids, sentence after sentence.
    pub ids: Vec<u32>,
    /// Sentence boundaries into `ids`; starts with 0, ends with `ids.len()`.
    pub bounds: Vec<usize>,
    /// Tokens read for this batch, out-of-vocabulary ones included.
    pub raw_tokens: u64,
}

impl Default for Batch {
    fn default() -> Self {
        Batch {
            ids: Vec::new(),
            bounds: vec![0],
            raw_tokens: 0,
        }
    }
}

impl Batch {
    /// A batch of the given sentences of word ids (small inputs, tests).
    pub fn of_sentences(sentences: &[&[u32]]) -> Batch {
        let mut b = Batch::default();
        for s in sentences {
            b.ids.extend_from_slice(s);
            b.bounds.push(b.ids.len());
        }
        b
    }

    /// Number of sentences.
    pub fn sentences_len(&self) -> usize {
        self.bounds.len() - 1
    }

    /// Sentence `i`.
    #[inline]
    pub fn sentence(&self, i: usize) -> &[u32] {
        &self.ids[self.bounds[i]..self.bounds[i + 1]]
    }

    /// All sentences in order.
    pub fn sentences(&self) -> impl ExactSizeIterator<Item = &[u32]> + '_ {
        self.bounds.windows(2).map(|w| &self.ids[w[0]..w[1]])
    }

    fn end_sentence(&mut self) {
        if *self.bounds.last().unwrap_or(&0) != self.ids.len() {
            self.bounds.push(self.ids.len());
        }
    }
}

/// A split collected in memory, for trainers that make many passes.
pub type EncodedCorpus = Batch;

impl Batch {
    /// Concatenates a stream of batches.
    pub fn collect(batches: impl Iterator<Item = Result<Batch>>) -> Result<Batch> {
        let mut all = Batch::default();
        for b in batches {
            let b = b?;
            let offset = all.ids.len();
            all.ids.extend_from_slice(&b.ids);
            all.bounds.extend(b.bounds[1..].iter().map(|&x| x + offset));
            all.raw_tokens += b.raw_tokens;
        }
        Ok(all)
    }
}

/// Batches streamed from a reader thread; see [`Corpus::batches`].
pub struct Batches {
    rx: Option<Receiver<Result<Batch>>>,
    handle: Option<JoinHandle<()>>,
}

impl Batches {
    /// A stream with no batch: only `error`, if any.
    pub(super) fn done(error: Option<crate::Error>) -> Batches {
        let (tx, rx) = sync_channel::<Result<Batch>>(1);
        if let Some(e) = error {
            let _ = tx.send(Err(e));
        }
        Batches {
            rx: Some(rx),
            handle: None,
        }
    }

    pub(super) fn spawn(corpus: &Corpus, split: Split, batch_tokens: usize) -> Batches {
        let (tx, rx) = sync_channel::<Result<Batch>>(2);
        let path = corpus.path().to_path_buf();
        let read = corpus.config().read;
        let vocab = corpus.vocab().clone();
        let handle = std::thread::spawn(move || {
            let mut encoder = Encoder {
                vocab: &vocab,
                split,
                batch_tokens: batch_tokens.max(1),
                batch: Batch::default(),
                tx: &tx,
                closed: false,
            };
            let result = reader::read(&path, &read, &mut encoder);
            let closed = encoder.closed;
            let last = std::mem::take(&mut encoder.batch);
            if closed {
                return;
            }
            match result {
                Ok(_) => {
                    if !last.ids.is_empty() || last.raw_tokens > 0 {
                        let _ = tx.send(Ok(last));
                    }
                }
                Err(e) => {
                    let _ = tx.send(Err(e));
                }
            }
        });
        Batches {
            rx: Some(rx),
            handle: Some(handle),
        }
    }
}

impl Iterator for Batches {
    type Item = Result<Batch>;

    fn next(&mut self) -> Option<Self::Item> {
        let item = self.rx.as_ref()?.recv().ok();
        if item.is_none() {
            self.rx = None;
            if let Some(h) = self.handle.take() {
                let _ = h.join();
            }
        }
        item
    }
}

impl Drop for Batches {
    fn drop(&mut self) {
        // Closing the receiver makes the reader thread's next send fail, so it stops.
        self.rx = None;
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

struct Encoder<'a> {
    vocab: &'a Vocabulary,
    split: Split,
    batch_tokens: usize,
    batch: Batch,
    tx: &'a std::sync::mpsc::SyncSender<Result<Batch>>,
    closed: bool,
}

impl Visitor for Encoder<'_> {
    #[inline]
    fn token(&mut self, token: &str, split: Split) {
        if split != self.split {
            return;
        }
        self.batch.raw_tokens += 1;
        if let Some(id) = self.vocab.id(token) {
            self.batch.ids.push(id);
        }
    }

    fn sentence_end(&mut self, split: Split) {
        if split != self.split {
            return;
        }
        self.batch.end_sentence();
        if self.batch.ids.len() >= self.batch_tokens {
            let full = std::mem::take(&mut self.batch);
            self.closed |= self.tx.send(Ok(full)).is_err();
        }
    }

    fn wants_more(&self) -> bool {
        !self.closed
    }
}
