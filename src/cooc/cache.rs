//! Counts kept for reuse across runs.
//!
//! Counting is most of the set-up time of a count-based run (GloVe, KUBWE,
//! the spectral methods, DSNMF), and in a workbench session the same corpus
//! is counted with the same window again and again: GloVe and KUBWE both
//! use a harmonic window of 10, and a user comparing SVD settings varies
//! everything but the counts. A [`CountCache`] hands out the counts of a
//! (corpus, [`CountConfig`]) pair it has seen, counting only on a miss.
//!
//! A corpus is known by its `Arc` (a corpus re-read with other options is a
//! new one), held weakly so a closed corpus frees its counts. The cache
//! keeps the few most recently used matrices: counts of a large corpus are
//! hundreds of megabytes.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};

use sprs::CsMat;

use super::count::{count_corpus, CountConfig};
use crate::corpus::Corpus;
use crate::Result;

/// Matrices kept by a default cache.
pub const DEFAULT_ENTRIES: usize = 3;

/// Co-occurrence matrices by corpus and configuration, most recently used first.
#[derive(Debug)]
pub struct CountCache {
    capacity: usize,
    entries: Mutex<Vec<Entry>>,
    /// Matrices counted (misses), for sweeps that show what sharing saved.
    counted: AtomicUsize,
    /// Results made from the counts that later runs reuse whole
    /// (factorisations; [`super::products`]).
    pub(super) products: super::products::Products,
}

#[derive(Debug)]
struct Entry {
    corpus: Weak<Corpus>,
    config: CountConfig,
    counts: Arc<CsMat<f64>>,
}

impl Default for CountCache {
    fn default() -> Self {
        CountCache::new(DEFAULT_ENTRIES)
    }
}

impl CountCache {
    /// A cache that keeps up to `capacity` matrices (0 keeps none).
    pub fn new(capacity: usize) -> Self {
        CountCache {
            capacity,
            entries: Mutex::new(Vec::new()),
            counted: AtomicUsize::new(0),
            products: super::products::Products::new(capacity),
        }
    }

    /// The counts of `corpus`'s training split under `config`: the kept
    /// matrix when there is one, else counted now (without holding the
    /// cache, so other runs are not kept waiting) and kept.
    pub fn counts(&self, corpus: &Arc<Corpus>, config: &CountConfig) -> Result<Arc<CsMat<f64>>> {
        if let Some(m) = super::count::counted_matrix(corpus, config)? {
            return Ok(m);
        }
        if let Some(hit) = self.lookup(corpus, config) {
            return Ok(hit);
        }
        let counts = Arc::new(count_corpus(corpus, config)?);
        self.counted.fetch_add(1, Ordering::Relaxed);
        self.keep(corpus, config, counts.clone());
        Ok(counts)
    }

    /// Matrices this cache has counted (every miss), kept or not.
    pub fn counted(&self) -> usize {
        self.counted.load(Ordering::Relaxed)
    }

    /// Matrices kept now.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether nothing is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lookup(&self, corpus: &Arc<Corpus>, config: &CountConfig) -> Option<Arc<CsMat<f64>>> {
        let mut entries = self.lock();
        entries.retain(|e| e.corpus.strong_count() > 0);
        let at = entries
            .iter()
            .position(|e| e.config == *config && same(&e.corpus, corpus))?;
        let entry = entries.remove(at);
        let counts = entry.counts.clone();
        entries.insert(0, entry);
        Some(counts)
    }

    fn keep(&self, corpus: &Arc<Corpus>, config: &CountConfig, counts: Arc<CsMat<f64>>) {
        if self.capacity == 0 {
            return;
        }
        let mut entries = self.lock();
        entries.retain(|e| !(e.config == *config && same(&e.corpus, corpus)));
        entries.insert(
            0,
            Entry {
                corpus: Arc::downgrade(corpus),
                config: *config,
                counts,
            },
        );
        entries.truncate(self.capacity);
    }

    /// The entries; a panic elsewhere while the lock was held leaves them
    /// consistent (every change is one `Vec` operation), so poisoning is ignored.
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Entry>> {
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn same(kept: &Weak<Corpus>, corpus: &Arc<Corpus>) -> bool {
    std::ptr::eq(kept.as_ptr(), Arc::as_ptr(corpus))
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::cooc::{Weighting, Window};
    use crate::corpus::CorpusConfig;

    /// The small paragraphs fixture, as the cache's tests and the products'
    /// open it.
    pub(in crate::cooc) fn corpus() -> Arc<Corpus> {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/corpus/paragraphs.txt"
        );
        Arc::new(Corpus::open(path, CorpusConfig::default()).unwrap())
    }

    fn config(window: usize) -> CountConfig {
        CountConfig {
            window: Window::symmetric(window, Weighting::Harmonic),
            max_vocab: None,
        }
    }

    #[test]
    fn a_second_run_gets_the_same_matrix_and_equal_counts_to_a_fresh_count() {
        let cache = CountCache::default();
        let c = corpus();
        let first = cache.counts(&c, &config(5)).unwrap();
        let again = cache.counts(&c, &config(5)).unwrap();
        assert!(Arc::ptr_eq(&first, &again), "counted once");
        assert_eq!(cache.counted(), 1);
        let fresh = count_corpus(&c, &config(5)).unwrap();
        assert_eq!(*first, fresh);
        let other = cache.counts(&c, &config(2)).unwrap();
        assert!(!Arc::ptr_eq(&first, &other));
        assert_eq!(cache.len(), 2);
        assert_eq!(cache.counted(), 2);
    }

    #[test]
    fn another_corpus_misses_and_a_closed_one_frees_its_counts() {
        let cache = CountCache::default();
        let (a, b) = (corpus(), corpus());
        let from_a = cache.counts(&a, &config(5)).unwrap();
        let from_b = cache.counts(&b, &config(5)).unwrap();
        assert!(
            !Arc::ptr_eq(&from_a, &from_b),
            "a corpus is known by its Arc"
        );
        drop((a, from_a));
        cache.counts(&b, &config(5)).unwrap();
        assert_eq!(cache.len(), 1, "the closed corpus's entry is gone");
    }

    #[test]
    fn the_least_recently_used_matrix_goes_first() {
        let cache = CountCache::new(2);
        let c = corpus();
        let w1 = cache.counts(&c, &config(1)).unwrap();
        cache.counts(&c, &config(2)).unwrap();
        cache.counts(&c, &config(1)).unwrap();
        cache.counts(&c, &config(3)).unwrap();
        assert_eq!(cache.len(), 2);
        let again = cache.counts(&c, &config(1)).unwrap();
        assert!(
            Arc::ptr_eq(&w1, &again),
            "window 1 was used last, window 2 left"
        );
        assert!(CountCache::new(0).counts(&c, &config(1)).is_ok());
        assert!(CountCache::new(0).is_empty());
    }
}
