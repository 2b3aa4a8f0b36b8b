//! Laplacian eigenmaps (docs/methods/manifold.md, "Laplacian eigenmaps"):
//! heat-kernel weights on the graph's edges and the normalised adjacency
//! `D^-½ W D^-½`, whose top eigenvectors `z` give the generalised
//! eigenvectors `y = D^-½ z` of `L y = λ D y` (eigenvalue `1 − θ`).

use super::graph::Graph;
use crate::linalg::{Csr, SymmetricOperator};
use crate::schema::{choice_names, Choice, ParamSpec};
use crate::{Error, Result};

/// Laplacian eigenmaps' graph, declared once for the word method and the
/// projections (`symmetrise`).
pub const SYMMETRISE: ParamSpec = ParamSpec::choice(
    "symmetrise",
    Symmetrise::NAMES,
    "union",
    "laplacian: union = an edge of weight w when either end lists the other (the paper); \
     mean = (A + A^T)/2 with each point among its own k (scikit-learn's SpectralEmbedding)",
);

choice_names!(Symmetrise {
    Union = "union",
    Mean = "mean",
});

/// How the directed neighbour lists become a symmetric weight matrix
/// (docs/methods/manifold.md, "Laplacian eigenmaps").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Symmetrise {
    /// The paper's graph: `W_ij = w_ij` when either end lists the other,
    /// each point listing its `k` nearest other points.
    Union,
    /// scikit-learn's `SpectralEmbedding` graph: `W = (A + Aᵀ)/2`, so an
    /// edge that only one end listed weighs half; each point's `k` includes
    /// the point itself (`k − 1` others), whose self-loop the Laplacian
    /// ignores.
    Mean,
}

impl Symmetrise {
    /// Neighbours to search for a `k` of this rule (the point itself is
    /// one of `k` under [`Symmetrise::Mean`]).
    pub fn others(self, k: usize) -> usize {
        match self {
            Symmetrise::Union => k,
            Symmetrise::Mean => k.saturating_sub(1),
        }
    }
}

/// The normalised adjacency and the degrees it was scaled by.
pub struct Normalised {
    /// `D^-½ W D^-½` (symmetric).
    pub s: Csr,
    /// `D_ii = Σ_j W_ij`.
    pub degree: Vec<f64>,
}

/// `W_ij = exp(−‖x_i − x_j‖² / t)` on the graph's edges (`t = 0`: every
/// edge weighs 1, the limit `t → ∞`), halved on the edges only one end
/// listed under [`Symmetrise::Mean`], normalised by the degrees.
pub fn normalised(g: &Graph, t: f64, rule: Symmetrise) -> Result<Normalised> {
    if !(t >= 0.0 && t.is_finite()) {
        return Err(Error::param("heat", format!("{t} (expected >= 0)")));
    }
    let heat = |d2: f32| {
        if t == 0.0 {
            1.0
        } else {
            (-f64::from(d2) / t).exp()
        }
    };
    let weights: Vec<f64> = g
        .dist2
        .iter()
        .zip(&g.mutual)
        .map(|(&d, &both)| match rule {
            Symmetrise::Mean if !both => 0.5 * heat(d),
            _ => heat(d),
        })
        .collect();
    let n = g.len();
    let degree: Vec<f64> = (0..n)
        .map(|i| weights[g.indptr[i]..g.indptr[i + 1]].iter().sum())
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
    let mut data = weights;
    for i in 0..n {
        let r = g.indptr[i]..g.indptr[i + 1];
        for (w, &j) in data[r.clone()].iter_mut().zip(&g.ids[r]) {
            *w *= inv[i] * inv[j as usize];
        }
    }
    let s = Csr::new((n, n), g.indptr.clone(), g.ids.clone(), data)?;
    Ok(Normalised { s, degree })
}

/// The operator the eigensolver sees: `P^m` with the lazy matrix
/// `P = (I + S)/2`, `S = D^-½ W D^-½` (docs/methods/manifold.md,
/// "Eigensolver"). `S`'s eigenvalues lie in `[−1, 1]`, so `P`'s lie in
/// `[0, 1]` and `μ = ((1 + θ)/2)^m` is increasing in `θ`: the same
/// eigenvectors in the same order, whatever the spectrum. The power spreads
/// the wanted eigenvalues near 1 away from the bulk near 0, so each Lanczos
/// block step (whose cost is orthogonalising against the basis, far more
/// than the `m` sparse products) gains more.
#[derive(Debug, Clone)]
pub struct LazyPower {
    lazy: Csr,
    power: usize,
}

