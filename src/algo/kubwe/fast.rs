//! Fast KUBWE forces (Soleimani §3.3.5): the repulsion on word `i` comes only
//! from its `k` nearest non-positive neighbours, found in a [`VpTree`] built
//! over a snapshot of the vectors; the kernel weights and the force use the
//! current vectors. Each word is independent, so words run in parallel and
//! the result does not depend on the thread count.
//!
//! Cost per word `O(d (p̄ + visited))`, where `visited` is the number of tree
//! nodes the search touches (about `k + log n` under the thesis bound).
//!
//! Far field ([`FarField`], `far_samples = m > 0`): at `k ≈ √|V|` the nearest
//! words carry a small part of the kernel weight (13% at |V| = 22k, p = 13)
//! and the truncated force points far from the full one, which costs most of
//! the quality. So the rest of `N_i` — words neither positive, nor `i`, nor
//! among its `k` nearest — is added as an unbiased Monte-Carlo estimate:
//! systematic sampling of the word ids (`j_t = ⌊(t + u) n / m⌋`, `t < m`, one
//! uniform offset `u` per group of [`GROUP`] words searched together and per
//! sweep), so each word is drawn with probability exactly `m / n`, drawn ones
//! that are not far are skipped, and the sum is scaled by `n / m`. The ids
//! are frequency-ranked, so the sample is stratified by frequency; `m ≥ n`
//! takes every word once (the exact force). The group shares the sample, so
//! the drawn rows are read once per group and the sums are two dense
//! products: `O(m d)` flops more per word at matrix-product speed.

use ndarray::linalg::general_mat_mul;
use ndarray::{s, Array2, ArrayView1, ArrayView2};

use super::affinity::Affinity;
use super::kernel::Kernel;
use super::vptree::{splitmix, Bound, NeighborHeap, Query, VpTree, GROUP};
use crate::fast::lanes::dot;
use crate::fast::prefetch::row as prefetch;

/// Rows of random words requested this many ahead of their use.
const PREFETCH_AHEAD: usize = 8;

/// The default `k` for a vocabulary of `n` words (docs/methods/kubwe.md,
/// "Our choices where the thesis is silent or ambiguous"):
/// the thesis' 3000 for `n ≥ 100,000`, else `max(√n, 50)` (its rule of thumb
/// `k ≈ √|V|`); never more than the `n − 1` other words.
pub fn default_k(n: usize) -> usize {
    let k = if n >= 100_000 {
        3000
    } else {
        ((n as f64).sqrt().ceil() as usize).max(50)
    };
    k.min(n.saturating_sub(1))
}

/// `Σ_j y_j` and `YᵀY` of the current vectors: the sum over every word of
/// the kernel's tangent at 0, `K(0) (1 + p c)`, times `y_j`, is
/// `K(0) (Σ y_j + p YᵀY y_i)` — exact in `O(d²)` per word. Computed once per
/// sweep and then updated with each step's moved rows ([`Moments::replace`]),
/// so keeping them current costs `O(V d²)` per sweep, not per step.
#[derive(Debug, Clone)]
pub struct Moments {
    /// `Σ_j y_j`.
    pub sum: Vec<f64>,
    /// `YᵀY`, `d × d`.
    pub gram: Array2<f64>,
    gram32: Array2<f32>,
    old: Array2<f64>,
    new: Array2<f64>,
}

impl Moments {
    /// Zero moments for dimension `dim`.
    pub fn new(dim: usize) -> Self {
        Moments {
            sum: vec![0.0; dim],
            gram: Array2::zeros((dim, dim)),
            gram32: Array2::zeros((dim, dim)),
            old: Array2::zeros((0, dim)),
            new: Array2::zeros((0, dim)),
        }
    }

    /// The moments of `y` (`n × dim`); `YᵀY` as one dense product.
    pub fn compute(&mut self, y: ArrayView2<'_, f32>) {
        general_mat_mul(1.0, &y.t(), &y, 0.0, &mut self.gram32);
        self.gram.zip_mut_with(&self.gram32, |g, &x| *g = x as f64);
        self.sum.fill(0.0);
        for row in y.rows() {
            for (acc, &x) in self.sum.iter_mut().zip(row.iter()) {
                *acc += x as f64;
            }
        }
    }

