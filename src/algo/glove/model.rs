//! GloVe's parameters and the hot loop: one AdaGrad update per cell, exactly
//! as glove.c does it, on `f32` rows.
//!
//! Each word has a *row* in the word table and one in the context table, so
//! that one cell touches two contiguous rows:
//!
//! ```text
//! word row:    [ w (dim) | b | 1 | Σ for w (dim) | Σ for b | unused ]
//! context row: [ c (dim) | 1 | b̃ | Σ for c (dim) | Σ for b̃ | unused ]
//! ```
//!
//! The constant 1s make the first `dim + 2` columns *augmented* vectors whose
//! dot product is the model's estimate of `ln X_ij = w·c + b + b̃`, which is
//! the score held-out perplexity is measured with. glove.c's AdaGrad
//! accumulates the squared *scaled* gradient `(lr·g)²` on top of an initial 1
//! (the `Σ` columns), so a parameter moves by `lr·g / sqrt(1 + Σ (lr·g)²)`:
//! the first update is plain SGD with rate `lr`. A live change of `lr`
//! therefore scales the updates and what they add to the sums from the next
//! step on.

use ndarray::{s, Array2, ArrayView2};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::cells::Cell;
use crate::fast::adagrad;
use crate::fast::hogwild::Hogwild;
use crate::fast::lanes::{widest, Kernel, Lanes, Width};

/// Width of a parameter row for vectors of `dim` (layout in the module docs).
pub fn row_width(dim: usize) -> usize {
    2 * (dim + 2)
}

/// Word and context tables.
#[derive(Debug, Clone)]
pub struct Tables {
    /// Vector dimension.
    pub dim: usize,
    /// Word rows `[w | b | 1 | Σ(lr·∂w)² | Σ(lr·∂b)² | 1]`, one per word id.
    pub words: Array2<f32>,
    /// Context rows `[c | 1 | b̃ | Σ(lr·∂c)² | Σ(lr·∂b̃)² | 1]`, one per word id.
    pub contexts: Array2<f32>,
}

impl Tables {
    /// glove.c's initialisation: every vector entry and bias uniform in
    /// `[-0.5, 0.5) / (dim + 1)` (glove.c divides by the dimension *including*
    /// the bias), words first, then contexts; every squared-gradient sum 1.
    pub fn init(words: usize, dim: usize, seed: u64) -> Tables {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let scale = 1.0 / (dim + 1) as f64;
        let mut table = |bias: usize| {
            let mut t = Array2::from_elem((words, row_width(dim)), 1.0f32);
            for mut row in t.rows_mut() {
                for k in (0..dim).chain([bias]) {
                    row[k] = ((rng.random::<f64>() - 0.5) * scale) as f32;
                }
            }
            t
        };
        let words = table(dim);
        let contexts = table(dim + 1);
        Tables {
            dim,
            words,
            contexts,
        }
    }

    /// The word vectors (without biases).
    pub fn word_vectors(&self) -> ArrayView2<'_, f32> {
        self.words.slice(s![.., ..self.dim])
    }

    /// The context vectors (without biases).
    pub fn context_vectors(&self) -> ArrayView2<'_, f32> {
        self.contexts.slice(s![.., ..self.dim])
    }

    /// The biases `(b_i, b̃_i)` of word `i`.
    pub fn biases(&self, i: usize) -> (f32, f32) {
        (self.words[[i, self.dim]], self.contexts[[i, self.dim + 1]])
    }

    /// Augmented word vectors `[w | b | 1]` and context vectors `[c | 1 | b̃]`:
    /// their dot product is the model's `ln X_ij` estimate `w·c + b + b̃`.
    pub fn augmented(&self) -> (ArrayView2<'_, f32>, ArrayView2<'_, f32>) {
        let cols = s![.., ..self.dim + 2];
        (self.words.slice(cols), self.contexts.slice(cols))
    }

    /// Trains on `cells` in order, one thread, and returns the summed loss.
    pub fn train_serial(&mut self, cells: &[Cell], lr: f32) -> f64 {
        let width = row_width(self.dim);
        let words = Hogwild::new(self.words.as_slice_mut().expect("standard layout"), width);
        let contexts = Hogwild::new(
            self.contexts.as_slice_mut().expect("standard layout"),
            width,
        );
        train_part(&words, &contexts, self.dim, cells, lr)
    }
}

