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
pub mod split;
pub mod trainer;

#[cfg(test)]
mod tests;

use std::time::Instant;

pub use trainer::SensesTrainer;

use crate::cooc::{pmi, CountConfig, LogBase, Marginals, PmiConfig, Summary, Weighting, Window};
use crate::linalg::Csr;
use crate::schema::{ParamSpec, Params};
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

/// The hyperparameters (docs/methods/senses.md).
pub const SCHEMA: &[ParamSpec] = &[
    ParamSpec::int("dim", 1, 10_000, 100, "dimension of the dense word and sense vectors (rows of U_d)"),
    ParamSpec::int("window", 1, 255, 5, "symmetric window of the counts, every pair counts 1"),
    ParamSpec::int("max_vocab", 0, 10_000_000, 30_000, "only the N most frequent words (0 = the whole vocabulary)"),
    ParamSpec::text("sense_counts", 4096, "wordnet", "senses per word: wordnet (bundled WordNet 3.0 counts), frequency, fixed, or a path to a word<TAB>...<TAB>count file or a WordNet dict directory"),
    ParamSpec::int("senses", 2, 100, 2, "senses of every frequent word when sense_counts = fixed"),
    ParamSpec::int("max_senses", 2, 100, 3, "cap on the senses of one word"),
    ParamSpec::int("min_sense_count", 1, 1_000_000_000, 100, "words seen fewer times keep one sense, whatever their WordNet count (bass, 61 times in text8-head, stays whole at 100); also the unit of the frequency rule"),
    ParamSpec::float("split_tol", 1e-12, 0.5, 1e-4, "relative residual of each word's NNDSVD singular triplets"),
    ParamSpec::int("nmf_iterations", 0, 10_000, 0, "NMF multiplicative updates after NNDSVD (0 = NNDSVD alone, as the thesis)"),
    ParamSpec::int("label_contexts", 0, 100_000, 0, "context words kept per sense in the sidecar: 0 = every one of positive weight (the whole sparse sense vector, what sense induction needs), N = only the N strongest (smaller file, induction misses the rest)"),
    ParamSpec::float("tol", 1e-14, 0.5, 1e-6, "relative residual of the dense SVD's singular triplets"),
    ParamSpec::int("max_steps", 1, 10_000_000, 3000, "block Lanczos steps allowed for the dense SVD"),
];

/// The validated settings of one run.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Dense dimension.
    pub dim: usize,
    /// Window size.
    pub window: usize,
    /// Most frequent words kept.
    pub max_vocab: Option<usize>,
    /// Who is split, into how many senses.
    pub rule: inventory::Rule,
    /// Per-word SVD settings.
    pub split: nndsvd::SplitSolver,
    /// Context words kept per sense in the sidecar (`None` = all of
    /// positive weight).
    pub label_contexts: Option<usize>,
    /// Dense SVD tolerance.
    pub tol: f64,
    /// Dense SVD step budget.
    pub max_steps: u64,
}

impl Settings {
    /// Reads the settings from validated parameters of [`SCHEMA`].
    pub fn from_params(p: &Params) -> Settings {
        let min_count = p.usize("min_sense_count") as u64;
        Settings {
            dim: p.usize("dim"),
            window: p.usize("window"),
            max_vocab: Some(p.usize("max_vocab")).filter(|&v| v > 0),
            rule: inventory::Rule {
                source: inventory::Source::parse(p.text("sense_counts"), p.usize("senses")),
                max_senses: p.usize("max_senses"),
                min_count,
            },
            split: nndsvd::SplitSolver {
                tol: p.f64("split_tol"),
                nmf_iterations: p.usize("nmf_iterations"),
                ..nndsvd::SplitSolver::default()
            },
            label_contexts: Some(p.usize("label_contexts")).filter(|&n| n > 0),
            tol: p.f64("tol"),
            max_steps: p.usize("max_steps") as u64,
        }
    }

    /// The co-occurrence counting.
    pub fn count_config(&self) -> CountConfig {
        CountConfig {
            window: Window::symmetric(self.window, Weighting::Uniform),
            max_vocab: self.max_vocab,
        }
    }
}

/// The PPMI (log base 2) of counts `x`: the matrix whose rows are split.
pub fn ppmi(x: &sprs::CsMat<f64>) -> Result<sprs::CsMat<f64>> {
    pmi(x, &Marginals::of(x), &PmiConfig::ppmi(LogBase::Two))
}

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
