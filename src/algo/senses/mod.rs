//! Multi-sense word vectors by NNDSVD sense splitting (Soleimani ch.5),
//! `--algo senses`; the equations and our choices are in
//! `docs/methods/senses.md`.
//!
//! - `P`: PPMI (base 2) of symmetric uniform window counts over the
//!   `max_vocab` most frequent words, from [`crate::cooc`].
//! - Senses per word ([`inventory`]): WordNet sense counts (bundled),
//!   another counts file or WordNet dict directory, a frequency rule or a
//!   fixed `k`; capped by `max_senses`; words seen fewer than
//!   `min_sense_count` times stay whole. Ambiguous = 2 or more senses.
//! - Split ([`split`]): for each ambiguous word the rows of its context
//!   words, NNDSVD of that slice ([`nndsvd`], the SVD from
//!   [`crate::linalg`]), memberships normalised per context word, sense
//!   vectors `s_j = h_j ∘ p` that sum to the word's row. Words in parallel
//!   (rayon), a chunk per engine step; the step's loss is the mean mass of
//!   the largest sense so far.
//! - Dense vectors: truncated SVD of `P` with every sense row appended
//!   (the word rows kept), vectors = rows of `U_d`, unweighted; the sense
//!   rows are named `word#1`, `word#2`... (by decreasing mass) and the
//!   sparse sense vectors (every context word of positive weight) go to a
//!   sidecar file ([`crate::embedding::senses`]) for labels and induction.

pub mod inventory;
pub mod nndsvd;
pub mod params;
pub mod split;
pub mod trainer;

#[cfg(test)]
mod tests;

use std::time::Instant;

pub use params::*;
pub use trainer::SensesTrainer;

use crate::cooc::Summary;
use crate::linalg::Csr;
use crate::train::{Method, TrainInput, Trainer};
use crate::Result;

/// The registry entry.
pub static SENSES: Method = Method {
    name: "senses",
    summary: "multi-sense vectors: NNDSVD splits of PPMI rows into WordNet-many senses, then SVD (Soleimani ch.5)",
    schema: SCHEMA,
    dimension: Some("dim"),
    build,
};

fn build(input: &TrainInput, log: &mut dyn FnMut(String)) -> Result<Box<dyn Trainer>> {
    let settings = Settings::from_params(&input.params);
    let t = Instant::now();
    let x = input
        .counts
        .counts(&input.corpus, &settings.count_config())?;
    let p = ppmi(&x)?;
    drop(x);
    let n = p.rows();
    log(format!(
        "senses: PPMI over {n} words, window {} in {:.1}s: {}",
        settings.window,
        t.elapsed().as_secs_f64(),
        Summary::of(&p)
    ));
    let p = Csr::from_sprs(&p)?;
    let vocab = input.corpus.vocab();
    let words: Vec<&str> = (0..n as u32).map(|i| vocab.word(i)).collect();
    let k = settings.rule.senses(&words, &vocab.counts()[..n])?;
    let mut index = vocab.index().clone();
    index.truncate(n);
    let trainer = SensesTrainer::new(p, index, k, settings, input.seed)?;
    log(format!(
        "senses: {} ambiguous words ({} senses) of {n}",
        trainer.ambiguous(),
        trainer.planned_senses()
    ));
    Ok(Box::new(trainer))
}
