//! The vantage-point tree of fast KUBWE (Soleimani §3.3.5, Algorithm 2): the
//! `k` nearest *non-positive* neighbours of a word on the unit sphere.
//!
//! **Build** (Yianilos; as in the authors' `vptree.h`): a node owns a range of
//! points; a vantage point drawn at random (seeded per node, so the tree does
//! not depend on the thread count) is moved to the front, the others are
//! split at the median of their cosine distance `1 − x·v` to it: the closer
//! half forms the left child, the rest the right one. The tree is implicit in
//! the ranges: node `[lo, hi)` has its vantage point at `lo`, children
//! `[lo+1, mid)` and `[mid, hi)` with `mid = (lo+hi)/2`, so only the permuted
//! ids, their coordinates (copied in tree order for locality) and one median
//! per node are stored. The two subtrees are built in parallel.
//!
//! **Search** keeps a max-heap of the `k` best candidates, `τ` = its largest
//! distance (`∞` until full), skips the query itself and the query's positive
//! contexts (a binary search in its sorted PPMI row), and descends into the
//! nearer child first. Two pruning rules ([`Bound`]):
//! - [`Bound::Thesis`]: Algorithm 2 with cosine distance: visit the far child
//!   iff `dist + τ − d_min ≥ μ` (query inside) or `dist − τ + d_min ≤ μ`
//!   (outside), `d_min = 1 − 3/√d` (cosines of random unit vectors have
//!   standard deviation `1/√d`, so 99.7 % of distances exceed it). Two fixes
//!   (docs/methods/kubwe.md, "Fast KUBWE: the VP-tree"): `τ` is refreshed
//!   after *every* replacement, and `d_min` is computed once. This is
//!   approximate twice over: the slack
//!   `d_min` prunes branches that may hold neighbours, and `1 − cos` is not a
//!   metric (it is half the squared chord), so even `d_min = 0` can miss.
//! - [`Bound::Exact`]: the textbook rule on the chord metric
//!   `‖x − y‖ = √(2(1 − cos))` (same order as the cosine distance), which
//!   returns the true `k` nearest — the reference the thesis bound is
//!   measured against, and a run option.
//!
//! **Warm searches** ([`VpTree::seed`], then [`VpTree::refine_group`]) start
//! from known candidates (the trainer's neighbours of the last sweep): `τ` is
//! tight from the first node, so either bound prunes more, and the result is
//! never worse than the seeds. Coordinates read from random places are
//! prefetched ([`prefetch`]): at 80k words that is a third of a sweep's time.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use ndarray::ArrayView2;

use crate::fast::lanes::dot;
use crate::fast::prefetch;

/// Most queries one traversal serves ([`VpTree::search_group`]).
pub const GROUP: usize = 16;
const _: () = assert!(GROUP < 32, "a query mask is a u32");

/// Subtrees smaller than this are built on the current thread.
const PARALLEL_BUILD: usize = 4096;

/// Slack added to the exact bound so rounding in `f32` dots never prunes a tie.
const EXACT_EPS: f32 = 1e-5;

/// Which pruning rule a search uses (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Bound {
    /// Algorithm 2: cosine distance, far child visited iff within `τ − d_min`.
    Thesis {
        /// The minimum expected distance `d_min` (see [`thesis_d_min`]).
        d_min: f32,
    },
    /// Triangle-inequality pruning on the chord metric: exact k-NN.
    Exact,
}

impl Bound {
    /// The thesis bound for dimension `dim`.
    pub fn thesis(dim: usize) -> Bound {
        Bound::Thesis {
            d_min: thesis_d_min(dim),
        }
    }
}

/// `d_min = 1 − 3/√d` as printed. Below `d = 9` it is negative, which
/// loosens the rule beyond the textbook one; that is kept (it compensates
/// for the cosine distance not being a metric, which matters most there).
pub fn thesis_d_min(dim: usize) -> f32 {
    (1.0 - 3.0 / (dim.max(1) as f64).sqrt()) as f32
}

