//! Barnes-Hut repulsion (van der Maaten 2014): a quadtree (an octree in
//! 3-D) over the layout,
//! and every cell that looks small from a point (`width / distance < θ`)
//! acts on it as one body at its centre of mass. O(n log n) per iteration;
//! cheaper than the FFT method up to a few thousand points.
//!
//! The tree is built by recursive `2^D`-way partition of an index array, so
//! each leaf is a contiguous range of points and the build allocates only the
//! node list and the permutation.

use rayon::prelude::*;

use super::points::{one_plus_d2, CHUNK};

/// Deepest level; points closer than `width / 2^MAX_DEPTH` share a leaf.
const MAX_DEPTH: u32 = 40;

/// The most children a cell has (an octree's 8).
const MAX_CHILDREN: usize = 8;

/// One cell of the tree.
#[derive(Debug, Clone, Copy)]
struct Node<const D: usize> {
    /// Centre of mass of the points inside.
    com: [f64; D],
    /// Points inside.
    count: u32,
    /// Side length of the cell.
    width: f64,
    /// Index of the first of `2^D` children; 0 for a leaf (the root is never a child).
    first_child: u32,
    /// The cell's points: `perm[start..end]`.
    start: u32,
    end: u32,
}

/// A `2^D`-ary tree over a layout: a quadtree in 2-D, an octree in 3-D.
#[derive(Debug)]
pub struct Tree<const D: usize> {
    nodes: Vec<Node<D>>,
    perm: Vec<u32>,
}

/// The 2-D tree.
pub type QuadTree = Tree<2>;

impl<const D: usize> Tree<D> {
    /// Children of a cell.
    const CHILDREN: usize = {
        assert!(D >= 1 && 1 << D <= MAX_CHILDREN, "1 to 3 dimensions");
        1 << D
    };

    /// Builds the tree over `y`.
    pub fn build(y: &[[f64; D]]) -> Tree<D> {
        let mut lo = [f64::INFINITY; D];
        let mut hi = [f64::NEG_INFINITY; D];
        for p in y {
            for d in 0..D {
                lo[d] = lo[d].min(p[d]);
                hi[d] = hi[d].max(p[d]);
            }
        }
        let span = (0..D)
            .map(|d| hi[d] - lo[d])
            .fold(f64::NEG_INFINITY, f64::max);
        let width = span.max(1e-12) * (1.0 + 1e-9);
        let centre: [f64; D] = std::array::from_fn(|d| 0.5 * (lo[d] + hi[d]));
        let mut tree = Tree {
            nodes: Vec::with_capacity(2 * y.len() + 4),
            perm: (0..y.len() as u32).collect(),
        };
        tree.nodes.push(Node {
            com: [0.0; D],
            count: 0,
            width,
            first_child: 0,
            start: 0,
            end: y.len() as u32,
        });
        tree.split(y, 0, centre, 0);
        tree
    }

    /// Fills node `ni` (its range is set): centre of mass, then children if needed.
    fn split(&mut self, y: &[[f64; D]], ni: usize, centre: [f64; D], depth: u32) {
        let Node {
            start, end, width, ..
        } = self.nodes[ni];
        let (s, e) = (start as usize, end as usize);
        let mut com = [0.0; D];
        for &j in &self.perm[s..e] {
            for d in 0..D {
                com[d] += y[j as usize][d];
            }
        }
        let count = e - s;
        if count > 0 {
            com = com.map(|c| c / count as f64);
        }
        self.nodes[ni].com = com;
        self.nodes[ni].count = count as u32;
        if count <= 1 || depth >= MAX_DEPTH {
            return;
        }
        // Children: bit d set = the upper half along axis d.
        let children = Self::CHILDREN;
        let mut bounds = [0usize; MAX_CHILDREN + 1];
        order(&mut self.perm[s..e], s, D - 1, 0, y, &centre, &mut bounds);
        bounds[children] = e;
        let first = self.nodes.len();
        self.nodes[ni].first_child = first as u32;
        let half = 0.5 * width;
        for q in 0..children {
            self.nodes.push(Node {
                com: [0.0; D],
                count: 0,
                width: half,
                first_child: 0,
                start: bounds[q] as u32,
                end: bounds[q + 1] as u32,
            });
        }
        for q in 0..children {
            let c: [f64; D] = std::array::from_fn(|d| {
                let side = if (q >> d) & 1 == 1 { 0.25 } else { -0.25 };
                centre[d] + side * width
            });
            self.split(y, first + q, c, depth + 1);
        }
    }

    /// `Σ_j w_ij² (y_i − y_j)` and `Σ_j w_ij` for point `i` at `yi`, approximated with opening angle `theta`.
    fn forces(&self, y: &[[f64; D]], i: u32, theta2: f64, stack: &mut Vec<u32>) -> ([f64; D], f64) {
        let yi = y[i as usize];
        let mut f = [0.0; D];
        let mut z = 0.0;
        stack.clear();
        stack.push(0);
        while let Some(ni) = stack.pop() {
            let node = &self.nodes[ni as usize];
            if node.count == 0 {
                continue;
            }
            if node.first_child == 0 {
                for &j in &self.perm[node.start as usize..node.end as usize] {
                    if j != i {
                        let (s, d) = one_plus_d2(&yi, &y[j as usize]);
                        let w = 1.0 / s;
                        z += w;
                        for k in 0..D {
                            f[k] += w * w * d[k];
                        }
                    }
                }
                continue;
            }
            let d: [f64; D] = std::array::from_fn(|k| yi[k] - node.com[k]);
            let d2 = d.iter().fold(0.0, |s, v| s + v * v);
            if node.width * node.width < theta2 * d2 {
                let n = f64::from(node.count);
                let w = 1.0 / (1.0 + d2);
                z += n * w;
                for k in 0..D {
                    f[k] += n * w * w * d[k];
                }
            } else {
                let c = node.first_child;
                stack.extend((0..Self::CHILDREN as u32).map(|q| c + q));
            }
        }
        (f, z)
    }
}

