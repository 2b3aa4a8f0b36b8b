//! Counting progress: tokens read, runs spilled to disk, the final merge.
//!
//! Counting a large corpus is most of a count-based run's set-up time, and
//! it happens deep inside a method's `build` (through the shared
//! [`CountCache`](super::CountCache)), where no method should have to pass a
//! callback along. So the caller that wants progress — the training job,
//! which turns it into [`Event::Counting`](crate::train::Event::Counting) —
//! installs a hook for its own thread with [`report_to`], and
//! [`count_corpus_with`](super::count_corpus_with) reports to whatever hook
//! the current thread has (none: nothing is reported). `wordbench counts`
//! takes a callback directly ([`crate::counts::count_to_file`]).

use std::cell::RefCell;

use serde::{Deserialize, Serialize};

/// What counting is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum CountPhase {
    /// Reading the corpus: `tokens` of `total` counted so far.
    Reading,
    /// Every token counted; merging the sorted runs (in memory and on disk)
    /// into the matrix.
    Merging,
    /// The matrix is ready.
    Done,
}

/// A snapshot of a count in progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CountProgress {
    /// What counting is doing.
    pub phase: CountPhase,
    /// In-vocabulary tokens counted so far.
    pub tokens: u64,
    /// In-vocabulary tokens of the whole training split (0: not known).
    pub total: u64,
    /// Runs written to temporary files so far.
    pub spilled_runs: u64,
}

impl CountProgress {
    /// Fraction of the tokens counted, in `[0, 1]` (1 once merging).
    pub fn fraction(&self) -> f64 {
        match self.phase {
            CountPhase::Reading if self.total > 0 => {
                (self.tokens as f64 / self.total as f64).min(1.0)
            }
            CountPhase::Reading => 0.0,
            CountPhase::Merging | CountPhase::Done => 1.0,
        }
    }

    /// A short line for a status bar or log:
    /// `counting 45% (1.2M of 2.1M tokens), 3 runs spilled`.
    pub fn describe(&self) -> String {
        let spilled = match self.spilled_runs {
            0 => String::new(),
            1 => ", 1 run spilled to disk".to_string(),
            n => format!(", {n} runs spilled to disk"),
        };
        match self.phase {
            CountPhase::Reading if self.total > 0 => format!(
                "counting {:.0}% ({} of {} tokens){spilled}",
                100.0 * self.fraction(),
                short(self.tokens),
                short(self.total)
            ),
            CountPhase::Reading => format!("counting ({} tokens){spilled}", short(self.tokens)),
            CountPhase::Merging => {
                format!("merging counts of {} tokens{spilled}", short(self.tokens))
            }
            CountPhase::Done => format!("counted {} tokens{spilled}", short(self.tokens)),
        }
    }
}

/// `1234567` as `1.2M`.
fn short(n: u64) -> String {
    match n {
        0..=9_999 => n.to_string(),
        10_000..=999_999 => format!("{:.0}k", n as f64 / 1e3),
        1_000_000..=999_999_999 => format!("{:.1}M", n as f64 / 1e6),
        _ => format!("{:.2}G", n as f64 / 1e9),
    }
}

/// A receiver of counting progress.
pub type Hook = Box<dyn FnMut(CountProgress)>;

thread_local! {
    static HOOK: RefCell<Option<Hook>> = const { RefCell::new(None) };
}

/// Puts the previous hook back when dropped (also when `f` panics).
struct Restore(Option<Hook>);

impl Drop for Restore {
    fn drop(&mut self) {
        let previous = self.0.take();
        HOOK.with(|h| *h.borrow_mut() = previous);
    }
}

/// Runs `f` with `hook` receiving the progress of every count made on this
/// thread meanwhile.
pub fn report_to<R>(hook: Hook, f: impl FnOnce() -> R) -> R {
    let previous = HOOK.with(|h| h.borrow_mut().replace(hook));
    let _restore = Restore(previous);
    f()
}

/// Sends `progress` to this thread's hook, if any.
pub fn report(progress: CountProgress) {
    HOOK.with(|h| {
        // A hook that counts again (it never should) finds the cell busy
        // and is not called re-entrantly.
        if let Ok(mut hook) = h.try_borrow_mut() {
            if let Some(hook) = hook.as_mut() {
                hook(progress);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    fn at(phase: CountPhase, tokens: u64, total: u64, spilled_runs: u64) -> CountProgress {
        CountProgress {
            phase,
            tokens,
            total,
            spilled_runs,
        }
    }

    #[test]
    fn reports_reach_the_installed_hook_only_inside_its_scope() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = seen.clone();
        report(at(CountPhase::Reading, 1, 10, 0));
        let r = report_to(Box::new(move |p| sink.lock().unwrap().push(p)), || {
            report(at(CountPhase::Reading, 5, 10, 0));
            std::thread::spawn(|| report(at(CountPhase::Reading, 6, 10, 0)))
                .join()
                .unwrap();
            report(at(CountPhase::Merging, 10, 10, 2));
            7
        });
        report(at(CountPhase::Done, 10, 10, 2));
        assert_eq!(r, 7);
        let seen = seen.lock().unwrap();
        assert_eq!(
            *seen,
            vec![
                at(CountPhase::Reading, 5, 10, 0),
                at(CountPhase::Merging, 10, 10, 2)
            ]
        );
    }

    #[test]
    fn a_panic_inside_the_scope_removes_the_hook() {
        let seen = Arc::new(Mutex::new(0));
        let sink = seen.clone();
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            report_to(Box::new(move |_| *sink.lock().unwrap() += 1), || {
                panic!("inside")
            })
        }));
        assert!(caught.is_err());
        report(at(CountPhase::Reading, 1, 1, 0));
        assert_eq!(*seen.lock().unwrap(), 0);
    }

    #[test]
    fn descriptions() {
        let p = at(CountPhase::Reading, 1_234_567, 2_100_000, 3);
        assert_eq!(
            p.describe(),
            "counting 59% (1.2M of 2.1M tokens), 3 runs spilled to disk"
        );
        assert_eq!(
            at(CountPhase::Merging, 2_100_000, 2_100_000, 1).describe(),
            "merging counts of 2.1M tokens, 1 run spilled to disk"
        );
        assert_eq!(
            at(CountPhase::Reading, 50, 0, 0).describe(),
            "counting (50 tokens)"
        );
        assert_eq!(at(CountPhase::Reading, 50, 0, 0).fraction(), 0.0);
        assert_eq!(at(CountPhase::Merging, 5, 10, 0).fraction(), 1.0);
    }
}
