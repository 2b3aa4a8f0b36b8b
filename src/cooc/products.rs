//! Results computed from counts that later runs can reuse whole: a
//! factorisation of the transformed counts, shared by the runs of a sweep
//! that differ only in how they use it (SVD's `power`). Kept by the
//! [`CountCache`] every run of a session or sweep already shares.
//!
//! Two kinds are made today, both by the spectral methods: the transformed
//! matrix (PPMI and the rest; shared by runs that differ only in the solve:
//! `dim`, the solver's settings) and the finished solve (shared by runs that
//! differ only in `power`).
//!
//! A product is known by its corpus (by `Arc`, held weakly, as the counts
//! are) and a key its producer writes from every setting that determines
//! it. The products kept are the ones asked for most recently. The first run to ask *claims* the key and computes; a run asking for
//! a claimed key waits for the claim to be fulfilled (then reuses it) or
//! given up (a run stopped before its solve ended: then it claims the key
//! itself). So two runs at once never compute the same product twice.

use std::any::{Any, TypeId};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, Weak};

use super::CountCache;
use crate::corpus::Corpus;

type Value = Arc<dyn Any + Send + Sync>;

/// The products kept, with the claims under way.
#[derive(Debug)]
pub struct Products {
    capacity: usize,
    slots: Mutex<Vec<Slot>>,
    changed: Condvar,
    /// Products made, by type.
    made: Mutex<Vec<(TypeId, usize)>>,
}

#[derive(Debug)]
struct Slot {
    corpus: Weak<Corpus>,
    key: String,
    /// `None` while its claim is being computed.
    value: Option<Value>,
}

/// What a run asking for a product gets.
pub enum Product<T> {
    /// An earlier run made it.
    Ready(Arc<T>),
    /// This run makes it: fulfil the claim when done (dropping it gives it up).
    Make(Claim),
}

/// The right and duty to compute a product; dropped unfulfilled, it lets a
/// waiting run compute it instead.
#[derive(Debug)]
pub struct Claim {
    cache: Arc<CountCache>,
    corpus: Weak<Corpus>,
    key: String,
    done: bool,
}

impl Products {
    /// Keeps up to `capacity` finished products (claims are not counted).
    pub fn new(capacity: usize) -> Self {
        Products {
            capacity,
            slots: Mutex::new(Vec::new()),
            changed: Condvar::new(),
            made: Mutex::new(Vec::new()),
        }
    }

    /// Products of type `T` made (claims fulfilled), kept or not.
    pub fn made<T: Any>(&self) -> usize {
        let made = self.made.lock().unwrap_or_else(|p| p.into_inner());
        made.iter()
            .find(|(t, _)| *t == TypeId::of::<T>())
            .map_or(0, |&(_, n)| n)
    }