impl LazyPower {
    /// `((I + s)/2)^power` for a symmetric `s` whose rows hold no diagonal.
    pub fn new(s: &Csr, power: usize) -> Result<LazyPower> {
        let n = s.shape().0;
        let mut indptr = Vec::with_capacity(n + 1);
        let mut indices = Vec::with_capacity(s.nnz() + n);
        let mut data = Vec::with_capacity(s.nnz() + n);
        indptr.push(0);
        for i in 0..n {
            let span = s.indptr()[i]..s.indptr()[i + 1];
            let mut diagonal = false;
            for (&j, &v) in s.indices()[span.clone()].iter().zip(&s.data()[span]) {
                if !diagonal && j as usize > i {
                    indices.push(i as u32);
                    data.push(0.5);
                    diagonal = true;
                }
                indices.push(j);
                data.push(0.5 * v);
            }
            if !diagonal {
                indices.push(i as u32);
                data.push(0.5);
            }
            indptr.push(indices.len());
        }
        Ok(LazyPower {
            lazy: Csr::new((n, n), indptr, indices, data)?,
            power: power.max(1),
        })
    }

    /// The eigenvalue `θ` of `S` behind an eigenvalue `μ` of `P^m`.
    pub fn theta(&self, mu: f64) -> f64 {
        2.0 * mu.max(0.0).powf(1.0 / self.power as f64) - 1.0
    }
}

impl SymmetricOperator for LazyPower {
    fn size(&self) -> usize {
        self.lazy.shape().0
    }

    fn apply(&self, x: &[f64], y: &mut [f64], b: usize) {
        self.lazy.mul_block(x, y, b);
        if self.power == 1 {
            return;
        }
        let mut other = vec![0.0; y.len()];
        for step in 1..self.power {
            if step % 2 == 1 {
                self.lazy.mul_block(y, &mut other, b);
            } else {
                self.lazy.mul_block(&other, y, b);
            }
        }
        if self.power.is_multiple_of(2) {
            y.copy_from_slice(&other);
        }
    }

    fn nnz(&self) -> usize {
        self.lazy.nnz() * self.power
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::manifold::graph::Neighbourhood;
    use ndarray::array;

    #[test]
    fn heat_weights_are_normalised_symmetrically() {
        let x = array![[0.0f32], [1.0], [3.0]];
        let g = Graph::build(x.view(), Neighbourhood::Knn(1)).unwrap();
        let nrm = normalised(&g, 2.0, Symmetrise::Union).unwrap();
        let w01 = (-0.5f64).exp();
        let w12 = (-2.0f64).exp();
        assert!((nrm.degree[1] - (w01 + w12)).abs() < 1e-12);
        assert!(nrm.s.is_symmetric(1e-12));
        assert!(normalised(&g, -1.0, Symmetrise::Union).is_err());
        let flat = normalised(&g, 0.0, Symmetrise::Union).unwrap();
        assert_eq!(flat.degree, vec![1.0, 2.0, 1.0]);
        // 0 and 1 list each other, 2 lists 1 alone: that edge weighs half.
        let mean = normalised(&g, 0.0, Symmetrise::Mean).unwrap();
        assert_eq!(mean.degree, vec![1.0, 1.5, 0.5]);
        assert!(mean.s.is_symmetric(1e-12));
    }

    #[test]
    fn the_lazy_power_is_m_lazy_steps_and_keeps_the_order() {
        let x = array![[0.0f32], [1.0], [3.0], [3.5]];
        let g = Graph::build(x.view(), Neighbourhood::Knn(1)).unwrap();
        let nrm = normalised(&g, 0.0, Symmetrise::Union).unwrap();
        let start = [1.0, 0.0, -2.0, 1.0, 0.5, 0.0, 3.0, -1.0];
        for m in [1, 3, 8] {
            let op = LazyPower::new(&nrm.s, m).unwrap();
            // By hand: y <- (y + S y)/2, m times, on two columns at once.
            let mut want = start.to_vec();
            for _ in 0..m {
                let mut sy = vec![0.0; 8];
                nrm.s.mul_block(&want, &mut sy, 2);
                want.iter_mut()
                    .zip(&sy)
                    .for_each(|(w, s)| *w = 0.5 * (*w + s));
            }
            let mut got = vec![0.0; 8];
            op.apply(&start, &mut got, 2);
            for (g, w) in got.iter().zip(&want) {
                assert!((g - w).abs() < 1e-14, "m = {m}: {g} vs {w}");
            }
            for theta in [-1.0, -0.3, 0.0, 0.9, 1.0] {
                let mu = ((1.0 + theta) / 2.0f64).powi(m as i32);
                assert!((op.theta(mu) - theta).abs() < 1e-12);
            }
            assert_eq!(op.nnz(), m * (nrm.s.nnz() + 4));
        }
    }
}
