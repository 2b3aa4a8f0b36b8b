//! How a stochastic-gradient run is cut into steps, the learning-rate
//! schedule, and the seeds of its random streams: shared by the methods that
//! stream sentences in chunks (SGNS/CBOW, MPNNLM).
//!
//! The training sentences are grouped into *chunks* of at least
//! [`CHUNK_WORDS`] words (whole sentences; gensim's jobs are 10,000 words
//! too). A chunk is the unit of parallel work and of randomness: its random
//! stream is seeded from (seed, epoch, chunk), so the result does not depend
//! on which thread runs it. A *step* is a run of consecutive chunks of about
//! `step_words` words; one epoch is `slices` steps.
//!
//! The learning rate decays linearly with the fraction `p` of words done, as
//! in word2vec.c: `lr(p) = lr0 · max(1 - p, min_lr)`, evaluated at the start
//! of each chunk. Setting `lr` mid-run to `x` when a fraction `p0` is done
//! rescales the rest of that line: `lr(p) = x · max((1 - p) / (1 - p0), min_lr)`,
//! i.e. the rate is `x` now and still decays linearly to (almost) zero at the
//! end of the run.

use std::ops::Range;

/// Smallest chunk, in words.
pub const CHUNK_WORDS: usize = 10_000;

/// Chunks and steps over one epoch of sentences.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// Sentence ranges of the chunks.
    chunks: Vec<Range<usize>>,
    /// Words before each chunk within an epoch (one more entry: the epoch's words).
    words_before: Vec<u64>,
    /// Chunk ranges of the steps of one epoch.
    slices: Vec<Range<usize>>,
    epochs: u64,
}

impl Plan {
    /// Plans `epochs` passes over sentences with the given word counts, in
    /// steps of about `step_words` words.
    pub fn new(
        sentence_words: impl Iterator<Item = usize>,
        epochs: usize,
        step_words: usize,
    ) -> Plan {
        let mut chunks = Vec::new();
        let mut words_before = vec![0u64];
        let (mut start, mut count, mut n) = (0, 0, 0);
        for len in sentence_words {
            count += len;
            n += 1;
            if count >= CHUNK_WORDS {
                chunks.push(start..n);
                words_before.push(words_before.last().unwrap() + count as u64);
                start = n;
                count = 0;
            }
        }
        if n > start {
            chunks.push(start..n);
            words_before.push(words_before.last().unwrap() + count as u64);
        }
        let mut slices = Vec::new();
        let mut first = 0;
        for c in 0..chunks.len() {
            if words_before[c + 1] - words_before[first] >= step_words.max(1) as u64
                || c + 1 == chunks.len()
            {
                slices.push(first..c + 1);
                first = c + 1;
            }
        }
        Plan {
            chunks,
            words_before,
            slices,
            epochs: epochs as u64,
        }
    }

    /// Steps in the whole run (0 for an empty corpus).
    pub fn total_steps(&self) -> u64 {
        self.epochs * self.slices.len() as u64
    }

    /// Steps per epoch.
    pub fn steps_per_epoch(&self) -> u64 {
        self.slices.len() as u64
    }

    /// Sentences in one epoch.
    pub fn sentences(&self) -> usize {
        self.chunks.last().map_or(0, |c| c.end)
    }

    /// Words in one epoch.
    pub fn epoch_words(&self) -> u64 {
        *self.words_before.last().unwrap()
    }

    /// `(epoch, chunk indices)` of step `step`.
    pub fn step(&self, step: u64) -> (u64, Range<usize>) {
        let per = self.steps_per_epoch().max(1);
        (step / per, self.slices[(step % per) as usize].clone())
    }

    /// Sentence range of chunk `c`.
    pub fn chunk(&self, c: usize) -> Range<usize> {
        self.chunks[c].clone()
    }

    /// Fraction of the run's words done before chunk `c` of epoch `epoch`.
    pub fn progress(&self, epoch: u64, c: usize) -> f64 {
        let total = (self.epochs * self.epoch_words()).max(1) as f64;
        (epoch * self.epoch_words() + self.words_before[c]) as f64 / total
    }

    /// Fraction done before step `step`.
    pub fn step_progress(&self, step: u64) -> f64 {
        if step >= self.total_steps() {
            return 1.0;
        }
        let (epoch, chunks) = self.step(step);
        self.progress(epoch, chunks.start)
    }
}

/// Linear decay with a floor, re-anchored when `lr` is set mid-run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Schedule {
    /// Progress at which `rate` applied.
    anchor: f64,
    /// Rate at the anchor.
    rate: f64,
    /// Floor, as a fraction of `rate`.
    min_fraction: f64,
}

impl Schedule {
    /// Decay from `lr` at the start down to `lr · min_fraction`.
    pub fn new(lr: f64, min_fraction: f64) -> Self {
        Schedule {
            anchor: 0.0,
            rate: lr,
            min_fraction,
        }
    }

    /// The rate at progress `p` in `[0, 1]`.
    pub fn at(&self, p: f64) -> f64 {
        let left = (1.0 - self.anchor).max(f64::MIN_POSITIVE);
        self.rate * ((1.0 - p) / left).clamp(self.min_fraction, 1.0)
    }

    /// Makes the rate `lr` at progress `p`, decaying linearly from there.
    pub fn set(&mut self, lr: f64, p: f64) {
        self.anchor = p.clamp(0.0, 1.0);
        self.rate = lr;
    }
}

/// A seed for the random stream of (`seed`, `a`, `b`): SplitMix64 finalisers
/// chained, so nearby inputs give unrelated streams.
pub fn stream_seed(seed: u64, a: u64, b: u64) -> u64 {
    let mix = |mut z: u64| {
        z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    mix(mix(mix(seed) ^ a) ^ b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_hold_whole_sentences_and_steps_cover_the_epoch() {
        let lens = [6000, 6000, 3000, 12000, 100, 5];
        let plan = Plan::new(lens.iter().copied(), 2, 20_000);
        assert_eq!(plan.chunks, vec![0..2, 2..4, 4..6]);
        assert_eq!(plan.words_before, vec![0, 12000, 27000, 27105]);
        assert_eq!(plan.slices, vec![0..2, 2..3]);
        assert_eq!(plan.total_steps(), 4);
        assert_eq!(plan.step(3), (1, 2..3));
        assert!((plan.progress(1, 1) - (27105.0 + 12000.0) / 54210.0).abs() < 1e-12);
        assert_eq!(plan.step_progress(4), 1.0);
    }

    #[test]
    fn empty_corpus_has_no_steps() {
        let plan = Plan::new(std::iter::empty(), 5, 1000);
        assert_eq!(plan.total_steps(), 0);
    }

    #[test]
    fn schedule_decays_linearly_and_rescales_when_set() {
        let mut s = Schedule::new(0.025, 1e-4);
        assert_eq!(s.at(0.0), 0.025);
        assert!((s.at(0.5) - 0.0125).abs() < 1e-15);
        assert!((s.at(1.0) - 0.025e-4).abs() < 1e-15);
        s.set(0.1, 0.5);
        assert!((s.at(0.5) - 0.1).abs() < 1e-15);
        assert!((s.at(0.75) - 0.05).abs() < 1e-15);
        assert!((s.at(1.0) - 0.1e-4).abs() < 1e-15);
    }
}
