//! The parameters of the network and the prototype table, and the per-token
//! arithmetic: forward pass, backpropagation, momentum updates.
//!
//! Prototypes live in one table of *slots*. Word `w` (the vocabulary's ids,
//! then the end token) owns the slots `first[w] .. first[w] + cap[w]`, of
//! which the first `count[w]` are active: creating a prototype activates the
//! next slot, so the table never moves while threads train on it. After the
//! words' slots come the `n` start prototypes, input-only (never predicted).
//!
//! Both layers keep their bias as the last column of their weight table
//! (the layer input gets a trailing 1).
//!
//! Every row access goes through the safe operations of [`crate::fast`]:
//! [`Rows`] (copy, dot, `axpy`) and [`crate::fast::momentum`] (a momentum
//! step on a row and its velocity row, the prototypes' distances).

use std::sync::atomic::{AtomicU32, Ordering};

use ndarray::Array2;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::proposal::Proposal;
use crate::fast::hogwild::{Hogwild, SharedMatrix};
use crate::fast::lanes::Portable;
use crate::fast::math as fast_math;
use crate::fast::momentum::{self, half_sq_distance_row, step_row, step_toward_row};
use crate::fast::replicas::Rows;

/// The sizes of the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// Prototype dimension `d`.
    pub dim: usize,
    /// Context prototypes `n`.
    pub context: usize,
    /// Hidden units `H`.
    pub hidden: usize,
}

impl Shape {
    /// Width of the network input `n · d`.
    pub fn input(&self) -> usize {
        self.dim * self.context
    }
}

/// Where each word's prototypes are, and which are active.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    spans: Vec<Span>,
    owner: Vec<u32>,
    active: Vec<u32>,
    starts: u32,
}

/// A word's slots: `first .. first + cap`, the first `count` active. One
/// array of these rather than one per field: a sampled draw reads `first`
/// and `count` of a random word, one cache line instead of two.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Span {
    first: u32,
    count: u8,
    cap: u8,
}

/// Marks slots no word owns (the start prototypes).
pub const NO_WORD: u32 = u32::MAX;

impl Layout {
    /// One active prototype per word, room for `caps[w]` (at least 1), and
    /// `context` start slots after them.
    pub fn new(caps: &[u8], context: usize) -> Layout {
        let mut spans = Vec::with_capacity(caps.len());
        let mut owner = Vec::new();
        for (w, &c) in caps.iter().enumerate() {
            spans.push(Span {
                first: owner.len() as u32,
                count: 1,
                cap: c.max(1),
            });
            owner.extend(std::iter::repeat_n(w as u32, c.max(1) as usize));
        }
        let starts = owner.len() as u32;
        owner.extend(std::iter::repeat_n(NO_WORD, context));
        Layout {
            active: spans.iter().map(|s| s.first).collect(),
            spans,
            owner,
            starts,
        }
    }

    /// Words (the end token included).
    pub fn words(&self) -> usize {
        self.spans.len()
    }

    /// Slots in the table (start prototypes included).
    pub fn slots(&self) -> usize {
        self.owner.len()
    }

    /// Active output prototypes, in creation order.
    pub fn active(&self) -> &[u32] {
        &self.active
    }

    /// The active slots of word `w`.
    #[inline]
    pub fn of(&self, w: u32) -> std::ops::Range<u32> {
        let s = self.spans[w as usize];
        s.first..s.first + s.count as u32
    }

    /// Active prototypes of word `w`.
    pub fn count(&self, w: u32) -> usize {
        self.spans[w as usize].count as usize
    }

    /// Most prototypes word `w` may have.
    pub fn cap(&self, w: u32) -> usize {
        self.spans[w as usize].cap as usize
    }

    /// The word owning `slot` ([`NO_WORD`] for a start prototype).
    #[inline]
    pub fn owner(&self, slot: u32) -> u32 {
        self.owner[slot as usize]
    }

    /// The `n` start slots.
    pub fn starts(&self) -> std::ops::Range<u32> {
        self.starts..self.owner.len() as u32
    }

