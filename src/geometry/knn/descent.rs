//! Approximate k nearest neighbours for large `n`: a random-projection forest
//! to start from, then NN-descent (Dong, Charikar & Li 2011), the route of
//! pynndescent, which openTSNE and umap-learn use.
//!
//! The exact search ([`super::knn`]) costs `n²·d`; at 200,000 points it was
//! most of a UMAP run (docs/umap.md). NN-descent rests on "a neighbour of a
//! neighbour is likely a neighbour": each round, every point introduces its
//! sampled neighbours (and the points that list it) to each other, and every
//! pair that beats a current k-th distance enters the lists. Only pairs with
//! a new member are joined, so rounds get cheap as the lists settle; the
//! search stops when fewer than `delta·n·k` entries changed in a round.
//!
//! Determinism: every random choice comes from `seed` — the forest from one
//! seeded generator per tree, candidate sampling from a hash of
//! `(seed, round, pair)` — and the result does not depend on the number of
//! threads: candidate lists keep the lowest-priority members of a set (order
//! free), joins read the lists as they were before their block of points, and
//! the updates of a block are applied to each row in one fixed order.
//!
//! Storage is flat: `n × k` distances and ids (the top bit of an id marks a
//! new entry), `n × max_candidates` candidate lists, reused update buffers;
//! the hot loops do not allocate.

use ndarray::ArrayView2;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use std::sync::atomic::AtomicU32;
use std::sync::atomic::Ordering::Relaxed;

#[cfg(target_arch = "x86_64")]
use crate::fast::lanes::Avx2;
use crate::fast::lanes::{Lanes, Portable};

use super::Knn;
use crate::fast::join::{Joiner, Rows, Update};
use crate::fast::prefetch;

/// Marks an entry not yet joined.
const NEW: u32 = 1 << 31;
/// The id bits of an entry.
const ID: u32 = NEW - 1;
/// An empty slot (an id no point has; it sorts after every real id).
const EMPTY: u32 = ID;
/// Points joined before their updates are applied (fixed, so results do not
/// depend on the thread count).
const BLOCK: usize = 4096;
/// Points whose updates share one buffer.
const CHUNK: usize = 64;

/// Parameters of the approximate search.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Descent {
    /// Seed of the forest and of candidate sampling.
    pub seed: u64,
    /// Random-projection trees to start from.
    pub trees: usize,
    /// Most points in a leaf of a tree (at least `k + 1` is used).
    pub leaf: usize,
    /// Lists are kept at least this long (then cut to `k`): short lists
    /// give too few neighbours of neighbours to find the true ones.
    pub min_k: usize,
    /// Candidates sampled per point and round (0: [`auto_candidates`] of
    /// the list length).
    pub candidates: usize,
    /// Most rounds (0: `max(5, round(log2 n))`).
    pub rounds: usize,
    /// Stop when fewer than `delta · n · k` list entries changed in a round.
    pub delta: f64,
}

impl Default for Descent {
    fn default() -> Self {
        Descent {
            seed: 0x6b6e_6e5f_6465_7363,
            trees: 8,
            leaf: 0,
            min_k: 30,
            candidates: 0,
            rounds: 0,
            delta: 0.001,
        }
    }
}

/// Candidates sampled per point and round for lists of `k`: `max(60, 2k)`.
/// A fixed 60 (pynndescent's cap) let recall fall with `n` at `k` = 90
/// (0.983 at 100,000 points, 0.977 at 200,000): a new neighbour is joined
/// with the sampled old ones only, once, so with ~2k forward and reverse
/// neighbours a 60-sample misses most pairs for good (running every round
/// instead of stopping at `delta` did not help: 0.983). `2k` reached 0.991
/// at 200,000 points (docs/methods/projection.md, "Approximate neighbours
/// for large n"); lists of up to 30 keep 60, so small `k` is unchanged.
pub fn auto_candidates(k: usize) -> usize {
    (2 * k).max(60)
}

/// The (approximately) `k` nearest other rows of every row of `x`, nearest
/// first, with their true squared Euclidean distances. `k` is capped at
/// `n − 1`.
pub fn descent(x: ArrayView2<'_, f32>, k: usize, p: &Descent) -> Knn {
    let n = x.nrows();
    let k = k.min(n.saturating_sub(1));
    if k == 0 {
        return Knn::empty();
    }
    assert!(n < EMPTY as usize, "{n} points do not fit 31-bit ids");
    let x = x.as_standard_layout();
    let data = x.as_slice().expect("standard layout");
    #[cfg(target_arch = "x86_64")]
    if let Some(lanes) = Avx2::detect() {
        return run(lanes, data, x.ncols(), k, p);
    }
    run(Portable, data, x.ncols(), k, p)
}

