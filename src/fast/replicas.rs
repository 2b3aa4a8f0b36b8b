//! Deterministic parallel updates: each worker (a *lane*) trains on its own
//! replica of a table, and after every short round the rows the lanes
//! changed are merged in lane order and written back to every replica.
//!
//! Hogwild ([`super::hogwild`]) lets threads race on shared rows, so with
//! several threads a run depends on timing and cannot be replayed bit for
//! bit. Here no row is shared while a round runs: lane 0 trains on the table
//! itself and lane `j > 0` on its replica, each noting the rows it touches
//! ([`Tracked`]). At the round's start every replica equals the table and a
//! *base* copy of it. [`Replicas::merge`] then takes each touched row, in
//! lane order: the first lane that touched it gives its value as it is (so
//! a lane alone computes exactly what the serial loop computes), and every
//! later lane adds its change, `its value - base`, computed in `f32`; the
//! result goes to the table, the base and every replica. Every operation
//! and its order is fixed by the lane and the row, never by which thread ran
//! what or when, so the result depends only on the work given to each lane.
//!
//! Summing the lanes' changes to a shared row is what Hogwild does when two
//! updates do not collide, and seeing the other lanes' updates only at the
//! round's end is the staleness of asynchronous SGD; rounds are short (one
//! 10,000-word chunk a lane for SGNS), so the vectors are as good
//! (docs/replay.md). The price is memory, a base and a
//! replica per extra lane (`lanes + 1` copies of the table in all), and the
//! merge's pass over the touched rows after every round.
//!
//! [`Rows`] is the row access the hot loops are written against, so the same
//! loop runs on a [`Hogwild`] table or a lane's [`Tracked`] one; its safe
//! operations (copy a row out, dot, `axpy` and the negative-sampling step on
//! a row) are all that SGNS and CBOW need, so their loops hold no `unsafe`;
//! MPNNLM's momentum steps on a row and its velocity row are in
//! [`super::momentum`].

use rayon::prelude::*;

use super::hogwild::Hogwild;
use super::lanes::Lanes;

/// Row access for a training loop: a shared Hogwild table or a lane's own.
pub trait Rows {
    /// Asks the CPU to start loading row `i` (a hint; no effect on values).
    fn prefetch(&self, i: usize);

    /// Row `i` as a mutable slice. Panics when `i` is out of range.
    ///
    /// # Safety
    /// As [`Hogwild::row`]: within one thread, no two live slices from this
    /// handle may overlap.
    #[allow(clippy::mut_from_ref)]
    unsafe fn row(&self, i: usize) -> &mut [f32];

    /// Whether `other` lends the same table (then its row `i` is this
    /// handle's row `i`). Operations that take two handles at once
    /// ([`super::momentum::step_row`]) refuse them when this is true, so an
    /// implementation must never answer `false` for one table.
    fn same_table(&self, other: &Self) -> bool;

    // The safe operations below are the hot loops' whole use of a row: each
    // forms the row's slice, uses it with the arguments and lets it go before
    // returning, so no two slices of this handle are ever alive at once. An
    // argument can be a slice of the same table only if the caller took it
    // with the unsafe `row`, whose contract forbids keeping it across this
    // call. Other threads may write the row meanwhile: the Hogwild race
    // (`super::hogwild`), accepted by design.

    /// Copies row `i` into `dst` (over their common length).
    #[inline(always)]
    fn read_row(&self, i: usize, dst: &mut [f32]) {
        // SAFETY: the only slice of this handle alive in this call (above).
        let row = unsafe { self.row(i) };
        let n = row.len().min(dst.len());
        dst[..n].copy_from_slice(&row[..n]);
    }

    /// Copies `src` into row `i` (over their common length).
    #[inline(always)]
    fn write_row(&self, i: usize, src: &[f32]) {
        // SAFETY: as in `read_row`.
        let row = unsafe { self.row(i) };
        let n = row.len().min(src.len());
        row[..n].copy_from_slice(&src[..n]);
    }

    /// `h · row i`.
    #[inline(always)]
    fn dot_row<L: Lanes>(&self, lanes: L, i: usize, h: &[f32]) -> f32 {
        // SAFETY: as in `read_row`.
        lanes.dot(h, unsafe { self.row(i) })
    }

