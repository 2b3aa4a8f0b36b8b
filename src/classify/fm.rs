//! MNB-FM: each word's class-conditional probabilities re-estimated by
//! constrained maximum likelihood, so that they reproduce the word's
//! frequency `P_U(w)` in an unlabelled corpus (`docs/methods/mnbfm.md`).
//!
//! For a binary task (class 0 is C, class 1 is ¬C) and one word, with
//! `a = N_w^C`, `b = T^C − a`, `c = N_w^¬C`, `e = T^¬C − c`, the token share
//! `p = T^C / (T^C + T^¬C)` and the constraint
//! `P_U(w) = θ^C p + θ^¬C (1 − p)`, i.e. `θ^¬C = K − Lθ` with
//! `K = P_U(w)/(1 − p)`, `L = p/(1 − p)`, the fit maximises
//!
//! `ℓ(θ) = a ln θ + b ln(1 − θ) + c ln(K − Lθ) + e ln(1 − K + Lθ)`
//!
//! on the open interval where every argument is in (0, 1). ℓ is concave, so a
//! sign change of ℓ′ over the interval brackets its one maximum; a safeguarded
//! Newton iteration (bisection whenever the step leaves the bracket) finds it.
//! Without a sign change, or without `P_U(w)`, the word falls back to add-one.

use rayon::prelude::*;

use super::counts::ClassCounts;
use super::marginals::Marginals;
use super::nb::{log_prior, NaiveBayes};

/// One word's statistics and constraint.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Word {
    /// `N_w^C`.
    pub a: f64,
    /// `N_¬w^C`.
    pub b: f64,
    /// `N_w^¬C`.
    pub c: f64,
    /// `N_¬w^¬C`.
    pub e: f64,
    /// `P_U(w) / (1 − p)`.
    pub k: f64,
    /// `p / (1 − p)`.
    pub l: f64,
}

/// Most Newton/bisection steps per word; bisection alone halves the bracket
/// each step, so 200 steps reach any f64 resolution.
const MAX_STEPS: u32 = 200;

impl Word {
    /// ℓ(θ).
    pub fn loglik(&self, t: f64) -> f64 {
        let term = |n: f64, x: f64| if n > 0.0 { n * x.ln() } else { 0.0 };
        term(self.a, t)
            + term(self.b, 1.0 - t)
            + term(self.c, self.k - self.l * t)
            + term(self.e, 1.0 - self.k + self.l * t)
    }

    /// ℓ′(θ), the corrected eq. 17 of the thesis.
    pub fn slope(&self, t: f64) -> f64 {
        self.a / t - self.b / (1.0 - t) - self.c * self.l / (self.k - self.l * t)
            + self.e * self.l / (1.0 - self.k + self.l * t)
    }

    fn curvature(&self, t: f64) -> f64 {
        let sq = |x: f64| x * x;
        -(self.a / sq(t)
            + self.b / sq(1.0 - t)
            + self.c * sq(self.l) / sq(self.k - self.l * t)
            + self.e * sq(self.l) / sq(1.0 - self.k + self.l * t))
    }

    /// The open interval of θ where θ, θ^¬C and their complements are in (0, 1).
    pub fn interval(&self) -> Option<(f64, f64)> {
        let lo = ((self.k - 1.0) / self.l).max(0.0);
        let hi = (self.k / self.l).min(1.0);
        (lo < hi).then_some((lo, hi))
    }

    /// θ^¬C for a given θ^C.
    pub fn other(&self, t: f64) -> f64 {
        self.k - self.l * t
    }

    /// The constrained maximum `(θ, steps)`, or `None` when ℓ′ keeps one
    /// sign over the interval (the maximum is on the boundary). `start` is
    /// the first guess (the add-one estimate), clipped into the interval.
    pub fn solve(&self, start: f64) -> Option<(f64, u32)> {
        let (lo, hi) = self.interval()?;
        let pad = (hi - lo) * 1e-12;
        let (mut below, mut above) = (lo + pad, hi - pad);
        if !(self.slope(below) > 0.0 && self.slope(above) < 0.0) {
            return None;
        }
        let mut t = start.clamp(below, above);
        for step in 1..=MAX_STEPS {
            let g = self.slope(t);
            if g == 0.0 {
                return Some((t, step));
            }
            if g > 0.0 {
                below = t;
            } else {
                above = t;
            }
            let newton = t - g / self.curvature(t);
            let next = if newton > below && newton < above {
                newton
            } else {
                0.5 * (below + above)
            };
            if (next - t).abs() <= 1e-15 * t || above - below <= 1e-15 * above {
                return Some((next, step));
            }
            t = next;
        }
        Some((t, MAX_STEPS))
    }
}

/// What one fit did, for the report.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FitReport {
    /// Words in the vocabulary.
    pub words: usize,
    /// Words solved by the constrained fit.
    pub solved: usize,
    /// Words that fell back to add-one (no unlabelled frequency, or the
    /// maximum on the boundary).
    pub fallbacks: usize,
    /// Mean Newton/bisection steps over solved words.
    pub mean_steps: f64,
    /// `Σ_w ℓ(θ_w)` over solved words.
    pub log_likelihood: f64,
}