/// Builds the forest, renumbers the points in the first tree's leaf order
/// (neighbours then sit close in memory, which is most of the speed at
/// large `n`), searches, and maps the lists back to the caller's ids.
fn run<L: Lanes>(lanes: L, data: &[f32], d: usize, k: usize, p: &Descent) -> Knn {
    let given = Points::new(lanes, data, d);
    let n = given.n();
    let inner = k.max(p.min_k).min(n - 1);
    let leaf = p.leaf.max(inner + 1);
    let mut forest: Vec<Tree> = (0..p.trees.max(1) as u64)
        .into_par_iter()
        .map(|t| Tree::build(&given, leaf, mix(p.seed ^ mix(t + 1))))
        .collect();
    let perm = forest[0].order.clone();
    let mut inv = vec![0u32; n];
    for (new, &old) in perm.iter().enumerate() {
        inv[old as usize] = new as u32;
    }
    for tree in &mut forest {
        tree.renumber(&inv);
    }
    let mut moved = Vec::with_capacity(data.len());
    for &old in &perm {
        moved.extend_from_slice(given.row(old as usize));
    }
    drop(given);
    let heaps = Points::new(lanes, &moved, d).search(inner, &forest, p);
    heaps.into_knn(k, &perm, &inv)
}

/// The rows, their squared norms and the dot-product kernel.
struct Points<'a, L> {
    lanes: L,
    data: &'a [f32],
    d: usize,
    sq: Vec<f32>,
}

/// `n × k` bounded max-heaps, the worst kept entry at the root of each row.
struct Heaps {
    k: usize,
    dist: Vec<f32>,
    ids: Vec<u32>,
}

/// `n × m` sampled candidates, sorted by id, `EMPTY` after the last.
struct Candidates {
    m: usize,
    ids: Vec<u32>,
}

impl<'a, L: Lanes> Points<'a, L> {
    fn new(lanes: L, data: &'a [f32], d: usize) -> Self {
        let sq = data
            .chunks(d.max(1))
            .map(|r| r.iter().map(|&v| f64::from(v) * f64::from(v)).sum::<f64>() as f32)
            .collect();
        Points { lanes, data, d, sq }
    }

    fn n(&self) -> usize {
        self.sq.len()
    }

    fn row(&self, i: usize) -> &[f32] {
        &self.data[i * self.d..(i + 1) * self.d]
    }

    /// Squared Euclidean distance, `‖a‖² + ‖b‖² − 2 a·b` like the exact search.
    #[inline]
    fn dist(&self, i: usize, j: usize) -> f32 {
        let dot = self.lanes.dot(self.row(i), self.row(j));
        (self.sq[i] + self.sq[j] - 2.0 * dot).max(0.0)
    }

    fn search(&self, k: usize, forest: &[Tree], p: &Descent) -> Heaps {
        let n = self.n();
        let mut heaps = Heaps {
            k,
            dist: vec![f32::INFINITY; n * k],
            ids: vec![EMPTY; n * k],
        };
        self.start(&mut heaps, forest, p.seed);
        let rounds = if p.rounds > 0 {
            p.rounds
        } else {
            ((n as f64).log2().round() as usize).max(5)
        };
        let m = match p.candidates {
            0 => auto_candidates(k),
            m => m,
        };
        let mut new = Candidates {
            m,
            ids: vec![EMPTY; n * m],
        };
        let mut old = Candidates {
            m,
            ids: vec![EMPTY; n * m],
        };
        let mut reverse = Reverse::new(n, k);
        let mut buffers: Vec<Vec<Update>> = vec![Vec::new(); BLOCK.div_ceil(CHUNK)];
        for round in 0..rounds as u64 {
            let salt = mix(p.seed ^ mix(round + 0x100));
            sample(&heaps, &mut reverse, &mut new, &mut old, salt);
            heaps.age(&new);
            let mut changed = 0usize;
            for b0 in (0..n).step_by(BLOCK) {
                let b1 = (b0 + BLOCK).min(n);
                self.join(&heaps, &new, &old, b0..b1, &mut buffers);
                changed += heaps.apply(&buffers);
            }
            if (changed as f64) <= p.delta * (n * k) as f64 {
                break;
            }
        }
        heaps
    }

