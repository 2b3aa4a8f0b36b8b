//! How the stochastic trainers (SGNS, CBOW, GloVe, MPNNLM) spread their
//! updates over threads: the `schedule` hyperparameter, declared here once
//! and included in each of their schemas (with the method's own default).
//!
//! - `deterministic`: a run's result depends only on its seed, settings and
//!   thread count, so it replays bit for bit. SGNS and CBOW give each thread
//!   a chunk per round, trained on its own replica of the tables, and merge
//!   the rows the threads changed in thread order after every round
//!   ([`crate::fast::replicas`]); MPNNLM does the same with its prototype
//!   table, both layers and their velocities ([`crate::algo::mpnnlm::lanes`]);
//!   GloVe trains, round by round, blocks of cells that share no row between
//!   threads ([`crate::algo::glove::strata`]).
//! - `hogwild`: word2vec.c's, glove.c's and gensim's lock-free races on
//!   shared rows ([`crate::fast::hogwild`]): results depend on timing, so a
//!   run with several threads replays only within a tolerance.
//!
//! Every other method's parallel work is split the same way every time, so
//! all its runs are bit for bit.
//!
//! With one thread both are the same serial loop. Each method's default is
//! the deterministic schedule where it cost at most 15% more CPU time at
//! equal quality on text8-head (GloVe), else Hogwild (SGNS, CBOW, MPNNLM);
//! docs/replay.md has the measurements.

use crate::schema::{choice_names, Choice, ParamSpec, Params, Typed};

/// Name of the hyperparameter.
pub const NAME: &str = "schedule";

/// The `schedule` hyperparameter with the method's `default`
/// (`"deterministic"` or `"hogwild"`).
pub const fn schedule(default: &'static str) -> ParamSpec {
    ParamSpec::choice(
        NAME,
        Schedule::NAMES,
        default,
        "with several threads: deterministic (replays bit for bit) or hogwild (lock-free races, as word2vec.c and glove.c)",
    )
}

/// The parallel schedule of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schedule {
    /// Threads never read what another thread is writing; merged in a fixed order.
    Deterministic,
    /// Threads race on shared rows (Hogwild).
    Hogwild,
}

impl Schedule {
    /// Reads `schedule` from parameters whose schema includes [`schedule`].
    pub fn from_params(p: &Params) -> Self {
        Schedule::from_value(p.get(NAME))
    }
}

choice_names!(Schedule {
    Deterministic = "deterministic",
    Hogwild = "hogwild",
});

/// Whether a run with `params` on `threads` threads gives the
/// same bits every time: one thread always does; with more, every run but a
/// `schedule = hogwild` one.
pub fn bit_for_bit(params: &Params, threads: usize) -> bool {
    let schema = params.schema();
    let schedule = schema
        .iter()
        .any(|s| s.name == NAME)
        .then(|| params.choice(NAME));
    recorded_bit_for_bit(schema, schedule, threads)
}

/// [`bit_for_bit`] for a recorded run, whose settings may predate the
/// `schedule` hyperparameter: `schedule` is the recorded value, if any. A
/// multi-thread run of a method with a schedule that recorded none raced
/// (Hogwild was the only schedule then).
pub fn recorded_bit_for_bit(schema: &[ParamSpec], schedule: Option<&str>, threads: usize) -> bool {
    if threads <= 1 {
        return true;
    }
    let has_schedule = schema.iter().any(|s| s.name == NAME);
    !has_schedule || schedule == Some("deterministic")
}

#[cfg(test)]
mod tests {
    use super::*;

    static WITH: &[ParamSpec] = &[schedule("deterministic")];
    static WITHOUT: &[ParamSpec] = &[ParamSpec::int("dim", 1, 10, 2, "d")];

    #[test]
    fn only_racing_runs_with_threads_are_not_bit_for_bit() {
        let det = Params::defaults(WITH);
        assert_eq!(Schedule::from_params(&det), Schedule::Deterministic);
        let hog = Params::parse(WITH, "m", [("schedule", "hogwild")]).unwrap();
        assert_eq!(Schedule::from_params(&hog), Schedule::Hogwild);
        assert!(bit_for_bit(&det, 2));
        assert!(!bit_for_bit(&hog, 2));
        assert!(bit_for_bit(&hog, 1));
        let plain = Params::defaults(WITHOUT);
        assert!(bit_for_bit(&plain, 4));
    }

    #[test]
    fn a_recorded_run_without_a_schedule_raced_if_its_method_has_one() {
        // Recorded before `schedule` existed: Hogwild was the only schedule.
        assert!(!recorded_bit_for_bit(WITH, None, 2));
        assert!(recorded_bit_for_bit(WITH, None, 1));
        assert!(recorded_bit_for_bit(WITH, Some("deterministic"), 2));
        assert!(!recorded_bit_for_bit(WITH, Some("hogwild"), 2));
        assert!(recorded_bit_for_bit(WITHOUT, None, 2));
    }
}
