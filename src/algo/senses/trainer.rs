//! The [`Trainer`] of `--algo senses`: first the split, a chunk of
//! ambiguous words per step (words in parallel), then the dense truncated
//! SVD of `P` with the sense rows appended, one Lanczos block step per step.
//!
//! Loss: during the split, the mean mass of the largest sense over the
//! words split so far; during the SVD, the worst relative residual (as in
//! the spectral methods). A stop during the split keeps the words split so
//! far and solves the SVD at once.

use std::time::Instant;

use ndarray::Array2;
use rayon::prelude::*;

use super::split::{self, WordSplit};
use super::Settings;
use crate::embedding::{Embedding, Sense, SenseTable};
use crate::linalg::{Csr, EigenConfig, TruncatedSvd, Which};
use crate::train::{ScoreView, StepReport, Trainer};
use crate::words::WordIndex;
use crate::Result;

/// Ambiguous words split per engine step.
const CHUNK: usize = 16;

/// A senses run in progress.
pub struct SensesTrainer {
    p: Csr,
    index: WordIndex,
    settings: Settings,
    seed: u64,
    /// Ambiguous words and their sense counts, most frequent first.
    todo: Vec<(u32, usize)>,
    next: usize,
    splits: Vec<WordSplit>,
    split_secs: f64,
    solver: Option<TruncatedSvd>,
    note: Option<String>,
}

impl SensesTrainer {
    /// A run over the PPMI matrix `p` (rows named by `index`), with `k[i]`
    /// senses for word `i`.
    pub fn new(
        p: Csr,
        index: WordIndex,
        k: Vec<usize>,
        settings: Settings,
        seed: u64,
    ) -> Result<Self> {
        let todo = k
            .iter()
            .enumerate()
            .filter(|&(_, &k)| k >= 2)
            .map(|(i, &k)| (i as u32, k))
            .collect();
        Ok(SensesTrainer {
            p,
            index,
            settings,
            seed,
            todo,
            next: 0,
            splits: Vec::new(),
            split_secs: 0.0,
            solver: None,
            note: None,
        })
    }

    /// Words to split.
    pub fn ambiguous(&self) -> usize {
        self.todo.len()
    }

    /// Senses the split will make (before words with too few contexts are
    /// left whole).
    pub fn planned_senses(&self) -> usize {
        self.todo.iter().map(|&(_, k)| k).sum()
    }

    /// The splits made so far.
    pub fn splits(&self) -> &[WordSplit] {
        &self.splits
    }

    /// Seconds spent splitting.
    pub fn split_seconds(&self) -> f64 {
        self.split_secs
    }

    fn split_steps(&self) -> u64 {
        self.todo.len().div_ceil(CHUNK) as u64
    }

    /// Splits the next `count` ambiguous words, in parallel.
    fn split_next(&mut self, count: usize) -> Result<u64> {
        let t = Instant::now();
        let end = (self.next + count).min(self.todo.len());
        let (p, solver, seed) = (&self.p, self.settings.split, self.seed);
        let done: Vec<Option<WordSplit>> = self.todo[self.next..end]
            .par_iter()
            .map(|&(w, k)| split::split_word(p, w, k, solver, word_seed(seed, w)))
            .collect::<Result<_>>()?;
        self.splits.extend(done.into_iter().flatten());
        let items = (end - self.next) as u64;
        self.next = end;
        self.split_secs += t.elapsed().as_secs_f64();
        Ok(items)
    }

    /// Mean mass of sense `j` (0-based) over the words that have one.
    fn mean_mass(&self, j: usize) -> f64 {
        let masses: Vec<f64> = self
            .splits
            .iter()
            .filter_map(|s| s.senses.get(j).map(|s| s.mass))
            .collect();
        masses.iter().sum::<f64>() / masses.len().max(1) as f64
    }

    fn split_note(&self) -> String {
        let senses: usize = self.splits.iter().map(|s| s.senses.len()).sum();
        let per_1000 = self.split_secs / self.next.max(1) as f64 * 1000.0;
        let masses: Vec<String> = (0..self.settings.rule.max_senses)
            .map(|j| (j, self.mean_mass(j)))
            .filter(|&(_, m)| m > 0.0)
            .map(|(j, m)| format!("#{} {m:.3}", j + 1))
            .collect();
        format!(
            "senses: split {} of {} words into {senses} senses in {:.1}s ({per_1000:.1}s per 1,000 words); mean mass per sense {}",
            self.splits.len(),
            self.next,
            self.split_secs,
            masses.join(", ")
        )
    }

