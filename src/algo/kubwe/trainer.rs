//! The KUBWE [`Trainer`]: sweeps over the vocabulary cut into steps of
//! consecutive words.
//!
//! A step computes the new vectors of its words from the current matrix (in
//! parallel: blocks of [`BLOCK`] words for the exact forces, groups of
//! [`GROUP`] words searched in one tree traversal for the fast ones) and then
//! writes them back, so the words of one step move together (Jacobi) and
//! later steps see the moved words (Gauss–Seidel between steps). The exact
//! variant visits the words in id order, the fast one in the tree's preorder
//! (a group's words are near each other, so their searches share most
//! nodes). The authors' code updates words in place from all threads
//! (Hogwild); this order gives the same kind of sweep but the result does not
//! depend on the number of threads — a run is bit-for-bit reproducible from
//! its seed. Step sizes are chosen from the cost model so that a step is
//! about 10⁹ flops (~0.1 s).
//!
//! Loss per step, per word:
//! - `kubwe`: `½ mean_i e_i` with every row energy taken exactly when its word
//!   was last visited (this sweep or, for rows not yet reached, the previous
//!   one; in the first sweep the mean runs over the rows visited so far);
//! - `kubwe-fast`: the same quantity on a fixed random sample of rows,
//!   computed exactly at the start of each sweep.

use std::time::Instant;

use ndarray::{Array2, ArrayView2};
use rand::seq::index::sample;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;

use super::affinity::Affinity;
use super::exact::{block_forces, BlockOut, BlockScratch, BLOCK};
use super::fast::{FarField, FarScratch, Moments, Search};
use super::objective::row_energies;
use super::update::move_word;
use super::vptree::{brute_force, splitmix, Bound, NeighborHeap, Query, VpTree, GROUP};
use super::{Repulsion, Settings};
use crate::embedding::Embedding;
use crate::geometry::random::random_sphere;
use crate::schema::Params;
use crate::train::{ScoreView, StepReport, Trainer};
use crate::words::WordIndex;
use crate::{Error, Result};

/// Flops a step aims at.
const STEP_FLOPS: f64 = (1u64 << 30) as f64;

/// Timings and counts of the fast variant, for benchmarks.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FastStats {
    /// Tree builds so far.
    pub builds: u64,
    /// Seconds spent building trees.
    pub build_seconds: f64,
    /// Seconds spent in the sampled loss.
    pub loss_seconds: f64,
    /// Tree nodes visited by all searches.
    pub visited: u64,
    /// Searches made.
    pub searches: u64,
    /// Recall@k of the search at the last sweep's start, on [`RECALL_ROWS`]
    /// sampled words against brute force on the same vectors (`NaN` before).
    pub recall: f64,
    /// Sum of the per-sweep recalls (mean = `recall_sum / recall_sweeps`).
    pub recall_sum: f64,
    /// Sweeps whose recall was checked.
    pub recall_sweeps: u64,
}

/// Words whose search is checked against brute force at each fast sweep's
/// start (`O(RECALL_ROWS · V d)`, well under 1% of a sweep).
pub const RECALL_ROWS: usize = 32;

/// A KUBWE run in progress.
#[derive(Debug)]
pub struct KubweTrainer {
    settings: Settings,
    index: WordIndex,
    a: Affinity,
    y: Array2<f32>,
    next: Array2<f32>,
    /// Visiting order: word ids (identity for the exact variant, the tree's
    /// preorder for the fast one, so that consecutive searches share nodes).
    order: Vec<u32>,
    seed: u64,
    rows_per_step: usize,
    steps_per_sweep: u64,
    sweep: u64,
    variant: Variant,
}

/// What each variant keeps between steps.
#[derive(Debug)]
enum Variant {
    /// `kubwe`: repulsion from every word.
    Exact(ExactState),
    /// `kubwe-fast`: repulsion from the `k` nearest (plus far-field draws).
    Fast(Box<FastState>),
}

/// The exact variant's buffers: one step's forces, and each row's energy
/// when its word was last visited (the loss).
#[derive(Debug)]
struct ExactState {
    scratch: Vec<BlockScratch>,
    attraction: Vec<f64>,
    repulsion: Vec<f64>,
    step_energy: Vec<f64>,
    row_energy: Vec<f64>,
    energy_sum: f64,
    filled: usize,
}