/// One word's outcome before renormalisation.
#[derive(Debug, Clone, Copy)]
struct Outcome {
    pos: f64,
    neg: f64,
    steps: Option<u32>,
    loglik: f64,
}

/// The shared quantities of one binary fit.
#[derive(Debug, Clone, Copy)]
struct Task {
    tc: f64,
    tn: f64,
    vocab: f64,
    p: f64,
}

impl Task {
    fn new(counts: &ClassCounts, in_vocab: &[bool]) -> Self {
        assert_eq!(counts.classes(), 2, "MNB-FM is binary");
        let (tc, tn) = (counts.tokens[0], counts.tokens[1]);
        Task {
            tc,
            tn,
            vocab: in_vocab.iter().filter(|&&b| b).count() as f64,
            p: tc / (tc + tn),
        }
    }

    /// Word `w`'s unnormalised θ^C and θ^¬C: the constrained maximum, or
    /// add-one when there is none (or no class share to constrain with).
    fn outcome(&self, counts: &ClassCounts, marginals: &Marginals, w: usize) -> Outcome {
        let (a, c) = (counts.words[0][w], counts.words[1][w]);
        let add_one = Outcome {
            pos: (a + 1.0) / (self.tc + self.vocab),
            neg: (c + 1.0) / (self.tn + self.vocab),
            steps: None,
            loglik: 0.0,
        };
        let pu = marginals.p(w as u32);
        if !(self.p > 0.0 && self.p < 1.0) || pu <= 0.0 {
            return add_one;
        }
        let word = Word {
            a,
            b: self.tc - a,
            c,
            e: self.tn - c,
            k: pu / (1.0 - self.p),
            l: self.p / (1.0 - self.p),
        };
        match word.solve(add_one.pos) {
            Some((t, steps)) => Outcome {
                pos: t,
                neg: word.other(t),
                steps: Some(steps),
                loglik: word.loglik(t),
            },
            None => add_one,
        }
    }
}

const OUTSIDE: Outcome = Outcome {
    pos: 0.0,
    neg: 0.0,
    steps: None,
    loglik: 0.0,
};

/// Every word's outcome, in parallel over words.
fn outcomes(counts: &ClassCounts, marginals: &Marginals, in_vocab: &[bool]) -> Vec<Outcome> {
    let task = Task::new(counts, in_vocab);
    (0..counts.n_words())
        .into_par_iter()
        .map(|w| {
            if in_vocab[w] {
                task.outcome(counts, marginals, w)
            } else {
                OUTSIDE
            }
        })
        .collect()
}

/// Fits MNB-FM on binary counts (class 0 = C, class 1 = ¬C) over the words
/// in `in_vocab`, then renormalises each class's probabilities to sum to 1.
pub fn fit(
    counts: &ClassCounts,
    marginals: &Marginals,
    in_vocab: Vec<bool>,
) -> (NaiveBayes, FitReport) {
    let outcomes = outcomes(counts, marginals, &in_vocab);
    let report = summarise(&outcomes, &in_vocab);
    let (sum_pos, sum_neg) = outcomes
        .iter()
        .fold((0.0, 0.0), |(x, y), o| (x + o.pos, y + o.neg));
    let log_row = |pick: fn(&Outcome) -> f64, sum: f64| -> Vec<f64> {
        outcomes
            .iter()
            .zip(&in_vocab)
            .map(|(o, &inv)| if inv { (pick(o) / sum).ln() } else { 0.0 })
            .collect()
    };
    let model = NaiveBayes {
        log_prior: log_prior(counts),
        log_theta: vec![log_row(|o| o.pos, sum_pos), log_row(|o| o.neg, sum_neg)],
        in_vocab,
    };
    (model, report)
}

/// Every word's unnormalised `(θ^C, θ^¬C, solved)`: what the constrained
/// fit gives before renormalisation (tests check the constraint on it).
pub fn raw_thetas(
    counts: &ClassCounts,
    marginals: &Marginals,
    in_vocab: &[bool],
) -> Vec<(f64, f64, bool)> {
    outcomes(counts, marginals, in_vocab)
        .into_iter()
        .map(|o| (o.pos, o.neg, o.steps.is_some()))
        .collect()
}
fn summarise(outcomes: &[Outcome], in_vocab: &[bool]) -> FitReport {
    let mut r = FitReport::default();
    let mut steps = 0u64;
    for (o, &inv) in outcomes.iter().zip(in_vocab) {
        if !inv {
            continue;
        }
        r.words += 1;
        match o.steps {
            Some(s) => {
                r.solved += 1;
                steps += u64::from(s);
                r.log_likelihood += o.loglik;
            }
            None => r.fallbacks += 1,
        }
    }
    r.mean_steps = if r.solved > 0 {
        steps as f64 / r.solved as f64
    } else {
        0.0
    };
    r
}
