//! Prototype creation: the paper's four criteria, and the record of each
//! word's last predictions that places a new prototype ([`super::cluster`]).
//!
//! Training threads push every prediction `p̂` made for a word that may
//! still grow into that word's ring ([`History`]); between steps the trainer
//! asks [`consider`] about each word whose ring has filled with predictions
//! it has not yet been checked on, so a word whose candidate failed waits for
//! a fresh set of predictions before it is clustered again. Under the
//! deterministic schedule a lane keeps its predictions ([`Pending`]) until
//! the round ends, and the lanes' lists go into the rings in lane order.

use std::sync::atomic::{AtomicU32, Ordering};

use super::cluster;
use super::model::Model;
use crate::fast::hogwild::{Hogwild, SharedMatrix};
use crate::fast::replicas::Rows;
use crate::schema::choice_names;

/// The creation thresholds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Criteria {
    /// (1) Held-out perplexity must be below this.
    pub max_ppl: f64,
    /// (2) Every existing prototype of the word selected at least this often.
    pub min_selections: u32,
    /// (4) The new prototype at least this far from the word's others.
    pub min_distance: f64,
    /// Share of the predictions the minor side of the chosen split must hold.
    pub min_split: f64,
    /// Where a candidate is placed.
    pub placement: Placement,
}

/// Where a new prototype goes, given the centroid `c` of a cluster of the
/// word's predictions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// At `c` itself (the thesis).
    Centroid,
    /// At the word's first prototype moved by `c − c̄`, `c̄` the mean of all
    /// the word's kept predictions: the cluster's departure from the word's
    /// usual prediction, applied where the word's prototype already is.
    Shift,
}

choice_names!(Placement {
    Centroid = "centroid",
    Shift = "shift",
});

/// Moves every candidate `c` to `base + (c − mean(points))`.
fn shift(candidates: &mut [Vec<f32>], points: &[f32], base: &[f32]) {
    let dim = base.len();
    let n = (points.len() / dim).max(1) as f64;
    let mut mean = vec![0f64; dim];
    for row in points.chunks_exact(dim) {
        mean.iter_mut().zip(row).for_each(|(m, &x)| *m += x as f64);
    }
    for cand in candidates.iter_mut() {
        for ((c, &m), &b) in cand.iter_mut().zip(&mean).zip(base) {
            *c = b + (*c as f64 - m / n) as f32;
        }
    }
}

/// What [`consider`] decided.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// A prototype was created in this slot.
    Created(u32),
    /// (1) failed: perplexity not below `max_ppl` (or not measured).
    Perplexity,
    /// (2) failed: some prototype selected fewer than `min_selections` times.
    Selections,
    /// (3) failed: the word has its ⌊log₁₀ n⌋ prototypes.
    Cap,
    /// No split of the predictions is balanced enough.
    NoSplit,
    /// (4) failed: every candidate is nearer than `min_distance` to a prototype of the word.
    Distance,
}

/// The last `history` predictions of each word that may grow.
#[derive(Debug)]
pub struct History {
    /// Ring of each word, `u32::MAX` for words that cannot grow.
    ring_of: Vec<u32>,
    /// Words with a ring, in id order.
    words: Vec<u32>,
    data: SharedMatrix,
    pushed: Vec<AtomicU32>,
    checked: Vec<u32>,
    history: usize,
}

impl History {
    /// Rings of `history` predictions of dimension `dim` for the words `w`
    /// with `grows(w)`.
    pub fn new(words: usize, grows: impl Fn(u32) -> bool, history: usize, dim: usize) -> History {
        let mut ring_of = vec![u32::MAX; words];
        let mut list = Vec::new();
        for (w, r) in ring_of.iter_mut().enumerate() {
            if grows(w as u32) {
                *r = list.len() as u32;
                list.push(w as u32);
            }
        }
        History {
            data: SharedMatrix::zeros(list.len() * history, dim),
            pushed: (0..list.len()).map(|_| AtomicU32::new(0)).collect(),
            checked: vec![0; list.len()],
            ring_of,
            words: list,
            history,
        }
    }

    /// Words with a ring.
    pub fn words(&self) -> &[u32] {
        &self.words
    }