    /// Fills the lists from the leaves each point falls in, then (for the
    /// rare point whose leaves held fewer than `k` others) from a seeded
    /// scan of the rest. Each task marks the points it has measured for the
    /// current point in a stamp array of `n` (reused point after point), so
    /// a point in several of its leaves costs one distance, not one per tree.
    fn start(&self, heaps: &mut Heaps, forest: &[Tree], seed: u64) {
        let (n, k) = (self.n(), heaps.k);
        heaps
            .dist
            .par_chunks_mut(k)
            .zip(heaps.ids.par_chunks_mut(k))
            .enumerate()
            .with_min_len(256)
            .for_each_init(
                || vec![u32::MAX; n],
                |seen, (i, (dist, ids))| {
                    // A point met in several trees' leaves is measured once
                    // (`seen[j] == i`): its row sits anywhere in memory.
                    seen[i] = i as u32;
                    for tree in forest {
                        for &j in tree.leaf_of(i) {
                            if std::mem::replace(&mut seen[j as usize], i as u32) != i as u32 {
                                push(dist, ids, self.dist(i, j as usize), j | NEW);
                            }
                        }
                    }
                    let mut filled = ids.iter().filter(|&&id| id != EMPTY).count();
                    let from = (mix(seed ^ mix(i as u64 + 0x200)) % n as u64) as usize;
                    for t in 0..n {
                        if filled == k {
                            break;
                        }
                        let j = (from + t) % n;
                        if j != i && push(dist, ids, self.dist(i, j), j as u32 | NEW) {
                            filled += 1;
                        }
                    }
                },
            );
    }

    /// Local joins of the points `block`: every candidate pair (new × new,
    /// new × old) that beats either end's current worst becomes an update
    /// ([`Joiner::join`]).
    fn join(
        &self,
        heaps: &Heaps,
        new: &Candidates,
        old: &Candidates,
        block: std::ops::Range<usize>,
        buffers: &mut [Vec<Update>],
    ) {
        let k = heaps.k;
        let worst = |i: u32| heaps.dist[i as usize * k];
        let rows = Rows {
            data: self.data,
            d: self.d,
            sq: &self.sq,
        };
        buffers.par_iter_mut().enumerate().for_each(|(c, out)| {
            out.clear();
            let c0 = block.start + c * CHUNK;
            if c0 >= block.end {
                return;
            }
            let mut joiner = Joiner::new(true);
            let mut all = Vec::with_capacity(2 * new.m);
            let end = (c0 + CHUNK).min(block.end);
            for i in c0..end {
                // The next point's candidate rows and limits are scattered
                // over the whole data at large n: ask for them now, while
                // this point's products run (the gather waited on memory).
                if i + 1 < end {
                    for &q in new.row(i + 1).iter().chain(old.row(i + 1)) {
                        prefetch::row(self.row(q as usize));
                        prefetch::row(&heaps.dist[q as usize * k..q as usize * k + 1]);
                    }
                }
                let news = new.row(i);
                all.clear();
                all.extend_from_slice(news);
                all.extend_from_slice(old.row(i));
                joiner.join(&rows, worst, &all, news.len(), out);
            }
        });
    }
}

impl Heaps {
    /// Clears the new mark of the entries sampled as new candidates (they
    /// are joined this round).
    fn age(&mut self, new: &Candidates) {
        let k = self.k;
        self.ids.par_chunks_mut(k).enumerate().for_each(|(i, ids)| {
            let sampled = new.row(i);
            for id in ids.iter_mut() {
                if *id & NEW != 0 && sampled.binary_search(&(*id & ID)).is_ok() {
                    *id &= ID;
                }
            }
        });
    }

    /// Applies the updates of one block, buffer by buffer in order, each row
    /// by the task that owns it; returns how many entries changed.
    fn apply(&mut self, buffers: &[Vec<Update>]) -> usize {
        let k = self.k;
        let n = self.dist.len() / k;
        let rows = n.div_ceil(rayon::current_num_threads().max(1)).max(1);
        self.dist
            .par_chunks_mut(rows * k)
            .zip(self.ids.par_chunks_mut(rows * k))
            .enumerate()
            .map(|(t, (dist, ids))| {
                let r0 = (t * rows) as u32;
                let r1 = r0 + (dist.len() / k) as u32;
                let mut changed = 0;
                let mut one = |i: u32, j: u32, d: f32| {
                    if (r0..r1).contains(&i) {
                        let r = (i - r0) as usize * k..(i - r0 + 1) as usize * k;
                        changed += usize::from(push(&mut dist[r.clone()], &mut ids[r], d, j | NEW));
                    }
                };
                for &(p, q, d) in buffers.iter().flatten() {
                    one(p, q, d);
                    one(q, p, d);
                }
                changed
            })
            .sum()
    }

