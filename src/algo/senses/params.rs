//! `senses`'s hyperparameters, declared once, and the settings a run
//! reads from them.

use super::{inventory, nndsvd};
use crate::cooc::{pmi, CountConfig, LogBase, Marginals, PmiConfig, Weighting, Window};
use crate::schema::{bind_params, ParamSpec, Params};
use crate::Result;

/// The hyperparameters (docs/methods/senses.md).
pub static SCHEMA: &[ParamSpec] = &[
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

bind_params! {
    /// The values of [`SCHEMA`], a field per entry.
    #[derive(Debug, Clone)]
    struct Values for SCHEMA {
        dim: usize,
        window: usize,
        max_vocab: Option<usize>,
        sense_counts: String,
        senses: usize,
        max_senses: usize,
        min_sense_count: u64,
        split_tol: f64,
        nmf_iterations: usize,
        label_contexts: Option<usize>,
        tol: f64,
        max_steps: u64,
    }
}

impl Settings {
    /// Reads the settings from validated parameters of [`SCHEMA`].
    pub fn from_params(p: &Params) -> Settings {
        let v = Values::from_params(p);
        Settings {
            dim: v.dim,
            window: v.window,
            max_vocab: v.max_vocab,
            rule: inventory::Rule {
                source: inventory::Source::parse(&v.sense_counts, v.senses),
                max_senses: v.max_senses,
                min_count: v.min_sense_count,
            },
            split: nndsvd::SplitSolver {
                tol: v.split_tol,
                nmf_iterations: v.nmf_iterations,
                ..nndsvd::SplitSolver::default()
            },
            label_contexts: v.label_contexts,
            tol: v.tol,
            max_steps: v.max_steps,
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