    fn count_made<T: Any>(&self) {
        let mut made = self.made.lock().unwrap_or_else(|p| p.into_inner());
        match made.iter_mut().find(|(t, _)| *t == TypeId::of::<T>()) {
            Some((_, n)) => *n += 1,
            None => made.push((TypeId::of::<T>(), 1)),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Slot>> {
        self.slots.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn position(slots: &[Slot], corpus: &Weak<Corpus>, key: &str) -> Option<usize> {
        slots
            .iter()
            .position(|s| s.key == key && s.corpus.ptr_eq(corpus))
    }
}

impl CountCache {
    /// The product `key` of `corpus`: ready when an earlier run made it,
    /// else a claim to make it (waiting first for a run making it now).
    pub fn product<T: Any + Send + Sync>(
        self: &Arc<Self>,
        corpus: &Arc<Corpus>,
        key: &str,
    ) -> Product<T> {
        let products = &self.products;
        let weak = Arc::downgrade(corpus);
        let mut slots = products.lock();
        loop {
            slots.retain(|s| s.corpus.strong_count() > 0);
            let Some(at) = Products::position(&slots, &weak, key) else {
                break;
            };
            match slots[at].value.clone() {
                Some(value) => {
                    if let Ok(value) = value.downcast::<T>() {
                        // The most recently asked for are kept longest.
                        let slot = slots.remove(at);
                        slots.insert(0, slot);
                        return Product::Ready(value);
                    }
                    // Another type under the same key: this run makes its own.
                    slots.remove(at);
                    break;
                }
                None => {
                    slots = products
                        .changed
                        .wait(slots)
                        .unwrap_or_else(|p| p.into_inner());
                }
            }
        }
        slots.push(Slot {
            corpus: weak.clone(),
            key: key.to_string(),
            value: None,
        });
        Product::Make(Claim {
            cache: self.clone(),
            corpus: weak,
            key: key.to_string(),
            done: false,
        })
    }

    /// Products of type `T` made and offered for reuse.
    pub fn products_made<T: Any>(&self) -> usize {
        self.products.made::<T>()
    }
}

impl Claim {
    /// Keeps `value` for the runs that ask next (and wakes those waiting).
    pub fn fulfil<T: Any + Send + Sync>(mut self, value: Arc<T>) {
        let products = &self.cache.products;
        products.count_made::<T>();
        let mut slots = products.lock();
        if let Some(at) = Products::position(&slots, &self.corpus, &self.key) {
            slots.remove(at);
        }
        if products.capacity > 0 {
            slots.insert(
                0,
                Slot {
                    corpus: self.corpus.clone(),
                    key: self.key.clone(),
                    value: Some(value),
                },
            );
            // Claims under way stay; the oldest finished products go.
            let mut finished = 0;
            slots.retain(|s| {
                finished += usize::from(s.value.is_some());
                s.value.is_none() || finished <= products.capacity
            });
        }
        self.done = true;
        products.changed.notify_all();
    }
}

impl Drop for Claim {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let products = &self.cache.products;
        let mut slots = products.lock();
        if let Some(at) = Products::position(&slots, &self.corpus, &self.key) {
            if slots[at].value.is_none() {
                slots.remove(at);
            }
        }
        products.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cooc::cache::tests::corpus;

    #[test]
    fn the_first_asker_makes_a_product_and_the_next_reuse_it() {
        let cache = Arc::new(CountCache::default());
        let c = corpus();
        let Product::Make(claim) = cache.product::<u32>(&c, "k") else {
            panic!("nothing made yet")
        };
        claim.fulfil(Arc::new(7u32));
        let Product::Ready(v) = cache.product::<u32>(&c, "k") else {
            panic!("made")
        };
        assert_eq!(*v, 7);
        assert!(matches!(
            cache.product::<u32>(&c, "other"),
            Product::Make(_)
        ));
        // Another corpus (even the same file read again) is another product.
        assert!(matches!(
            cache.product::<u32>(&corpus(), "k"),
            Product::Make(_)
        ));
        assert_eq!(
            (cache.products_made::<u32>(), cache.products_made::<u64>()),
            (1, 0),
            "counted by type"
        );
    }

    #[test]
    fn the_products_asked_for_most_recently_are_kept() {
        let cache = Arc::new(CountCache::new(2));
        let c = corpus();
        let make = |key: &str, v: u32| match cache.product::<u32>(&c, key) {
            Product::Make(claim) => claim.fulfil(Arc::new(v)),
            Product::Ready(_) => panic!("{key} was kept"),
        };
        make("a", 1);
        make("b", 2);
        // Asking for "a" again keeps it over "b" when "c" comes.
        assert!(matches!(cache.product::<u32>(&c, "a"), Product::Ready(_)));
        make("c", 3);
        assert!(matches!(cache.product::<u32>(&c, "a"), Product::Ready(_)));
        assert!(matches!(cache.product::<u32>(&c, "b"), Product::Make(_)));
    }

    #[test]
    fn a_claim_given_up_passes_to_the_run_waiting_for_it() {
        let cache = Arc::new(CountCache::default());
        let c = corpus();
        let Product::Make(first) = cache.product::<u32>(&c, "k") else {
            panic!()
        };
        let (cache2, c2) = (cache.clone(), c.clone());
        let waiter = std::thread::spawn(move || match cache2.product::<u32>(&c2, "k") {
            Product::Make(claim) => {
                claim.fulfil(Arc::new(2u32));
                "made"
            }
            Product::Ready(_) => "reused",
        });
        drop(first);
        assert_eq!(waiter.join().unwrap(), "made");
        let Product::Ready(v) = cache.product::<u32>(&c, "k") else {
            panic!()
        };
        assert_eq!((*v, cache.products_made::<u32>()), (2, 1));
    }
}