    /// The first `wanted` of each list, in the caller's ids (`perm[new] =
    /// old`, `inv[old] = new`), nearest first (ties to the lower id).
    fn into_knn(self, wanted: usize, perm: &[u32], inv: &[u32]) -> Knn {
        let k = self.k;
        let n = perm.len();
        let mut ids = vec![0u32; n * wanted];
        let mut dist2 = vec![0.0f32; n * wanted];
        ids.par_chunks_mut(wanted)
            .zip(dist2.par_chunks_mut(wanted))
            .enumerate()
            .for_each_init(Vec::new, |row, (i, (ids, dist))| {
                let r = inv[i] as usize * k..(inv[i] as usize + 1) * k;
                row.clear();
                row.extend(
                    self.dist[r.clone()]
                        .iter()
                        .zip(&self.ids[r])
                        .map(|(&d, &e)| (d, perm[(e & ID) as usize])),
                );
                row.sort_by(|a: &(f32, u32), b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                for ((d, j), (dd, jj)) in row.iter().zip(dist.iter_mut().zip(ids.iter_mut())) {
                    *dd = *d;
                    *jj = *j;
                }
            });
        Knn {
            k: wanted,
            ids,
            dist2,
        }
    }
}

impl Candidates {
    fn row(&self, i: usize) -> &[u32] {
        let row = &self.ids[i * self.m..(i + 1) * self.m];
        let len = row.iter().position(|&id| id == EMPTY).unwrap_or(self.m);
        &row[..len]
    }
}

/// Each point's reverse list: the points whose list holds it, each with
/// that entry's new mark. Built anew each round into buffers allocated once.
struct Reverse {
    /// Point `i`'s reverse list is `ids[start[i]..start[i + 1]]`.
    start: Vec<u32>,
    /// Per point: entries counted, then the next free slot while filling.
    next: Vec<AtomicU32>,
    /// Atomic only so that tasks can fill them (each slot is handed out
    /// once by `next`); plain loads and stores on x86.
    ids: Vec<AtomicU32>,
}

impl Reverse {
    fn new(n: usize, k: usize) -> Self {
        assert!(
            n * k < u32::MAX as usize,
            "{n} × {k} list entries do not fit 32 bits"
        );
        Reverse {
            start: vec![0; n + 1],
            next: (0..n).map(|_| AtomicU32::new(0)).collect(),
            ids: (0..n * k).map(|_| AtomicU32::new(EMPTY)).collect(),
        }
    }

    /// Transposes the lists: a counting pass, a prefix sum and a filling
    /// pass, each task on its own range of lists. The order within a
    /// reverse list depends on the threads; its set does not, and
    /// [`sample`] only reads sets.
    fn build(&mut self, heaps: &Heaps) {
        let k = heaps.k;
        let next = &self.next;
        next.par_iter().for_each(|c| c.store(0, Relaxed));
        heaps.ids.par_chunks(k).with_min_len(1024).for_each(|ids| {
            for &e in ids.iter().filter(|&&e| e & ID != EMPTY) {
                next[(e & ID) as usize].fetch_add(1, Relaxed);
            }
        });
        let mut sum = 0u32;
        for (s, c) in self.start.iter_mut().zip(next) {
            *s = sum;
            sum += c.swap(sum, Relaxed);
        }
        *self.start.last_mut().expect("n + 1 starts") = sum;
        let slots = &self.ids;
        heaps
            .ids
            .par_chunks(k)
            .with_min_len(1024)
            .enumerate()
            .for_each(|(i, ids)| {
                for &e in ids.iter().filter(|&&e| e & ID != EMPTY) {
                    let at = next[(e & ID) as usize].fetch_add(1, Relaxed) as usize;
                    slots[at].store(i as u32 | (e & NEW), Relaxed);
                }
            });
    }

    /// The points that list point `i` (order free), with their marks.
    fn row(&self, i: usize) -> impl Iterator<Item = u32> + '_ {
        let r = self.start[i] as usize..self.start[i + 1] as usize;
        self.ids[r].iter().map(|e| e.load(Relaxed))
    }
}

