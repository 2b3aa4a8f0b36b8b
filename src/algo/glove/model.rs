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
// Unsafe code is denied crate-wide (src/lib.rs) and allowed here: the training loop reads Hogwild rows (`fast::hogwild`).
#![allow(unsafe_code)]

use ndarray::{s, Array2, ArrayView2};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::cells::Cell;
use crate::fast::hogwild::Hogwild;
use crate::fast::lanes::{widest, Kernel, Lanes, Width};
use crate::fast::mixed::dot_f32;

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

/// One AdaGrad update for a cell with `ln X = log_count` and `f(X) = weight`,
/// applied to a word row and a context row (layouts in the module docs);
/// returns the cell's loss `½ f (w·c + b + b̃ − ln X)²` before the update.
///
/// Each vector entry moves by `lr·g / sqrt(G)` where `g` is the loss
/// gradient and `G` the entry's running sum, and then `G += (lr·g)²`; both
/// gradients are taken at the old values, as in glove.c.
#[inline(always)]
pub fn adagrad_step(
    word: &mut [f32],
    context: &mut [f32],
    dim: usize,
    log_count: f32,
    weight: f32,
    lr: f32,
) -> f64 {
    let (wp, wg) = word.split_at_mut(dim + 2);
    let (cp, cg) = context.split_at_mut(dim + 2);
    let (wv, wb) = wp.split_at_mut(dim);
    let (cv, cb) = cp.split_at_mut(dim);
    let (wb, cb) = (&mut wb[0], &mut cb[1]);
    let (wgv, wgb) = wg.split_at_mut(dim);
    let (cgv, cgb) = cg.split_at_mut(dim);
    let (wgb, cgb) = (&mut wgb[0], &mut cgb[0]);
    let diff = dot_f32(wv, cv) + *wb as f64 + *cb as f64 - log_count as f64;
    let fdiff = weight as f64 * diff;
    let g = (lr as f64 * fdiff) as f32;
    let rows = wv
        .iter_mut()
        .zip(cv.iter_mut())
        .zip(wgv.iter_mut().zip(cgv.iter_mut()));
    for ((w, c), (gw, gc)) in rows {
        let dw = g * *c;
        let dc = g * *w;
        *w -= dw / gw.sqrt();
        *c -= dc / gc.sqrt();
        *gw += dw * dw;
        *gc += dc * dc;
    }
    *wb -= g / wgb.sqrt();
    *cb -= g / cgb.sqrt();
    *wgb += g * g;
    *cgb += g * g;
    0.5 * fdiff * diff
}

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
        // SAFETY: one word row and one context row (different tables) per
        // cell, dropped before the next; concurrent use of the same rows by
        // other threads is the Hogwild race `Hogwild::row` documents.
        let (w, c) = unsafe {
            (
                words.row(cell.word as usize),
                contexts.row(cell.context as usize),
            )
        };
        loss += adagrad_step(w, c, dim, cell.log_count, cell.weight, lr);
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