    /// `dst += alpha · row i`.
    #[inline(always)]
    fn add_row_to<L: Lanes>(&self, lanes: L, i: usize, alpha: f32, dst: &mut [f32]) {
        // SAFETY: as in `read_row`.
        lanes.axpy(alpha, unsafe { self.row(i) }, dst);
    }

    /// `row i += alpha · x`.
    #[inline(always)]
    fn add_to_row<L: Lanes>(&self, lanes: L, i: usize, alpha: f32, x: &[f32]) {
        // SAFETY: as in `read_row`.
        lanes.axpy(alpha, x, unsafe { self.row(i) });
    }

    /// `row i += Σ_j g[j]·x_j` over the rows `x_j` of `x` ([`Lanes::combine`]).
    #[inline(always)]
    fn combine_into_row<L: Lanes>(&self, lanes: L, i: usize, g: &[f32], x: &[f32]) {
        // SAFETY: as in `read_row`.
        lanes.combine(g, x, unsafe { self.row(i) });
    }

    /// A negative-sampling step on row `o`: `neu1e += g·o`, then `o += g·h`
    /// (`neu1e` sees the row before its update, as in word2vec.c).
    #[inline(always)]
    fn step_row<L: Lanes>(&self, lanes: L, i: usize, g: f32, h: &[f32], neu1e: &mut [f32]) {
        // SAFETY: as in `read_row`.
        lanes.step(g, h, unsafe { self.row(i) }, neu1e);
    }
}

impl Rows for Hogwild<'_> {
    #[inline(always)]
    fn prefetch(&self, i: usize) {
        Hogwild::prefetch(self, i);
    }

    #[inline(always)]
    unsafe fn row(&self, i: usize) -> &mut [f32] {
        // SAFETY: the caller keeps `Hogwild::row`'s contract (same words).
        unsafe { Hogwild::row(self, i) }
    }

    #[inline(always)]
    fn same_table(&self, other: &Self) -> bool {
        Hogwild::same_table(self, other)
    }
}

/// The rows one lane touched in the current round.
#[derive(Debug, Clone)]
pub struct Touched {
    /// Per row: the round in which it was last touched.
    stamp: Vec<u32>,
    /// The current round (never 0, the stamp of "never touched").
    round: u32,
    /// Rows in the order of their first touch this round.
    rows: Vec<u32>,
}

impl Touched {
    fn new(rows: usize) -> Self {
        assert!(rows <= u32::MAX as usize, "too many rows to track");
        Touched {
            stamp: vec![0; rows],
            round: 1,
            rows: Vec::new(),
        }
    }

    #[inline(always)]
    fn note(&mut self, i: usize) {
        if self.stamp[i] != self.round {
            self.stamp[i] = self.round;
            self.rows.push(i as u32);
        }
    }

    fn has(&self, i: u32) -> bool {
        self.stamp[i as usize] == self.round
    }

    /// Starts a new round with nothing touched.
    fn clear(&mut self) {
        self.rows.clear();
        self.round = self.round.wrapping_add(1);
        if self.round == 0 {
            self.stamp.fill(0);
            self.round = 1;
        }
    }
}

/// A lane's access to its own table during a round, noting what it touches.
/// Not `Sync`: one thread at a time uses it.
pub struct Tracked<'a> {
    table: Hogwild<'a>,
    touched: *mut Touched,
    _borrow: std::marker::PhantomData<&'a mut Touched>,
}

// SAFETY: a handle is the only access to its lane's table and `Touched` for
// the round (`Replicas::handles` lends each once, borrowing the replicas
// mutably); moving it to another thread moves that exclusive access.
unsafe impl Send for Tracked<'_> {}

impl Rows for Tracked<'_> {
    #[inline(always)]
    fn prefetch(&self, i: usize) {
        self.table.prefetch(i);
    }

    #[inline(always)]
    unsafe fn row(&self, i: usize) -> &mut [f32] {
        // SAFETY: the handle holds the only borrow of its `Touched` and is
        // used by one thread; this `&mut` ends with the call (rows lent out
        // point into the table, not into `Touched`).
        let touched = unsafe { &mut *self.touched };
        // SAFETY: the table is this lane's alone during the round; the caller
        // keeps one live slice per row (the `Rows::row` contract). It panics
        // on a row out of range before `note` indexes with it.
        let row = unsafe { self.table.row(i) };
        touched.note(i);
        row
    }

    #[inline(always)]
    fn same_table(&self, other: &Self) -> bool {
        self.table.same_table(&other.table)
    }
}