/// The fast variant's search settings (resolved for this vocabulary), tree,
/// neighbour lists, far-field moments and sampled loss.
#[derive(Debug)]
struct FastState {
    /// Neighbours per word.
    k: usize,
    bound: Bound,
    /// Rebuild the tree every this many sweeps.
    rebuild: usize,
    /// Far-field draws per word and sweep.
    far: usize,
    tree: Option<VpTree>,
    /// Rows of the sampled loss.
    sample: Vec<u32>,
    sample_loss: f64,
    moments: Moments,
    /// Moved rows' previous values (for the moments' update; empty without far field).
    moved: Array2<f32>,
    /// Each word's `k` neighbours of the last sweep, nearest first (`n × k`,
    /// `u32::MAX` = none yet), when searches start warm.
    lists: Vec<u32>,
    /// The step's search results when warm, in visiting order
    /// (`rows_per_step × k`; then copied into `lists`).
    found: Vec<u32>,
    /// Words whose search recall is checked each sweep.
    check: Vec<u32>,
    /// The log line of the last sweep's check, until the job takes it.
    note: Option<String>,
    stats: FastStats,
}

/// What a step reads: the matrix, the vectors, the kernel and update rule.
struct StepInput<'a> {
    a: &'a Affinity,
    y: ArrayView2<'a, f32>,
    settings: &'a Settings,
    lr: f64,
}

impl KubweTrainer {
    /// A trainer for the words of `index` on the matrix `a`, vectors drawn
    /// from `seed`.
    pub fn new(settings: Settings, index: WordIndex, a: Affinity, seed: u64) -> Result<Self> {
        let n = a.len();
        if n != index.len() {
            return Err(Error::param(
                "affinity",
                format!("{n} rows for {} words", index.len()),
            ));
        }
        if n < 2 {
            return Err(Error::param(
                "corpus",
                format!("{n} word(s) in the vocabulary: KUBWE needs at least 2"),
            ));
        }
        if a.nnz() == 0 {
            return Err(Error::param(
                "corpus",
                "no positive PPMI cell: no two words co-occur more than chance within the window",
            ));
        }
        let dim = settings.dim;
        let rows_per_step = rows_per_step(&settings, n);
        let steps_per_sweep = n.div_ceil(rows_per_step) as u64;
        let variant = match settings.repulsion {
            Repulsion::Exact => Variant::Exact(ExactState::new(n, dim, rows_per_step)),
            Repulsion::Nearest {
                k,
                bound,
                rebuild,
                warm,
                far,
            } => {
                let k = resolve_k(k, n);
                Variant::Fast(Box::new(FastState {
                    k,
                    bound: bound.resolve(dim),
                    rebuild: rebuild.max(1),
                    far,
                    tree: None,
                    sample: loss_sample(n, settings.loss_sample, seed),
                    sample_loss: f64::NAN,
                    moments: Moments::new(dim),
                    moved: Array2::zeros((if far > 0 { rows_per_step } else { 0 }, dim)),
                    lists: if warm {
                        vec![u32::MAX; n * k]
                    } else {
                        Vec::new()
                    },
                    found: vec![u32::MAX; rows_per_step * k],
                    check: loss_sample(n, RECALL_ROWS, seed ^ 0x7265_6361_6c6c),
                    note: None,
                    stats: FastStats {
                        recall: f64::NAN,
                        ..FastStats::default()
                    },
                }))
            }
        };
        Ok(KubweTrainer {
            index,
            y: random_sphere(n, dim, seed),
            next: Array2::zeros((rows_per_step, dim)),
            order: (0..n as u32).collect(),
            seed,
            rows_per_step,
            steps_per_sweep,
            sweep: 0,
            variant,
            settings,
            a,
        })
    }

    /// Steps in one sweep over the vocabulary.
    pub fn steps_per_sweep(&self) -> u64 {
        self.steps_per_sweep
    }

    /// Words moved together in one step.
    pub fn rows_per_step(&self) -> usize {
        self.rows_per_step
    }

