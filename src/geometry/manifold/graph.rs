//! The neighbourhood graph the three methods start from: k nearest
//! neighbours or an epsilon ball ([`crate::geometry::knn`]), made symmetric by union
//! (an edge when either end picked the other; docs/methods/manifold.md,
//! "The neighbourhood graph"), with its connected components.

use ndarray::ArrayView2;

use crate::geometry::knn::{search, within, Knn, Search};
use crate::{Error, Result};

/// How the neighbours of a point are chosen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Neighbourhood {
    /// The `k` nearest other points.
    Knn(usize),
    /// Every point within this Euclidean distance.
    Radius(f64),
}

impl Neighbourhood {
    /// The parameter a user raises to connect a graph, and its value.
    fn knob(&self) -> (&'static str, String) {
        match self {
            Neighbourhood::Knn(k) => ("k", k.to_string()),
            Neighbourhood::Radius(r) => ("epsilon", r.to_string()),
        }
    }
}

/// A symmetric graph in compressed rows: edge lengths are squared
/// Euclidean distances between the points (`f32` storage).
#[derive(Debug, Clone, PartialEq)]
pub struct Graph {
    /// Row `i`'s edges are `ids[indptr[i]..indptr[i + 1]]`, ids ascending.
    pub indptr: Vec<usize>,
    /// Neighbour ids.
    pub ids: Vec<u32>,
    /// Squared distances, matching `ids`.
    pub dist2: Vec<f32>,
    /// Matching `ids`: whether both ends listed each other (always, for an
    /// epsilon ball); the mean symmetrisation of Laplacian eigenmaps halves
    /// the weight of the edges that only one end listed.
    pub mutual: Vec<bool>,
    /// How it was built (named in the disconnected-graph error).
    pub neighbourhood: Neighbourhood,
}

impl Graph {
    /// Builds the symmetric neighbourhood graph of the rows of `x`
    /// (neighbours by [`Search::Auto`]).
    pub fn build(x: ArrayView2<'_, f32>, how: Neighbourhood) -> Result<Graph> {
        Graph::build_with(x, how, Search::Auto)
    }

    /// [`Graph::build`] with the k nearest neighbours found by `search`.
    pub fn build_with(
        x: ArrayView2<'_, f32>,
        how: Neighbourhood,
        search_by: Search,
    ) -> Result<Graph> {
        let n = x.nrows();
        let lists: Vec<(Vec<u32>, Vec<f32>)> = match how {
            Neighbourhood::Knn(k) => {
                check_k(k, n)?;
                let g = search(x, k, search_by);
                (0..n)
                    .map(|i| (g.row(i).0.to_vec(), g.row(i).1.to_vec()))
                    .collect()
            }
            Neighbourhood::Radius(r) => {
                if !(r > 0.0 && r.is_finite()) {
                    return Err(Error::param("epsilon", format!("{r} (expected > 0)")));
                }
                let b = within(x, (r * r) as f32);
                (0..n)
                    .map(|i| (b.row(i).0.to_vec(), b.row(i).1.to_vec()))
                    .collect()
            }
        };
        Ok(Graph::from_lists(&lists, how))
    }

    /// The union of directed neighbour lists: `i ~ j` when either lists the other.
    pub fn from_knn(g: &Knn, how: Neighbourhood) -> Graph {
        let lists: Vec<(Vec<u32>, Vec<f32>)> = (0..g.len())
            .map(|i| (g.row(i).0.to_vec(), g.row(i).1.to_vec()))
            .collect();
        Graph::from_lists(&lists, how)
    }

    /// The union of directed neighbour lists `(ids, squared distances)`.
    pub fn from_lists(lists: &[(Vec<u32>, Vec<f32>)], how: Neighbourhood) -> Graph {
        let n = lists.len();
        let mut edges: Vec<Vec<(u32, f32)>> = vec![Vec::new(); n];
        for (i, (ids, d2)) in lists.iter().enumerate() {
            for (&j, &d) in ids.iter().zip(d2) {
                edges[i].push((j, d));
                edges[j as usize].push((i as u32, d));
            }
        }
        let mut g = Graph {
            indptr: Vec::with_capacity(n + 1),
            ids: Vec::new(),
            dist2: Vec::new(),
            mutual: Vec::new(),
            neighbourhood: how,
        };
        g.indptr.push(0);
        for row in &mut edges {
            row.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
            // An id twice in a row: both ends listed the edge.
            for (e, &(j, d)) in row.iter().enumerate() {
                if e > 0 && row[e - 1].0 == j {
                    *g.mutual.last_mut().expect("an edge was pushed") = true;
                    continue;
                }
                g.ids.push(j);
                g.dist2.push(d);
                g.mutual.push(false);
            }
            g.indptr.push(g.ids.len());
        }
        g
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.indptr.len() - 1
    }

