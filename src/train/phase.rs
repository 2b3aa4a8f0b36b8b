//! Progress inside long stretches of work: a method's preparation
//! (encoding, a first held-out measurement) and steps that take many
//! seconds (a BCD iteration, a step of MPNNLM). Without it such a run looks
//! hung between two step reports.
//!
//! A trainer calls [`begin`] with a phase name and how much work the phase
//! has, and counts the work done on the returned [`Tracker`] (from any
//! thread: the count is an atomic, nothing is allocated or sent per item).
//! The job installs a [`Meter`] for its thread with [`report_to`] and a
//! watcher thread reads it about ten times a second, sending a
//! [`Event::Phase`](crate::train::Event::Phase) only when it changed. Outside
//! a job (tests, library use) `begin` returns a tracker that counts nothing.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// How a phase's count reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Countable units: `BCD iteration 3/10`.
    Count,
    /// Many small items (tokens, chunks): `encoding 45%`.
    Percent,
}

/// A snapshot of the phase under way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Phase {
    /// What is being done (`held-out perplexity`, `training chunks`).
    pub name: &'static str,
    /// Work done so far.
    pub done: u64,
    /// Work in the phase (0: not known in advance).
    pub total: u64,
    /// How the count reads.
    pub unit: Unit,
    /// Steps completed when the phase began: a phase of the step under way
    /// has `step` equal to the steps reported so far (so a late phase of an
    /// older step can be told apart); 0 during the build.
    pub step: u64,
}

impl Phase {
    /// Fraction done, when the total is known.
    pub fn fraction(&self) -> Option<f64> {
        (self.total > 0).then(|| (self.done as f64 / self.total as f64).min(1.0))
    }

    /// A short line for a progress bar: `held-out perplexity 45%`,
    /// `training chunks 3/10`, `eigenpairs`.
    pub fn describe(&self) -> String {
        match (self.fraction(), self.unit) {
            (Some(f), Unit::Percent) => format!("{} {:.0}%", self.name, 100.0 * f),
            (Some(_), Unit::Count) => format!("{} {}/{}", self.name, self.done, self.total),
            (None, _) if self.done > 0 => format!("{} ({})", self.name, self.done),
            (None, _) => self.name.to_string(),
        }
    }
}

/// The methods whose steps end early when the job is stopped (they ask
/// [`Tracker::cut`] before each unit of a step's work); the others end the
/// step under way first. MPNNLM's steps last minutes on the defaults.
pub const CUT_SHORT: &[&str] = &["mpnnlm"];

/// The phase state a job shares between its training thread, the workers
/// and its watcher.
#[derive(Debug)]
pub struct Meter {
    /// `(name, total, unit, step)` of the phase, `None` between phases.
    current: Mutex<Option<(&'static str, u64, Unit, u64)>>,
    done: AtomicU64,
    step: AtomicU64,
    /// The user asked the job to stop: a step that can end early does.
    cut_wanted: AtomicBool,
    /// A replay's recorded cut: `(step, units)` ends that step once that
    /// many units of work are done.
    cut_limit: Mutex<Option<(u64, u64)>>,
    /// A step ended early (a [`Tracker::cut`] said so): the units done
    /// when it first did (with one thread, exactly the units the step did).
    cut_taken: Mutex<Option<u64>>,
}

impl Default for Meter {
    fn default() -> Self {
        Meter {
            current: Mutex::new(None),
            done: AtomicU64::new(0),
            step: AtomicU64::new(0),
            cut_wanted: AtomicBool::new(false),
            cut_limit: Mutex::new(None),
            cut_taken: Mutex::new(None),
        }
    }
}

impl Meter {
    /// The phase under way, if any.
    pub fn snapshot(&self) -> Option<Phase> {
        let current = *self.current.lock().ok()?;
        current.map(|(name, total, unit, step)| Phase {
            name,
            done: self.done.load(Ordering::Relaxed),
            total,
            unit,
            step,
        })
    }

    /// Sets the steps completed so far (phases begun from now carry it).
    pub fn at_step(&self, step: u64) {
        self.step.store(step, Ordering::Relaxed);
    }

    /// The user asked to stop: a step that checks [`Tracker::cut`] ends
    /// at its next unit of work instead of running to its end.
    pub fn request_cut(&self) {
        self.cut_wanted.store(true, Ordering::Relaxed);
    }

    /// Replays a recorded cut: step `step` (0-based) ends once `units`
    /// units of its work are done.
    pub fn limit_cut(&self, cut: Option<(u64, u64)>) {
        if let Ok(mut l) = self.cut_limit.lock() {
            *l = cut;
        }
    }

    /// After a step: the units it did when it was cut short, if it was.
    pub fn take_cut(&self) -> Option<u64> {
        self.cut_taken.lock().ok()?.take()
    }

    fn begin(&self, name: &'static str, total: u64, unit: Unit) {
        if let Ok(mut c) = self.current.lock() {
            self.done.store(0, Ordering::Relaxed);
            *c = Some((name, total, unit, self.step.load(Ordering::Relaxed)));
        }
    }

