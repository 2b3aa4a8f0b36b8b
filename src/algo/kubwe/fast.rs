//! Fast KUBWE forces (Soleimani §3.3.5): the repulsion on word `i` comes only
//! from its `k` nearest non-positive neighbours, found in a [`VpTree`] built
//! over a snapshot of the vectors; the kernel weights and the force use the
//! current vectors. Each word is independent, so words run in parallel and
//! the result does not depend on the thread count.
//!
//! Cost per word `O(d (p̄ + visited))`, where `visited` is the number of tree
//! nodes the search touches (about `k + log n` under the thesis bound).

use ndarray::ArrayView2;

use super::affinity::Affinity;
use super::kernel::Kernel;
use super::vptree::{dot, Bound, NeighborHeap, Query, VpTree, GROUP};

/// The default `k` for a vocabulary of `n` words (ALGORITHMS.md §13.6):
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

/// `v₁ = Σ_{P_i} a_ij y_j` in `f64`.
pub fn attraction(a: &Affinity, y: ArrayView2<'_, f32>, i: usize, v1: &mut [f64]) {
    v1.fill(0.0);
    let (cols, vals) = a.row(i);
    for (&j, &v) in cols.iter().zip(vals) {
        for (acc, &x) in v1.iter_mut().zip(y.row(j as usize).iter()) {
            *acc += v as f64 * x as f64;
        }
    }
}

/// Forces on word `i`: attraction into `v1`, repulsion from its `k` nearest
/// non-positive neighbours into `v2`. Returns the tree nodes visited.
#[allow(clippy::too_many_arguments)]
pub fn row_forces(
    a: &Affinity,
    y: ArrayView2<'_, f32>,
    i: usize,
    tree: &VpTree,
    k: usize,
    bound: Bound,
    kernel: Kernel,
    heap: &mut NeighborHeap,
    v1: &mut [f64],
    v2: &mut [f64],
) -> usize {
    let search = Search {
        tree,
        k,
        bound,
        kernel,
    };
    search.forces(a, y, &[i as u32], std::slice::from_mut(heap), v1, v2)
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
}

impl Search<'_> {
    /// Forces on the words `rows` (at most [`GROUP`], searched in one
    /// traversal): attraction and repulsion, `rows.len() × dim` row-major,
    /// into `v1` and `v2`. `heaps` needs one heap per row. Returns the
    /// distances computed by the search.
    pub fn forces(
        &self,
        a: &Affinity,
        y: ArrayView2<'_, f32>,
        rows: &[u32],
        heaps: &mut [NeighborHeap],
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
        let visited = self
            .tree
            .search_group(&queries[..rows.len()], self.k, self.bound, heaps);
        for (r, &i) in rows.iter().enumerate() {
            let (f1, f2) = (
                &mut v1[r * dim..(r + 1) * dim],
                &mut v2[r * dim..(r + 1) * dim],
            );
            attraction(a, y, i as usize, f1);
            f2.fill(0.0);
            let yi = row(i);
            for n in heaps[r].iter() {
                let yj = row(n.id);
                let w = self.kernel.weight(dot(yi, yj)) as f64;
                for (acc, &x) in f2.iter_mut().zip(yj) {
                    *acc += w * x as f64;
                }
            }
        }
        visited
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_k_follows_the_rule_of_thumb() {
        assert_eq!(default_k(163_188), 3000);
        assert_eq!(default_k(21_837), 148);
        assert_eq!(default_k(1000), 50);
        assert_eq!(default_k(30), 29);
        assert_eq!(default_k(1), 0);
    }
}
