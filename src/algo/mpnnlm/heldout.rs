//! The model's own held-out perplexity, always with the full normaliser:
//! `PPL = exp(−(1/T) Σ_t ln P(w_t | context))` over a prefix of the held-out
//! split (eq. 23 of the thesis without the stray factor `P_t`), every
//! complete sentence's end token counted as one more prediction.
//!
//! The input prototype of each scored word is its most probable one under
//! the posterior `r` (training draws it instead): the score is then a
//! deterministic function of the model.

use rayon::prelude::*;

use super::model::{Net, Scratch};
use crate::corpus::Batch;
use crate::train::phase::{self, Unit};

/// Prototypes per parallel task when scoring one prediction.
const SLOTS_PER_TASK: usize = 2048;

/// Held-out sentences cut to a token budget.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Heldout {
    /// Word ids of each sentence, and whether it is complete (so its end
    /// token is predicted too).
    pub sentences: Vec<(Vec<u32>, bool)>,
}

impl Heldout {
    /// The first `budget` tokens of `batch` (the last sentence cut short,
    /// and then not ended).
    pub fn prefix(batch: &Batch, budget: usize) -> Heldout {
        let mut left = budget;
        let mut sentences = Vec::new();
        for s in batch.sentences() {
            if left == 0 {
                break;
            }
            let take = s.len().min(left);
            left -= take;
            sentences.push((s[..take].to_vec(), take == s.len()));
        }
        Heldout { sentences }
    }

    /// Predictions scored (words and end tokens).
    pub fn predictions(&self) -> usize {
        self.sentences
            .iter()
            .map(|(s, end)| s.len() + *end as usize)
            .sum()
    }
}

/// `(Σ ln P, predictions)` of `heldout` under `net`; `end` is the end
/// token's word id.
pub fn log_likelihood(net: &Net<'_>, heldout: &Heldout, end: u32) -> (f64, usize) {
    let mut s = Scratch::new(net.shape);
    let mut values = vec![0f64; net.layout.active().len()];
    let (mut ll, mut n) = (0.0, 0);
    let mut window: Vec<u32> = net.layout.starts().collect();
    // Each prediction sums over every prototype: thousands of them take a
    // while (a minute on a large vocabulary), so they count as a phase.
    let work = phase::begin(
        "held-out perplexity",
        heldout.predictions() as u64,
        Unit::Percent,
    );
    for (sentence, complete) in &heldout.sentences {
        window.clear();
        window.extend(net.layout.starts());
        let ends = complete.then_some(end);
        for t in sentence.iter().copied().chain(ends) {
            net.forward(&window, &mut s);
            ll += log_prob(net, t, &s.p, &mut values);
            n += 1;
            work.add(1);
            let best = net
                .layout
                .of(t)
                .max_by(|&a, &b| net.distance(a, &s.p).total_cmp(&net.distance(b, &s.p)))
                .expect("every word has a prototype");
            window.rotate_left(1);
            *window.last_mut().unwrap() = best;
        }
    }
    (ll, n)
}

/// `ln P(t | p̂)` with the sum over every active prototype, in parallel
/// blocks summed in a fixed order (the result does not depend on the
/// thread count).
pub fn log_prob(net: &Net<'_>, t: u32, p: &[f32], values: &mut Vec<f64>) -> f64 {
    let active = net.layout.active();
    values.resize(active.len(), 0.0);
    let tops: Vec<f64> = values
        .par_chunks_mut(SLOTS_PER_TASK)
        .zip(active.par_chunks(SLOTS_PER_TASK))
        .map(|(v, slots)| {
            let mut top = f64::NEG_INFINITY;
            for (v, &slot) in v.iter_mut().zip(slots) {
                *v = net.distance(slot, p);
                top = top.max(*v);
            }
            top
        })
        .collect();
    let top = tops.into_iter().fold(f64::NEG_INFINITY, f64::max);
    let sums: Vec<f64> = values
        .par_chunks(SLOTS_PER_TASK)
        .map(|v| v.iter().map(|&x| (x - top).exp()).sum::<f64>())
        .collect();
    let z: f64 = sums.iter().sum();
    let mass: f64 = net
        .layout
        .of(t)
        .map(|slot| (net.distance(slot, p) - top).exp())
        .sum();
    mass.ln() - z.ln()
}
