//! `mpnnlm`'s hyperparameters, declared once, and the settings a run
//! reads from them.

use super::creation;
use super::model::{Draws, Math, Shape};
use super::trainer::Target;
use crate::schema::{bind_params, choice_names, Choice, ParamSpec, Params};
use crate::train::parallel::{self, Schedule};

/// The hyperparameters (paper values where the thesis gives them, else the
/// choices in `docs/methods/mpnnlm.md`).
pub static SCHEMA: &[ParamSpec] = &[
    ParamSpec::int("dim", 1, 1000, 50, "prototype dimension d (thesis: 50)"),
    ParamSpec::int(
        "context",
        1,
        16,
        4,
        "previous prototypes fed to the network, n (thesis: 4)",
    ),
    ParamSpec::int("hidden", 1, 4096, 100, "hidden tanh units (thesis: 100)"),
    ParamSpec::int(
        "epochs",
        1,
        1000,
        1,
        "passes over the training split (one takes about 2 CPU minutes on text8-head; ten, with lr_decay=newbob, end below the Kneser-Ney bigram)",
    ),
    ParamSpec::float(
        "lr",
        0.0,
        10.0,
        0.001,
        "learning rate of momentum SGD (before any halving of lr_decay=halve or newbob; the step is about lr / (1 - momentum))",
    )
    .live(),
    ParamSpec::choice(
        "lr_decay",
        LrDecay::NAMES,
        "newbob",
        "newbob: the rate stays until an epoch lowers the held-out cross-entropy by less than 0.3%, then halves at every epoch (Mikolov's RNNLM schedule; one epoch runs at the constant rate; needs heldout_tokens > 0; ten epochs on text8-head with draws=each end below the Kneser-Ney bigram); constant: the same rate every epoch (the thesis gives no schedule); halve: the rate halves at each epoch after the first (too fast for tens of epochs: it falls 1,000-fold in ten)",
    )
    .absent(
        "constant",
        "the rate was constant before lr_decay existed",
    ),
    ParamSpec::float("momentum", 0.0, 0.999, 0.9, "momentum of SGD").live(),
    ParamSpec::int(
        "sample",
        0,
        10_000_000,
        1000,
        "other prototypes drawn for the training denominator (0 = full normaliser)",
    )
    .live(),
    ParamSpec::choice(
        "proposal",
        ProposalName::NAMES,
        "unigram",
        "where the sampled denominator draws the other words: by training count (or its 0.75 power), importance-weighted (Bengio & Senecal), or uniformly among the prototypes (lets the frequent words escape most samples: model ppl stays above the unigram's)",
    ),
    ParamSpec::choice(
        "draws",
        Draws::NAMES,
        "merged",
        "each: every draw of the sampled denominator is its own entry and momentum step (a prototype drawn k times steps k times); merged: a prototype's draws for one token are one entry weighted by their number, one momentum step (the same estimate and gradient, about half the entries with the unigram proposal)",
    )
    .live()
    .absent(
        "each",
        "the session predates draws: every draw took its own momentum step",
    ),
    ParamSpec::choice(
        "math",
        Math::NAMES,
        "libm",
        "the tanh of the two layers and the exp of the softmax entries: libm (one call per value) or fast (plain arithmetic vectorised over the values, the same bits on every CPU, exp within one ulp of libm's, tanh within two of libm's tanhf; docs/methods/mpnnlm.md, Cost)",
    )
    .live()
    .absent(
        "libm",
        "the session predates math: libm's tanh and exp",
    ),
    ParamSpec::choice(
        "target",
        Target::NAMES,
        "posterior",
        "drawn: only the prototype drawn from the posterior trains towards the prediction, the word's others are pushed away; posterior: all of the word's prototypes move towards it, weighted by the posterior (the thesis, step 2)",
    )
    .live(),
    ParamSpec::choice(
        "prototypes",
        Prototypes::NAMES,
        "log10",
        "at most floor(log10 count) prototypes per word, or one (single-prototype model)",
    ),
    ParamSpec::float(
        "max_ppl",
        0.0,
        1e12,
        400.0,
        "criterion 1: create prototypes only while held-out perplexity is below this",
    )
    .live(),
    ParamSpec::int(
        "min_selections",
        0,
        1_000_000_000,
        400,
        "criterion 2: every prototype of the word selected at least this often",
    )
    .live(),
    ParamSpec::float(
        "min_distance",
        0.0,
        1e6,
        1.0,
        "criterion 4: a new prototype at least this far (Euclidean) from the word's others",
    )
    .live(),
    ParamSpec::int(
        "history",
        2,
        10_000,
        100,
        "last predictions per word kept for clustering (thesis: 100)",
    ),
    ParamSpec::float(
        "min_split",
        0.0,
        0.5,
        0.1,
        "smallest share of the predictions on the minor side of the chosen split (thesis: 10%)",
    )
    .live(),
    ParamSpec::choice(
        "placement",
        creation::Placement::NAMES,
        "centroid",
        "a new prototype at its cluster's centroid of predictions (thesis), or the word's prototype shifted by the cluster's departure from the mean prediction",
    )
    .live(),
    ParamSpec::int(
        "step_tokens",
        1,
        100_000_000,
        100_000,
        "training tokens per step; held-out perplexity and creation are checked after each",
    ),
    ParamSpec::int(
        "heldout_tokens",
        0,
        100_000_000,
        1000,
        "held-out tokens scored for the model perplexity (0 = none)",
    ),
    parallel::schedule("hogwild"),
];