    /// The current vectors (unit rows).
    pub fn vectors(&self) -> ArrayView2<'_, f32> {
        self.y.view()
    }

    /// The input matrix.
    pub fn affinity(&self) -> &Affinity {
        &self.a
    }

    /// The settings of the run (with `lr` as last set).
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Timings of the fast variant so far (empty for the exact one).
    pub fn fast_stats(&self) -> FastStats {
        match &self.variant {
            Variant::Fast(f) => f.stats,
            Variant::Exact(_) => FastStats {
                recall: f64::NAN,
                ..FastStats::default()
            },
        }
    }

    /// The words of slice `k` of a sweep.
    fn slice(&self, k: u64) -> std::ops::Range<usize> {
        let n = self.order.len();
        let start = k as usize * self.rows_per_step;
        start.min(n)..(start + self.rows_per_step).min(n)
    }
}

impl ExactState {
    fn new(n: usize, dim: usize, rows_per_step: usize) -> Self {
        ExactState {
            scratch: (0..rows_per_step.div_ceil(BLOCK))
                .map(|_| BlockScratch::new(n, dim))
                .collect(),
            attraction: vec![0.0; rows_per_step * dim],
            repulsion: vec![0.0; rows_per_step * dim],
            step_energy: vec![0.0; rows_per_step],
            row_energy: vec![0.0; n],
            energy_sum: 0.0,
            filled: 0,
        }
    }

    /// Forces in blocks for the words `order[range]`, moves into `next`,
    /// energies recorded; returns the loss.
    fn step(
        &mut self,
        input: &StepInput,
        order: &[u32],
        range: std::ops::Range<usize>,
        next: &mut [f32],
    ) -> f64 {
        let StepInput { a, y, settings, lr } = *input;
        let dim = settings.dim;
        let (kernel, rule) = (settings.kernel, settings.update);
        let rows = &order[range.clone()];
        self.scratch
            .par_iter_mut()
            .zip(rows.par_chunks(BLOCK))
            .zip(self.attraction.par_chunks_mut(BLOCK * dim))
            .zip(self.repulsion.par_chunks_mut(BLOCK * dim))
            .zip(self.step_energy.par_chunks_mut(BLOCK))
            .zip(next.par_chunks_mut(BLOCK * dim))
            .for_each(|(((((scratch, block), v1), v2), energy), out)| {
                let out_forces = BlockOut {
                    attraction: v1,
                    repulsion: v2,
                    energy,
                };
                block_forces(a, y, block, kernel, true, scratch, out_forces);
                for (r, &i) in block.iter().enumerate() {
                    let at = r * dim..(r + 1) * dim;
                    let yi = y.row(i as usize);
                    move_word(
                        yi.as_slice().expect("standard layout"),
                        &v1[at.clone()],
                        &v2[at.clone()],
                        lr,
                        rule,
                        &mut out[at],
                    );
                }
            });
        for (r, i) in range.clone().enumerate() {
            self.energy_sum += self.step_energy[r] - self.row_energy[i];
            self.row_energy[i] = self.step_energy[r];
        }
        self.filled = self.filled.max(range.end);
        0.5 * self.energy_sum / self.filled as f64
    }
}

impl FastState {
    /// At a sweep's start: rebuilds the tree (every `rebuild` sweeps), takes
    /// its preorder as the visiting order, computes the moments (far
    /// field), checks the search's recall and computes the sampled loss.
    fn prepare_sweep(&mut self, input: &StepInput, order: &mut [u32], seed: u64, sweep: u64) {
        if self.tree.is_none() || sweep.is_multiple_of(self.rebuild as u64) {
            let t = Instant::now();
            let tree = VpTree::build(input.y, splitmix(seed ^ sweep));
            order.copy_from_slice(tree.ids());
            self.tree = Some(tree);
            self.stats.builds += 1;
            self.stats.build_seconds += t.elapsed().as_secs_f64();
        }
        if self.far > 0 {
            self.moments.compute(input.y);
        }
        self.check_recall(input, sweep);
        if !self.sample.is_empty() {
            let t = Instant::now();
            let e = row_energies(input.a, input.y, &self.sample, input.settings.kernel);
            self.sample_loss = 0.5 * e.iter().sum::<f64>() / e.len() as f64;
            self.stats.loss_seconds += t.elapsed().as_secs_f64();
        }
    }