/// The replicas of one `rows × cols` table for `lanes` lanes (lane 0 uses
/// the table itself), and the base copy they merge against.
#[derive(Debug, Clone)]
pub struct Replicas {
    cols: usize,
    /// The table at the current round's start.
    base: Vec<f32>,
    /// Lanes 1.. own tables, equal to the table at every round's start.
    copies: Vec<Vec<f32>>,
    /// What each lane (0 first) touched this round.
    touched: Vec<Touched>,
}

impl Replicas {
    /// Replicas of `table` (`cols` wide) for `lanes` lanes (at least 1).
    pub fn new(table: &[f32], cols: usize, lanes: usize) -> Self {
        let rows = table.len().checked_div(cols).unwrap_or(0);
        Replicas {
            cols,
            base: table.to_vec(),
            copies: (1..lanes.max(1)).map(|_| table.to_vec()).collect(),
            touched: (0..lanes.max(1)).map(|_| Touched::new(rows)).collect(),
        }
    }

    /// Number of lanes.
    pub fn lanes(&self) -> usize {
        self.touched.len()
    }

    /// Each lane's handle for a round: lane 0 on `table` (which must equal
    /// the base), lane `j` on its replica. Panics when `table` has another
    /// shape than the replicas (a programming error).
    pub fn handles<'a>(&'a mut self, table: &'a mut [f32]) -> Vec<Tracked<'a>> {
        assert_eq!(table.len(), self.base.len(), "table shape");
        let cols = self.cols.max(1);
        std::iter::once(table)
            .chain(self.copies.iter_mut().map(Vec::as_mut_slice))
            .zip(self.touched.iter_mut())
            .map(|(data, touched)| Tracked {
                table: Hogwild::new(data, cols),
                touched,
                _borrow: std::marker::PhantomData,
            })
            .collect()
    }