    /// Activates the next slot of `w`; `None` at its cap.
    pub fn grow(&mut self, w: u32) -> Option<u32> {
        let s = &mut self.spans[w as usize];
        if s.count >= s.cap {
            return None;
        }
        let slot = s.first + s.count as u32;
        s.count += 1;
        self.active.push(slot);
        Some(slot)
    }
}

/// Every trained parameter, with the momentum velocities.
#[derive(Debug)]
pub struct Model {
    /// Network shape.
    pub shape: Shape,
    /// Prototype slots.
    pub layout: Layout,
    /// Prototype vectors, one row per slot.
    pub protos: SharedMatrix,
    proto_vel: SharedMatrix,
    /// Hidden layer `H × (n d + 1)`.
    pub u: SharedMatrix,
    u_vel: SharedMatrix,
    /// Prediction layer `d × (H + 1)`.
    pub w: SharedMatrix,
    w_vel: SharedMatrix,
    /// Times each slot was selected as the target's prototype.
    pub selections: Vec<AtomicU32>,
    /// Where the sampled denominator draws other words from (`None`:
    /// uniformly among the prototypes).
    pub proposal: Option<Proposal>,
}

impl Model {
    /// Weights uniform in `(−0.01, 0.01)`, prototypes in `(−1e−4, 1e−4)`
    /// (near-uniform output: the initial perplexity is about the number of
    /// prototypes), velocities zero.
    pub fn init(shape: Shape, layout: Layout, seed: u64) -> Model {
        Model::init_scaled(shape, layout, seed, 0.01, 1e-4)
    }

    /// As [`Model::init`] with the ranges given (tests use larger ones).
    pub fn init_scaled(
        shape: Shape,
        layout: Layout,
        seed: u64,
        weights: f32,
        protos: f32,
    ) -> Model {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut uniform = |rows: usize, cols: usize, a: f32| {
            SharedMatrix::from_array(Array2::from_shape_simple_fn((rows, cols), || {
                (rng.random::<f32>() * 2.0 - 1.0) * a
            }))
        };
        let (d, h) = (shape.dim, shape.hidden);
        let slots = layout.slots();
        let protos = uniform(slots, d, protos);
        let u = uniform(h, shape.input() + 1, weights);
        let w = uniform(d, h + 1, weights);
        Model {
            shape,
            protos,
            proto_vel: SharedMatrix::zeros(slots, d),
            u,
            u_vel: SharedMatrix::zeros(h, shape.input() + 1),
            w,
            w_vel: SharedMatrix::zeros(d, h + 1),
            selections: (0..slots).map(|_| AtomicU32::new(0)).collect(),
            proposal: None,
            layout,
        }
    }

    /// Handles on every table for one step (training or evaluation).
    pub fn net(&mut self) -> Net<'_> {
        Net {
            shape: self.shape,
            layout: &self.layout,
            protos: self.protos.hogwild(),
            proto_vel: self.proto_vel.hogwild(),
            u: self.u.hogwild(),
            u_vel: self.u_vel.hogwild(),
            w: self.w.hogwild(),
            w_vel: self.w_vel.hogwild(),
            selections: &self.selections,
            proposal: self.proposal.as_ref(),
        }
    }

    /// The six tables training changes, in a fixed order (prototypes and
    /// their velocities, hidden layer and its, prediction layer and its),
    /// beside the layout and selection counts a [`Net`] reads: the
    /// deterministic schedule keeps a replica of each table
    /// ([`super::lanes`]).
    pub(super) fn parts_mut(&mut self) -> (Fixed<'_>, [&mut SharedMatrix; 6]) {
        (
            Fixed {
                layout: &self.layout,
                selections: &self.selections,
                proposal: self.proposal.as_ref(),
            },
            [
                &mut self.protos,
                &mut self.proto_vel,
                &mut self.u,
                &mut self.u_vel,
                &mut self.w,
                &mut self.w_vel,
            ],
        )
    }

    /// A net over other handles on the six tables of [`Model::parts_mut`]
    /// (in that order), with this model's shape, layout, selection counts
    /// and proposal.
    pub(super) fn net_on<'a, R: Rows>(
        shape: Shape,
        fixed: Fixed<'a>,
        [protos, proto_vel, u, u_vel, w, w_vel]: [R; 6],
    ) -> Net<'a, R> {
        Net {
            shape,
            layout: fixed.layout,
            protos,
            proto_vel,
            u,
            u_vel,
            w,
            w_vel,
            selections: fixed.selections,
            proposal: fixed.proposal,
        }
    }

    /// Places a new prototype of `w` at `at` (velocity zero, never selected).
    pub fn create(&mut self, w: u32, at: &[f32]) -> Option<u32> {
        let slot = self.layout.grow(w)?;
        let row = slot as usize * self.shape.dim..(slot as usize + 1) * self.shape.dim;
        self.protos.as_mut_slice()[row.clone()].copy_from_slice(at);
        self.proto_vel.as_mut_slice()[row].fill(0.0);
        self.selections[slot as usize].store(0, Ordering::Relaxed);
        Some(slot)
    }

    /// The vector of `slot`.
    pub fn proto(&self, slot: u32) -> &[f32] {
        let d = self.shape.dim;
        let all = self.protos.view().to_slice().expect("row-major table");
        &all[slot as usize * d..(slot as usize + 1) * d]
    }

    /// Times `slot` was selected.
    pub fn selected(&self, slot: u32) -> u32 {
        self.selections[slot as usize].load(Ordering::Relaxed)
    }
}

