//! KUBWE, kernelized unit-ball word embedding (Soleimani 2019, ch. 3), exact
//! and fast (VP-tree) variants.
//!
//! - Input ([`affinity`]): `A` = PPMI with context-distribution smoothing
//!   (0.75, base 2) of symmetric `1/d`-weighted co-occurrence counts over a
//!   window `L` (default 10, docs/methods/kubwe.md, "Input"), computed by
//!   [`crate::cooc`].
//!   Row `i` as is (the thesis and the authors' code do not symmetrise;
//!   `symmetric=true` averages `A` with `Aᵀ`).
//! - Vectors live on the unit sphere, drawn uniformly ([`crate::geometry::random`]). A sweep moves
//!   every word `i` by its attraction `v₁ = Σ_{P_i} a_ij y_j` (positive PPMI
//!   contexts) and repulsion `v₂ = Σ_{N_i} K(y_i·y_j) y_j` (every other word
//!   with `a_ij = 0`), `K(c) = ((c + 1)/2)^p` ([`kernel`]: the authors' code;
//!   eq. 3.11's `(c + 1)^p` is `2^p` times it, which the default update
//!   cannot see), then renormalises ([`update`]: normalised forces, step `lr`
//!   = 0.1, the code's sigmoid decay, 50 sweeps exact / 100 fast —
//!   docs/methods/kubwe.md, "Update rule").
//! - `kubwe` computes the repulsion exactly, in blocks of dense products
//!   ([`exact`], `O(n² d)` per sweep). `kubwe-fast` takes it from the `k`
//!   nearest non-positive neighbours only ([`fast`]), found with the
//!   modified vantage-point tree of Algorithm 2 ([`vptree`]) rebuilt every
//!   `rebuild` sweeps (default 1: building costs a few per cent of a sweep).
//!   Each word's search starts from its neighbours of the last sweep
//!   (`warm_start`, default on: about half the distances and higher recall;
//!   the thesis' bound alone finds 30-70% of the true `k` nearest at d = 100,
//!   not its claimed 99% — docs/benchmarks.md). Default `k` = 3000 for `|V| ≥ 100k`,
//!   else `max(√|V|, 50)` (docs/methods/kubwe.md, "Our choices where the
//!   thesis is silent or ambiguous").
//!   Beyond the `k` nearest, `far_samples` words per word and sweep (default
//!   2048; 0 = the thesis' pure k-NN) give an unbiased estimate of the rest of
//!   the repulsion ([`fast::FarField`]): at `k = √|V|` the truncated force
//!   alone loses 0.2 Spearman on WordSim-353 (docs/benchmarks.md).
//! - Loss ([`objective`]): the pseudo-energy whose gradient is the force, per
//!   word — exact for `kubwe`, on a fixed sample of `loss_sample` rows
//!   for `kubwe-fast`. Held-out perplexity through the engine scores word
//!   pairs by the cosine of their (unit) vectors.

pub mod affinity;
pub mod exact;
pub mod fast;
pub mod kernel;
pub mod objective;
pub mod params;
pub mod trainer;
pub mod update;
pub mod vptree;

use std::time::Instant;

pub use affinity::{Affinity, AffinityConfig};
pub use kernel::{Kernel, Scale};
pub use params::*;
pub use trainer::{FastStats, KubweTrainer};
pub use update::{Decay, Update};

use crate::train::{Method, TrainInput, Trainer};
use crate::Result;

/// The exact variant's registry entry.
pub static KUBWE: Method = Method {
    name: "kubwe",
    summary: "KUBWE: unit-sphere PPMI attraction + polynomial-kernel repulsion from every other word (exact, O(n²d) per sweep)",
    schema: SCHEMA_EXACT,
    dimension: Some("dim"),
    build,
};

/// The fast variant's registry entry.
pub static KUBWE_FAST: Method = Method {
    name: "kubwe-fast",
    summary: "Fast KUBWE: repulsion from the k nearest non-positive words only (modified VP-tree)",
    schema: SCHEMA_FAST,
    dimension: Some("dim"),
    build,
};

/// Builds either variant (the schema tells them apart).
fn build(input: &TrainInput, log: &mut dyn FnMut(String)) -> Result<Box<dyn Trainer>> {
    let settings = Settings::from_params(&input.params);
    let t = Instant::now();
    let counts = input
        .counts
        .counts(&input.corpus, &settings.affinity.count_config())?;
    let (a, line) = Affinity::from_counts(&counts, &settings.affinity)?;
    drop(counts);
    log(format!("{line} in {:.1}s", t.elapsed().as_secs_f64()));
    let trainer = KubweTrainer::new(
        settings,
        input.corpus.vocab().index().clone(),
        a,
        input.seed,
    )?;
    let n = trainer.affinity().len();
    let what = match settings.repulsion {
        Repulsion::Exact => "exact repulsion".to_string(),
        Repulsion::Nearest {
            k,
            bound,
            rebuild,
            warm,
            far,
        } => format!(
            "repulsion from the {} nearest ({:?} bound, {} search, tree rebuilt every {rebuild} sweep(s)) + {} far-field draws, loss on {} sampled rows",
            trainer::resolve_k(k, n),
            bound,
            if warm { "warm" } else { "cold" },
            far.min(n),
            settings.loss_sample.min(n)
        ),
    };
    log(format!(
        "kubwe: {n} words, p = {}, {what}; {} sweeps of {} steps ({} words each)",
        settings.kernel.p,
        settings.sweeps,
        trainer.steps_per_sweep(),
        trainer.rows_per_step()
    ));
    Ok(Box::new(trainer))
}
