//! The KUBWE [`Trainer`]: sweeps over the vocabulary cut into steps of
//! consecutive words.
//!
//! A step computes the new vectors of its words from the current matrix (in
//! parallel: blocks of [`BLOCK`] words for the exact forces, single words for
//! the fast ones) and then writes them back, so the words of one step move
//! together (Jacobi) and later steps see the moved words (Gauss–Seidel
//! between steps). The authors' code updates words in place from all threads
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

use ndarray::{s, Array2, ArrayView2};
use rand::seq::index::sample;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;

use super::affinity::Affinity;
use super::exact::{block_forces, BlockOut, BlockScratch, BLOCK};
use super::fast::row_forces;
use super::init::random_sphere;
use super::objective::row_energies;
use super::update::move_word;
use super::vptree::{splitmix, Bound, NeighborHeap, VpTree};
use super::{Repulsion, Settings};
use crate::embedding::Embedding;
use crate::train::{ScoreView, StepReport, Trainer, Value};
use crate::words::WordIndex;
use crate::{Error, Result};

/// Flops a step aims at.
const STEP_FLOPS: f64 = (1u64 << 30) as f64;

/// Words per parallel task in the fast variant.
const FAST_CHUNK: usize = 8;

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
}

/// A KUBWE run in progress.
#[derive(Debug)]
pub struct KubweTrainer {
    settings: Settings,
    index: WordIndex,
    a: Affinity,
    y: Array2<f32>,
    next: Array2<f32>,
    ids: Vec<u32>,
    seed: u64,
    rows_per_step: usize,
    steps_per_sweep: u64,
    // exact
    scratch: Vec<BlockScratch>,
    attraction: Vec<f64>,
    repulsion: Vec<f64>,
    step_energy: Vec<f64>,
    row_energy: Vec<f64>,
    energy_sum: f64,
    filled: usize,
    // fast
    tree: Option<VpTree>,
    sample: Vec<u32>,
    sample_loss: f64,
    stats: FastStats,
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
        let y = random_sphere(n, dim, seed);
        let exact = matches!(settings.repulsion, Repulsion::Exact);
        let blocks = if exact {
            rows_per_step.div_ceil(BLOCK)
        } else {
            0
        };
        let forces = if exact { rows_per_step * dim } else { 0 };
        let sample = match settings.repulsion {
            Repulsion::Exact => Vec::new(),
            Repulsion::Nearest { .. } => loss_sample(n, settings.loss_sample, seed),
        };
        Ok(KubweTrainer {
            index,
            y,
            next: Array2::zeros((rows_per_step, dim)),
            ids: (0..n as u32).collect(),
            seed,
            rows_per_step,
            steps_per_sweep,
            scratch: (0..blocks).map(|_| BlockScratch::new(n, dim)).collect(),
            attraction: vec![0.0; forces],
            repulsion: vec![0.0; forces],
            step_energy: vec![0.0; if exact { rows_per_step } else { 0 }],
            row_energy: vec![0.0; if exact { n } else { 0 }],
            energy_sum: 0.0,
            filled: 0,
            tree: None,
            sample,
            sample_loss: f64::NAN,
            stats: FastStats::default(),
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

    /// Timings of the fast variant so far.
    pub fn fast_stats(&self) -> FastStats {
        self.stats
    }

    /// The words of slice `k` of a sweep.
    fn slice(&self, k: u64) -> std::ops::Range<usize> {
        let n = self.ids.len();
        let start = k as usize * self.rows_per_step;
        start.min(n)..(start + self.rows_per_step).min(n)
    }

    /// Exact step: forces in blocks, moves into `next`, energies recorded.
    fn exact_step(&mut self, range: std::ops::Range<usize>, lr: f64) -> f64 {
        let dim = self.settings.dim;
        let (a, y) = (&self.a, self.y.view());
        let (kernel, rule) = (self.settings.kernel, self.settings.update);
        let rows = &self.ids[range.clone()];
        let next = self.next.as_slice_mut().expect("standard layout");
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

    /// Fast step: rebuilds the tree / sampled loss at a sweep's start, then
    /// moves each word by its k-NN forces.
    fn fast_step(
        &mut self,
        range: std::ops::Range<usize>,
        lr: f64,
        sweep: u64,
        first: bool,
    ) -> f64 {
        let Repulsion::Nearest { k, bound, rebuild } = self.settings.repulsion else {
            unreachable!("fast_step on an exact run")
        };
        let (n, dim) = self.y.dim();
        if first && (self.tree.is_none() || sweep.is_multiple_of(rebuild.max(1) as u64)) {
            let t = Instant::now();
            self.tree = Some(VpTree::build(self.y.view(), splitmix(self.seed ^ sweep)));
            self.stats.builds += 1;
            self.stats.build_seconds += t.elapsed().as_secs_f64();
        }
        if first && !self.sample.is_empty() {
            let t = Instant::now();
            let e = row_energies(&self.a, self.y.view(), &self.sample, self.settings.kernel);
            self.sample_loss = 0.5 * e.iter().sum::<f64>() / e.len() as f64;
            self.stats.loss_seconds += t.elapsed().as_secs_f64();
        }
        let k = resolve_k(k, n);
        let bound = bound.resolve(dim);
        let tree = self.tree.as_ref().expect("built above");
        let (a, y) = (&self.a, self.y.view());
        let (kernel, rule) = (self.settings.kernel, self.settings.update);
        let rows = &self.ids[range.clone()];
        let next = self.next.as_slice_mut().expect("standard layout");
        let visited: usize = rows
            .par_chunks(FAST_CHUNK)
            .zip(next.par_chunks_mut(FAST_CHUNK * dim))
            .map_init(
                || (NeighborHeap::new(k), vec![0.0f64; dim], vec![0.0f64; dim]),
                |(heap, v1, v2), (block, out)| {
                    let mut visited = 0;
                    for (r, &i) in block.iter().enumerate() {
                        let i = i as usize;
                        visited += row_forces(a, y, i, tree, k, bound, kernel, heap, v1, v2);
                        let yi = y.row(i);
                        let yi = yi.as_slice().expect("standard layout");
                        move_word(yi, v1, v2, lr, rule, &mut out[r * dim..(r + 1) * dim]);
                    }
                    visited
                },
            )
            .sum();
        self.stats.visited += visited as u64;
        self.stats.searches += rows.len() as u64;
        self.sample_loss
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
        let range = self.slice(k);
        let loss = match self.settings.repulsion {
            Repulsion::Exact => self.exact_step(range.clone(), lr),
            Repulsion::Nearest { .. } => self.fast_step(range.clone(), lr, sweep, k == 0),
        };
        let len = range.len();
        self.y
            .slice_mut(s![range, ..])
            .assign(&self.next.slice(s![..len, ..]));
        Ok(StepReport {
            loss,
            items: len as u64,
            epoch: sweep as u32,
            lr,
        })
    }

    fn set(&mut self, name: &str, value: &Value) -> Result<()> {
        match (name, value) {
            ("lr", Value::Float(lr)) => {
                self.settings.lr = *lr;
                Ok(())
            }
            _ => Err(Error::param(name, "cannot be changed during a run")),
        }
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
        Repulsion::Nearest { k, .. } => {
            8.0 * d * (resolve_k(k, n) as f64 + (n as f64).log2() + 16.0)
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
    pub fn resolve(self, dim: usize) -> Bound {
        match self {
            super::SearchBound::Thesis => Bound::thesis(dim),
            super::SearchBound::Exact => Bound::Exact,
        }
    }
}