/// Samples this round's candidates: each point's new (old) neighbours and
/// the points that list it as new (old), at most `m` of each, those of the
/// lowest hash priority (ties to the lower id). Each task owns a range of
/// points and reads only their lists and reverse lists ([`Reverse`]); a
/// point's candidates are gathered, sorted and deduplicated, and hashed
/// only when more than `m` remain. The sets do not depend on the order of
/// the reverse lists, so neither does the result.
fn sample(
    heaps: &Heaps,
    reverse: &mut Reverse,
    new: &mut Candidates,
    old: &mut Candidates,
    salt: u64,
) {
    let (k, m) = (heaps.k, new.m);
    reverse.build(heaps);
    let reverse = &*reverse;
    new.ids
        .par_chunks_mut(m)
        .zip(old.ids.par_chunks_mut(m))
        .enumerate()
        .with_min_len(256)
        .for_each_init(Picks::default, |picks, (i, (new, old))| {
            picks.new.clear();
            picks.old.clear();
            let listed = heaps.ids[i * k..(i + 1) * k].iter().copied();
            for e in listed.chain(reverse.row(i)).filter(|&e| e & ID != EMPTY) {
                let to = if e & NEW != 0 {
                    &mut picks.new
                } else {
                    &mut picks.old
                };
                to.push(e & ID);
            }
            picks.keep(i as u32, salt, true, new);
            picks.keep(i as u32, salt, false, old);
        });
}

/// One task's scratch for [`sample`], reused point after point.
#[derive(Default)]
struct Picks {
    new: Vec<u32>,
    old: Vec<u32>,
    keyed: Vec<(u64, u32)>,
}

impl Picks {
    /// Writes the distinct ids of `new` (or `old`) to `row`, sorted, `EMPTY`
    /// after the last; the `row.len()` of lowest priority when there are more.
    fn keep(&mut self, i: u32, salt: u64, is_new: bool, row: &mut [u32]) {
        let m = row.len();
        let ids = if is_new { &mut self.new } else { &mut self.old };
        ids.sort_unstable();
        ids.dedup();
        if ids.len() > m {
            self.keyed.clear();
            self.keyed
                .extend(ids.iter().map(|&j| (priority(salt, i, j), j)));
            self.keyed.select_nth_unstable(m - 1);
            ids.clear();
            ids.extend(self.keyed[..m].iter().map(|p| p.1));
            ids.sort_unstable();
        }
        row[..ids.len()].copy_from_slice(ids);
        row[ids.len()..].fill(EMPTY);
    }
}

/// The sampling priority of the pair `{a, b}` in a round (`salt`): the same
/// whichever end asks.
#[inline]
fn priority(salt: u64, a: u32, b: u32) -> u64 {
    let (lo, hi) = (a.min(b) as u64, a.max(b) as u64);
    mix(salt ^ ((lo << 32) | hi))
}

/// Pushes `(key, id)` into the bounded max-heap `keys`/`ids` (worst at the
/// root, ordered by key then id without the mark) unless it is no better
/// than the root or already present; returns whether it entered.
#[inline]
fn push<K: PartialOrd + Copy>(keys: &mut [K], ids: &mut [u32], key: K, id: u32) -> bool {
    let bare = id & ID;
    let better = |ka: K, ia: u32, kb: K, ib: u32| ka < kb || (ka == kb && (ia & ID) < (ib & ID));
    // Branch-free scan (it vectorises): most candidates that pass the root
    // are already listed.
    if !better(key, bare, keys[0], ids[0]) || ids.iter().fold(false, |f, &e| f | (e & ID == bare)) {
        return false;
    }
    let len = keys.len();
    let mut at = 0;
    loop {
        let (l, r) = (2 * at + 1, 2 * at + 2);
        let mut top = at;
        let (mut tk, mut ti) = (key, id);
        if l < len && better(tk, ti, keys[l], ids[l]) {
            (top, tk, ti) = (l, keys[l], ids[l]);
        }
        if r < len && better(tk, ti, keys[r], ids[r]) {
            top = r;
        }
        if top == at {
            break;
        }
        keys[at] = keys[top];
        ids[at] = ids[top];
        at = top;
    }
    keys[at] = key;
    ids[at] = id;
    true
}

/// One random-projection tree: the points in leaf order, and each point's leaf.
struct Tree {
    order: Vec<u32>,
    bounds: Vec<u32>,
    leaf: Vec<u32>,
}