    /// Updates the moments for rows that changed from `old` to `new` (same
    /// shape, one row per moved word): `YᵀY += NᵀN − OᵀO` as two `f64`
    /// products. Single-threaded, so the result does not depend on the pool.
    pub fn replace(&mut self, old: ArrayView2<'_, f32>, new: ArrayView2<'_, f32>) {
        assert_eq!(old.dim(), new.dim());
        if self.old.dim() != old.dim() {
            self.old = Array2::zeros(old.dim());
            self.new = Array2::zeros(new.dim());
        }
        self.old.zip_mut_with(&old, |a, &x| *a = x as f64);
        self.new.zip_mut_with(&new, |a, &x| *a = x as f64);
        general_mat_mul(1.0, &self.new.t(), &self.new, 1.0, &mut self.gram);
        general_mat_mul(-1.0, &self.old.t(), &self.old, 1.0, &mut self.gram);
        for (o, n) in self.old.rows().into_iter().zip(self.new.rows()) {
            for ((acc, &a), &b) in self.sum.iter_mut().zip(o.iter()).zip(n.iter()) {
                *acc += b - a;
            }
        }
    }
}

/// The far-field estimate of one step.
#[derive(Debug, Clone, Copy)]
pub struct FarField<'a> {
    /// Draws per word (0: off, the thesis' pure k-NN repulsion).
    pub samples: usize,
    /// Seed of this sweep (each word's offset derives from it and the id).
    pub seed: u64,
    /// Moments of the current vectors (the control variate; `None`: plain
    /// sampling of `K`).
    pub moments: Option<&'a Moments>,
}