    /// Recall@k of this sweep's search (warm from the stored lists if the
    /// run is warm) on the check words, against brute force.
    fn check_recall(&mut self, input: &StepInput, sweep: u64) {
        let (a, y) = (input.a, input.y);
        let k = self.k;
        let search = Search {
            tree: self.tree.as_ref().expect("built at the sweep's start"),
            k,
            bound: self.bound,
            kernel: input.settings.kernel,
            far: FarField::OFF,
            seeds: (!self.lists.is_empty()).then_some(&self.lists[..]),
        };
        let mut heap = NeighborHeap::new(k);
        let (mut hits, mut total) = (0usize, 0usize);
        for &i in &self.check {
            let query = Query {
                point: y.row(i as usize).to_slice().expect("standard layout"),
                id: Some(i),
                exclude: a.row(i as usize).0,
            };
            search.neighbours(
                std::slice::from_ref(&query),
                std::slice::from_mut(&mut heap),
            );
            let mut truth: Vec<u32> = brute_force(y, &query, k).iter().map(|nb| nb.id).collect();
            truth.sort_unstable();
            total += truth.len();
            hits += heap
                .iter()
                .filter(|nb| truth.binary_search(&nb.id).is_ok())
                .count();
        }
        if total > 0 {
            let recall = hits as f64 / total as f64;
            self.stats.recall = recall;
            self.stats.recall_sum += recall;
            self.stats.recall_sweeps += 1;
            let distances = if self.stats.searches > 0 {
                format!(
                    ", {:.0} distances per search so far",
                    self.stats.visited as f64 / self.stats.searches as f64
                )
            } else {
                String::new()
            };
            self.note = Some(format!(
                "kubwe-fast sweep {}: search recall@{k} {recall:.2} on {} words vs brute force{distances}",
                sweep + 1,
                self.check.len()
            ));
        }
    }

    /// Moves each word of `rows` by its k-NN forces into `next`; returns
    /// the sampled loss of the sweep's start.
    fn step(
        &mut self,
        input: &StepInput,
        rows: &[u32],
        next: &mut [f32],
        seed: u64,
        sweep: u64,
    ) -> f64 {
        let StepInput { a, y, settings, lr } = *input;
        let (k, dim) = (self.k, settings.dim);
        let (kernel, rule) = (settings.kernel, settings.update);
        let far = FarField {
            samples: self.far,
            seed: splitmix(seed ^ 0x6661_725f_6669_656c ^ splitmix(sweep + 1)),
            moments: Some(&self.moments),
        };
        let warm = !self.lists.is_empty();
        let search = Search {
            tree: self.tree.as_ref().expect("built at the sweep's start"),
            k,
            bound: self.bound,
            kernel,
            far,
            seeds: warm.then_some(&self.lists[..]),
        };
        let visited: usize = rows
            .par_chunks(GROUP)
            .zip(next.par_chunks_mut(GROUP * dim))
            .zip(self.found.par_chunks_mut((GROUP * k).max(1)))
            .map_init(
                || {
                    let heaps = vec![NeighborHeap::new(k); GROUP];
                    let far = FarScratch::default();
                    (
                        heaps,
                        far,
                        vec![0.0f64; GROUP * dim],
                        vec![0.0f64; GROUP * dim],
                        Vec::with_capacity(k),
                    )
                },
                |(heaps, far, v1, v2, sorted), ((group, out), found)| {
                    let visited = search.forces(a, y, group, heaps, far, v1, v2);
                    let kept = if warm { group.len() } else { 0 };
                    for (heap, slot) in heaps.iter().take(kept).zip(found.chunks_mut(k.max(1))) {
                        sorted.clear();
                        sorted.extend(heap.iter().copied());
                        sorted.sort_unstable();
                        slot.fill(u32::MAX);
                        for (s, nb) in slot.iter_mut().zip(sorted.iter()) {
                            *s = nb.id;
                        }
                    }
                    for (r, &i) in group.iter().enumerate() {
                        let at = r * dim..(r + 1) * dim;
                        let yi = y.row(i as usize);
                        let yi = yi.as_slice().expect("standard layout");
                        move_word(yi, &v1[at.clone()], &v2[at.clone()], lr, rule, &mut out[at]);
                    }
                    visited
                },
            )
            .sum();
        if warm {
            for (r, &i) in rows.iter().enumerate() {
                let i = i as usize;
                self.lists[i * k..(i + 1) * k].copy_from_slice(&self.found[r * k..(r + 1) * k]);
            }
        }
        self.stats.visited += visited as u64;
        self.stats.searches += rows.len() as u64;
        self.sample_loss
    }

