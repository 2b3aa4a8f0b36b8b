//! Bounded selection of the `k` best candidates, shared by the exact
//! neighbour searches (cosine neighbours of words, t-SNE's kNN graph).
//!
//! "Best" is the smallest key, ties broken by the lower id, so results do not
//! depend on the order candidates arrive in (blocks, threads). A caller that
//! wants the largest score pushes `-score` (negation is exact). A max-heap
//! keeps the worst kept candidate on top: a new one is compared with it once
//! and most are rejected without touching the heap.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// A candidate: smaller key first, then lower id.
#[derive(Debug, Clone, Copy)]
struct Hit {
    key: f32,
    id: u32,
}

impl Hit {
    fn before(&self, other: &Hit) -> bool {
        self.key < other.key || (self.key == other.key && self.id < other.id)
    }
}

impl PartialEq for Hit {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Hit {}

impl PartialOrd for Hit {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Worse hits compare greater, so the max-heap has the worst kept on top.
impl Ord for Hit {
    fn cmp(&self, other: &Self) -> Ordering {
        if self.before(other) {
            Ordering::Less
        } else if other.before(self) {
            Ordering::Greater
        } else {
            Ordering::Equal
        }
    }
}

/// The `k` smallest keys seen so far (partial selection, no full sort).
#[derive(Debug, Clone)]
pub struct TopK {
    k: usize,
    heap: BinaryHeap<Hit>,
}

impl TopK {
    /// Keeps at most `k` candidates.
    pub fn new(k: usize) -> Self {
        TopK {
            k,
            heap: BinaryHeap::with_capacity(k + 1),
        }
    }

    /// Would a candidate with this key and id be kept? (NaN never is.)
    #[inline]
    pub fn accepts(&self, key: f32, id: u32) -> bool {
        if key.is_nan() || self.k == 0 {
            return false;
        }
        match self.heap.peek() {
            Some(worst) if self.heap.len() >= self.k => Hit { key, id }.before(worst),
            _ => true,
        }
    }

    /// The largest key that can still enter (infinite until `k` are kept).
    #[inline]
    pub fn worst_key(&self) -> f32 {
        match self.heap.peek() {
            Some(worst) if self.heap.len() >= self.k => worst.key,
            _ => f32::INFINITY,
        }
    }

    /// Adds a candidate (call after [`accepts`](Self::accepts) said yes).
    pub fn push(&mut self, key: f32, id: u32) {
        self.heap.push(Hit { key, id });
        if self.heap.len() > self.k {
            self.heap.pop();
        }
    }

    /// Merges another selection (of a different block of candidates) in.
    pub fn absorb(&mut self, other: TopK) {
        for hit in other.heap {
            if self.accepts(hit.key, hit.id) {
                self.push(hit.key, hit.id);
            }
        }
    }

    /// `(id, key)`, best first.
    pub fn into_sorted(self) -> Vec<(u32, f32)> {
        self.heap
            .into_sorted_vec()
            .into_iter()
            .map(|h| (h.id, h.key))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::TopK;

    #[test]
    fn keeps_the_smallest_with_ties_to_the_lower_id_in_any_order() {
        let items = [
            (3.0, 7),
            (1.0, 9),
            (2.0, 4),
            (1.0, 2),
            (f32::NAN, 0),
            (2.0, 1),
        ];
        let mut forward = TopK::new(3);
        for &(key, id) in &items {
            if forward.accepts(key, id) {
                forward.push(key, id);
            }
        }
        assert_eq!(forward.worst_key(), 2.0);
        let (mut a, mut b) = (TopK::new(3), TopK::new(3));
        for (i, &(key, id)) in items.iter().rev().enumerate() {
            let half = if i % 2 == 0 { &mut a } else { &mut b };
            if half.accepts(key, id) {
                half.push(key, id);
            }
        }
        a.absorb(b);
        let expect = vec![(2, 1.0), (9, 1.0), (1, 2.0)];
        assert_eq!(forward.into_sorted(), expect);
        assert_eq!(a.into_sorted(), expect);
        assert_eq!(TopK::new(2).worst_key(), f32::INFINITY);
        assert!(!TopK::new(0).accepts(0.0, 0));
    }
}