/// What a query must skip: itself and its positive contexts.
#[derive(Debug, Clone, Copy)]
pub struct Query<'a> {
    /// The query vector (unit norm).
    pub point: &'a [f32],
    /// The query's own id, if it is one of the indexed points.
    pub id: Option<u32>,
    /// Ids never returned (the positive contexts), sorted ascending.
    pub exclude: &'a [u32],
}

impl Query<'_> {
    /// Whether `id` may be returned (not the query, not a positive).
    #[inline]
    pub fn admits(&self, id: u32) -> bool {
        self.id != Some(id) && self.exclude.binary_search(&id).is_err()
    }
}

/// One neighbour: cosine distance `1 − cos` and id.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Neighbor {
    /// `1 − x·q`.
    pub dist: f32,
    /// Point id (row of the indexed matrix).
    pub id: u32,
}

impl Eq for Neighbor {}

impl Ord for Neighbor {
    fn cmp(&self, other: &Self) -> Ordering {
        self.dist
            .total_cmp(&other.dist)
            .then(self.id.cmp(&other.id))
    }
}

impl PartialOrd for Neighbor {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The `k` best candidates so far (a max-heap on distance); reusable across
/// queries without allocating.
#[derive(Debug, Clone, Default)]
pub struct NeighborHeap {
    k: usize,
    heap: BinaryHeap<Neighbor>,
    /// Holds neighbours from before the search ([`NeighborHeap::seed`]), so a
    /// point the tree reaches may already be kept.
    seeded: bool,
}

impl NeighborHeap {
    /// An empty heap for `k` neighbours.
    pub fn new(k: usize) -> Self {
        NeighborHeap {
            k,
            heap: BinaryHeap::with_capacity(k + 1),
            seeded: false,
        }
    }

    /// Empties the heap and sets its capacity to `k`.
    pub fn reset(&mut self, k: usize) {
        self.heap.clear();
        self.heap.reserve(k + 1);
        self.k = k;
        self.seeded = false;
    }

    /// Empties the heap and fills it with `neighbours` (at most `k` are
    /// kept): a search then only adds points nearer than these.
    pub fn seed(&mut self, k: usize, neighbours: impl IntoIterator<Item = Neighbor>) {
        self.reset(k);
        for n in neighbours {
            self.offer(n);
        }
        self.seeded = !self.heap.is_empty();
    }

    /// Distance of the worst kept neighbour, `∞` until `k` are kept.
    #[inline]
    pub fn tau(&self) -> f32 {
        if self.heap.len() < self.k {
            f32::INFINITY
        } else {
            self.heap.peek().map_or(f32::INFINITY, |n| n.dist)
        }
    }

    /// Keeps `n` if the heap is not full or `n` beats the worst kept one.
    #[inline]
    pub fn offer(&mut self, n: Neighbor) {
        if self.seeded && self.heap.iter().any(|m| m.id == n.id) {
            return;
        }
        if self.heap.len() < self.k {
            self.heap.push(n);
        } else if let Some(mut top) = self.heap.peek_mut() {
            if n < *top {
                *top = n;
            }
        }
    }

    /// Neighbours kept, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = &Neighbor> + '_ {
        self.heap.iter()
    }

    /// Number kept.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether nothing is kept.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// The kept neighbours, nearest first (allocates; for tests and reports).
    pub fn sorted(&self) -> Vec<Neighbor> {
        let mut v: Vec<Neighbor> = self.heap.iter().copied().collect();
        v.sort_unstable();
        v
    }
}

/// A vantage-point tree over unit vectors.
#[derive(Debug, Clone)]
pub struct VpTree {
    dim: usize,
    /// Point ids in tree order.
    ids: Vec<u32>,
    /// Tree position of each point id (the inverse of `ids`).
    positions: Vec<u32>,
    /// Coordinates in tree order (`ids.len() × dim`).
    coords: Vec<f32>,
    /// Median cosine distance of node `lo`'s range to its vantage point.
    medians: Vec<f32>,
}