impl FarField<'_> {
    /// No far field.
    pub const OFF: FarField<'static> = FarField {
        samples: 0,
        seed: 0,
        moments: None,
    };

    /// The control variate `K(0) (1 + p c)`: `(α, β)` with `lin(c) = α + β c`
    /// (zero without moments).
    pub fn tangent(&self, kernel: Kernel) -> (f64, f64) {
        if self.samples == 0 || self.moments.is_none() {
            return (0.0, 0.0);
        }
        let k0 = kernel.weight(0.0) as f64;
        (k0, kernel.p as f64 * k0)
    }

    /// Adds the far field of the words `rows` (at most [`GROUP`]) to `v2`
    /// (`rows.len() × dim`): for each, the tangent summed exactly over every
    /// word minus over itself and its positives (the near words' share is
    /// taken off by the caller), plus `(n/m) Σ (K − lin)(y_i·y_j) y_j` over
    /// the sampled words that are far from it. The group shares one sample
    /// (one offset per group and sweep: each word's estimate stays unbiased),
    /// so the sampled rows are read once for the group and both sums are
    /// dense products. `heaps[r]` holds row `r`'s `k` nearest.
    #[allow(clippy::too_many_arguments)]
    pub fn add_group(
        &self,
        a: &Affinity,
        y: ArrayView2<'_, f32>,
        rows: &[u32],
        kernel: Kernel,
        heaps: &[NeighborHeap],
        scratch: &mut FarScratch,
        v2: &mut [f64],
    ) {
        let (n, dim) = y.dim();
        let m = self.samples.min(n);
        if m == 0 || rows.is_empty() {
            return;
        }
        let (alpha, beta) = self.tangent(kernel);
        if let Some(mom) = self.moments {
            for (r, &i) in rows.iter().enumerate() {
                add_tangent(a, y, i, mom, (alpha, beta), &mut v2[r * dim..(r + 1) * dim]);
            }
        }
        let g = rows.len();
        scratch.resize(n, m, dim);
        // Which (row, word) pairs are not far: bit r of mask[j].
        for (r, &i) in rows.iter().enumerate() {
            let bit = 1u16 << r;
            scratch.mask[i as usize] |= bit;
            for &j in a.row(i as usize).0 {
                scratch.mask[j as usize] |= bit;
            }
            for nb in heaps[r].iter() {
                scratch.mask[nb.id as usize] |= bit;
            }
        }
        let u =
            (splitmix(self.seed ^ splitmix(rows[0] as u64 + 1)) >> 11) as f64 / (1u64 << 53) as f64;
        let stride = n as f64 / m as f64;
        for (t, id) in scratch.ids.iter_mut().enumerate() {
            *id = (((t as f64 + u) * stride) as usize).min(n - 1) as u32;
        }
        let row = |j: u32| y.row(j as usize).to_slice().expect("standard layout");
        for &j in scratch.ids.iter().take(PREFETCH_AHEAD) {
            prefetch(row(j));
        }
        for (t, (&id, mut dst)) in scratch.ids.iter().zip(scratch.drawn.rows_mut()).enumerate() {
            if let Some(&next) = scratch.ids.get(t + PREFETCH_AHEAD) {
                prefetch(row(next));
            }
            dst.assign(&ArrayView1::from(row(id)));
        }
        for (r, &i) in rows.iter().enumerate() {
            scratch.group.row_mut(r).assign(&y.row(i as usize));
        }
        let group = scratch.group.slice(s![..g, ..]);
        let mut w = scratch.weights.slice_mut(s![..g, ..]);
        general_mat_mul(1.0, &group, &scratch.drawn.t(), 0.0, &mut w);
        for (r, mut wr) in w.rows_mut().into_iter().enumerate() {
            let bit = 1u16 << r;
            for (c, &j) in wr.iter_mut().zip(&scratch.ids) {
                *c = if scratch.mask[j as usize] & bit != 0 {
                    0.0
                } else {
                    (stride * (kernel.weight(*c) as f64 - alpha - beta * *c as f64)) as f32
                };
            }
        }
        let mut f = scratch.force.slice_mut(s![..g, ..]);
        general_mat_mul(1.0, &w, &scratch.drawn, 0.0, &mut f);
        for (acc, &x) in v2.iter_mut().zip(f.iter()) {
            *acc += x as f64;
        }
        for &i in rows {
            scratch.mask[i as usize] = 0;
            for &j in a.row(i as usize).0 {
                scratch.mask[j as usize] = 0;
            }
        }
        for heap in &heaps[..g] {
            for nb in heap.iter() {
                scratch.mask[nb.id as usize] = 0;
            }
        }
    }
}

/// Adds to `f` the tangent `α + β c` of the kernel summed over every word
/// (through the moments) minus over `i` itself and its positives.
fn add_tangent(
    a: &Affinity,
    y: ArrayView2<'_, f32>,
    i: u32,
    mom: &Moments,
    (alpha, beta): (f64, f64),
    f: &mut [f64],
) {
    let dim = f.len();
    let yi = y.row(i as usize).to_slice().expect("standard layout");
    let gram = mom.gram.as_slice().expect("standard layout");
    for (r, acc) in f.iter_mut().enumerate() {
        let g = &gram[r * dim..(r + 1) * dim];
        let gy: f64 = g.iter().zip(yi).map(|(g, &x)| g * x as f64).sum();
        *acc += alpha * mom.sum[r] + beta * gy;
    }
    for j in a
        .row(i as usize)
        .0
        .iter()
        .map(|&j| j as usize)
        .chain([i as usize])
    {
        let yj = y.row(j).to_slice().expect("standard layout");
        let w = alpha + beta * dot(yi, yj) as f64;
        for (acc, &x) in f.iter_mut().zip(yj) {
            *acc -= w * x as f64;
        }
    }
}

const _: () = assert!(
    GROUP <= 16,
    "a far-field mask has one bit per row of a group"
);

