//! Early stopping by asynchronous successive halving (ASHA, Li et al. 2020;
//! the rule of Optuna's `SuccessiveHalvingPruner`): at each rung a run goes
//! on only if its held-out perplexity there is among the best `1/eta` of the
//! values recorded at that rung so far (at least the best one).
//!
//! "So far" is made deterministic: run `i` is compared with the runs before
//! it in the sweep's order, never with a later one that happens to be
//! faster, and waits for an earlier run still on its way to the rung. So a
//! sweep prunes the same runs whatever the timing and however many run at
//! once, and its replay stops each pruned run at its recorded step.
//!
//! Perplexity is the signal whatever the sweep ranks by: it is measured
//! during training at no cost to the run, and a similarity or analogy score
//! would need the vectors out of the running job. Whether that picks the
//! same best run as the full grid is measured in docs/sweeps.md.

/// What a run that reached a rung knows about the earlier runs there.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Rung {
    /// It reported this perplexity at the rung.
    Reached(f64),
    /// It reached the rung without a value (no held-out split).
    NoValue,
    /// It ended before the rung (pruned earlier, failed, or shorter).
    Ended,
    /// It has not got there yet: the decision waits.
    Pending,
}

/// The decision at a rung.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Go on to the next rung.
    Continue,
    /// Stop here.
    Prune,
    /// An earlier run has not reached the rung yet.
    Wait,
}

/// Whether a run with `value` at a rung goes on, given what every earlier
/// run did there: it must be among the best `max(1, n / eta)` of the `n`
/// values recorded (its own included); a tie goes to the earlier run.
pub fn decide(eta: u32, value: Option<f64>, earlier: &[Rung]) -> Decision {
    if earlier.contains(&Rung::Pending) {
        return Decision::Wait;
    }
    let Some(value) = value.filter(|v| v.is_finite()) else {
        return Decision::Continue;
    };
    let others: Vec<f64> = earlier
        .iter()
        .filter_map(|r| match r {
            Rung::Reached(v) if v.is_finite() => Some(*v),
            _ => None,
        })
        .collect();
    let n = others.len() + 1;
    let keep = (n / eta.max(1) as usize).max(1);
    let better = others.iter().filter(|&&v| v <= value).count();
    if better < keep {
        Decision::Continue
    } else {
        Decision::Prune
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Rung::*;

    /// Hand-made curves: five runs' perplexities at one rung, in order.
    #[test]
    fn only_the_best_third_of_the_runs_so_far_go_on() {
        let at_rung = [300.0, 250.0, 400.0, 200.0, 260.0];
        let mut earlier = Vec::new();
        let mut decisions = Vec::new();
        for v in at_rung {
            decisions.push(decide(3, Some(v), &earlier));
            earlier.push(Reached(v));
        }
        use Decision::*;
        // 1st: alone, goes on. 2nd: best of 2 (keep 1). 3rd: worst of 3
        // (keep 1). 4th: best of 4 (keep 1). 5th: 3rd of 5 (keep 1).
        assert_eq!(decisions, [Continue, Continue, Prune, Continue, Prune]);
    }

    #[test]
    fn ties_go_to_the_earlier_run_and_more_runs_keep_more() {
        assert_eq!(decide(3, Some(5.0), &[Reached(5.0)]), Decision::Prune);
        // Six earlier runs + this one = 7: keep the best 2.
        let six: Vec<Rung> = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0].map(Reached).to_vec();
        assert_eq!(decide(3, Some(1.5), &six), Decision::Continue);
        assert_eq!(decide(3, Some(2.5), &six), Decision::Prune);
        assert_eq!(
            decide(2, Some(2.5), &six),
            Decision::Continue,
            "eta 2 keeps 3 of 7"
        );
        assert_eq!(decide(2, Some(3.5), &six), Decision::Prune);
    }

    #[test]
    fn it_waits_for_earlier_runs_and_ignores_ended_ones_and_missing_values() {
        assert_eq!(
            decide(3, Some(1.0), &[Reached(2.0), Pending]),
            Decision::Wait
        );
        assert_eq!(decide(3, Some(9.0), &[Ended, Ended]), Decision::Continue);
        assert_eq!(
            decide(3, Some(9.0), &[NoValue, Reached(1.0)]),
            Decision::Prune
        );
        assert_eq!(decide(3, None, &[Reached(1.0)]), Decision::Continue);
        assert_eq!(
            decide(3, Some(f64::NAN), &[Reached(1.0)]),
            Decision::Continue
        );
    }
}
