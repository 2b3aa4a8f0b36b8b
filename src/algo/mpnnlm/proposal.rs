//! The proposal distribution of the sampled training denominator
//! (`proposal = unigram`): importance sampling in the manner of Bengio &
//! Senécal (2003), other words drawn in proportion to a power of their
//! training counts, each standing for `1 / (m Q)` prototypes.
//!
//! Why: the denominator `Z = Σ_k q_k` is dominated by the prototypes near
//! the prediction `p̂`, which after a little training are the frequent
//! words'. Drawn uniformly (`proposal = uniform`, each of `m` draws standing
//! for `N/m` of `N` prototypes), `the` or `of` enters a token's sample with
//! probability `m/N` (1,000 / 21,838 on text8-head), so most tokens'
//! estimate `Ẑ` misses the terms that make `Z` and the prediction is not
//! pushed away from them, and the few that draw one push it 22-fold. Drawn
//! by frequency they enter almost every sample with a small weight; the
//! estimate stays unbiased and its variance falls. Measured in
//! `docs/methods/mpnnlm.md` ("Against n-gram baselines").

use rand::RngExt;

use crate::algo::word2vec::alias::AliasSampler;

/// Words drawn from `weight_w / Σ weight`.
#[derive(Debug, Clone)]
pub struct Proposal {
    alias: AliasSampler,
    prob: Vec<f64>,
}

impl Proposal {
    /// The proposal `count_w^power` over the words (the end token's count
    /// is its number of sentences); every weight at least that of a count of 1.
    /// `None` without words.
    pub fn new(counts: &[u64], power: f64) -> Option<Proposal> {
        let weights: Vec<f64> = counts
            .iter()
            .map(|&c| (c.max(1) as f64).powf(power))
            .collect();
        let total: f64 = weights.iter().sum();
        let alias = AliasSampler::new(&weights)?;
        Some(Proposal {
            alias,
            prob: weights.iter().map(|w| w / total).collect(),
        })
    }

    /// `Q(w)`.
    #[inline(always)]
    pub fn prob(&self, w: u32) -> f64 {
        self.prob[w as usize]
    }

    /// Words in the distribution.
    pub fn len(&self) -> usize {
        self.prob.len()
    }

    /// True without words (never, for a constructed proposal).
    pub fn is_empty(&self) -> bool {
        self.prob.is_empty()
    }

    /// A word other than `t`, drawn from `Q` restricted to the others
    /// (`Q(w) / (1 − Q(t))`). The caller ensures another word exists.
    #[inline(always)]
    pub fn other(&self, t: u32, rng: &mut impl RngExt) -> u32 {
        loop {
            let w = self.alias.sample_branching(rng.random::<u64>());
            if w != t {
                return w;
            }
        }
    }
}