/// What a step reads of the model but never writes: the layout, the
/// selection counts (shared integer sums) and the proposal.
#[derive(Clone, Copy)]
pub(super) struct Fixed<'a> {
    pub(super) layout: &'a Layout,
    pub(super) selections: &'a [AtomicU32],
    pub(super) proposal: Option<&'a Proposal>,
}

/// Handles on the model for the duration of a step: shared Hogwild rows
/// (the default), or one lane's replicas under the deterministic schedule.
#[derive(Clone, Copy)]
pub struct Net<'a, R = Hogwild<'a>> {
    /// Network shape.
    pub shape: Shape,
    /// Prototype slots (fixed during a step).
    pub layout: &'a Layout,
    /// Prototype vectors.
    pub protos: R,
    proto_vel: R,
    u: R,
    u_vel: R,
    w: R,
    w_vel: R,
    selections: &'a [AtomicU32],
    proposal: Option<&'a Proposal>,
}

/// One output prototype of a token's softmax.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Entry {
    /// Its slot.
    pub slot: u32,
    /// True for a prototype of the target word.
    pub target: bool,
    /// How many prototypes it stands for (1, or `others / m` when sampled;
    /// times the draws of the slot when they are merged, [`Draws::Merged`]).
    pub scale: f64,
    /// While the entries are drawn, the number of draws of the slot (1
    /// unless merged); then `−‖p_k − p̂‖² / 2`; then (after
    /// [`Net::gradient`]) `∂ℓ/∂p_k = coef · (p_k − p̂)`.
    pub value: f64,
}

/// What the sampled denominator does with a prototype drawn several times
/// for one token (the unigram proposal draws `the` tens of times in 1,000).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Draws {
    /// Every draw is its own entry: its own distance, term of the gradient
    /// and momentum step (a slot drawn `k` times steps `k` times, each from
    /// where the previous left it).
    Each,
    /// A slot's draws are one entry whose scale is their sum: the same
    /// estimate `Ẑ` and the same gradient, one momentum step with the summed
    /// coefficient, about half the entries (text8: ~530 distinct slots in
    /// 1,000 draws).
    Merged,
}

/// Which `exp` and `tanh` the token's arithmetic calls: libm's, one call
/// per value, or [`crate::fast::math`]'s, vectorised over the layers' units
/// and the softmax entries (`exp` within one ulp of libm's, `tanh` the
/// correctly rounded one on a dense grid, within two ulps of libm's; the
/// same bits on every CPU, but not libm's bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Math {
    /// The platform's libm (`tanhf`, `exp`).
    Libm,
    /// [`crate::fast::math::tanh`] and [`crate::fast::math::exp`].
    Fast,
}