impl VpTree {
    /// Builds the tree over the rows of `points` (unit vectors); `seed`
    /// decides the vantage points.
    pub fn build(points: ArrayView2<'_, f32>, seed: u64) -> VpTree {
        let (n, dim) = points.dim();
        let mut work: Vec<(f32, u32)> = (0..n as u32).map(|i| (0.0, i)).collect();
        let mut medians = vec![0.0f32; n];
        let ctx = BuildContext { points, seed };
        ctx.build(&mut work, &mut medians, 0);
        let ids: Vec<u32> = work.iter().map(|&(_, id)| id).collect();
        let mut coords = Vec::with_capacity(n * dim);
        let mut positions = vec![0u32; n];
        for (pos, &id) in ids.iter().enumerate() {
            coords.extend(points.row(id as usize).iter());
            positions[id as usize] = pos as u32;
        }
        VpTree {
            dim,
            ids,
            positions,
            coords,
            medians,
        }
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether the tree is empty.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Dimension of the points.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Point ids in tree preorder (a node, its closer half, its farther
    /// half): neighbours in this order are near each other on the sphere.
    pub fn ids(&self) -> &[u32] {
        &self.ids
    }

    /// The indexed coordinates of point `id` (as they were at the build).
    pub fn point(&self, id: u32) -> &[f32] {
        self.coords(self.positions[id as usize] as usize)
    }

    /// Seeds `heap` with the points `ids` (e.g. last sweep's neighbours;
    /// `u32::MAX` marks an empty slot), their distances to `query` taken on
    /// the indexed coordinates, so that [`VpTree::refine_group`] continues
    /// from them. Ids are assumed admissible and distinct.
    pub fn seed(&self, query: &[f32], ids: &[u32], k: usize, heap: &mut NeighborHeap) {
        /// How many seeds ahead to prefetch (they lie anywhere in the tree).
        const AHEAD: usize = 8;
        let live = |id: &&u32| **id != u32::MAX;
        for &id in ids.iter().filter(live).take(AHEAD) {
            self.prefetch(self.positions[id as usize] as usize);
        }
        let mut ahead = ids.iter().filter(live).skip(AHEAD);
        heap.seed(
            k,
            ids.iter().filter(live).map(|&id| {
                if let Some(&next) = ahead.next() {
                    self.prefetch(self.positions[next as usize] as usize);
                }
                Neighbor {
                    dist: 1.0 - dot(query, self.point(id)),
                    id,
                }
            }),
        );
    }

    /// Fills `heap` with (up to) the `k` nearest admissible points of `query`
    /// under `bound`; returns the number of distances computed.
    pub fn search(
        &self,
        query: &Query<'_>,
        k: usize,
        bound: Bound,
        heap: &mut NeighborHeap,
    ) -> usize {
        self.search_group(
            std::slice::from_ref(query),
            k,
            bound,
            std::slice::from_mut(heap),
        )
    }

    /// Searches up to [`GROUP`] queries in one traversal: each node is loaded
    /// once and compared with every query still interested in it, which
    /// divides the memory traffic (the cost of a high-dimensional search) by
    /// the group size when the queries are near each other (e.g. consecutive
    /// in tree order). A query descends into its nearer child first when it
    /// agrees with the group's majority; otherwise its nearer child comes
    /// second and its farther child is tested against its `τ` of the moment
    /// (a looser test, so it never visits less). A group of one is exactly
    /// [`VpTree::search`]. Returns the number of distances computed.
    pub fn search_group(
        &self,
        queries: &[Query<'_>],
        k: usize,
        bound: Bound,
        heaps: &mut [NeighborHeap],
    ) -> usize {
        assert!(queries.len() <= GROUP && heaps.len() >= queries.len());
        for heap in heaps.iter_mut() {
            heap.reset(k);
        }
        self.refine_group(queries, bound, heaps)
    }

    /// Like [`VpTree::search_group`] but keeps what `heaps` hold (e.g. the
    /// neighbours found by an earlier search, see [`NeighborHeap::seed`]):
    /// the search only adds nearer points, and a tight `τ` from the start
    /// prunes more. Returns the number of distances computed.
    pub fn refine_group(
        &self,
        queries: &[Query<'_>],
        bound: Bound,
        heaps: &mut [NeighborHeap],
    ) -> usize {
        assert!(queries.len() <= GROUP && heaps.len() >= queries.len());
        if queries.is_empty() || heaps[..queries.len()].iter().all(|h| h.k == 0) {
            return 0;
        }
        // One bit per query (GROUP < 32, so the shift cannot overflow).
        let mask = (1u32 << queries.len()) - 1;
        let mut visited = 0;
        self.visit(0, self.len(), queries, mask, bound, heaps, &mut visited);
        visited
    }

    /// Hints the cache to load the coordinates at tree position `pos`.
    #[inline]
    fn prefetch(&self, pos: usize) {
        prefetch::row(self.coords(pos));
    }

    #[inline]
    fn coords(&self, pos: usize) -> &[f32] {
        &self.coords[pos * self.dim..(pos + 1) * self.dim]
    }

    #[allow(clippy::too_many_arguments)]
    fn visit(
        &self,
        lo: usize,
        hi: usize,
        qs: &[Query<'_>],
        mask: u32,
        bound: Bound,
        heaps: &mut [NeighborHeap],
        visited: &mut usize,
    ) {
        if lo >= hi || mask == 0 {
            return;
        }
        let (node, id, mu) = (self.coords(lo), self.ids[lo], self.medians[lo]);
        if hi - lo > 2 {
            // The far child's vantage point is far away in memory; ask for it
            // while this node's distances are computed.
            self.prefetch((lo + hi) / 2);
        }
        let mut dist = [0.0f32; GROUP];
        let mut inside = 0u32;
        for q in bits(mask) {
            let d = 1.0 - dot(qs[q].point, node);
            dist[q] = d;
            *visited += 1;
            // The binary search in the positives only for a point that would enter.
            if d < heaps[q].tau() && qs[q].admits(id) {
                heaps[q].offer(Neighbor { dist: d, id });
            }
            if d < mu {
                inside |= 1 << q;
            }
        }
        if hi - lo == 1 {
            return;
        }
        let mid = (lo + hi) / 2;
        let outside = mask & !inside;
        let left_first = inside.count_ones() >= outside.count_ones();
        let (first, second, near_first) = if left_first {
            ((lo + 1, mid), (mid, hi), inside)
        } else {
            ((mid, hi), (lo + 1, mid), outside)
        };
        let far_first = mask & !near_first;
        let passes = |set: u32, heaps: &[NeighborHeap]| {
            bits(set)
                .filter(|&q| {
                    let is_inside = inside & (1 << q) != 0;
                    far_may_hold_neighbours(bound, is_inside, dist[q], mu, heaps[q].tau())
                })
                .fold(0u32, |m, q| m | 1 << q)
        };
        let m1 = near_first | passes(far_first, heaps);
        self.visit(first.0, first.1, qs, m1, bound, heaps, visited);
        let m2 = far_first | passes(near_first, heaps);
        self.visit(second.0, second.1, qs, m2, bound, heaps, visited);
    }
}

/// The indices of the set bits of `mask`, lowest first.
#[inline]
fn bits(mut mask: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let q = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            q
        })
    })
}

/// The pruning rule: may the child on the other side of `μ` hold a point
/// nearer than `τ`?
#[inline]
fn far_may_hold_neighbours(bound: Bound, inside: bool, dist: f32, mu: f32, tau: f32) -> bool {
    if tau == f32::INFINITY {
        return true;
    }
    match bound {
        Bound::Thesis { d_min } => {
            if inside {
                dist + tau - d_min >= mu
            } else {
                dist - tau + d_min <= mu
            }
        }
        Bound::Exact => {
            let chord = |c: f32| (2.0 * c.max(0.0)).sqrt();
            let (dist, mu, tau) = (chord(dist), chord(mu), chord(tau));
            if inside {
                dist + tau + EXACT_EPS >= mu
            } else {
                dist - tau - EXACT_EPS <= mu
            }
        }
    }
}

struct BuildContext<'a> {
    points: ArrayView2<'a, f32>,
    seed: u64,
}