    /// True for a graph of no points.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Neighbour ids and squared distances of point `i`.
    pub fn row(&self, i: usize) -> (&[u32], &[f32]) {
        let r = self.indptr[i]..self.indptr[i + 1];
        (&self.ids[r.clone()], &self.dist2[r])
    }

    /// The component of every point (numbered by first point) and the sizes.
    pub fn components(&self) -> (Vec<u32>, Vec<usize>) {
        let n = self.len();
        let mut label = vec![u32::MAX; n];
        let mut sizes = Vec::new();
        let mut stack = Vec::new();
        for s in 0..n {
            if label[s] != u32::MAX {
                continue;
            }
            let c = sizes.len() as u32;
            label[s] = c;
            stack.push(s as u32);
            let mut size = 0;
            while let Some(v) = stack.pop() {
                size += 1;
                for &w in self.row(v as usize).0 {
                    if label[w as usize] == u32::MAX {
                        label[w as usize] = c;
                        stack.push(w);
                    }
                }
            }
            sizes.push(size);
        }
        (label, sizes)
    }

    /// Fails unless the graph is connected, listing the component sizes
    /// (largest first, at most ten) and naming the parameter to raise.
    pub fn check_connected(&self) -> Result<()> {
        let (_, mut sizes) = self.components();
        if sizes.len() <= 1 {
            return Ok(());
        }
        sizes.sort_unstable_by(|a, b| b.cmp(a));
        let shown: Vec<String> = sizes.iter().take(10).map(|s| s.to_string()).collect();
        let more = if sizes.len() > 10 { ", ..." } else { "" };
        let (name, value) = self.neighbourhood.knob();
        Err(Error::param(
            name,
            format!(
                "{value} leaves the neighbourhood graph in {} components (sizes {}{more}); \
                 raise {name} until the graph is connected",
                sizes.len(),
                shown.join(", ")
            ),
        ))
    }
}

/// Fails unless `1 <= k < n`.
pub fn check_k(k: usize, n: usize) -> Result<()> {
    if k == 0 || k >= n {
        return Err(Error::param(
            "k",
            format!(
                "{k} neighbours of {n} points (expected 1 to {})",
                n.saturating_sub(1)
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn union_is_symmetric_and_components_are_counted() {
        // Two pairs far apart: 1-NN makes two components.
        let x = array![
            [0.0f32, 0.0],
            [1.0, 0.0],
            [10.0, 0.0],
            [10.5, 0.0],
            [30.0, 0.0]
        ];
        let g = Graph::build(x.view(), Neighbourhood::Knn(1)).unwrap();
        assert_eq!(g.row(0).0, &[1]);
        assert_eq!(g.row(3).0, &[2, 4]);
        assert_eq!(g.row(4).0, &[3]);
        // 0 and 1 list each other; 4 lists 3, which lists 2.
        assert_eq!(g.mutual[g.indptr[0]..g.indptr[1]], [true]);
        assert_eq!(g.mutual[g.indptr[3]..g.indptr[4]], [true, false]);
        assert_eq!(g.components().1, vec![2, 3]);
        let e = g.check_connected().unwrap_err().to_string();
        assert_eq!(
            e,
            "invalid value for k: 1 leaves the neighbourhood graph in 2 components \
             (sizes 3, 2); raise k until the graph is connected"
        );
        let g = Graph::build(x.view(), Neighbourhood::Knn(2)).unwrap();
        assert!(g.check_connected().is_ok());
        let g = Graph::build(x.view(), Neighbourhood::Radius(1.0)).unwrap();
        assert_eq!(g.components().1, vec![2, 2, 1]);
        assert!(g
            .check_connected()
            .unwrap_err()
            .to_string()
            .contains("epsilon"));
    }

    #[test]
    fn bad_neighbourhoods_are_refused() {
        let x = array![[0.0f32], [1.0]];
        assert!(Graph::build(x.view(), Neighbourhood::Knn(2)).is_err());
        assert!(Graph::build(x.view(), Neighbourhood::Knn(0)).is_err());
        assert!(Graph::build(x.view(), Neighbourhood::Radius(-1.0)).is_err());
    }
}