/// The validated settings of one run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// Network shape.
    pub shape: Shape,
    /// Passes over the corpus.
    pub epochs: usize,
    /// Learning rate of the first epoch (live).
    pub lr: f64,
    /// How the rate changes from epoch to epoch.
    pub lr_decay: LrDecay,
    /// Momentum (live).
    pub momentum: f64,
    /// Other prototypes sampled for the denominator; 0 = all (live).
    pub sample: usize,
    /// Power of the counts of the sampled denominator's proposal (`None`:
    /// uniform among the prototypes).
    pub proposal: Option<f64>,
    /// What the target's prototypes train towards (live).
    pub target: Target,
    /// Whether repeated draws of the denominator are merged (live).
    pub draws: Draws,
    /// Which `exp` and `tanh` the token calls (live).
    pub math: Math,
    /// Several prototypes per word allowed.
    pub multi: bool,
    /// Creation thresholds (live).
    pub criteria: creation::Criteria,
    /// Predictions kept per word.
    pub history: usize,
    /// Tokens per step.
    pub step_tokens: usize,
    /// Held-out tokens for the model perplexity.
    pub heldout_tokens: usize,
    /// How several threads share the updates.
    pub schedule: Schedule,
}

/// How the learning rate changes from epoch to epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LrDecay {
    /// The same rate every epoch.
    Constant,
    /// Half the previous epoch's rate from the second epoch on.
    Halve,
    /// The same rate until an epoch gains too little on the held-out text,
    /// then half the previous epoch's rate at every epoch ([`Rate`]).
    Newbob,
}
choice_names!(LrDecay {
    Constant = "constant",
    Halve = "halve",
    Newbob = "newbob",
});

/// Newbob's threshold, RNNLM's `min_improvement`: halving starts after the
/// first epoch whose held-out cross-entropy (nats per prediction, the log
/// of the perplexity) is above the previous epoch's divided by this.
pub const NEWBOB_MIN_GAIN: f64 = 1.003;

/// The learning rate across epochs: the set rate halved `halvings` times.
///
/// A step reads [`Rate::lr`]; the trainer calls [`Rate::end_epoch`] after
/// the last step of each epoch with the held-out perplexity measured
/// there. Every epoch ends at the same place of the text, so newbob
/// compares like with like (within an epoch the perplexity swings with the
/// stretch of text just read).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Rate {
    halvings: u32,
    /// Newbob: halving has begun.
    halving: bool,
    /// Newbob: the held-out cross-entropy at the end of the previous epoch.
    last_end: Option<f64>,
}

impl Rate {
    /// The rate of the next step, for the set rate `lr`.
    pub fn lr(&self, lr: f64) -> f64 {
        lr * 0.5f64.powi(self.halvings.min(1000) as i32)
    }

    /// Times the rate has been halved so far.
    pub fn halvings(&self) -> u32 {
        self.halvings
    }

    /// Moves past an epoch that ended with held-out perplexity `ppl`
    /// (`None`: no held-out text, so newbob never halves).
    pub fn end_epoch(&mut self, decay: LrDecay, ppl: Option<f64>) {
        match decay {
            LrDecay::Constant => {}
            LrDecay::Halve => self.halvings += 1,
            LrDecay::Newbob => {
                let now = ppl.filter(|p| p.is_finite() && *p > 0.0).map(f64::ln);
                if let (Some(now), Some(before)) = (now, self.last_end) {
                    self.halving |= now * NEWBOB_MIN_GAIN > before;
                }
                if self.halving {
                    self.halvings += 1;
                }
                self.last_end = now.or(self.last_end);
            }
        }
    }
}

/// The sampled denominator's proposal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ProposalName {
    Unigram,
    Unigram075,
    Uniform,
}
choice_names!(ProposalName {
    Unigram = "unigram",
    Unigram075 = "unigram0.75",
    Uniform = "uniform",
});

/// How many prototypes a word may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Prototypes {
    Log10,
    One,
}
choice_names!(Prototypes {
    Log10 = "log10",
    One = "one",
});

choice_names!(Draws {
    Each = "each",
    Merged = "merged",
});