impl BuildContext<'_> {
    /// Builds the subtree of `work` (its range starts at global position
    /// `offset`), writing the node medians into `medians` (same range).
    fn build(&self, work: &mut [(f32, u32)], medians: &mut [f32], offset: usize) {
        let len = work.len();
        if len <= 1 {
            return;
        }
        let pick = (splitmix(self.seed ^ splitmix(offset as u64 + 1)) % len as u64) as usize;
        work.swap(0, pick);
        let vp = self.points.row(work[0].1 as usize);
        let vp = vp.as_slice().expect("rows of a standard-layout matrix");
        for item in work[1..].iter_mut() {
            let row = self.points.row(item.1 as usize);
            item.0 = 1.0 - dot(vp, row.as_slice().expect("standard layout"));
        }
        let mid = len / 2; // local index of the median (the global (lo+hi)/2)
        let (_, nth, _) = work[1..]
            .select_nth_unstable_by(mid - 1, |a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        medians[0] = nth.0;
        let (_, rest) = work.split_at_mut(1);
        let (left, right) = rest.split_at_mut(mid - 1);
        let (_, mrest) = medians.split_at_mut(1);
        let (mleft, mright) = mrest.split_at_mut(mid - 1);
        if len >= PARALLEL_BUILD {
            rayon::join(
                || self.build(left, mleft, offset + 1),
                || self.build(right, mright, offset + mid),
            );
        } else {
            self.build(left, mleft, offset + 1);
            self.build(right, mright, offset + mid);
        }
    }
}