impl Tree {
    /// Splits the points by the hyperplane halfway between two random points
    /// until at most `leaf` remain (an even split when that fails).
    fn build<L: Lanes>(pts: &Points<'_, L>, leaf: usize, seed: u64) -> Tree {
        let n = pts.n();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut order: Vec<u32> = (0..n as u32).collect();
        let mut normal = vec![0.0f32; pts.d];
        let mut side = Vec::with_capacity(n);
        let mut scratch = Vec::with_capacity(n);
        let mut ranges = Vec::new();
        let mut stack = vec![(0usize, n)];
        while let Some((a, b)) = stack.pop() {
            if b - a <= leaf {
                ranges.push((a, b));
                continue;
            }
            let i = order[rng.random_range(a..b)] as usize;
            let mut j = order[rng.random_range(a..b - 1)] as usize;
            if j == i {
                j = order[b - 1] as usize;
            }
            for ((w, &u), &v) in normal.iter_mut().zip(pts.row(i)).zip(pts.row(j)) {
                *w = u - v;
            }
            let offset = 0.5 * (pts.sq[i] - pts.sq[j]);
            side.clear();
            for &p in &order[a..b] {
                let margin = pts.lanes.dot(&normal, pts.row(p as usize)) - offset;
                side.push(if margin == 0.0 {
                    rng.random_bool(0.5)
                } else {
                    margin > 0.0
                });
            }
            let left = side.iter().filter(|&&s| s).count();
            let mid = if left == 0 || left == b - a {
                a + (b - a) / 2
            } else {
                scratch.clear();
                let pairs = || order[a..b].iter().zip(&side);
                scratch.extend(pairs().filter(|p| *p.1).map(|p| *p.0));
                scratch.extend(pairs().filter(|p| !*p.1).map(|p| *p.0));
                order[a..b].copy_from_slice(&scratch);
                a + left
            };
            stack.push((mid, b));
            stack.push((a, mid));
        }
        ranges.sort_unstable();
        let mut bounds = Vec::with_capacity(ranges.len() + 1);
        let mut leaf_of = vec![0u32; n];
        for (l, &(a, b)) in ranges.iter().enumerate() {
            bounds.push(a as u32);
            for &p in &order[a..b] {
                leaf_of[p as usize] = l as u32;
            }
        }
        bounds.push(n as u32);
        Tree {
            order,
            bounds,
            leaf: leaf_of,
        }
    }

    /// Renames the points: `inv[old] = new`.
    fn renumber(&mut self, inv: &[u32]) {
        let mut leaf = vec![0u32; self.leaf.len()];
        for (old, &l) in self.leaf.iter().enumerate() {
            leaf[inv[old] as usize] = l;
        }
        self.leaf = leaf;
        for p in &mut self.order {
            *p = inv[*p as usize];
        }
    }

    /// The points in point `i`'s leaf (itself included).
    fn leaf_of(&self, i: usize) -> &[u32] {
        let l = self.leaf[i] as usize;
        &self.order[self.bounds[l] as usize..self.bounds[l + 1] as usize]
    }
}