/// Orders `range` (starting at `start` in the permutation) into the
/// children of a cell centred at `centre`: split at the centre along `axis`
/// (lower half first), then each half along the axes below it; writes
/// where child `q` starts into `bounds[q]`.
fn order<const D: usize>(
    range: &mut [u32],
    start: usize,
    axis: usize,
    q: usize,
    y: &[[f64; D]],
    centre: &[f64; D],
    bounds: &mut [usize],
) {
    let mid = partition(range, |j| y[j as usize][axis] < centre[axis]);
    let (lower, upper) = range.split_at_mut(mid);
    if axis == 0 {
        bounds[q] = start;
        bounds[q | 1] = start + mid;
    } else {
        order(lower, start, axis - 1, q, y, centre, bounds);
        order(
            upper,
            start + mid,
            axis - 1,
            q | 1 << axis,
            y,
            centre,
            bounds,
        );
    }
}

/// Moves the elements satisfying `left` to the front; returns how many there are.
fn partition(v: &mut [u32], left: impl Fn(u32) -> bool) -> usize {
    let mut k = 0;
    for i in 0..v.len() {
        if left(v[i]) {
            v.swap(i, k);
            k += 1;
        }
    }
    k
}

/// Writes the Barnes-Hut estimate of `Σ_j w_ij² (y_i − y_j)` into `out` and returns the estimate of `Z`.
pub fn repulsion<const D: usize>(y: &[[f64; D]], theta: f64, out: &mut [[f64; D]]) -> f64 {
    let tree = Tree::build(y);
    let theta2 = theta * theta;
    let parts: Vec<f64> = out
        .par_chunks_mut(CHUNK)
        .enumerate()
        .map(|(c, chunk)| {
            let mut stack = Vec::with_capacity(256);
            let mut z = 0.0;
            for (o, i) in chunk.iter_mut().zip(c * CHUNK..) {
                let (f, zi) = tree.forces(y, i as u32, theta2, &mut stack);
                *o = f;
                z += zi;
            }
            z
        })
        .collect();
    parts.iter().sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::testdata::spread_layout;
    use crate::project::tsne::exact;

    #[test]
    fn theta_zero_is_exact_and_coincident_points_are_fine() {
        let mut y = spread_layout(300, 10.0, 1);
        y[5] = y[6]; // two points at the same place
        let (mut a, mut b) = (vec![[0.0; 2]; 300], vec![[0.0; 2]; 300]);
        let za = exact::repulsion(&y, &mut a);
        let zb = repulsion(&y, 0.0, &mut b);
        assert!((za - zb).abs() < 1e-9 * za);
        for (x, w) in a.iter().zip(&b) {
            assert!((x[0] - w[0]).abs() < 1e-12 && (x[1] - w[1]).abs() < 1e-12);
        }
    }

    #[test]
    fn tree_ranges_cover_every_point_once() {
        let y = spread_layout(1000, 3.0, 2);
        let t = QuadTree::build(&y);
        let mut seen = vec![0; 1000];
        for n in t.nodes.iter().filter(|n| n.first_child == 0) {
            for &j in &t.perm[n.start as usize..n.end as usize] {
                seen[j as usize] += 1;
            }
        }
        assert!(seen.iter().all(|&s| s == 1));
        assert_eq!(t.nodes[0].count, 1000);
    }

    #[test]
    fn an_octree_in_3d_agrees_with_the_exact_repulsion() {
        let flat = spread_layout(600, 6.0, 3);
        let lift = spread_layout(600, 6.0, 4);
        let y: Vec<[f64; 3]> = flat
            .iter()
            .zip(&lift)
            .map(|(a, b)| [a[0], a[1], b[0]])
            .collect();
        let t = Tree::build(&y);
        assert!(t
            .nodes
            .iter()
            .all(|n| n.first_child == 0 || (n.first_child as usize + 8 <= t.nodes.len())));
        let (mut a, mut b) = (vec![[0.0; 3]; 600], vec![[0.0; 3]; 600]);
        let za = exact::repulsion(&y, &mut a);
        let zb = repulsion(&y, 0.0, &mut b);
        assert!((za - zb).abs() < 1e-9 * za, "theta 0 is exact");
        for (x, w) in a.iter().zip(&b) {
            assert!((0..3).all(|d| (x[d] - w[d]).abs() < 1e-12));
        }
        let zc = repulsion(&y, 0.5, &mut b);
        let err = crate::project::testdata::relative_l2(&a, &b);
        assert!(
            err < 0.05 && (za - zc).abs() < 0.01 * za,
            "theta 0.5: {err}"
        );
    }
}