    /// Keeps the far field's moments in step with the words `rows` about to
    /// move from their rows of `y` to the first rows of `next`.
    fn track_moves(&mut self, y: ArrayView2<f32>, rows: &[u32], next: ArrayView2<f32>) {
        if self.moved.nrows() == 0 {
            return;
        }
        let len = rows.len();
        for (r, &i) in rows.iter().enumerate() {
            self.moved.row_mut(r).assign(&y.row(i as usize));
        }
        self.moments.replace(
            self.moved.slice(ndarray::s![..len, ..]),
            next.slice(ndarray::s![..len, ..]),
        );
    }
}

impl Trainer for KubweTrainer {
    fn total_steps(&self) -> u64 {
        self.settings.sweeps as u64 * self.steps_per_sweep
    }

    fn step(&mut self, step: u64) -> Result<StepReport> {
        let (sweep, k) = (step / self.steps_per_sweep, step % self.steps_per_sweep);
        let lr = self
            .settings
            .decay
            .rate(self.settings.lr, sweep as usize, self.settings.sweeps);
        self.sweep = sweep;
        let range = self.slice(k);
        let input = StepInput {
            a: &self.a,
            y: self.y.view(),
            settings: &self.settings,
            lr,
        };
        let next = self.next.as_slice_mut().expect("standard layout");
        let loss = match &mut self.variant {
            Variant::Exact(exact) => exact.step(&input, &self.order, range.clone(), next),
            Variant::Fast(fast) => {
                if k == 0 {
                    fast.prepare_sweep(&input, &mut self.order, self.seed, sweep);
                }
                let rows = &self.order[range.clone()];
                let loss = fast.step(&input, rows, next, self.seed, sweep);
                fast.track_moves(input.y, rows, self.next.view());
                loss
            }
        };
        for (r, &i) in self.order[range.clone()].iter().enumerate() {
            self.y.row_mut(i as usize).assign(&self.next.row(r));
        }
        Ok(StepReport {
            loss,
            items: range.len() as u64,
            epoch: sweep as u32,
            lr,
        })
    }

    fn take_note(&mut self) -> Option<String> {
        match &mut self.variant {
            Variant::Fast(fast) => fast.note.take(),
            Variant::Exact(_) => None,
        }
    }

    fn set(&mut self, params: &Params) -> Result<()> {
        self.settings.lr = Settings::from_params(params).lr;
        Ok(())
    }

    /// KUBWE has no context vectors: the score of `(w, c)` is the cosine
    /// `y_w · y_c` of the two (unit) word vectors.
    fn scores(&self) -> Option<ScoreView<'_>> {
        Some(ScoreView {
            words: self.y.view(),
            contexts: self.y.view(),
        })
    }

    fn into_embedding(self: Box<Self>) -> Result<Embedding> {
        Embedding::new(self.index, self.y)
    }
}

/// `k` of a run over `n` words (0 = the default rule), capped at `n − 1`.
pub fn resolve_k(k: usize, n: usize) -> usize {
    if k == 0 {
        super::fast::default_k(n)
    } else {
        k.min(n.saturating_sub(1))
    }
}

/// Words per step: about [`STEP_FLOPS`] of work, whole blocks, at most `n`.
fn rows_per_step(settings: &Settings, n: usize) -> usize {
    let d = settings.dim as f64;
    let per_row = match settings.repulsion {
        Repulsion::Exact => 4.0 * n as f64 * d,
        Repulsion::Nearest { k, far, .. } => {
            8.0 * d * (resolve_k(k, n) as f64 + far.min(n) as f64 + (n as f64).log2() + 16.0)
        }
    };
    let rows = (STEP_FLOPS / per_row).ceil() as usize;
    rows.div_ceil(BLOCK).max(1).saturating_mul(BLOCK).min(n)
}

/// The fixed sample of rows for the fast variant's loss (sorted).
fn loss_sample(n: usize, size: usize, seed: u64) -> Vec<u32> {
    let size = size.min(n);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x6c6f_7373_5f73_616d);
    let mut ids: Vec<u32> = sample(&mut rng, n, size)
        .into_iter()
        .map(|i| i as u32)
        .collect();
    ids.sort_unstable();
    ids
}

impl super::SearchBound {
    /// The tree bound for dimension `dim`.
    pub fn resolve(self, dim: usize) -> super::vptree::Bound {
        match self {
            super::SearchBound::Thesis => super::vptree::Bound::thesis(dim),
            super::SearchBound::Exact => super::vptree::Bound::Exact,
        }
    }
}
