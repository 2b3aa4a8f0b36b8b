//! One factorisation for the runs that differ only in how they use it.
//!
//! An SVD run's `power` weights the singular vectors after the solve
//! (`U Σ^p`), so a sweep over `power` (or any settings that leave the
//! counts, the transform, `dim` and the solver alone) needs one transform
//! and one SVD. The first such run claims the factorisation in the
//! session's [`CountCache`](crate::cooc::CountCache) and offers it when its
//! solve ends; the next ones skip counting, transforming and solving: they
//! replay the first solve's steps as it reported them (so their loss
//! curves, and a replay of any of them alone, are the same) and weight its
//! vectors with their own `power`.

use ndarray::Array2;

use super::params::{Settings, Target};
use crate::linalg::Status;

/// A finished solve, as later runs reuse it.
#[derive(Debug)]
pub struct SharedSolve {
    /// The solver's status before its first step, then after each step.
    pub statuses: Vec<Status>,
    /// Left singular vectors (SVD) or eigenvectors, as the solver ended them.
    pub vectors: Array2<f64>,
    /// Singular values (SVD); empty for eigenvectors.
    pub values: Vec<f64>,
    /// `(words, contexts)` scores of the final state, for held-out perplexity.
    pub scores: Option<(Array2<f32>, Array2<f32>)>,
}

/// The key of the factorisation `settings` computes with `seed` and
/// `threads`: every setting but those applied after the solve (`power`).
pub fn key(settings: &Settings, seed: u64, threads: usize) -> String {
    let target = match settings.target {
        Target::Svd { .. } => Target::Svd { power: 0.0 },
        t => t,
    };
    let before = Settings {
        target,
        ..*settings
    };
    format!("spectral {before:?} seed={seed} threads={threads}")
}

/// `vectors` with column `j` scaled by `values[j]^power` (`U Σ^p`; `p = 0`
/// leaves `U` as it is).
pub fn weighted(mut vectors: Array2<f64>, values: &[f64], power: f64) -> Array2<f64> {
    for (mut col, &sigma) in vectors.columns_mut().into_iter().zip(values) {
        let w = if power == 0.0 { 1.0 } else { sigma.powf(power) };
        col.mapv_inplace(|x| x * w);
    }
    vectors
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::spectral::params::{EIGENWORD_SCHEMA, SVD_SCHEMA};
    use crate::schema::Params;

    fn svd(assign: &[(&str, &str)]) -> Settings {
        Settings::svd(&Params::parse(SVD_SCHEMA, "svd", assign.iter().copied()).unwrap())
    }

    #[test]
    fn the_key_leaves_out_power_and_nothing_else() {
        let k = |s: &Settings| key(s, 1, 1);
        assert_eq!(k(&svd(&[("power", "0.5")])), k(&svd(&[("power", "1")])));
        for other in [
            ("dim", "50"),
            ("cds", "0.75"),
            ("window", "2"),
            ("input", "sppmi"),
        ] {
            assert_ne!(k(&svd(&[other])), k(&svd(&[])), "{other:?}");
        }
        assert_ne!(key(&svd(&[]), 2, 1), key(&svd(&[]), 1, 1));
        assert_ne!(key(&svd(&[]), 1, 2), key(&svd(&[]), 1, 1));
        let e = Settings::eigenword(&Params::defaults(EIGENWORD_SCHEMA));
        assert_ne!(k(&e), k(&svd(&[])));
    }

    #[test]
    fn weighting_scales_each_column_by_its_value_to_the_power() {
        let u = ndarray::array![[1.0, 2.0], [3.0, 4.0]];
        assert_eq!(weighted(u.clone(), &[4.0, 9.0], 0.0), u);
        assert_eq!(
            weighted(u.clone(), &[4.0, 9.0], 0.5),
            ndarray::array![[2.0, 6.0], [6.0, 12.0]]
        );
        assert_eq!(
            weighted(u, &[4.0, 9.0], 1.0),
            ndarray::array![[4.0, 18.0], [12.0, 36.0]]
        );
    }
}