choice_names!(Math {
    Libm = "libm",
    Fast = "fast",
});

choice_names!(Target {
    Drawn = "drawn",
    Posterior = "posterior",
});

bind_params! {
    /// The values of [`SCHEMA`], a field per entry.
    #[derive(Debug, Clone, Copy)]
    struct Values for SCHEMA {
        dim: usize,
        context: usize,
        hidden: usize,
        epochs: usize,
        lr: f64,
        lr_decay: LrDecay,
        momentum: f64,
        sample: usize,
        proposal: ProposalName,
        draws: Draws,
        math: Math,
        target: Target,
        prototypes: Prototypes,
        max_ppl: f64,
        min_selections: u32,
        min_distance: f64,
        history: usize,
        min_split: f64,
        placement: creation::Placement,
        step_tokens: usize,
        heldout_tokens: usize,
        schedule: Schedule,
    }
}

impl Settings {
    /// Reads the settings from validated parameters of [`SCHEMA`].
    pub fn from_params(p: &Params) -> Settings {
        let v = Values::from_params(p);
        Settings {
            shape: Shape {
                dim: v.dim,
                context: v.context,
                hidden: v.hidden,
            },
            epochs: v.epochs,
            lr: v.lr,
            lr_decay: v.lr_decay,
            momentum: v.momentum,
            sample: v.sample,
            proposal: match v.proposal {
                ProposalName::Unigram => Some(1.0),
                ProposalName::Unigram075 => Some(0.75),
                ProposalName::Uniform => None,
            },
            target: v.target,
            draws: v.draws,
            math: v.math,
            multi: v.prototypes == Prototypes::Log10,
            criteria: creation::Criteria {
                max_ppl: v.max_ppl,
                min_selections: v.min_selections,
                min_distance: v.min_distance,
                min_split: v.min_split,
                placement: v.placement,
            },
            history: v.history,
            step_tokens: v.step_tokens,
            heldout_tokens: v.heldout_tokens,
            schedule: v.schedule,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Value;

    /// Runs default to newbob; a session written before `lr_decay` existed
    /// trained at a constant rate and reads as such.
    #[test]
    fn a_session_without_lr_decay_reads_the_constant_rate_it_trained_with() {
        let spec = SCHEMA.iter().find(|s| s.name == "lr_decay").unwrap();
        assert_eq!(spec.when_absent(), Value::Choice("constant".into()));
        let defaults = Params::defaults(SCHEMA);
        assert_eq!(defaults.get("lr_decay").to_string(), "newbob");
    }

    /// Runs default to merged draws; a session written before `draws`
    /// existed took a momentum step per draw and replays so.
    #[test]
    fn a_session_without_draws_replays_a_step_per_draw() {
        let spec = SCHEMA.iter().find(|s| s.name == "draws").unwrap();
        assert_eq!(spec.when_absent(), Value::Choice("each".into()));
        let defaults = Params::defaults(SCHEMA);
        assert_eq!(defaults.get("draws").to_string(), "merged");
    }

    /// A session written before `math` existed used libm's `tanh` and `exp`
    /// and replays so, whatever the default.
    #[test]
    fn a_session_without_math_replays_with_libm() {
        let spec = SCHEMA.iter().find(|s| s.name == "math").unwrap();
        assert_eq!(spec.when_absent(), Value::Choice("libm".into()));
    }

    /// By hand: ln 700 = 6.5511 and ln 695 = 6.5439; 6.5439 × 1.003 = 6.5635
    /// is above 6.5511, so the epoch that ends at 695 gained less than 0.3%.
    #[test]
    fn newbob_holds_the_rate_until_an_epoch_gains_too_little_then_halves_every_epoch() {
        let mut r = Rate::default();
        let mut halvings = Vec::new();
        for ppl in [1000.0, 700.0, 695.0, 500.0, 520.0] {
            r.end_epoch(LrDecay::Newbob, Some(ppl));
            halvings.push(r.halvings());
        }
        assert_eq!(halvings, [0, 0, 1, 2, 3]);
        assert_eq!(r.lr(0.001), 0.001 / 8.0);
    }

    #[test]
    fn newbob_without_a_heldout_score_never_halves_and_the_others_ignore_it() {
        let (mut newbob, mut halve, mut constant) =
            (Rate::default(), Rate::default(), Rate::default());
        for _ in 0..4 {
            newbob.end_epoch(LrDecay::Newbob, None);
            halve.end_epoch(LrDecay::Halve, None);
            constant.end_epoch(LrDecay::Constant, Some(1.0));
        }
        assert_eq!(
            (newbob.halvings(), halve.halvings(), constant.halvings()),
            (0, 4, 0)
        );
        assert_eq!(halve.lr(0.001), 0.001 / 16.0);
    }
}
