//! PSDVec's statistics, all from [`crate::cooc`]: directional counts, the
//! Jelinek–Mercer target `G*` and the bigram weights `f`, cut into the
//! three pieces the solver reads — the core block (rows and columns
//! `0..core`), and for every noncore word its bigrams with core words in
//! both directions. Noncore × noncore bigrams are never used (\[P\] §5.3).

use sprs::CsMat;

use super::Settings;
use crate::cooc::{
    jelinek_mercer, unigram_probabilities, CountConfig, LogBase, Marginals, Weighting, Window,
};
use crate::{Error, Result};

/// The counting: left-only window of `window` words, every pair counts 1.
pub fn count_config(settings: &Settings) -> CountConfig {
    CountConfig {
        window: Window::left_only(settings.window, Weighting::Uniform),
        max_vocab: settings.max_vocab,
    }
}

/// Sparse rows holding, per cell, the weight `f` and the target `G*`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Cells {
    /// Row starts (`rows + 1` entries).
    pub indptr: Vec<usize>,
    /// Column (core word) of each cell.
    pub indices: Vec<u32>,
    /// Weight `f_ij ∈ [0, 1]`.
    pub w: Vec<f64>,
    /// Target `G*_ij`.
    pub g: Vec<f64>,
}

impl Cells {
    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.indptr.len().saturating_sub(1)
    }

    /// Stored cells.
    pub fn nnz(&self) -> usize {
        self.indices.len()
    }

    /// The cells of row `r`: `(columns, weights, targets)`.
    pub fn row(&self, r: usize) -> (&[u32], &[f64], &[f64]) {
        let s = self.indptr[r]..self.indptr[r + 1];
        (&self.indices[s.clone()], &self.w[s.clone()], &self.g[s])
    }

    fn with_rows(rows: usize) -> Cells {
        Cells {
            indptr: vec![0; rows + 1],
            ..Cells::default()
        }
    }
}

/// Everything the solver needs from the corpus.
#[derive(Debug, Clone)]
pub struct Statistics {
    n: usize,
    core: usize,
    /// Core block `x_ij`, `i, j < core`, as `(f, G*)` cells (diagonal included, `f = 0` there).
    pub core_cells: Cells,
    /// `G*` of the absent cells of each core row (`log κ`, or 0 for a row without counts).
    pub background: Vec<f64>,
    /// Row `r` = noncore word `core + r` *before* core words: cells `(j, f_ij, G*_ij)`.
    pub out_cells: Cells,
    /// Row `r` = core words before noncore word `i = core + r`: cells `(j, f_ji, G*_ji)`.
    pub in_cells: Cells,
    /// Unigram probabilities of the `n` words.
    pub unigram: Vec<f64>,
    /// `C_cut` on the `√count` scale.
    pub c_cut: f64,
}

impl Statistics {
    /// From the directional counts `x` (`n × n`), the vocabulary's word
    /// counts (most frequent first) and the settings.
    pub fn new(x: &CsMat<f64>, word_counts: &[u64], settings: &Settings) -> Result<Statistics> {
        let x = if x.is_csr() { x.clone() } else { x.to_csr() };
        let n = x.rows();
        let core = settings.core.min(n);
        let top_rank = settings.rank_at(0);
        if top_rank >= core {
            return Err(Error::param(
                "dim",
                format!(
                    "rank {top_rank} (dim {} + annealing) for {core} core words; lower dim or raise core",
                    settings.dim
                ),
            ));
        }
        let c_cut = cut_point(&x, settings.cut_quantile).ok_or_else(|| {
            Error::param(
                "corpus",
                "no two different words form a bigram within the window: nothing for psdvec to fit",
            )
        })?;
        let marginals = Marginals::of(&x);
        let unigram = unigram_probabilities(word_counts, n);
        let g = jelinek_mercer(&x, &marginals, &unigram, settings.kappa, LogBase::E)?;
        let weight = |i: usize, j: usize, count: f64| {
            if i == j {
                0.0
            } else {
                (count.sqrt() / c_cut).min(1.0)
            }
        };
        let (xp, xi, xd) = (x.indptr(), x.indices(), x.data());
        let xp = xp.raw_storage();
        let gd = g.matrix.data();
        debug_assert_eq!(g.matrix.indices(), xi);
        let mut core_cells = Cells::with_rows(core);
        let mut out_cells = Cells::with_rows(n - core);
        let mut in_count = vec![0usize; n - core];
        for i in 0..n {
            for k in xp[i]..xp[i + 1] {
                let j = xi[k];
                let (target, r) = if i < core && j < core {
                    (&mut core_cells, i)
                } else if i >= core && j < core {
                    (&mut out_cells, i - core)
                } else {
                    if i < core {
                        in_count[j - core] += 1;
                    }
                    continue;
                };
                target.indices.push(j as u32);
                target.w.push(weight(i, j, xd[k]));
                target.g.push(gd[k]);
                target.indptr[r + 1] = target.indices.len();
            }
            // Rows without cells keep the running end.
            if i < core {
                core_cells.indptr[i + 1] = core_cells.indices.len();
            } else {
                out_cells.indptr[i - core + 1] = out_cells.indices.len();
            }
        }
        // Core rows before noncore words, bucketed by the noncore word (a
        // counting sort: rows come out in increasing core index).
        let mut in_cells = Cells::with_rows(n - core);
        for (r, c) in in_count.iter().enumerate() {
            in_cells.indptr[r + 1] = in_cells.indptr[r] + c;
        }
        let total = in_cells.indptr[n - core];
        in_cells.indices = vec![0; total];
        in_cells.w = vec![0.0; total];
        in_cells.g = vec![0.0; total];
        let mut next = in_cells.indptr.clone();
        for i in 0..core {
            for k in xp[i]..xp[i + 1] {
                let j = xi[k];
                if j >= core {
                    let slot = &mut next[j - core];
                    in_cells.indices[*slot] = i as u32;
                    in_cells.w[*slot] = weight(i, j, xd[k]);
                    in_cells.g[*slot] = gd[k];
                    *slot += 1;
                }
            }
        }
        let background = g.background[..core].to_vec();
        Ok(Statistics {
            n,
            core,
            core_cells,
            background,
            out_cells,
            in_cells,
            unigram,
            c_cut,
        })
    }

    /// Words with vectors (the counted vocabulary).
    pub fn n(&self) -> usize {
        self.n
    }

    /// Core words.
    pub fn core(&self) -> usize {
        self.core
    }

    /// Bigram cells used (core block plus core × noncore in both directions).
    pub fn nnz(&self) -> usize {
        self.core_cells.nnz() + self.out_cells.nnz() + self.in_cells.nnz()
    }
}

/// `C_cut`: `√x` at the top `quantile` of the non-zero off-diagonal counts
/// (the weight is 1 from there up); `None` when there is no such count.
pub fn cut_point(x: &CsMat<f64>, quantile: f64) -> Option<f64> {
    let mut values: Vec<f64> = x
        .iter()
        .filter(|&(&v, (i, j))| i != j && v > 0.0)
        .map(|(&v, _)| v)
        .collect();
    if values.is_empty() {
        return None;
    }
    let k = ((quantile * values.len() as f64) as usize).min(values.len() - 1);
    let (_, v, _) = values.select_nth_unstable_by(k, |a, b| b.total_cmp(a));
    Some(v.sqrt())
}
