//! The matrix whose top eigenpairs each BCD iteration needs, as an operator
//! that is never stored dense.
//!
//! `W` is zero wherever a bigram was never seen, so
//! `G_t = W∘G* + (1 − W)∘X_{t−1} = X_{t−1} + W∘(G* − X_{t−1})` is the
//! previous iterate plus a correction on the bigram pattern. The iterate is
//! low rank (`V Vᵀ`) after the first iteration, and the start
//! `X_0 = G*/2 = b 1ᵀ/2 + (G* − b 1ᵀ)/2` is rank one (`b_i` = the value of
//! row `i`'s absent cells) plus the same pattern. After symmetrising,
//! `(G_t + G_tᵀ)/2 = S + P M Pᵀ` with `S` sparse symmetric and `P` thin,
//! which costs `nnz(S) + 2 n r` per vector instead of `n²`.

use crate::linalg::block;
use crate::linalg::{Csr, SymmetricOperator};

/// The small middle factor of the low-rank part.
#[derive(Debug, Clone, PartialEq)]
pub enum Middle {
    /// `M = I`: the part is `P Pᵀ`.
    Identity,
    /// A dense symmetric `r × r` row-major `M`.
    Dense(Vec<f64>),
}

/// `S + P M Pᵀ` (`n × n`, symmetric).
#[derive(Debug, Clone)]
pub struct SparsePlusLowRank {
    s: Csr,
    /// `n × r` row-major.
    p: Vec<f64>,
    r: usize,
    m: Middle,
}

impl SparsePlusLowRank {
    /// The operator from a symmetric sparse `s` and a low-rank part `P M Pᵀ`
    /// (`p` row-major with `r` columns).
    pub fn new(s: Csr, p: Vec<f64>, r: usize, m: Middle) -> Self {
        debug_assert_eq!(p.len(), s.shape().0 * r);
        SparsePlusLowRank { s, p, r, m }
    }

    /// `Y += P M Pᵀ X` for a row-major `n × b` block.
    fn add_low_rank(&self, x: &[f64], y: &mut [f64], b: usize) {
        let r = self.r;
        if r == 0 {
            return;
        }
        let z = block::project(&self.p, r, r, x, b);
        // `subtract` computes Y − P C, so C = −M Z.
        let c: Vec<f64> = match &self.m {
            Middle::Identity => z.iter().map(|v| -v).collect(),
            Middle::Dense(m) => {
                let mut c = vec![0.0; r * b];
                for i in 0..r {
                    for k in 0..r {
                        let mik = m[i * r + k];
                        if mik != 0.0 {
                            for col in 0..b {
                                c[i * b + col] -= mik * z[k * b + col];
                            }
                        }
                    }
                }
                c
            }
        };
        block::subtract(&self.p, r, r, y, b, &c);
    }
}

impl SymmetricOperator for SparsePlusLowRank {
    fn size(&self) -> usize {
        self.s.shape().0
    }

    fn apply(&self, x: &[f64], y: &mut [f64], b: usize) {
        self.s.mul_block(x, y, b);
        self.add_low_rank(x, y, b);
    }

    fn nnz(&self) -> usize {
        self.s.nnz() + 2 * self.size() * self.r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn applies_sparse_plus_low_rank() {
        // S = [[1, 2], [2, 0]], P = [[1, 0], [1, 1]], M = [[0, 1], [1, 0]]:
        // P M Pᵀ = [[0, 1], [1, 2]], total [[1, 3], [3, 2]].
        let s = Csr::new((2, 2), vec![0, 2, 3], vec![0, 1, 0], vec![1.0, 2.0, 2.0]).unwrap();
        let op = SparsePlusLowRank::new(
            s,
            vec![1.0, 0.0, 1.0, 1.0],
            2,
            Middle::Dense(vec![0.0, 1.0, 1.0, 0.0]),
        );
        let mut y = vec![0.0; 4];
        op.apply(&[1.0, 0.0, 0.0, 1.0], &mut y, 2);
        assert_eq!(y, vec![1.0, 3.0, 3.0, 2.0]);
    }
}
