//! Laplacian eigenmaps (docs/methods/manifold.md, "Laplacian eigenmaps"):
//! heat-kernel weights on the graph's edges and the normalised adjacency
//! `D^-½ W D^-½`, whose top eigenvectors `z` give the generalised
//! eigenvectors `y = D^-½ z` of `L y = λ D y` (eigenvalue `1 − θ`).

use super::graph::Graph;
use crate::linalg::Csr;
use crate::{Error, Result};

/// The normalised adjacency and the degrees it was scaled by.
pub struct Normalised {
    /// `D^-½ W D^-½` (symmetric).
    pub s: Csr,
    /// `D_ii = Σ_j W_ij`.
    pub degree: Vec<f64>,
}

/// `W_ij = exp(−‖x_i − x_j‖² / t)` on the graph's edges (`t = 0`: every
/// edge weighs 1, the limit `t → ∞`), normalised by the degrees.
pub fn normalised(g: &Graph, t: f64) -> Result<Normalised> {
    if !(t >= 0.0 && t.is_finite()) {
        return Err(Error::param("heat", format!("{t} (expected >= 0)")));
    }
    let weight = |d2: f32| {
        if t == 0.0 {
            1.0
        } else {
            (-f64::from(d2) / t).exp()
        }
    };
    let n = g.len();
    let degree: Vec<f64> = (0..n)
        .map(|i| g.row(i).1.iter().map(|&d| weight(d)).sum())
        .collect();
    if let Some(i) = degree.iter().position(|&d| !(d > 0.0)) {
        return Err(Error::param(
            "heat",
            format!(
                "{t} gives point {} no weight on any edge; raise heat",
                i + 1
            ),
        ));
    }
    let inv: Vec<f64> = degree.iter().map(|d| 1.0 / d.sqrt()).collect();
    let mut data = Vec::with_capacity(g.ids.len());
    for i in 0..n {
        let (ids, d2) = g.row(i);
        for (&j, &d) in ids.iter().zip(d2) {
            data.push(weight(d) * inv[i] * inv[j as usize]);
        }
    }
    let s = Csr::new((n, n), g.indptr.clone(), g.ids.clone(), data)?;
    Ok(Normalised { s, degree })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifold::graph::Neighbourhood;
    use ndarray::array;

    #[test]
    fn heat_weights_are_normalised_symmetrically() {
        let x = array![[0.0f32], [1.0], [3.0]];
        let g = Graph::build(x.view(), Neighbourhood::Knn(1)).unwrap();
        let nrm = normalised(&g, 2.0).unwrap();
        let w01 = (-0.5f64).exp();
        let w12 = (-2.0f64).exp();
        assert!((nrm.degree[1] - (w01 + w12)).abs() < 1e-12);
        assert!(nrm.s.is_symmetric(1e-12));
        assert!(normalised(&g, -1.0).is_err());
        let flat = normalised(&g, 0.0).unwrap();
        assert_eq!(flat.degree, vec![1.0, 2.0, 1.0]);
    }
}