pub use crate::fast::adagrad::step as adagrad_step;

/// How many cells ahead the rows are prefetched. The cells are in random
/// order, so each one touches two rows that are rarely in cache; asking for
/// them a few cells early hides most of that latency (measured on text8-head,
/// `dim` 100: about 40% less CPU time per epoch with 4 than with none).
const PREFETCH_AHEAD: usize = 4;

/// Trains on `cells` in order against the shared tables; returns the summed
/// loss. Compiled twice (baseline and AVX2) and dispatched at run time; both
/// versions perform the same operations in the same order.
pub(crate) fn train_part(
    words: &Hogwild<'_>,
    contexts: &Hogwild<'_>,
    dim: usize,
    cells: &[Cell],
    lr: f32,
) -> f64 {
    widest(
        Width::Avx2,
        TrainPart {
            words,
            contexts,
            dim,
            cells,
            lr,
        },
    )
}

/// [`train_part`]'s loop, for [`widest`] (no intrinsics: both copies give
/// the same bits).
struct TrainPart<'a, 'h> {
    words: &'a Hogwild<'h>,
    contexts: &'a Hogwild<'h>,
    dim: usize,
    cells: &'a [Cell],
    lr: f32,
}

impl Kernel for TrainPart<'_, '_> {
    type Output = f64;

    #[inline(always)]
    fn run<L: Lanes>(self, _: L) -> f64 {
        train_part_generic(self.words, self.contexts, self.dim, self.cells, self.lr)
    }
}

#[inline(always)]
fn train_part_generic(
    words: &Hogwild<'_>,
    contexts: &Hogwild<'_>,
    dim: usize,
    cells: &[Cell],
    lr: f32,
) -> f64 {
    let mut loss = 0.0;
    for (k, cell) in cells.iter().enumerate() {
        if let Some(next) = cells.get(k + PREFETCH_AHEAD) {
            words.prefetch(next.word as usize);
            contexts.prefetch(next.context as usize);
        }
        loss += adagrad::hogwild_step(
            words,
            cell.word as usize,
            contexts,
            cell.context as usize,
            dim,
            cell.log_count,
            cell.weight,
            lr,
        );
    }
    loss
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn init_is_glove_c_scaled_with_unit_sums() {
        let t = Tables::init(50, 9, 3);
        assert_eq!(t.words.dim(), (50, 22));
        for (table, one) in [(&t.words, 10), (&t.contexts, 9)] {
            let params = table.slice(s![.., ..11]);
            let random = params
                .indexed_iter()
                .filter(|((_, k), _)| *k != one)
                .map(|(_, x)| x.abs());
            assert!(random.clone().all(|x| x <= 0.05));
            assert!(random.clone().any(|x| x > 0.04));
            assert!(table.column(one).iter().all(|&x| x == 1.0));
            assert!(table.slice(s![.., 11..]).iter().all(|&x| x == 1.0));
        }
        let (w, c) = t.augmented();
        let (b, bc) = t.biases(7);
        let score: f32 = w.row(7).dot(&c.row(7));
        assert!(
            (score - (t.word_vectors().row(7).dot(&t.context_vectors().row(7)) + b + bc)).abs()
                < 1e-6
        );
        assert_ne!(t.words, t.contexts);
        assert_eq!(Tables::init(50, 9, 3).words, t.words);
    }

    #[test]
    fn first_update_is_sgd_with_rate_lr() {
        // w = (1, 0), c = (0.5, 2), biases 0, ln X = 0, f = 1: diff = 0.5.
        let mut w = vec![1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0];
        let mut c = vec![0.5, 2.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0];
        let loss = adagrad_step(&mut w, &mut c, 2, 0.0, 1.0, 0.1);
        assert_eq!(loss, 0.125);
        // g = 0.1·0.5 = 0.05; w -= g·c, c -= g·w, biases -= g; the 1s stay.
        let close = |a: &[f32], b: &[f32]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-7);
        assert!(
            close(&w, &[0.975, -0.1, -0.05, 1.0, 1.000625, 1.01, 1.0025, 1.0]),
            "{w:?}"
        );
        assert!(
            close(&c, &[0.45, 2.0, 1.0, -0.05, 1.0025, 1.0, 1.0025, 1.0]),
            "{c:?}"
        );
    }
}
