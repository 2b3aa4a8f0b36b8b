//! Shortest paths on the neighbourhood graph (Isomap's geodesic distances):
//! Dijkstra from every source, sources in parallel, each thread reusing its
//! heap and distance buffer (docs/methods/manifold.md, "Isomap").

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use rayon::prelude::*;

use super::graph::Graph;

/// A heap entry: smaller distance first, then lower node.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Entry {
    dist: f64,
    node: u32,
}

impl Eq for Entry {}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .dist
            .total_cmp(&self.dist)
            .then(other.node.cmp(&self.node))
    }
}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Reusable buffers of one Dijkstra run.
struct Scratch {
    dist: Vec<f64>,
    heap: BinaryHeap<Entry>,
}

/// Edge lengths (Euclidean, not squared) of the graph, computed once.
pub fn edge_lengths(g: &Graph) -> Vec<f64> {
    g.dist2.iter().map(|&d| f64::from(d).sqrt()).collect()
}

/// Squared geodesic distances from each of `sources` to every node, one row
/// of `out` (`sources.len() × n`, row-major) per source. Unreachable nodes
/// get infinity (the caller checks connectivity first).
pub fn squared_geodesics(g: &Graph, lengths: &[f64], sources: &[u32], out: &mut [f32]) {
    let n = g.len();
    assert_eq!(out.len(), sources.len() * n, "one row per source");
    out.par_chunks_mut(n.max(1)).zip(sources).for_each_init(
        || Scratch {
            dist: vec![f64::INFINITY; n],
            heap: BinaryHeap::new(),
        },
        |scratch, (row, &s)| {
            dijkstra(g, lengths, s, scratch);
            for (o, &d) in row.iter_mut().zip(&scratch.dist) {
                *o = (d * d) as f32;
            }
        },
    );
}

/// Dijkstra from `source` into `scratch.dist`.
fn dijkstra(g: &Graph, lengths: &[f64], source: u32, scratch: &mut Scratch) {
    let Scratch { dist, heap } = scratch;
    dist.fill(f64::INFINITY);
    heap.clear();
    dist[source as usize] = 0.0;
    heap.push(Entry {
        dist: 0.0,
        node: source,
    });
    while let Some(Entry { dist: d, node }) = heap.pop() {
        let v = node as usize;
        if d > dist[v] {
            continue;
        }
        let span = g.indptr[v]..g.indptr[v + 1];
        for (&w, &len) in g.ids[span.clone()].iter().zip(&lengths[span]) {
            let nd = d + len;
            if nd < dist[w as usize] {
                dist[w as usize] = nd;
                heap.push(Entry { dist: nd, node: w });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifold::graph::Neighbourhood;
    use ndarray::array;

    #[test]
    fn geodesics_follow_the_chain() {
        // Points on a line; 1-NN union is a path, geodesic = line distance.
        let x = array![[0.0f32], [1.0], [3.0], [6.0]];
        let g = Graph::build(x.view(), Neighbourhood::Knn(1)).unwrap();
        assert!(g.check_connected().is_ok());
        let lengths = edge_lengths(&g);
        let mut out = vec![0.0f32; 2 * 4];
        squared_geodesics(&g, &lengths, &[0, 3], &mut out);
        assert_eq!(out, vec![0.0, 1.0, 9.0, 36.0, 36.0, 25.0, 9.0, 0.0]);
    }
}
