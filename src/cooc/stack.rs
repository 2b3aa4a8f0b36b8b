//! The stack of sorted runs a counter keeps: merged LSM-style so that
//! memory stays bounded by the distinct pairs, each run in memory or, once
//! spilled, on disk ([`super::spill`]).

use super::runs::Run;
use super::spill::{Slot, SpillDir};
use crate::Result;

/// A stack of runs kept in decreasing size, merged whenever the newest is at
/// least half the size of the one below (so there are O(log) runs and every
/// pair is merged O(log) times).
///
/// A run lives in memory or, once spilled, on disk ([`Slot`]); merges
/// happen in the same order and sum in the same direction wherever the runs
/// live (a merge that involves a run on disk writes its result to disk), so
/// spilling never changes a value.
///
/// Freed runs are kept as spares and reused: large vectors that are freed and
/// reallocated go back to the OS each time, and page faults would cost more
/// than the merges themselves.
#[derive(Debug, Default)]
pub(crate) struct RunStack {
    runs: Vec<Slot>,
    spare: Option<Run>,
}

impl RunStack {
    /// Adds a run and restores the size invariant; `spill` is needed once a
    /// run is on disk.
    pub fn push(&mut self, run: Run, spill: Option<&SpillDir>) -> Result<()> {
        if run.len() == 0 {
            self.keep_spare(run);
            return Ok(());
        }
        self.runs.push(Slot::Mem(run));
        while self.runs.len() >= 2 {
            let last = self.runs.len() - 1;
            if self.runs[last].len() * 2 < self.runs[last - 1].len() {
                break;
            }
            let b = self.runs.pop().expect("two runs");
            let a = self.runs.pop().expect("two runs");
            let merged = self.merge(a, b, spill)?;
            self.runs.push(merged);
        }
        Ok(())
    }

    /// Merges `a` (older) and `b`, freeing both.
    fn merge(&mut self, a: Slot, b: Slot, spill: Option<&SpillDir>) -> Result<Slot> {
        if let (Slot::Mem(ra), Slot::Mem(rb)) = (&a, &b) {
            let mut out = self.take_spare();
            Run::merge_into(ra, rb, &mut out);
            for freed in [a, b] {
                if let Some(r) = freed.release() {
                    self.keep_spare(r);
                }
            }
            return Ok(Slot::Mem(out));
        }
        let dir = spill.expect("runs are on disk only when spilling");
        let merged = dir.merge(&a, &b)?;
        // Memory runs merged into a file are dropped, not kept: spilling is
        // for when memory is short.
        a.release();
        b.release();
        Ok(Slot::Disk(merged))
    }

    /// An empty run, with a previous run's allocation when there is one.
    pub fn take_spare(&mut self) -> Run {
        self.spare.take().unwrap_or_default()
    }

    /// Keeps `run`'s allocation for later (the larger of the two offered).
    pub fn keep_spare(&mut self, run: Run) {
        let bigger = self
            .spare
            .as_ref()
            .is_none_or(|s| s.keys.capacity() < run.keys.capacity());
        if bigger {
            self.spare = Some(run);
        }
    }

    /// Bytes of memory the runs in memory and the spare hold.
    pub fn heap_bytes(&self) -> usize {
        self.runs.iter().map(Slot::heap_bytes).sum::<usize>()
            + self.spare.as_ref().map_or(0, Run::heap_bytes)
    }

    /// The runs in memory, as `(index, bytes)`.
    pub fn in_memory(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.runs
            .iter()
            .enumerate()
            .filter(|(_, s)| matches!(s, Slot::Mem(_)))
            .map(|(i, s)| (i, s.heap_bytes()))
    }

    /// Writes run `index` to disk and drops the spare.
    pub fn spill(&mut self, index: usize, dir: &SpillDir) -> Result<()> {
        if let Slot::Mem(run) = &self.runs[index] {
            let disk = dir.write(run)?;
            self.runs[index] = Slot::Disk(disk);
        }
        self.spare = None;
        Ok(())
    }

    /// Merges everything into one run (in memory if every run is).
    pub fn into_slot(mut self, spill: Option<&SpillDir>) -> Result<Slot> {
        let mut acc = self.runs.pop().unwrap_or_default();
        while let Some(r) = self.runs.pop() {
            acc = self.merge(r, acc, spill)?;
        }
        Ok(acc)
    }

    /// Merges everything into one run in memory (no run may be on disk).
    #[cfg(test)]
    pub fn into_run(self) -> Run {
        match self.into_slot(None).expect("in-memory merges cannot fail") {
            Slot::Mem(r) => r,
            Slot::Disk(_) => unreachable!("no spill directory, so no run on disk"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stack_merges_to_the_sum_of_its_runs() {
        let run = |keys: &[u64], vals: &[f64]| Run {
            keys: keys.to_vec(),
            vals: vals.to_vec(),
        };
        let mut stack = RunStack::default();
        for r in [
            run(&[2, 7], &[1.0, 1.0]),
            run(&[7, 8], &[0.5, 2.0]),
            run(&[7, 8], &[0.5, 2.0]),
        ] {
            stack.push(r, None).unwrap();
        }
        let sum = stack.into_run();
        assert_eq!((sum.keys, sum.vals), (vec![2, 7, 8], vec![1.0, 2.0, 4.0]));
    }
}