/// SplitMix64's finaliser: a well-mixed 64-bit hash.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::knn::knn;
    use crate::geometry::random::gaussian;
    use ndarray::Array2;

    /// A seeded mixture of `c` Gaussian clusters in `d` dimensions.
    fn mixture(n: usize, d: usize, c: usize, seed: u64) -> Array2<f32> {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let centres = Array2::from_shape_simple_fn((c, d), || 2.0 * gaussian(&mut rng));
        Array2::from_shape_fn((n, d), |(i, j)| {
            (centres[[i % c, j]] + gaussian(&mut rng)) as f32
        })
    }

    /// Share of the exact neighbour ids that were found.
    fn recall(got: &Knn, want: &Knn) -> f64 {
        let mut hits = 0;
        for i in 0..want.len() {
            let found = got.row(i).0;
            hits += want.row(i).0.iter().filter(|id| found.contains(id)).count();
        }
        hits as f64 / want.ids.len() as f64
    }

    fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(f)
    }

    /// The sampling as it was before the reverse lists: every point's
    /// candidates kept in bounded heaps of priorities, fed by a scan of
    /// every list (the reference for [`sample`]).
    fn sample_by_scan(heaps: &Heaps, m: usize, salt: u64) -> (Vec<u32>, Vec<u32>) {
        let n = heaps.ids.len() / heaps.k;
        let (mut new, mut old) = (vec![EMPTY; n * m], vec![EMPTY; n * m]);
        let (mut new_pri, mut old_pri) = (vec![u64::MAX; n * m], vec![u64::MAX; n * m]);
        for (i, ids) in heaps.ids.chunks(heaps.k).enumerate() {
            for &e in ids.iter().filter(|&&e| e & ID != EMPTY) {
                let j = e & ID;
                let (ids, pri) = if e & NEW != 0 {
                    (&mut new, &mut new_pri)
                } else {
                    (&mut old, &mut old_pri)
                };
                for (a, b) in [(i, j), (j as usize, i as u32)] {
                    let r = a * m..(a + 1) * m;
                    push(
                        &mut pri[r.clone()],
                        &mut ids[r],
                        priority(salt, i as u32, j),
                        b,
                    );
                }
            }
        }
        for row in new.chunks_mut(m).chain(old.chunks_mut(m)) {
            row.sort_unstable();
        }
        (new, old)
    }

    #[test]
    fn sampling_by_reverse_lists_matches_the_scan() {
        // Random lists: distinct ids, random marks, some rows short; points
        // listed by many (few ids drawn often) overflow `m`, others do not.
        let (n, k) = (400usize, 12usize);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        let mut heaps = Heaps {
            k,
            dist: vec![0.0; n * k],
            ids: vec![EMPTY; n * k],
        };
        for (i, row) in heaps.ids.chunks_mut(k).enumerate() {
            let len = rng.random_range(0..=k);
            let mut ids: Vec<u32> = Vec::new();
            while ids.len() < len {
                let j = if rng.random_bool(0.3) {
                    rng.random_range(0..8)
                } else {
                    rng.random_range(0..n as u32)
                };
                if j as usize != i && !ids.contains(&j) {
                    ids.push(j);
                }
            }
            for (slot, j) in row.iter_mut().zip(ids) {
                *slot = if rng.random_bool(0.5) { j | NEW } else { j };
            }
        }
        for m in [3, 10, 40] {
            let salt = mix(m as u64);
            let (want_new, want_old) = sample_by_scan(&heaps, m, salt);
            for threads in [1, 2, 3] {
                let mut reverse = Reverse::new(n, k);
                let mut new = Candidates {
                    m,
                    ids: vec![0; n * m],
                };
                let mut old = Candidates {
                    m,
                    ids: vec![0; n * m],
                };
                in_pool(threads, || {
                    sample(&heaps, &mut reverse, &mut new, &mut old, salt)
                });
                assert_eq!(new.ids, want_new, "new, m = {m}, {threads} threads");
                assert_eq!(old.ids, want_old, "old, m = {m}, {threads} threads");
            }
        }
    }

    #[test]
    fn the_forest_start_measures_each_leaf_mate_once_and_lists_the_same() {
        // Reference: every leaf member of every tree pushed (duplicates
        // rejected by the heap), then the seeded fill of short rows.
        let x = mixture(1200, 10, 4, 2);
        let data = x.as_slice().unwrap();
        let pts = Points::new(Portable, data, 10);
        let (n, k, leaf) = (1200, 25, 26);
        let forest: Vec<Tree> = (0..5).map(|t| Tree::build(&pts, leaf, mix(t))).collect();
        let mut got = Heaps {
            k,
            dist: vec![f32::INFINITY; n * k],
            ids: vec![EMPTY; n * k],
        };
        in_pool(2, || pts.start(&mut got, &forest, 9));
        let mut want = Heaps {
            k,
            dist: vec![f32::INFINITY; n * k],
            ids: vec![EMPTY; n * k],
        };
        for i in 0..n {
            let r = i * k..(i + 1) * k;
            let (dist, ids) = (&mut want.dist[r.clone()], &mut want.ids[r]);
            for tree in &forest {
                for &j in tree.leaf_of(i).iter().filter(|&&j| j as usize != i) {
                    push(dist, ids, pts.dist(i, j as usize), j | NEW);
                }
            }
            let from = (mix(9 ^ mix(i as u64 + 0x200)) % n as u64) as usize;
            for t in 0..n {
                let j = (from + t) % n;
                if ids.iter().all(|&e| e != EMPTY) {
                    break;
                }
                if j != i {
                    push(dist, ids, pts.dist(i, j), j as u32 | NEW);
                }
            }
        }
        assert_eq!(got.ids, want.ids);
        assert_eq!(got.dist, want.dist);
    }

    #[test]
    fn recall_against_exact_is_at_least_099_at_k_90_and_k_10() {
        let x = mixture(3000, 30, 10, 3);
        for k in [90, 10] {
            let r = recall(
                &descent(x.view(), k, &Descent::default()),
                &knn(x.view(), k),
            );
            assert!(r >= 0.995, "recall {r} at k = {k}");
        }
    }

    #[test]
    fn rows_are_sorted_true_distances_without_self() {
        let x = mixture(1500, 20, 5, 8);
        let got = descent(x.view(), 15, &Descent::default());
        assert_eq!((got.len(), got.k), (1500, 15));
        for i in 0..1500 {
            let (ids, d2) = got.row(i);
            assert!(!ids.contains(&(i as u32)), "point {i} lists itself");
            let mut unique = ids.to_vec();
            unique.sort_unstable();
            unique.dedup();
            assert_eq!(unique.len(), 15, "point {i} lists a neighbour twice");
            assert!(d2.windows(2).all(|w| w[0] <= w[1]), "point {i} unsorted");
            for (&j, &d) in ids.iter().zip(d2) {
                let want: f64 = x
                    .row(i)
                    .iter()
                    .zip(x.row(j as usize))
                    .map(|(&a, &b)| (f64::from(a) - f64::from(b)).powi(2))
                    .sum();
                assert!(
                    (f64::from(d) - want).abs() < 1e-3 * (1.0 + want),
                    "{d} vs {want}"
                );
            }
        }
    }

    #[test]
    fn one_and_two_threads_give_the_same_bits() {
        let x = mixture(5000, 12, 7, 11);
        let p = Descent {
            seed: 42,
            ..Descent::default()
        };
        let one = in_pool(1, || descent(x.view(), 20, &p));
        let again = in_pool(1, || descent(x.view(), 20, &p));
        let two = in_pool(2, || descent(x.view(), 20, &p));
        let three = in_pool(3, || descent(x.view(), 20, &p));
        assert_eq!(one, again);
        assert_eq!(one, two);
        assert_eq!(one, three);
    }

    #[test]
    fn tiny_inputs_and_duplicates_fill_every_row() {
        let x = ndarray::array![[0.0f32, 0.0], [3.0, 4.0], [1.0, 0.0]];
        let got = descent(x.view(), 10, &Descent::default());
        assert_eq!(got.k, 2);
        assert_eq!(got.row(0), (&[2u32, 1][..], &[1.0f32, 25.0][..]));
        assert!(descent(ndarray::array![[1.0f32]].view(), 3, &Descent::default()).is_empty());
        // All points equal: every split fails and every distance is 0; each
        // row still lists k distinct other points.
        let same = Array2::<f32>::ones((300, 4));
        let got = descent(same.view(), 5, &Descent::default());
        for i in 0..300 {
            let (ids, d2) = got.row(i);
            let mut unique = ids.to_vec();
            unique.sort_unstable();
            unique.dedup();
            assert_eq!(unique.len(), 5, "row {i}: {ids:?}");
            assert!(!ids.contains(&(i as u32)) && d2.iter().all(|&d| d == 0.0));
        }
    }

    #[test]
    fn search_is_exact_below_the_threshold() {
        use crate::geometry::knn::{search, Search, AUTO_FROM};
        let x = mixture(400, 6, 3, 1);
        assert_eq!(search(x.view(), 9, Search::Auto), knn(x.view(), 9));
        assert!(!Search::Auto.approximate(AUTO_FROM - 1));
        assert!(Search::Auto.approximate(AUTO_FROM));
        assert!(!Search::Exact.approximate(usize::MAX));
    }

    #[test]
    fn the_knn_option_picks_the_search_by_name() {
        use crate::geometry::knn::{search, Search, KNN};
        use crate::schema::{Choice, Typed};
        for &how in Search::ALL {
            assert_eq!(Search::from_value(&KNN.parse(how.name()).unwrap()), how);
        }
        // A small mixture: `approximate` is the descent's result (close to
        // exact), `exact` the brute force, `auto` exact below the threshold.
        let x = mixture(2000, 16, 6, 5);
        let how = |name| search(x.view(), 30, Search::from_value(&KNN.parse(name).unwrap()));
        let exact = knn(x.view(), 30);
        assert_eq!(
            how("approximate"),
            descent(x.view(), 30, &Descent::default())
        );
        assert_eq!(how("exact"), exact);
        assert_eq!(how("auto"), exact);
        let r = recall(&how("approximate"), &exact);
        assert!(r >= 0.99, "recall {r}");
    }
}