    /// A handle for the training threads.
    pub fn rings(&mut self) -> Rings<'_> {
        Rings {
            ring_of: &self.ring_of,
            data: self.data.hogwild(),
            pushed: &self.pushed,
            history: self.history,
        }
    }

    /// True when `w`'s ring holds `history` predictions not yet checked.
    pub fn fresh(&self, w: u32) -> bool {
        let r = self.ring_of[w as usize];
        if r == u32::MAX {
            return false;
        }
        let pushed = self.pushed[r as usize].load(Ordering::Relaxed);
        pushed >= self.history as u32 && pushed - self.checked[r as usize] >= self.history as u32
    }

    /// Marks `w`'s current predictions as checked.
    pub fn checked(&mut self, w: u32) {
        let r = self.ring_of[w as usize];
        if r != u32::MAX {
            self.checked[r as usize] = self.pushed[r as usize].load(Ordering::Relaxed);
        }
    }

    /// The predictions of `w` held (row-major), oldest slot first.
    pub fn predictions(&self, w: u32) -> &[f32] {
        let r = self.ring_of[w as usize];
        if r == u32::MAX {
            return &[];
        }
        let pushed = self.pushed[r as usize].load(Ordering::Relaxed) as usize;
        let d = self.data.cols();
        let all = self.data.view().to_slice().expect("row-major table");
        let start = r as usize * self.history * d;
        &all[start..start + pushed.min(self.history) * d]
    }
}

/// The training threads' access to the rings.
#[derive(Clone, Copy)]
pub struct Rings<'a> {
    ring_of: &'a [u32],
    data: Hogwild<'a>,
    pushed: &'a [AtomicU32],
    history: usize,
}

impl Rings<'_> {
    /// Records prediction `p` made for word `w` (if `w` has a ring).
    #[inline]
    pub fn push(&self, w: u32, p: &[f32]) {
        let r = self.ring_of[w as usize];
        if r == u32::MAX {
            return;
        }
        let k = self.pushed[r as usize].fetch_add(1, Ordering::Relaxed) as usize % self.history;
        // Concurrent writers to the same ring row race as Hogwild allows (a
        // mixed prediction).
        self.data.write_row(r as usize * self.history + k, p);
    }
}

/// Where training puts the predictions it makes: straight into the
/// [`Rings`] (one thread, or Hogwild), or a lane's [`Pending`] list, which
/// the deterministic schedule pushes into the rings in lane order after each
/// round so that the rings' contents do not depend on timing.
pub trait Record {
    /// Records prediction `p` made for word `w`.
    fn record(&mut self, w: u32, p: &[f32]);
}

impl Record for Rings<'_> {
    #[inline]
    fn record(&mut self, w: u32, p: &[f32]) {
        self.push(w, p);
    }
}

/// One lane's predictions of a round, in the order it made them.
#[derive(Debug, Clone, Default)]
pub struct Pending {
    words: Vec<u32>,
    data: Vec<f32>,
}

impl Pending {
    /// Pushes the predictions into `rings` in the order they were made, and
    /// forgets them.
    pub fn apply(&mut self, rings: &Rings<'_>) {
        let d = rings.data.cols().max(1);
        for (&w, p) in self.words.iter().zip(self.data.chunks_exact(d)) {
            rings.push(w, p);
        }
        self.words.clear();
        self.data.clear();
    }
}

impl Record for Pending {
    #[inline]
    fn record(&mut self, w: u32, p: &[f32]) {
        self.words.push(w);
        self.data.extend_from_slice(p);
    }
}

/// Checks the four criteria for word `w` (cheapest first) and creates its
/// next prototype at the first acceptable candidate; `ppl` is the latest
/// held-out perplexity.
pub fn consider(
    model: &mut Model,
    history: &History,
    w: u32,
    ppl: Option<f64>,
    c: &Criteria,
) -> Outcome {
    if ppl.is_none_or(|p| p.is_nan() || p >= c.max_ppl) {
        return Outcome::Perplexity;
    }
    if model.layout.count(w) >= model.layout.cap(w) {
        return Outcome::Cap;
    }
    if model
        .layout
        .of(w)
        .any(|slot| model.selected(slot) < c.min_selections)
    {
        return Outcome::Selections;
    }
    let dim = model.shape.dim;
    let mut candidates = cluster::candidates(history.predictions(w), dim, c.min_split);
    if c.placement == Placement::Shift {
        shift(
            &mut candidates,
            history.predictions(w),
            model.proto(model.layout.of(w).start),
        );
    }
    if candidates.is_empty() {
        return Outcome::NoSplit;
    }
    for cand in candidates {
        let far = model.layout.of(w).all(|slot| {
            let d2: f64 = model
                .proto(slot)
                .iter()
                .zip(&cand)
                .map(|(&a, &b)| ((a - b) as f64).powi(2))
                .sum();
            d2.sqrt() >= c.min_distance
        });
        if far {
            let slot = model.create(w, &cand).expect("below the cap");
            return Outcome::Created(slot);
        }
    }
    Outcome::Distance
}
