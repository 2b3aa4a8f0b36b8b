//! GloVe's AdaGrad step on a word row and a context row, and the same step
//! on two rows of shared Hogwild tables.
//!
//! GloVe updates a word row and a context row together, each from the other
//! one's old values. On Hogwild tables both rows must be borrowed at once;
//! a safe function that lent them to arbitrary code could be called again
//! inside it, for the same row, so the whole step lives here and the
//! training loop (`algo::glove::model`) calls it without `unsafe`.

use super::hogwild::Hogwild;
use super::mixed::dot_f32;

/// One AdaGrad update for a cell with `ln X = log_count` and `f(X) = weight`,
/// applied to a word row and a context row (layouts in `algo::glove::model`);
/// returns the cell's loss `½ f (w·c + b + b̃ − ln X)²` before the update.
///
/// Each vector entry moves by `lr·g / sqrt(G)` where `g` is the loss
/// gradient and `G` the entry's running sum, and then `G += (lr·g)²`; both
/// gradients are taken at the old values, as in glove.c.
#[inline(always)]
pub fn step(
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

/// [`step`] on row `word` of `words` and row `context` of `contexts` (two
/// tables; the same table only with two different rows). Other threads may
/// update the rows meanwhile: the Hogwild race, accepted by design
/// ([`super::hogwild`]). Panics when a row is out of range, or when the two
/// handles lend one table and the rows are the same.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn hogwild_step(
    words: &Hogwild<'_>,
    word: usize,
    contexts: &Hogwild<'_>,
    context: usize,
    dim: usize,
    log_count: f32,
    weight: f32,
    lr: f32,
) -> f64 {
    assert!(
        !(words.same_table(contexts) && word == context),
        "one row lent twice"
    );
    // SAFETY: the two slices are distinct rows (checked above) and the only
    // slices of these handles alive in this call; `step` cannot reach the
    // handles. Concurrent use of the rows by other threads is the Hogwild race.
    let (w, c) = unsafe { (words.row(word), contexts.row(context)) };
    step(w, c, dim, log_count, weight, lr)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(k: f32) -> Vec<f32> {
        (0..10).map(|i| 1.0 + 0.1 * (i as f32 + k)).collect()
    }

    #[test]
    fn the_shared_step_equals_the_step_on_copies() {
        let (mut w, mut c) = (row(0.0), row(3.0));
        // dim 3: rows of 2·3 + 4 = 10 values (the layout of `algo::glove::model`).
        let loss = step(&mut w, &mut c, 3, 0.5, 0.8, 0.05);
        let mut words = [row(9.0), row(0.0)].concat();
        let mut contexts = row(3.0);
        let shared = {
            let (hw, hc) = (
                Hogwild::new(&mut words, 10),
                Hogwild::new(&mut contexts, 10),
            );
            hogwild_step(&hw, 1, &hc, 0, 3, 0.5, 0.8, 0.05)
        };
        assert_eq!(shared.to_bits(), loss.to_bits());
        assert_eq!(words[10..], w[..]);
        assert_eq!(contexts, c);
    }

    #[test]
    #[should_panic(expected = "one row lent twice")]
    fn one_row_is_never_lent_twice() {
        let mut t = vec![1.0; 20];
        let h = Hogwild::new(&mut t, 10);
        hogwild_step(&h, 0, &h, 0, 3, 0.0, 1.0, 0.1);
    }
}