/// Per-thread buffers of [`FarField::add_group`].
#[derive(Debug, Clone, Default)]
pub struct FarScratch {
    /// Bit `r`: word excluded from row `r`'s sample (itself, positive, near).
    mask: Vec<u16>,
    /// The drawn word ids.
    ids: Vec<u32>,
    /// Their vectors (`m × dim`).
    drawn: Array2<f32>,
    /// The group's vectors (`GROUP × dim`).
    group: Array2<f32>,
    /// Cosines, then weights (`GROUP × m`).
    weights: Array2<f32>,
    /// The sampled force (`GROUP × dim`).
    force: Array2<f32>,
}

impl FarScratch {
    /// Sizes the buffers for `n` words, `m` draws, dimension `dim`.
    fn resize(&mut self, n: usize, m: usize, dim: usize) {
        if self.mask.len() != n {
            self.mask = vec![0; n];
        }
        if self.drawn.dim() != (m, dim) {
            self.ids = vec![0; m];
            self.drawn = Array2::zeros((m, dim));
            self.group = Array2::zeros((GROUP, dim));
            self.weights = Array2::zeros((GROUP, m));
            self.force = Array2::zeros((GROUP, dim));
        }
    }
}

/// `v₁ = Σ_{P_i} a_ij y_j` in `f64`.
pub fn attraction(a: &Affinity, y: ArrayView2<'_, f32>, i: usize, v1: &mut [f64]) {
    v1.fill(0.0);
    let (cols, vals) = a.row(i);
    let row = |j: u32| y.row(j as usize).to_slice().expect("standard layout");
    for &j in cols.iter().take(PREFETCH_AHEAD) {
        prefetch(row(j));
    }
    for (t, (&j, &v)) in cols.iter().zip(vals).enumerate() {
        if let Some(&next) = cols.get(t + PREFETCH_AHEAD) {
            prefetch(row(next));
        }
        for (acc, &x) in v1.iter_mut().zip(row(j)) {
            *acc += v as f64 * x as f64;
        }
    }
}

/// Forces on word `i`: attraction into `v1`, repulsion from its `k` nearest
/// non-positive neighbours (plus the sampled far field) into `v2`. Returns
/// the tree nodes visited.
#[allow(clippy::too_many_arguments)]
pub fn row_forces(
    a: &Affinity,
    y: ArrayView2<'_, f32>,
    i: usize,
    tree: &VpTree,
    k: usize,
    bound: Bound,
    kernel: Kernel,
    far: FarField<'_>,
    heap: &mut NeighborHeap,
    v1: &mut [f64],
    v2: &mut [f64],
) -> usize {
    let search = Search {
        tree,
        k,
        bound,
        kernel,
        far,
        seeds: None,
    };
    search.forces(
        a,
        y,
        &[i as u32],
        std::slice::from_mut(heap),
        &mut FarScratch::default(),
        v1,
        v2,
    )
}

/// One sweep's neighbour search: the tree and how to use it.
#[derive(Debug, Clone, Copy)]
pub struct Search<'a> {
    /// Tree over a snapshot of the vectors.
    pub tree: &'a VpTree,
    /// Neighbours per word.
    pub k: usize,
    /// Pruning rule.
    pub bound: Bound,
    /// Repulsion kernel.
    pub kernel: Kernel,
    /// Sampled repulsion from the words beyond the `k` nearest.
    pub far: FarField<'a>,
    /// Each word's `k` neighbours from the previous sweep (`n × k`,
    /// `u32::MAX` = empty): a search starts from them ([`VpTree::seed`]), so
    /// a neighbour found once stays until a nearer one turns up, and the
    /// tight `τ` from the start prunes most of the tree. `None`: cold search.
    pub seeds: Option<&'a [u32]>,
}