    /// `P` with every sense row appended.
    fn sense_matrix(&self) -> Result<Csr> {
        let (n, cols) = self.p.shape();
        let mut indptr = self.p.indptr().to_vec();
        let mut indices = self.p.indices().to_vec();
        let mut data = self.p.data().to_vec();
        let mut rows = n;
        for s in &self.splits {
            for sense in &s.senses {
                for (&c, &v) in s.columns.iter().zip(&sense.values) {
                    if v > 0.0 {
                        indices.push(c);
                        data.push(v);
                    }
                }
                indptr.push(indices.len());
                rows += 1;
            }
        }
        Csr::new((rows, cols), indptr, indices, data)
    }

    fn start_solve(&mut self) -> Result<()> {
        let s = self.sense_matrix()?;
        let config = EigenConfig {
            tol: self.settings.tol,
            max_steps: self.settings.max_steps,
            seed: self.seed,
            ..EigenConfig::new(self.settings.dim, Which::LargestAlgebraic)
        };
        self.solver = Some(TruncatedSvd::new(s, config)?);
        Ok(())
    }

    /// The sense inventory: names, masses and every context word of
    /// positive weight by decreasing weight (only the `label_contexts`
    /// strongest when that is above 0).
    pub fn sense_table(&self) -> SenseTable {
        let cut = self.settings.label_contexts;
        let mut senses = Vec::new();
        for s in &self.splits {
            let word = self.index.word(s.word);
            for (j, sense) in s.senses.iter().enumerate() {
                let mut order: Vec<usize> = (0..s.columns.len())
                    .filter(|&l| sense.values[l] > 0.0)
                    .collect();
                order.sort_by(|&a, &b| sense.values[b].total_cmp(&sense.values[a]));
                if let Some(cut) = cut {
                    order.truncate(cut);
                }
                senses.push(Sense {
                    name: sense_name(word, j),
                    word: word.to_string(),
                    mass: sense.mass as f32,
                    contexts: order
                        .iter()
                        .map(|&l| {
                            let c = self.index.word(s.columns[l]).to_string();
                            (c, sense.values[l] as f32)
                        })
                        .collect(),
                });
            }
        }
        SenseTable::new(senses).with_whole(cut.is_none())
    }
}

/// The row name of sense `j` (0-based) of `word`: `word#1`, `word#2`...
pub fn sense_name(word: &str, j: usize) -> String {
    format!("{word}#{}", j + 1)
}

/// A per-word seed, so a word's split does not depend on the order or the
/// thread it runs in.
fn word_seed(seed: u64, word: u32) -> u64 {
    seed ^ (u64::from(word) + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

impl Trainer for SensesTrainer {
    fn total_steps(&self) -> u64 {
        self.split_steps() + self.settings.max_steps
    }

    fn step(&mut self, _step: u64) -> Result<StepReport> {
        if self.next < self.todo.len() {
            let items = self.split_next(CHUNK)?;
            if self.next == self.todo.len() {
                self.note = Some(self.split_note());
                self.start_solve()?;
            }
            return Ok(StepReport {
                loss: self.mean_mass(0),
                items,
                epoch: 0,
                lr: 0.0,
            });
        }
        if self.solver.is_none() {
            self.start_solve()?;
        }
        let solver = self.solver.as_mut().expect("solver started");
        let before = solver.status();
        let after = solver.step();
        Ok(StepReport {
            loss: after.worst_residual,
            items: after.matvecs - before.matvecs,
            epoch: after.restarts + 1,
            lr: 0.0,
        })
    }

    fn finished(&self) -> bool {
        self.solver.as_ref().is_some_and(|s| s.status().done)
    }

    fn take_note(&mut self) -> Option<String> {
        self.note.take()
    }

    fn scores(&self) -> Option<ScoreView<'_>> {
        None
    }

    fn into_embedding(mut self: Box<Self>) -> Result<Embedding> {
        if self.solver.is_none() {
            self.start_solve()?;
        }
        let table = self.sense_table();
        let mut words = self.index.words().to_vec();
        words.extend(table.senses().iter().map(|s| s.name.clone()));
        let solver = self.solver.take().expect("solver started");
        // A run stopped during the split (or right after it) solves now; a
        // run stopped during the SVD keeps the current Ritz vectors.
        let svd = if solver.status().steps == 0 {
            solver.solve(|_| {})
        } else {
            solver.finish()
        };
        let u: Array2<f32> = svd.u.mapv(|x| x as f32);
        Ok(Embedding::new(WordIndex::from_words(words), u)?.with_senses(table))
    }
}