/// The `k` nearest admissible points of `query` by exhaustive search, nearest
/// first (ties broken by id): the reference for the tree.
pub fn brute_force(points: ArrayView2<'_, f32>, query: &Query<'_>, k: usize) -> Vec<Neighbor> {
    let mut all: Vec<Neighbor> = points
        .rows()
        .into_iter()
        .enumerate()
        .filter(|&(id, _)| query.admits(id as u32))
        .map(|(id, row)| Neighbor {
            dist: 1.0 - dot(query.point, row.as_slice().expect("standard layout")),
            id: id as u32,
        })
        .collect();
    if k < all.len() {
        all.select_nth_unstable(k);
        all.truncate(k);
    }
    all.sort_unstable();
    all
}

/// SplitMix64: a well-mixed hash of a 64-bit value.
#[inline]
pub(crate) fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::random::random_sphere;

    #[test]
    fn tree_layout_is_a_permutation_with_median_splits() {
        let y = random_sphere(301, 5, 3);
        let t = VpTree::build(y.view(), 9);
        let mut ids = t.ids.clone();
        ids.sort_unstable();
        assert_eq!(ids, (0..301).collect::<Vec<u32>>());
        // Every node's left range is within its median, the right range beyond.
        fn check(t: &VpTree, lo: usize, hi: usize) {
            if hi - lo <= 1 {
                return;
            }
            let mid = (lo + hi) / 2;
            let vp = t.coords(lo);
            let d = |p: usize| 1.0 - dot(vp, t.coords(p));
            assert!((lo + 1..mid).all(|p| d(p) <= t.medians[lo] + 1e-6));
            assert!((mid..hi).all(|p| d(p) >= t.medians[lo] - 1e-6));
            check(t, lo + 1, mid);
            check(t, mid, hi);
        }
        check(&t, 0, 301);
    }

    #[test]
    fn heap_keeps_the_k_smallest() {
        let mut h = NeighborHeap::new(3);
        assert_eq!(h.tau(), f32::INFINITY);
        for (i, d) in [0.9f32, 0.1, 0.5, 0.7, 0.2, 0.95].iter().enumerate() {
            h.offer(Neighbor {
                dist: *d,
                id: i as u32,
            });
        }
        let ids: Vec<u32> = h.sorted().iter().map(|n| n.id).collect();
        assert_eq!(ids, vec![1, 4, 2]);
        assert_eq!(h.tau(), 0.5);
    }

    #[test]
    fn d_min_follows_the_three_sigma_rule() {
        assert!((thesis_d_min(100) - 0.7).abs() < 1e-7);
        assert_eq!(thesis_d_min(9), 0.0);
        assert_eq!(thesis_d_min(4), -0.5);
    }
}