    /// Ends the phase under way.
    pub fn end(&self) {
        if let Ok(mut c) = self.current.lock() {
            *c = None;
        }
    }
}

thread_local! {
    static METER: RefCell<Option<Arc<Meter>>> = const { RefCell::new(None) };
}

/// Puts the previous meter back when dropped (also when `f` panics).
struct Restore(Option<Arc<Meter>>);

impl Drop for Restore {
    fn drop(&mut self) {
        let previous = self.0.take();
        METER.with(|m| *m.borrow_mut() = previous);
    }
}

/// Runs `f` with `meter` receiving the phases begun on this thread meanwhile.
pub fn report_to<R>(meter: Arc<Meter>, f: impl FnOnce() -> R) -> R {
    let previous = METER.with(|m| m.borrow_mut().replace(meter));
    let _restore = Restore(previous);
    f()
}

/// Counts the work of one phase; the phase ends when it is dropped.
#[derive(Debug)]
pub struct Tracker(Option<Arc<Meter>>);

impl Tracker {
    /// `n` more units done.
    pub fn add(&self, n: u64) {
        if let Some(m) = &self.0 {
            m.done.fetch_add(n, Ordering::Relaxed);
        }
    }

    /// Whether the step should take no more work: the user asked the job
    /// to stop, or a replayed cut's count of units is reached. A trainer
    /// whose steps are long asks before each unit (MPNNLM's chunks) and
    /// skips the rest when told; the job then records how many units the
    /// step did, so a replay cuts it at the same place.
    pub fn cut(&self) -> bool {
        let Some(m) = &self.0 else {
            return false;
        };
        let (step, done) = (
            m.step.load(Ordering::Relaxed),
            m.done.load(Ordering::Relaxed),
        );
        let limit = m.cut_limit.lock().ok().and_then(|l| *l);
        let reached = limit.is_some_and(|(s, units)| s == step && done >= units);
        let cut = reached || m.cut_wanted.load(Ordering::Relaxed);
        if cut {
            if let Ok(mut taken) = m.cut_taken.lock() {
                taken.get_or_insert(done);
            }
        }
        cut
    }
}

impl Drop for Tracker {
    fn drop(&mut self) {
        if let Some(m) = &self.0 {
            m.end();
        }
    }
}

/// Begins phase `name` of `total` units (0: unknown) on this thread's meter.
pub fn begin(name: &'static str, total: u64, unit: Unit) -> Tracker {
    let meter = METER.with(|m| m.borrow().clone());
    if let Some(m) = &meter {
        m.begin(name, total, unit);
    }
    Tracker(meter)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rayon::prelude::*;

    #[test]
    fn a_cut_ends_a_step_at_a_unit_when_asked_or_where_a_replay_recorded_it() {
        let meter = Arc::new(Meter::default());
        let trained = |meter: &Arc<Meter>, step: u64| {
            meter.at_step(step);
            report_to(meter.clone(), || {
                let t = begin("chunks", 10, Unit::Count);
                let mut did = 0;
                for _ in 0..10 {
                    if t.cut() {
                        break;
                    }
                    t.add(1);
                    did += 1;
                }
                did
            })
        };
        assert_eq!(trained(&meter, 0), 10);
        assert_eq!(meter.take_cut(), None, "no cut, no record");
        meter.limit_cut(Some((1, 4)));
        assert_eq!(trained(&meter, 0), 10, "the recorded cut is of step 1");
        assert_eq!(trained(&meter, 1), 4);
        assert_eq!(meter.take_cut(), Some(4));
        assert_eq!(meter.take_cut(), None, "taken once");
        meter.limit_cut(None);
        meter.request_cut();
        assert_eq!(trained(&meter, 2), 0, "asked to stop: no more units");
        assert_eq!(meter.take_cut(), Some(0));
        assert!(!begin("outside a job", 3, Unit::Count).cut());
    }

    #[test]
    fn phases_reach_the_installed_meter_and_end_with_their_tracker() {
        let outside = begin("ignored", 10, Unit::Count);
        outside.add(3);
        let meter = Arc::new(Meter::default());
        meter.at_step(4);
        report_to(meter.clone(), || {
            let t = begin("chunks", 10, Unit::Count);
            (0..7u64).into_par_iter().for_each(|_| t.add(1));
            let p = meter.snapshot().unwrap();
            assert_eq!((p.name, p.done, p.total, p.step), ("chunks", 7, 10, 4));
            assert_eq!(p.describe(), "chunks 7/10");
            assert_eq!(p.fraction(), Some(0.7));
        });
        assert_eq!(meter.snapshot(), None, "the tracker's drop ended it");
        report_to(meter.clone(), || {
            let _t = begin("eigenpairs", 0, Unit::Count);
            assert_eq!(meter.snapshot().unwrap().describe(), "eigenpairs");
        });
        report_to(meter.clone(), || {
            let t = begin("encoding", 200, Unit::Percent);
            t.add(90);
            assert_eq!(meter.snapshot().unwrap().describe(), "encoding 45%");
        });
        let p = Phase {
            name: "products",
            done: 240,
            total: 0,
            unit: Unit::Count,
            step: 0,
        };
        assert_eq!(
            (p.describe(), p.fraction()),
            ("products (240)".into(), None)
        );
    }
}
