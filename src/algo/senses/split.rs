//! Splitting one word's PPMI row into sense vectors (Soleimani §5.2.2):
//! the rows of its context words form the slice `C` (`m × n`), NNDSVD of
//! `C` gives memberships of every column in `k` clusters, normalised to sum
//! 1 per column, and sense `j` is `s_j = h_j ∘ p`, so `Σ_j s_j = p`.

use ndarray::Array2;

use super::nndsvd::{self, SplitSolver};
use crate::linalg::Csr;
use crate::Result;

/// One sense: a sparse vector over the word's context columns.
#[derive(Debug, Clone, PartialEq)]
pub struct SenseVector {
    /// Its values at the word's context columns (in the order of
    /// [`WordSplit::columns`]).
    pub values: Vec<f64>,
    /// `Σ s_j / Σ p`.
    pub mass: f64,
}

/// The senses of one word.
#[derive(Debug, Clone, PartialEq)]
pub struct WordSplit {
    /// The word's row in `P`.
    pub word: u32,
    /// Its context columns `L` (the non-zeros of its row), ascending.
    pub columns: Vec<u32>,
    /// Memberships `k × m` at those columns (each column sums to 1).
    pub memberships: Array2<f64>,
    /// The senses, by decreasing mass.
    pub senses: Vec<SenseVector>,
}

/// `(columns, values)` of row `i`.
pub fn row(p: &Csr, i: usize) -> (&[u32], &[f64]) {
    let (a, b) = (p.indptr()[i], p.indptr()[i + 1]);
    (&p.indices()[a..b], &p.data()[a..b])
}

/// The rows `rows` of `p` as an `m × n` matrix.
pub fn slice(p: &Csr, rows: &[u32]) -> Result<Csr> {
    let nnz: usize = rows.iter().map(|&r| row(p, r as usize).0.len()).sum();
    let mut indptr = Vec::with_capacity(rows.len() + 1);
    let mut indices = Vec::with_capacity(nnz);
    let mut data = Vec::with_capacity(nnz);
    indptr.push(0);
    for &r in rows {
        let (c, v) = row(p, r as usize);
        indices.extend_from_slice(c);
        data.extend_from_slice(v);
        indptr.push(indices.len());
    }
    Csr::new((rows.len(), p.shape().1), indptr, indices, data)
}

/// Splits row `word` of `p` into `k` senses. `k` is lowered to `m − 1`
/// when the word has no more context words than senses (a rank-`k` SVD of
/// `m` rows needs `k < m`); `None` when that leaves fewer than 2.
pub fn split_word(
    p: &Csr,
    word: u32,
    k: usize,
    solver: SplitSolver,
    seed: u64,
) -> Result<Option<WordSplit>> {
    let (columns, values) = row(p, word as usize);
    let m = columns.len();
    let k = k.min(m.saturating_sub(1));
    if k < 2 {
        return Ok(None);
    }
    let c = slice(p, columns)?;
    let svd = nndsvd::svd(c.clone(), k, solver, seed)?;
    let (mut w, mut h) = nndsvd::factors(&svd);
    nndsvd::refine(&c, &mut w, &mut h, solver.nmf_iterations);
    let memberships = memberships(&h, columns);
    let total: f64 = values.iter().sum();
    let mut senses: Vec<SenseVector> = memberships
        .rows()
        .into_iter()
        .map(|mem| {
            let values: Vec<f64> = mem.iter().zip(values).map(|(a, b)| a * b).collect();
            let mass = values.iter().sum::<f64>() / total;
            SenseVector { values, mass }
        })
        .collect();
    // Largest sense first; the stable sort keeps SVD order among ties.
    let mut order: Vec<usize> = (0..senses.len()).collect();
    order.sort_by(|&a, &b| senses[b].mass.total_cmp(&senses[a].mass));
    let memberships = Array2::from_shape_fn((k, m), |(j, l)| memberships[[order[j], l]]);
    let mut sorted = Vec::with_capacity(k);
    for &j in &order {
        sorted.push(std::mem::replace(
            &mut senses[j],
            SenseVector {
                values: Vec::new(),
                mass: 0.0,
            },
        ));
    }
    Ok(Some(WordSplit {
        word,
        columns: columns.to_vec(),
        memberships,
        senses: sorted,
    }))
}

/// The columns `columns` of `h` normalised to sum 1 (`k × m`); an all-zero
/// column becomes uniform `1/k`.
pub fn memberships(h: &Array2<f64>, columns: &[u32]) -> Array2<f64> {
    let k = h.nrows();
    let mut out = Array2::<f64>::zeros((k, columns.len()));
    for (l, &c) in columns.iter().enumerate() {
        let col = h.column(c as usize);
        let sum: f64 = col.sum();
        for j in 0..k {
            out[[j, l]] = if sum > 0.0 {
                col[j] / sum
            } else {
                1.0 / k as f64
            };
        }
    }
    out
}
