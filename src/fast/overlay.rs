//! Deterministic parallel updates: each worker (a *lane*) trains against the
//! table as it was at the start of a round plus its own updates, and the
//! lanes' rows are merged into the table in lane order after the round.
//!
//! Hogwild ([`super::hogwild`]) lets threads race on shared rows, so with
//! several threads a run depends on timing and cannot be replayed bit for
//! bit. Here nothing is shared while a round runs: the base table is only
//! read, and a lane's first touch of a row copies it into the lane's own
//! [`Overlay`] (copy-on-write); later reads and writes of that row by the
//! lane go to the copy. After the round, [`merge`] writes every touched row
//! back: a row touched by one lane takes that lane's value (so one lane alone
//! computes exactly what the serial loop computes), and a row touched by
//! several takes the first lane's value plus the later lanes' changes
//! (`their value - base`), added in lane order. Every operation and its
//! order is fixed by the lane and row, never by which thread ran what or
//! when, so the result depends only on the work given to each lane.
//!
//! Summing the lanes' changes to a shared row is what Hogwild does when two
//! updates do not collide, and the "delayed" view of the other lanes' updates
//! is the staleness of asynchronous SGD; a round is short (tens of thousands
//! of words for SGNS), so the trained vectors are as good (see README,
//! "Deterministic parallel training").
//!
//! [`Rows`] is the row access the hot loops are written against, so the same
//! loop runs on a [`Hogwild`] table or on a lane's [`View`].

use std::marker::PhantomData;

use rayon::prelude::*;

use super::hogwild::Hogwild;

/// Row access for a training loop: a shared Hogwild table or a lane's view.
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
}

/// Rows per page of an overlay's storage: pages are never moved or freed
/// while the overlay lives, so a row handed out stays valid as others are added.
const PAGE_ROWS: usize = 256;

/// No copy of this row yet.
const NONE: u32 = u32::MAX;

/// One lane's private copies of the rows it touched during a round.
#[derive(Debug)]
pub struct Overlay {
    cols: usize,
    /// Per base row: the slot of its copy, or [`NONE`].
    slots: Vec<u32>,
    /// Base rows in the order the lane first touched them (slot `k` holds `touched[k]`).
    touched: Vec<u32>,
    /// Storage of the copies, [`PAGE_ROWS`] rows a page (raw, so that handing
    /// out rows of one page never conflicts with reaching another).
    pages: Vec<*mut [f32]>,
}

// SAFETY: the overlay owns its pages (allocated by `Box`, freed in `Drop`);
// the raw pointers only avoid `Box`'s uniqueness claims while rows are lent
// out. Moving it to another thread moves that ownership.
unsafe impl Send for Overlay {}
// SAFETY: `&Overlay` only reads (`touched`, `private`); writing needs
// `&mut Overlay` (or a `View`, which is neither `Send` nor `Sync`).
unsafe impl Sync for Overlay {}

impl Drop for Overlay {
    fn drop(&mut self) {
        for &page in &self.pages {
            // SAFETY: made by `Box::into_raw` in `add`, freed once, here.
            drop(unsafe { Box::from_raw(page) });
        }
    }
}

impl Overlay {
    /// An empty overlay for a table of `rows × cols`.
    pub fn new(rows: usize, cols: usize) -> Self {
        assert!(rows < NONE as usize, "too many rows for an overlay");
        Overlay {
            cols,
            slots: vec![NONE; rows],
            touched: Vec::new(),
            pages: Vec::new(),
        }
    }

    /// Lends the overlay for one round over `base` (the table at the round's
    /// start, `rows × cols` row-major, read only until the round ends).
    /// Panics when `base` has another shape (a programming error).
    pub fn view<'a>(&'a mut self, base: &'a [f32]) -> View<'a> {
        assert_eq!(base.len(), self.slots.len() * self.cols, "base table shape");
        View {
            overlay: self,
            base,
            _borrow: PhantomData,
        }
    }

    /// The base rows touched since the last [`Overlay::clear`], in first-touch order.
    pub fn touched(&self) -> &[u32] {
        &self.touched
    }

    /// Whether row `i` was touched.
    fn has(&self, i: u32) -> bool {
        self.slots[i as usize] != NONE
    }

    /// This lane's copy of row `i` (touched).
    fn private(&self, i: u32) -> &[f32] {
        let s = self.slots[i as usize] as usize;
        // SAFETY: `s` is a filled slot of a live page; no `View` can be
        // lending rows while `&self` is held (a view borrows mutably).
        unsafe { std::slice::from_raw_parts(self.slot_ptr(s), self.cols) }
    }

