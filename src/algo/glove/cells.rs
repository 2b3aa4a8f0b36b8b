//! The training data of GloVe: the non-zero cells of the co-occurrence
//! matrix, with `ln X_ij` and `f(X_ij)` computed once (glove.c recomputes the
//! `pow` for every cell on every epoch; here the weighting parameters are not
//! live, so they are folded in up front), in a seeded random order.

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use sprs::CsMat;

use super::loss::weight;

/// One non-zero `X_ij`, ready for the hot loop.
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C)]
pub struct Cell {
    /// Word id `i` (row of the word vectors).
    pub word: u32,
    /// Context id `j` (row of the context vectors).
    pub context: u32,
    /// `ln X_ij`.
    pub log_count: f32,
    /// `f(X_ij)`.
    pub weight: f32,
}

/// The cells of `counts` (row-major order), skipping any value that is not a
/// positive finite number.
pub fn cells_from_counts(counts: &CsMat<f64>, x_max: f64, alpha: f64) -> Vec<Cell> {
    let cell = |x: f64, i: usize, j: usize| {
        (x > 0.0 && x.is_finite()).then(|| Cell {
            word: i as u32,
            context: j as u32,
            log_count: x.ln() as f32,
            weight: weight(x, x_max, alpha) as f32,
        })
    };
    let outer = counts.outer_dims();
    let csr = counts.is_csr();
    (0..outer)
        .into_par_iter()
        .flat_map_iter(|o| {
            let lane = counts.outer_view(o).expect("outer index in range");
            lane.iter()
                .filter_map(move |(inner, &x)| {
                    if csr {
                        cell(x, o, inner)
                    } else {
                        cell(x, inner, o)
                    }
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The RNG of the shuffle before epoch `epoch` (seeded from the run's seed).
pub fn shuffle_rng(seed: u64, epoch: u64) -> Xoshiro256PlusPlus {
    const SALT: u64 = 0x9e37_79b9_7f4a_7c15;
    Xoshiro256PlusPlus::seed_from_u64(seed ^ SALT.wrapping_mul(epoch + 1))
}

/// Shuffles `cells` in place (Fisher–Yates) with the RNG of `(seed, epoch)`.
pub fn shuffle(cells: &mut [Cell], seed: u64, epoch: u64) {
    cells.shuffle(&mut shuffle_rng(seed, epoch));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matrix() -> CsMat<f64> {
        let mut tri = sprs::TriMat::new((3, 3));
        tri.add_triplet(0, 1, 2.0);
        tri.add_triplet(1, 0, 2.0);
        tri.add_triplet(2, 2, 200.0);
        tri.to_csr()
    }

    #[test]
    fn cells_hold_log_and_weight() {
        let cells = cells_from_counts(&matrix(), 100.0, 0.75);
        assert_eq!(cells.len(), 3);
        assert_eq!((cells[0].word, cells[0].context), (0, 1));
        assert_eq!((cells[2].word, cells[2].context), (2, 2));
        assert!((cells[0].log_count - 2f32.ln()).abs() < 1e-7);
        assert!((cells[0].weight - 0.02f32.powf(0.75)).abs() < 1e-7);
        assert_eq!(cells[2].weight, 1.0);
        // The same cells from CSC storage.
        let csc = cells_from_counts(&matrix().to_csc(), 100.0, 0.75);
        let key = |c: &Cell| (c.word, c.context);
        let mut a: Vec<_> = cells.iter().map(key).collect();
        let mut b: Vec<_> = csc.iter().map(key).collect();
        a.sort();
        b.sort();
        assert_eq!(a, b);
    }

    #[test]
    fn shuffle_is_a_seeded_permutation() {
        let base: Vec<Cell> = (0..100)
            .map(|k| Cell {
                word: k,
                context: 0,
                log_count: 0.0,
                weight: 1.0,
            })
            .collect();
        let (mut a, mut b, mut c) = (base.clone(), base.clone(), base.clone());
        shuffle(&mut a, 7, 0);
        shuffle(&mut b, 7, 0);
        shuffle(&mut c, 7, 1);
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a, base);
        let mut ids: Vec<u32> = a.iter().map(|c| c.word).collect();
        ids.sort();
        assert_eq!(ids, (0..100).collect::<Vec<_>>());
    }
}