/// `x ← tanh(x)` over `xs` with the `tanh` of `math`.
#[inline(always)]
fn tanh_all(math: Math, xs: &mut [f32]) {
    match math {
        Math::Libm => xs.iter_mut().for_each(|x| *x = x.tanh()),
        Math::Fast => fast_math::tanh_all(xs),
    }
}

/// How many softmax entries ahead a token's loops ask the CPU for the
/// prototype (or velocity) row they will need.
const AHEAD: usize = 8;

/// Per-thread buffers of the token arithmetic.
#[derive(Debug, Clone)]
pub struct Scratch {
    /// Network input, with a trailing 1.
    pub x: Vec<f32>,
    /// Hidden activations, with a trailing 1.
    pub h: Vec<f32>,
    /// The prediction `p̂`.
    pub p: Vec<f32>,
    /// `∂ℓ/∂p̂`.
    pub g_p: Vec<f32>,
    /// `∂ℓ/∂o` (before the output tanh).
    pub delta_o: Vec<f32>,
    /// `∂ℓ/∂a` (before the hidden tanh).
    pub delta_h: Vec<f32>,
    /// `∂ℓ/∂x` (the input prototypes).
    pub g_x: Vec<f32>,
    /// The softmax entries.
    pub entries: Vec<Entry>,
    /// Posterior of the target's prototypes (`r`), in slot order.
    pub posterior: Vec<f64>,
    acc: Vec<f64>,
    /// The entries' `value − top` and then their exponentials
    /// ([`Math::Fast`]).
    shifted: Vec<f64>,
    /// Per slot: the token (`stamp`) that last drew it and its entry there,
    /// to find a slot drawn again ([`Draws::Merged`]). Sized on first use.
    marks: Vec<[u32; 2]>,
    /// The current token's stamp (never 0, the mark of "never drawn").
    stamp: u32,
}

impl Scratch {
    /// Buffers for `shape`.
    pub fn new(shape: Shape) -> Scratch {
        let (d, h, nd) = (shape.dim, shape.hidden, shape.input());
        Scratch {
            x: vec![0.0; nd + 1],
            h: vec![0.0; h + 1],
            p: vec![0.0; d],
            g_p: vec![0.0; d],
            delta_o: vec![0.0; d],
            delta_h: vec![0.0; h],
            g_x: vec![0.0; nd],
            entries: Vec::new(),
            posterior: Vec::new(),
            acc: vec![0.0; d],
            shifted: Vec::new(),
            marks: Vec::new(),
            stamp: 0,
        }
    }

    /// Starts a token's draws over a table of `slots` slots: no slot is
    /// marked as drawn.
    #[inline(always)]
    fn new_draws(&mut self, slots: usize) {
        if self.marks.len() < slots {
            self.marks.resize(slots, [0, 0]);
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.marks.fill([0, 0]);
            self.stamp = 1;
        }
    }

    /// The entry of `slot` when this token drew it already; else marks it
    /// as drawn into the next entry.
    #[inline(always)]
    fn drawn(&mut self, slot: u32) -> Option<usize> {
        let next = self.entries.len() as u32;
        let mark = &mut self.marks[slot as usize];
        if mark[0] == self.stamp {
            return Some(mark[1] as usize);
        }
        *mark = [self.stamp, next];
        None
    }
}

