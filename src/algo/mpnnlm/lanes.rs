//! MPNNLM's deterministic schedule (`schedule = deterministic` with several
//! threads): a step's chunks are taken in groups of one chunk per *lane*
//! (one lane per thread of the run), lane `j` always training the group's
//! `j`-th chunk, in rounds of [`super::trainer::ROUND_TOKENS`] predictions,
//! on its own replica of the six tables (prototypes, the two layers, and
//! their momentum velocities; [`crate::fast::replicas`]). After each round
//! the rows the lanes changed are merged in lane order (the first toucher's
//! value, plus every later toucher's change), and the predictions each lane
//! made for the creation rings are pushed in lane order ([`Pending`]).
//! Selection counts stay shared: they are integer sums, the same whatever
//! the order. So a run depends on its seed, settings and number of lanes
//! only; with one thread the trainer never builds lanes and runs the serial
//! loop.
//!
//! Every token writes the whole network and pushes away ~`sample`
//! prototypes, so a round touches nearly every row: rounds must be short
//! (the lanes' summed changes diverge otherwise), and each merge streams the
//! full tables. That merge and the wait at each round's end are the
//! schedule's price (+26% CPU on text8-head, docs/replay.md).

use rayon::prelude::*;

use super::creation::{Pending, Rings};
use super::model::{Model, Net, Scratch};
use crate::fast::replicas::{Replicas, Tracked};

/// The lanes of one step: a replica of every table per extra lane, and each
/// lane's pending predictions and buffers.
pub struct Lanes {
    replicas: [Replicas; 6],
    pending: Vec<Pending>,
    scratch: Vec<Scratch>,
}

impl Lanes {
    /// `lanes` lanes (at least 1) whose replicas equal `model`'s tables now.
    /// Built at each step's start, after the previous step created its
    /// prototypes.
    pub fn new(model: &mut Model, lanes: usize) -> Lanes {
        let shape = model.shape;
        let (_, tables) = model.parts_mut();
        Lanes {
            replicas: tables.map(|t| Replicas::new(t.as_slice(), t.cols(), lanes)),
            pending: vec![Pending::default(); lanes.max(1)],
            scratch: vec![Scratch::new(shape); lanes.max(1)],
        }
    }

    /// Number of lanes.
    pub fn lanes(&self) -> usize {
        self.pending.len()
    }

    /// Runs one round: `work(net, pending, scratch, state)` for every lane
    /// `j` in parallel (`state` is `states[j]`, one per lane), lane 0 on
    /// `model`'s tables and lane `j` on its replicas; returns the lanes'
    /// results in lane order. Then merges the lanes' rows into every copy
    /// and pushes their predictions into `rings`, both in lane order.
    pub fn round<S, T, F>(
        &mut self,
        model: &mut Model,
        rings: &Rings<'_>,
        states: &mut [S],
        work: F,
    ) -> Vec<T>
    where
        S: Send,
        T: Send,
        F: Fn(&Net<'_, Tracked<'_>>, &mut Pending, &mut Scratch, &mut S) -> T + Sync,
    {
        assert_eq!(states.len(), self.lanes(), "a state per lane");
        let shape = model.shape;
        let lanes = self.pending.len();
        let (fixed, tables) = model.parts_mut();
        let mut per_table: Vec<std::vec::IntoIter<Tracked<'_>>> = self
            .replicas
            .iter_mut()
            .zip(tables)
            .map(|(r, t)| r.handles(t.as_mut_slice()).into_iter())
            .collect();
        let handles: Vec<[Tracked<'_>; 6]> = (0..lanes)
            .map(|_| std::array::from_fn(|k| per_table[k].next().expect("a handle per lane")))
            .collect();
        drop(per_table);
        let out = handles
            .into_par_iter()
            .zip(self.pending.par_iter_mut())
            .zip(self.scratch.par_iter_mut())
            .zip(states.par_iter_mut())
            .map(|(((rows, pending), scratch), state)| {
                let net = Model::net_on(shape, fixed, rows);
                work(&net, pending, scratch, state)
            })
            .collect();
        let (_, tables) = model.parts_mut();
        for (r, t) in self.replicas.iter_mut().zip(tables) {
            r.merge(t.as_mut_slice());
        }
        for p in &mut self.pending {
            p.apply(rings);
        }
        out
    }
}
