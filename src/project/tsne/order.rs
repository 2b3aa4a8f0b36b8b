//! The order the optimiser keeps the points in: neighbours of `P` close
//! together, so that the attraction's reads of `y_j` hit the cache.
//!
//! The attraction reads `y_j` for every non-zero `p_ij`, in row order. In
//! the caller's order (a file's, a vocabulary's) the `j` of a row are spread
//! over the whole layout: at 200,000 points the layout is 3.2 MB, more than
//! the 1 MB L2 of the machine the benchmarks run on, and a profile of the
//! 200,000-point run put the largest stall of the attraction kernel on
//! those loads. Numbered in breadth-first order over `P`'s graph, a row's
//! neighbours get numbers near its own (a cluster becomes one contiguous
//! range), and the loads stay in L2. The optimiser works in that order;
//! [`Order::restore`] puts the layout back in the caller's.

use super::affinity::SparseP;

/// A renumbering of `n` points and its inverse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Order {
    /// `old[new]`: the caller's index of the point numbered `new`.
    old: Vec<u32>,
    /// `new[old]`: the number of the caller's point `old`.
    new: Vec<u32>,
}

impl Order {
    /// Breadth-first over `p`'s graph from point 0, each row's columns in
    /// their stored (ascending) order; a point not reached starts a new
    /// search, lowest index first. Deterministic: it depends on `p` alone.
    pub fn breadth_first(p: &SparseP) -> Order {
        let n = p.n();
        const UNSEEN: u32 = u32::MAX;
        let mut new = vec![UNSEEN; n];
        let mut old = Vec::with_capacity(n);
        for root in 0..n {
            if new[root] != UNSEEN {
                continue;
            }
            new[root] = old.len() as u32;
            old.push(root as u32);
            // `old` doubles as the queue: its entries from `head` on are
            // numbered but not yet expanded.
            let mut head = old.len() - 1;
            while head < old.len() {
                let (cols, _) = p.row(old[head] as usize);
                for &j in cols {
                    if new[j as usize] == UNSEEN {
                        new[j as usize] = old.len() as u32;
                        old.push(j);
                    }
                }
                head += 1;
            }
        }
        Order { old, new }
    }

    /// `p` with rows and columns renumbered, each row's columns ascending.
    pub fn permute(&self, p: &SparseP) -> SparseP {
        let n = p.n();
        let mut indptr = Vec::with_capacity(n + 1);
        let mut indices = Vec::with_capacity(p.nnz());
        let mut values = Vec::with_capacity(p.nnz());
        let mut row: Vec<(u32, f32)> = Vec::new();
        indptr.push(0);
        for &o in &self.old {
            let (cols, vals) = p.row(o as usize);
            row.clear();
            row.extend(
                cols.iter()
                    .map(|&j| self.new[j as usize])
                    .zip(vals.iter().copied()),
            );
            row.sort_unstable_by_key(|e| e.0);
            indices.extend(row.iter().map(|e| e.0));
            values.extend(row.iter().map(|e| e.1));
            indptr.push(indices.len());
        }
        SparseP {
            indptr,
            indices,
            values,
        }
    }

    /// `items` (in the caller's order) in this order.
    pub fn apply<T: Copy>(&self, items: &[T]) -> Vec<T> {
        self.old.iter().map(|&o| items[o as usize]).collect()
    }

    /// `items` (in this order) back in the caller's order.
    pub fn restore<T: Copy>(&self, items: &[T]) -> Vec<T> {
        self.new.iter().map(|&i| items[i as usize]).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::testdata::small_problem;

    #[test]
    fn renumbering_keeps_every_entry_and_round_trips() {
        let p = small_problem(200, 6.0, 4);
        let order = Order::breadth_first(&p);
        let mut seen = order.old.clone();
        seen.sort_unstable();
        assert_eq!(seen, (0..200).collect::<Vec<u32>>(), "a permutation");
        let q = order.permute(&p);
        assert_eq!(q.nnz(), p.nnz());
        for i in 0..200 {
            for j in 0..200 {
                let (a, b) = (order.new[i] as usize, order.new[j] as usize);
                assert_eq!(p.get(i, j).to_bits(), q.get(a, b).to_bits(), "({i}, {j})");
            }
            let (cols, _) = q.row(i);
            assert!(cols.windows(2).all(|w| w[0] < w[1]), "row {i} ascending");
        }
        let items: Vec<u32> = (0..200).map(|i| i * 7).collect();
        assert_eq!(order.restore(&order.apply(&items)), items);
    }

    /// Two groups with no edge between them: each becomes one contiguous
    /// range, whatever order their points came in.
    #[test]
    fn a_component_becomes_one_range() {
        // Points alternate between two cliques: even ones and odd ones.
        let n = 10;
        let mut indptr = vec![0];
        let (mut indices, mut values) = (Vec::new(), Vec::new());
        for i in 0..n {
            for j in (0..n).filter(|&j| j != i && j % 2 == i % 2) {
                indices.push(j as u32);
                values.push(0.01f32);
            }
            indptr.push(indices.len());
        }
        let p = SparseP {
            indptr,
            indices,
            values,
        };
        let order = Order::breadth_first(&p);
        assert_eq!(order.old, vec![0, 2, 4, 6, 8, 1, 3, 5, 7, 9]);
    }
}
