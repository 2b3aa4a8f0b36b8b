//! Barnes-Hut repulsion (van der Maaten 2014): a quadtree over the layout,
//! and every cell that looks small from a point (`width / distance < θ`)
//! acts on it as one body at its centre of mass. O(n log n) per iteration;
//! cheaper than the FFT method up to a few thousand points.
//!
//! The tree is built by recursive four-way partition of an index array, so
//! each leaf is a contiguous range of points and the build allocates only the
//! node list and the permutation.

use rayon::prelude::*;

use super::gradient::CHUNK;

/// Deepest level; points closer than `width / 2^MAX_DEPTH` share a leaf.
const MAX_DEPTH: u32 = 40;

/// One quadtree cell.
#[derive(Debug, Clone, Copy)]
struct Node {
    /// Centre of mass of the points inside.
    com: [f64; 2],
    /// Points inside.
    count: u32,
    /// Side length of the cell.
    width: f64,
    /// Index of the first of four children; 0 for a leaf (the root is never a child).
    first_child: u32,
    /// The cell's points: `perm[start..end]`.
    start: u32,
    end: u32,
}

/// A quadtree over a 2-D layout.
#[derive(Debug)]
pub struct QuadTree {
    nodes: Vec<Node>,
    perm: Vec<u32>,
}

impl QuadTree {
    /// Builds the tree over `y`.
    pub fn build(y: &[[f64; 2]]) -> QuadTree {
        let mut lo = [f64::INFINITY; 2];
        let mut hi = [f64::NEG_INFINITY; 2];
        for p in y {
            for d in 0..2 {
                lo[d] = lo[d].min(p[d]);
                hi[d] = hi[d].max(p[d]);
            }
        }
        let width = (hi[0] - lo[0]).max(hi[1] - lo[1]).max(1e-12) * (1.0 + 1e-9);
        let centre = [0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1])];
        let mut tree = QuadTree {
            nodes: Vec::with_capacity(2 * y.len() + 4),
            perm: (0..y.len() as u32).collect(),
        };
        tree.nodes.push(Node {
            com: [0.0; 2],
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
    fn split(&mut self, y: &[[f64; 2]], ni: usize, centre: [f64; 2], depth: u32) {
        let Node {
            start, end, width, ..
        } = self.nodes[ni];
        let (s, e) = (start as usize, end as usize);
        let mut com = [0.0, 0.0];
        for &j in &self.perm[s..e] {
            com[0] += y[j as usize][0];
            com[1] += y[j as usize][1];
        }
        let count = e - s;
        if count > 0 {
            com = [com[0] / count as f64, com[1] / count as f64];
        }
        self.nodes[ni].com = com;
        self.nodes[ni].count = count as u32;
        if count <= 1 || depth >= MAX_DEPTH {
            return;
        }
        // Quadrants: bit 0 = right half, bit 1 = upper half.
        let range = &mut self.perm[s..e];
        let mid = partition(range, |j| y[j as usize][1] < centre[1]);
        let lower_mid = partition(&mut range[..mid], |j| y[j as usize][0] < centre[0]);
        let upper_mid = mid + partition(&mut range[mid..], |j| y[j as usize][0] < centre[0]);
        let bounds = [s, s + lower_mid, s + mid, s + upper_mid, e];
        let first = self.nodes.len();
        self.nodes[ni].first_child = first as u32;
        let half = 0.5 * width;
        for q in 0..4 {
            self.nodes.push(Node {
                com: [0.0; 2],
                count: 0,
                width: half,
                first_child: 0,
                start: bounds[q] as u32,
                end: bounds[q + 1] as u32,
            });
        }
        for q in 0..4 {
            let dx = if q & 1 == 1 { 0.25 } else { -0.25 } * width;
            let dy = if q & 2 == 2 { 0.25 } else { -0.25 } * width;
            self.split(y, first + q, [centre[0] + dx, centre[1] + dy], depth + 1);
        }
    }

    /// `Σ_j w_ij² (y_i − y_j)` and `Σ_j w_ij` for point `i` at `yi`, approximated with opening angle `theta`.
    fn forces(&self, y: &[[f64; 2]], i: u32, theta2: f64, stack: &mut Vec<u32>) -> ([f64; 2], f64) {
        let yi = y[i as usize];
        let mut f = [0.0, 0.0];
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
                        let yj = y[j as usize];
                        let d = [yi[0] - yj[0], yi[1] - yj[1]];
                        let w = 1.0 / (1.0 + d[0] * d[0] + d[1] * d[1]);
                        z += w;
                        f[0] += w * w * d[0];
                        f[1] += w * w * d[1];
                    }
                }
                continue;
            }
            let d = [yi[0] - node.com[0], yi[1] - node.com[1]];
            let d2 = d[0] * d[0] + d[1] * d[1];
            if node.width * node.width < theta2 * d2 {
                let n = f64::from(node.count);
                let w = 1.0 / (1.0 + d2);
                z += n * w;
                f[0] += n * w * w * d[0];
                f[1] += n * w * w * d[1];
            } else {
                let c = node.first_child;
                stack.extend_from_slice(&[c, c + 1, c + 2, c + 3]);
            }
        }
        (f, z)
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
pub fn repulsion(y: &[[f64; 2]], theta: f64, out: &mut [[f64; 2]]) -> f64 {
    let tree = QuadTree::build(y);
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
}