    /// Forgets every copy (keeping the storage for the next round).
    pub fn clear(&mut self) {
        for &i in &self.touched {
            self.slots[i as usize] = NONE;
        }
        self.touched.clear();
    }

    fn slot_ptr(&self, s: usize) -> *mut f32 {
        let page = self.pages[s / PAGE_ROWS] as *mut f32;
        page.wrapping_add((s % PAGE_ROWS) * self.cols)
    }

    /// Copies `row` (base row `i`) into a new slot; returns the slot.
    fn add(&mut self, i: usize, row: &[f32]) -> usize {
        let s = self.touched.len();
        if s / PAGE_ROWS == self.pages.len() {
            let page = vec![0f32; PAGE_ROWS * self.cols].into_boxed_slice();
            self.pages.push(Box::into_raw(page));
        }
        // SAFETY: slot `s` lies in a live page and is not lent out (it is new).
        unsafe { std::slice::from_raw_parts_mut(self.slot_ptr(s), self.cols) }.copy_from_slice(row);
        self.slots[i] = s as u32;
        self.touched.push(i as u32);
        s
    }
}

/// A lane's access to the rows during a round: its copies, made on first touch.
/// Neither `Send` nor `Sync`: one thread uses it.
pub struct View<'a> {
    overlay: *mut Overlay,
    base: &'a [f32],
    _borrow: PhantomData<&'a mut Overlay>,
}

impl Rows for View<'_> {
    #[inline(always)]
    fn prefetch(&self, i: usize) {
        // SAFETY: reads one slot entry; the overlay is borrowed by this view.
        let (slots, cols) = unsafe { (&(*self.overlay).slots, (*self.overlay).cols) };
        let Some(&s) = slots.get(i) else { return };
        if s == NONE {
            super::prefetch::row(&self.base[i * cols..(i + 1) * cols]);
        } else {
            // SAFETY: as above; the pointer is only hinted, never dereferenced.
            super::prefetch::raw(unsafe { (*self.overlay).slot_ptr(s as usize) }, cols);
        }
    }

    #[inline(always)]
    unsafe fn row(&self, i: usize) -> &mut [f32] {
        // SAFETY: the view holds the overlay's only borrow and is used by one
        // thread; this `&mut` lives for this call only and the rows lent out
        // live in page memory, which the overlay reaches by raw pointers only.
        let overlay = unsafe { &mut *self.overlay };
        let cols = overlay.cols;
        assert!(
            i < overlay.slots.len(),
            "row {i} out of range ({} rows)",
            overlay.slots.len()
        );
        let s = match overlay.slots[i] {
            NONE => overlay.add(i, &self.base[i * cols..(i + 1) * cols]),
            s => s as usize,
        };
        // SAFETY: a filled slot of a live page; the caller keeps one live
        // slice per row (the `Rows::row` contract).
        unsafe { std::slice::from_raw_parts_mut(overlay.slot_ptr(s), cols) }
    }
}