impl Search<'_> {
    /// Fills `heaps` with the `k` nearest admissible points of each query (at
    /// most [`GROUP`], one traversal): warm from the query's list in `seeds`
    /// when set (its `id` indexes the lists), else a cold search. Returns the
    /// distances computed.
    pub fn neighbours(&self, queries: &[Query<'_>], heaps: &mut [NeighborHeap]) -> usize {
        let Some(lists) = self.seeds else {
            return self.tree.search_group(queries, self.k, self.bound, heaps);
        };
        let k = self.k;
        for (q, heap) in queries.iter().zip(heaps.iter_mut()) {
            let i = q.id.expect("a warm query is an indexed point") as usize;
            self.tree.seed(q.point, &lists[i * k..(i + 1) * k], k, heap);
        }
        self.tree.refine_group(queries, self.bound, heaps)
    }

    /// Forces on the words `rows` (at most [`GROUP`], searched in one
    /// traversal): attraction and repulsion, `rows.len() × dim` row-major,
    /// into `v1` and `v2`. `heaps` needs one heap per row; `far` holds the
    /// far field's buffers (reused across calls). Returns the distances
    /// computed by the search.
    #[allow(clippy::too_many_arguments)]
    pub fn forces(
        &self,
        a: &Affinity,
        y: ArrayView2<'_, f32>,
        rows: &[u32],
        heaps: &mut [NeighborHeap],
        far: &mut FarScratch,
        v1: &mut [f64],
        v2: &mut [f64],
    ) -> usize {
        let dim = y.ncols();
        let row = |i: u32| y.row(i as usize).to_slice().expect("standard layout");
        let mut queries = [Query {
            point: &[],
            id: None,
            exclude: &[],
        }; GROUP];
        for (q, &i) in queries.iter_mut().zip(rows) {
            *q = Query {
                point: row(i),
                id: Some(i),
                exclude: a.row(i as usize).0,
            };
        }
        let queries = &queries[..rows.len()];
        let visited = self.neighbours(queries, heaps);
        for (r, &i) in rows.iter().enumerate() {
            let (f1, f2) = (
                &mut v1[r * dim..(r + 1) * dim],
                &mut v2[r * dim..(r + 1) * dim],
            );
            attraction(a, y, i as usize, f1);
            f2.fill(0.0);
            let yi = row(i);
            let (alpha, beta) = self.far.tangent(self.kernel);
            let mut ahead = heaps[r].iter().skip(PREFETCH_AHEAD);
            for nb in heaps[r].iter().take(PREFETCH_AHEAD) {
                prefetch(row(nb.id));
            }
            for n in heaps[r].iter() {
                if let Some(next) = ahead.next() {
                    prefetch(row(next.id));
                }
                let yj = row(n.id);
                let c = dot(yi, yj);
                let w = self.kernel.weight(c) as f64 - alpha - beta * c as f64;
                for (acc, &x) in f2.iter_mut().zip(yj) {
                    *acc += w * x as f64;
                }
            }
        }
        self.far.add_group(
            a,
            y,
            rows,
            self.kernel,
            heaps,
            far,
            &mut v2[..rows.len() * dim],
        );
        visited
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaced_rows_update_the_moments_as_a_recomputation_would() {
        let mut y = crate::geometry::random::random_sphere(40, 6, 1);
        let mut m = Moments::new(6);
        m.compute(y.view());
        let rows = [3usize, 17, 39];
        let old = y.select(ndarray::Axis(0), &rows);
        let new = crate::geometry::random::random_sphere(3, 6, 2);
        for (r, &i) in rows.iter().enumerate() {
            y.row_mut(i).assign(&new.row(r));
        }
        m.replace(old.view(), new.view());
        let mut fresh = Moments::new(6);
        fresh.compute(y.view());
        let gap = |a: &[f64], b: &[f64]| {
            a.iter()
                .zip(b)
                .fold(0.0f64, |g, (x, y)| g.max((x - y).abs()))
        };
        assert!(gap(&m.sum, &fresh.sum) < 1e-6);
        assert!(gap(m.gram.as_slice().unwrap(), fresh.gram.as_slice().unwrap()) < 1e-5);
    }

    #[test]
    fn default_k_follows_the_rule_of_thumb() {
        assert_eq!(default_k(163_188), 3000);
        assert_eq!(default_k(21_837), 148);
        assert_eq!(default_k(1000), 50);
        assert_eq!(default_k(30), 29);
        assert_eq!(default_k(1), 0);
    }
}