impl<R: Rows> Net<'_, R> {
    /// Copies prototype `slot` into `dst`.
    #[inline(always)]
    pub fn read_proto(&self, slot: u32, dst: &mut [f32]) {
        self.protos.read_row(slot as usize, dst);
    }

    /// `−‖p_slot − p‖² / 2` ([`momentum::half_sq_distance`]).
    #[inline(always)]
    pub fn distance(&self, slot: u32, p: &[f32]) -> f64 {
        half_sq_distance_row(&self.protos, slot as usize, p)
    }

    /// Times `slot` was selected.
    pub fn selected(&self, slot: u32) -> u32 {
        self.selections[slot as usize].load(Ordering::Relaxed)
    }

    /// Counts a selection of `slot`.
    #[inline(always)]
    pub fn select(&self, slot: u32) {
        self.selections[slot as usize].fetch_add(1, Ordering::Relaxed);
    }

    /// True when `window` holds no start prototype: the prediction then
    /// comes from `n` words of context. Only these are kept for placing new
    /// prototypes: every sentence-initial prediction is the same point, and
    /// the first few carry little of the sentence, so they would otherwise
    /// form clusters of sentence position rather than of meaning.
    #[inline(always)]
    pub fn full_context(&self, window: &[u32]) -> bool {
        window
            .iter()
            .all(|&slot| self.layout.owner(slot) != NO_WORD)
    }

    /// `x = [p_window; 1]`, `h = [tanh(U x); 1]`, `p̂ = tanh(W h)`, with
    /// libm's `tanh`.
    #[inline(always)]
    pub fn forward(&self, window: &[u32], s: &mut Scratch) {
        self.forward_with(window, Math::Libm, s);
    }

    /// [`Net::forward`] with the `tanh` of `math`: each layer's dot
    /// products first, then its `tanh` as one pass over them (vectorised
    /// with [`Math::Fast`]; with libm the same values as a call per dot).
    #[inline(always)]
    pub fn forward_with(&self, window: &[u32], math: Math, s: &mut Scratch) {
        let (d, hid) = (self.shape.dim, self.shape.hidden);
        for (j, &slot) in window.iter().enumerate() {
            self.read_proto(slot, &mut s.x[j * d..(j + 1) * d]);
        }
        *s.x.last_mut().unwrap() = 1.0;
        for i in 0..hid {
            s.h[i] = self.u.dot_row(Portable, i, &s.x);
        }
        tanh_all(math, &mut s.h[..hid]);
        *s.h.last_mut().unwrap() = 1.0;
        for j in 0..d {
            s.p[j] = self.w.dot_row(Portable, j, &s.h);
        }
        tanh_all(math, &mut s.p);
    }

    /// Fills the entries of target word `t`'s prototypes, then of the other
    /// prototypes: all of them when `sample` is 0 or at least their number,
    /// else `sample` draws (with replacement): uniform among the other
    /// prototypes, each standing for `others / sample` of them, or with a
    /// [`Proposal`] a word `w ≠ t` from it and one of its prototypes
    /// uniformly, standing for `(1 − Q(t)) |w| / (sample Q(w))`. Either way
    /// `Σ scale · q` is an unbiased estimate of the others' part of `Z`.
    /// Values are `−‖p_k − p̂‖²/2`. With [`Draws::Merged`] a slot drawn
    /// again adds its draw to its entry's scale instead of a new entry.
    ///
    /// The slots are all drawn first and their distances taken after, each
    /// row asked for 8 entries before its turn (`AHEAD`): the rows come from
    /// random places in a table larger than the cache.
    #[inline(always)]
    pub fn entries(
        &self,
        t: u32,
        sample: usize,
        draws: Draws,
        rng: &mut impl RngExt,
        s: &mut Scratch,
    ) {
        s.entries.clear();
        let merge = draws == Draws::Merged;
        if merge {
            s.new_draws(self.layout.slots());
        }
        let own = self.layout.of(t);
        for slot in own.clone() {
            s.entries.push(Entry {
                slot,
                target: true,
                scale: 1.0,
                value: 1.0,
            });
        }
        let active = self.layout.active();
        let others = active.len() - own.len();
        if sample == 0 || sample >= others {
            for &slot in active {
                if !own.contains(&slot) {
                    self.push_other(slot, 1.0, s);
                }
            }
        } else if let Some(q) = self.proposal {
            let rest = (1.0 - q.prob(t)) / sample as f64;
            for _ in 0..sample {
                let w = q.other(t, rng);
                let of = self.layout.of(w);
                let n = of.len();
                let k = if n > 1 { rng.random_range(0..n) } else { 0 };
                let slot = of.start + k as u32;
                if merge && Self::again(slot, s) {
                    continue;
                }
                let scale = rest * n as f64 / q.prob(w);
                self.push_other(slot, scale, s);
            }
        } else {
            let scale = others as f64 / sample as f64;
            let mut drawn = 0;
            while drawn < sample {
                let slot = active[rng.random_range(0..active.len())];
                if !own.contains(&slot) {
                    if !(merge && Self::again(slot, s)) {
                        self.push_other(slot, scale, s);
                    }
                    drawn += 1;
                }
            }
        }
        for k in 0..s.entries.len() {
            if let Some(e) = s.entries.get(k + AHEAD) {
                self.protos.prefetch(e.slot as usize);
            }
            let e = &mut s.entries[k];
            // Times the draws (1 unless merged: exact, the same bits).
            e.scale *= e.value;
            e.value = self.distance(e.slot, &s.p);
        }
    }

    /// True when this token drew `slot` already: its entry counts one more
    /// draw ([`Draws::Merged`]). Else the slot is marked for the next entry.
    #[inline(always)]
    fn again(slot: u32, s: &mut Scratch) -> bool {
        match s.drawn(slot) {
            Some(i) => {
                s.entries[i].value += 1.0;
                true
            }
            None => false,
        }
    }

    /// Adds an entry for another word's prototype, drawn once so far (its
    /// value becomes its distance later).
    #[inline(always)]
    fn push_other(&self, slot: u32, scale: f64, s: &mut Scratch) {
        s.entries.push(Entry {
            slot,
            target: false,
            scale,
            value: 1.0,
        });
    }

    /// The posterior `r` of the target word's prototypes (eq. 33) from the
    /// entries' values `−‖p_k − p̂‖²/2`, into `s.posterior` (slot order).
    #[inline(always)]
    pub fn target_posterior(&self, s: &mut Scratch) {
        s.posterior.clear();
        let own = s.entries.iter().take_while(|e| e.target);
        let top = own
            .clone()
            .map(|e| e.value)
            .fold(f64::NEG_INFINITY, f64::max);
        s.posterior.extend(own.map(|e| (e.value - top).exp()));
        let sum: f64 = s.posterior.iter().sum();
        s.posterior.iter_mut().for_each(|r| *r /= sum);
    }

    /// Makes the target word's `k`-th prototype the only target: its other
    /// prototypes become competitors like the other words' (scale 1).
    #[inline(always)]
    pub fn keep_target(&self, k: usize, s: &mut Scratch) {
        s.entries
            .iter_mut()
            .take_while(|e| e.target)
            .enumerate()
            .for_each(|(i, e)| e.target = i == k);
    }

    /// From the entries' distances: the loss `ln Z − ln S`, the posterior
    /// `r` of the target's prototypes, each entry's gradient coefficient
    /// (`r_k − π_k` for the target's, `−π_k` for the others, `π_k` the
    /// scaled share of `Z`) and `∂ℓ/∂p̂ = −Σ_k coef_k (p_k − p̂)`.
    /// With libm's `exp`.
    #[inline(always)]
    pub fn gradient(&self, s: &mut Scratch) -> f64 {
        self.gradient_then(None, Math::Libm, s)
    }

    /// [`Net::gradient`] with the `exp` of `math`.
    #[inline(always)]
    pub fn gradient_with(&self, math: Math, s: &mut Scratch) -> f64 {
        self.gradient_then(None, math, s)
    }

    /// [`Net::gradient`], each entry's prototype taking its momentum step
    /// (rate `lr`, momentum `mu`) as soon as its term is summed, while its
    /// row is in the cache; [`Net::apply`] with `entries_stepped` then skips
    /// them. Only for entries of distinct slots ([`Draws::Merged`]): the
    /// sum must read every row before any step, so a slot drawn twice
    /// would read its own step. On distinct slots the same bits as
    /// [`Net::gradient`] then [`Net::apply`]: no row is read after it is
    /// stepped, and the dense layers' steps touch other tables.
    #[inline(always)]
    pub fn gradient_and_step(&self, lr: f32, mu: f32, math: Math, s: &mut Scratch) -> f64 {
        self.gradient_then(Some((lr, mu)), math, s)
    }

    #[inline(always)]
    fn gradient_then(&self, step: Option<(f32, f32)>, math: Math, s: &mut Scratch) -> f64 {
        let top = s
            .entries
            .iter()
            .map(|e| e.value)
            .fold(f64::NEG_INFINITY, f64::max);
        match math {
            Math::Libm => s
                .entries
                .iter_mut()
                .for_each(|e| e.value = (e.value - top).exp()),
            Math::Fast => {
                // Apart from the entries so that the pass is vectorised.
                s.shifted.clear();
                s.shifted.extend(s.entries.iter().map(|e| e.value - top));
                fast_math::exp_all(&mut s.shifted);
                for (e, &q) in s.entries.iter_mut().zip(&s.shifted) {
                    e.value = q;
                }
            }
        }
        let (mut mass, mut z) = (0.0, 0.0);
        for e in s.entries.iter() {
            if e.target {
                mass += e.value;
            }
            z += e.scale * e.value;
        }
        s.posterior.clear();
        let g = &mut s.acc;
        g.fill(0.0);
        for k in 0..s.entries.len() {
            if let (Some(next), Some(_)) = (s.entries.get(k + AHEAD), step) {
                self.proto_vel.prefetch(next.slot as usize);
            }
            let e = &mut s.entries[k];
            let pi = e.scale * e.value / z;
            let coef = if e.target {
                let r = e.value / mass;
                s.posterior.push(r);
                r - pi
            } else {
                -pi
            };
            e.value = coef;
            let slot = e.slot as usize;
            momentum::sub_scaled_diff_row(&self.protos, slot, coef, &s.p, g);
            if let Some((lr, mu)) = step {
                let c = coef as f32;
                step_toward_row(&self.protos, &self.proto_vel, slot, c, &s.p, lr, mu);
            }
        }
        for (o, g) in s.g_p.iter_mut().zip(s.acc.iter()) {
            *o = *g as f32;
        }
        z.ln() - mass.ln()
    }

    /// Backpropagates `∂ℓ/∂p̂` through both tanh layers and into the input.
    #[inline(always)]
    pub fn backprop(&self, s: &mut Scratch) {
        let (d, hid) = (self.shape.dim, self.shape.hidden);
        for j in 0..d {
            s.delta_o[j] = s.g_p[j] * (1.0 - s.p[j] * s.p[j]);
        }
        s.delta_h.fill(0.0);
        for j in 0..d {
            // `delta_h` is `hid` long: the bias column is left out.
            self.w.add_row_to(Portable, j, s.delta_o[j], &mut s.delta_h);
        }
        for i in 0..hid {
            s.delta_h[i] *= 1.0 - s.h[i] * s.h[i];
        }
        s.g_x.fill(0.0);
        for i in 0..hid {
            // `g_x` is `n d` long: the bias column is left out.
            self.u.add_row_to(Portable, i, s.delta_h[i], &mut s.g_x);
        }
    }

    /// One momentum step `v ← μ v − lr g; θ ← θ + v` on every parameter the
    /// token touched: the prediction layer, the hidden layer, the output
    /// prototypes of the entries (steps 2 and 3) unless `entries_stepped`
    /// ([`Net::gradient_and_step`] took their steps), the input prototypes.
    #[inline(always)]
    pub fn apply(&self, window: &[u32], lr: f32, mu: f32, entries_stepped: bool, s: &mut Scratch) {
        let (d, hid) = (self.shape.dim, self.shape.hidden);
        for j in 0..d {
            step_row(&self.w, &self.w_vel, j, s.delta_o[j], &s.h, lr, mu);
        }
        for i in 0..hid {
            step_row(&self.u, &self.u_vel, i, s.delta_h[i], &s.x, lr, mu);
        }
        let entries = if entries_stepped { &[][..] } else { &s.entries };
        for (k, e) in entries.iter().enumerate() {
            // The prototypes were just read; their velocities were not.
            if let Some(next) = entries.get(k + AHEAD) {
                self.proto_vel.prefetch(next.slot as usize);
            }
            let (slot, c) = (e.slot as usize, e.value as f32);
            step_toward_row(&self.protos, &self.proto_vel, slot, c, &s.p, lr, mu);
        }
        for (j, &slot) in window.iter().enumerate() {
            let g = &s.g_x[j * d..(j + 1) * d];
            step_row(&self.protos, &self.proto_vel, slot as usize, 1.0, g, lr, mu);
        }
    }
}