    /// Ends a round: every row a lane touched becomes, lanes in order, the
    /// first toucher's value plus each later toucher's `value - base`, in
    /// `table`, the base and every replica. Parallel over blocks of rows
    /// taken in table order (each row is merged and written by exactly one
    /// task; streaming through memory is what keeps this cheap), with the
    /// same bits whatever the threads.
    pub fn merge(&mut self, table: &mut [f32]) {
        assert_eq!(table.len(), self.base.len(), "table shape");
        let cols = self.cols;
        if cols == 0 {
            return;
        }
        let rows = self.base.len() / cols;
        let Replicas {
            base,
            copies,
            touched,
            ..
        } = self;
        let mut tables: Vec<Hogwild<'_>> = vec![Hogwild::new(table, cols)];
        tables.extend(copies.iter_mut().map(|c| Hogwild::new(c, cols)));
        let base = Hogwild::new(base, cols);
        let touched: &[Touched] = touched;
        const ROWS_PER_TASK: usize = 1024;
        let merge_block = |task: usize| {
            let mut sum = vec![0f32; cols];
            let block = task * ROWS_PER_TASK..((task + 1) * ROWS_PER_TASK).min(rows);
            for i in block {
                let r = i as u32;
                let Some(t) = touched.iter().position(|o| o.has(r)) else {
                    continue;
                };
                // SAFETY (every `row` below): row `i` is read and written
                // by this task alone (its block), one row of each table
                // at a time.
                let b = unsafe { base.row(i) };
                let first = unsafe { tables[t].row(i) };
                let mut later = (t + 1..tables.len())
                    .filter(|&u| touched[u].has(r))
                    .peekable();
                if later.peek().is_none() {
                    b.copy_from_slice(first);
                    for (_, table) in tables.iter().enumerate().filter(|(u, _)| *u != t) {
                        unsafe { table.row(i) }.copy_from_slice(first);
                    }
                    continue;
                }
                sum.copy_from_slice(first);
                for u in later {
                    let row = unsafe { tables[u].row(i) };
                    for ((s, &x), &y) in sum.iter_mut().zip(row.iter()).zip(b.iter()) {
                        *s += x - y;
                    }
                }
                b.copy_from_slice(&sum);
                for table in &tables {
                    unsafe { table.row(i) }.copy_from_slice(&sum);
                }
            }
        };
        (0..rows.div_ceil(ROWS_PER_TASK))
            .into_par_iter()
            .for_each(merge_block);
        self.touched.iter_mut().for_each(Touched::clear);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 4 × 2 table `[[0, 1], [10, 11], [20, 21], [30, 31]]`.
    fn table() -> Vec<f32> {
        (0..4)
            .flat_map(|r| [10.0 * r as f32, 10.0 * r as f32 + 1.0])
            .collect()
    }

    #[test]
    fn lanes_note_their_rows_and_merge_adds_the_changes_in_lane_order() {
        let mut live = table();
        let mut reps = Replicas::new(&live, 2, 3);
        assert_eq!(reps.lanes(), 3);
        {
            let h = reps.handles(&mut live);
            // SAFETY (all blocks): one thread, one row of a table at a time.
            unsafe {
                h[0].row(1)[0] = 12.0; // +2
                h[0].row(3)[1] = 40.0; // only lane 0: taken as is
                h[1].row(1)[0] = 9.0; // -1
                h[1].row(1)[1] = 14.0; // +3
                h[1].row(2)[0] = 7.0; // first toucher: taken as is
                h[2].row(1)[1] = 10.0; // -1
                h[2].row(2)[1] = 25.0; // +4
                assert_eq!(h[2].row(0), &[0.0, 1.0], "a replica starts as the table");
            }
            h[1].prefetch(2);
        }
        assert_eq!(reps.touched[0].rows, vec![1, 3]);
        assert_eq!(reps.touched[2].rows, vec![1, 2, 0]);
        reps.merge(&mut live);
        let merged = vec![0.0, 1.0, 11.0, 13.0, 7.0, 25.0, 30.0, 40.0];
        assert_eq!(
            live, merged,
            "row 1: 12 + (9 - 10) = 11 and 11 + (14 - 11) + (10 - 11) = 13"
        );
        assert_eq!(reps.base, merged);
        assert!(
            reps.copies.iter().all(|c| *c == merged),
            "every replica follows"
        );
        assert!(reps.touched.iter().all(|t| t.rows.is_empty()));
        // The next round starts from the merged rows everywhere.
        let h = reps.handles(&mut live);
        // SAFETY: one thread.
        assert_eq!(unsafe { h[1].row(1) }, &[11.0, 13.0]);
    }

    #[test]
    fn a_lane_alone_merges_to_exactly_its_rows() {
        let mut live = vec![0.1f32, 0.2, 0.3];
        let mut reps = Replicas::new(&live, 1, 2);
        {
            let h = reps.handles(&mut live);
            // SAFETY: one thread, one row at a time.
            unsafe { h[1].row(1)[0] = 1.0 / 3.0 };
        }
        reps.merge(&mut live);
        assert_eq!(live[1].to_bits(), (1.0f32 / 3.0).to_bits());
        assert_eq!((live[0], live[2]), (0.1, 0.3));
    }

    #[test]
    fn rounds_restart_and_the_round_counter_wraps() {
        let mut t = Touched::new(5);
        t.note(3);
        t.note(3);
        assert_eq!(t.rows, vec![3]);
        t.clear();
        assert!(!t.has(3) && t.rows.is_empty());
        t.round = u32::MAX;
        t.stamp[2] = u32::MAX;
        t.clear();
        assert!(!t.has(2) && t.round == 1);
    }

    #[test]
    fn merge_is_the_same_on_any_pool() {
        let rows = 5000;
        let start: Vec<f32> = (0..rows * 3).map(|x| (x as f32).sin()).collect();
        let merged = |threads: usize| {
            let mut live = start.clone();
            let mut reps = Replicas::new(&live, 3, 3);
            {
                let h = reps.handles(&mut live);
                for (t, lane) in h.iter().enumerate() {
                    for r in (t..rows).step_by(t + 1) {
                        // SAFETY: one thread, one row at a time.
                        let row = unsafe { lane.row(r) };
                        row.iter_mut().for_each(|x| *x = *x * 1.1 + 0.01 * t as f32);
                    }
                }
            }
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| reps.merge(&mut live));
            live.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        };
        assert_eq!(merged(1), merged(3));
    }
}