/// Writes the lanes' rows into `base` (`cols` wide), lanes in order: a row
/// touched by lanes `t < u < …` becomes `copy_t + (copy_u - base) + …`,
/// computed left to right in `f32`; a row touched by one lane becomes its
/// copy. Parallel over rows (each row is written by exactly one task, which
/// alone reads it), and the same bits whatever the threads. The overlays are
/// left as they are ([`Overlay::clear`] them for the next round).
pub fn merge(base: &mut [f32], cols: usize, lanes: &[&Overlay]) {
    if cols == 0 {
        return;
    }
    let table = Hogwild::new(base, cols);
    const ROWS_PER_TASK: usize = 512;
    let tasks: Vec<(usize, &[u32])> = lanes
        .iter()
        .enumerate()
        .flat_map(|(t, o)| o.touched().chunks(ROWS_PER_TASK).map(move |c| (t, c)))
        .collect();
    tasks.into_par_iter().for_each(|(t, rows)| {
        let mut sum = vec![0f32; cols];
        for &r in rows {
            if lanes[..t].iter().any(|o| o.has(r)) {
                continue; // an earlier lane writes this row
            }
            // SAFETY: row `r` is written only by this task (its first lane's),
            // and no other task reads it; one row at a time.
            let out = unsafe { table.row(r as usize) };
            sum.copy_from_slice(lanes[t].private(r));
            for later in lanes[t + 1..].iter().filter(|o| o.has(r)) {
                for ((s, &x), &b) in sum.iter_mut().zip(later.private(r)).zip(out.iter()) {
                    *s += x - b;
                }
            }
            out.copy_from_slice(&sum);
        }
    });
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
    fn a_lane_reads_the_base_then_its_own_writes() {
        let base = table();
        let mut o = Overlay::new(4, 2);
        {
            let v = o.view(&base);
            // SAFETY: one row at a time, one thread.
            unsafe {
                assert_eq!(v.row(2), &[20.0, 21.0]);
                v.row(2)[0] = 5.0;
                assert_eq!(v.row(2), &[5.0, 21.0]);
                v.row(0)[1] += 1.0;
            }
            v.prefetch(1);
            v.prefetch(2);
            v.prefetch(9);
        }
        assert_eq!(o.touched(), &[2, 0]);
        assert_eq!(base, table(), "the base is never written during a round");
        o.clear();
        assert!(o.touched().is_empty());
        let v = o.view(&base);
        // SAFETY: as above.
        assert_eq!(
            unsafe { v.row(2) },
            &[20.0, 21.0],
            "cleared copies are gone"
        );
    }

    #[test]
    fn rows_stay_valid_across_pages() {
        let rows = 3 * PAGE_ROWS;
        let base: Vec<f32> = (0..rows).map(|r| r as f32).collect();
        let mut o = Overlay::new(rows, 1);
        let v = o.view(&base);
        // SAFETY: one thread; the first row is used again only after the
        // others were added (pages never move).
        unsafe {
            let first = v.row(0);
            first[0] = -1.0;
            for r in 1..rows {
                v.row(r)[0] += 0.5;
            }
            assert_eq!(v.row(0)[0], -1.0);
            assert_eq!(v.row(rows - 1)[0], rows as f32 - 0.5);
        }
    }

    #[test]
    fn merge_sums_the_changes_in_lane_order() {
        let mut base = table();
        let (mut a, mut b, mut c) = (Overlay::new(4, 2), Overlay::new(4, 2), Overlay::new(4, 2));
        let before = base.clone();
        // SAFETY (all blocks): one thread, one row at a time.
        {
            let v = a.view(&before);
            unsafe {
                v.row(1)[0] = 12.0; // +2
                v.row(3)[1] = 40.0; // only lane a: taken as is
            }
        }
        {
            let v = b.view(&before);
            unsafe {
                v.row(1)[0] = 9.0; // -1
                v.row(1)[1] = 14.0; // +3
                v.row(2)[0] = 7.0; // only lane b
            }
        }
        {
            let v = c.view(&before);
            unsafe { v.row(1)[1] = 10.0 }; // -1
        }
        merge(&mut base, 2, &[&a, &b, &c]);
        assert_eq!(
            base,
            vec![0.0, 1.0, 11.0, 13.0, 7.0, 21.0, 30.0, 40.0],
            "row 1: 12 + (9 - 10) = 11 and 11 + (14 - 11) + (10 - 11) = 13"
        );
    }

    #[test]
    fn one_lane_merges_to_exactly_its_copies() {
        let mut base = vec![0.1f32, 0.2, 0.3];
        let before = base.clone();
        let mut o = Overlay::new(3, 1);
        {
            let v = o.view(&before);
            // SAFETY: one thread, one row at a time.
            unsafe { v.row(1)[0] = 1.0 / 3.0 };
        }
        merge(&mut base, 1, &[&o]);
        assert_eq!(base[1].to_bits(), (1.0f32 / 3.0).to_bits());
        assert_eq!((base[0], base[2]), (0.1, 0.3));
    }

    #[test]
    fn merge_is_the_same_on_any_pool() {
        let rows = 5000;
        let base: Vec<f32> = (0..rows * 3).map(|x| (x as f32).sin()).collect();
        let mut lanes: Vec<Overlay> = (0..3).map(|_| Overlay::new(rows, 3)).collect();
        for (t, o) in lanes.iter_mut().enumerate() {
            let v = o.view(&base);
            for r in (t..rows).step_by(t + 1) {
                // SAFETY: one thread, one row at a time.
                let row = unsafe { v.row(r) };
                row.iter_mut().for_each(|x| *x = *x * 1.1 + 0.01 * t as f32);
            }
        }
        let merged = |threads: usize| {
            let mut out = base.clone();
            let refs: Vec<&Overlay> = lanes.iter().collect();
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| merge(&mut out, 3, &refs));
            out.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        };
        assert_eq!(merged(1), merged(3));
    }
}
