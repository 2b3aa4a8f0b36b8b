//! Online blockwise regression of the noncore words (\[P\] §5.3).
//!
//! With the core vectors `V_1` fixed and noncore × noncore bigrams ignored,
//! each noncore word `i` is a weighted ridge regression of its bigrams with
//! core words in both directions:
//! `min_v Σ_j f_ij (G*_ij − v·v_j)² + f_ji (G*_ji − v·v_j)² + μ_i ‖v‖²`,
//! i.e. weights `f̄_j = f_ij + f_ji` and targets `ḡ_j` (their weighted mean):
//! `v = (Σ_j f̄_j v_j v_jᵀ + μ_i I)⁻¹ Σ_j f̄_j ḡ_j v_j`. Only core words with
//! `f̄_j > 0` take part. With `m` of them, a word costs `m N² + N³/6` in that
//! primal form; when `m < N` the same solution comes from the `m × m` dual
//! `v = Vᵀ D^½ (D^½ V Vᵀ D^½ + μ I)⁻¹ D^½ ḡ` (`m² N + m³/6`), which is
//! most noncore words. A tiny relative jitter keeps `μ = 0` solvable (the
//! minimum-norm solution in the limit).

use std::ops::Range;

use crate::fast::mixed::dot64 as dot;
use ndarray::Array2;
use rayon::prelude::*;

use super::input::Statistics;
use crate::linalg::dense::{cholesky_solve, WeakPivot};

/// Relative diagonal jitter added to every system (`μ = 0` may be singular).
const JITTER: f64 = 1e-9;

/// Tikhonov `μ` of word rank `i` (0-based): 0 for the core, `mu` up to
/// 3.2 × core, `2 mu` up to 5.2 × core, `4 mu` beyond — the paper's bands
/// (25k core; 80k, 130k, 180k) as multiples of the core size.
pub fn mu_of(i: usize, core: usize, mu: f64) -> f64 {
    let (a, b) = (core * 16 / 5, core * 26 / 5);
    if i < core {
        0.0
    } else if i < a {
        mu
    } else if i < b {
        2.0 * mu
    } else {
        4.0 * mu
    }
}

/// One bigram partner of a noncore word: core word `j`, `f̄_j`, `f̄_j ḡ_j`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Partner {
    j: u32,
    f: f64,
    fg: f64,
}

/// Per-thread buffers (no allocation per word).
#[derive(Default)]
struct Scratch {
    partners: Vec<Partner>,
    a: Vec<f64>,
    rhs: Vec<f64>,
}

/// A solved block: the vectors (`rows × dim`) and the weighted residual
/// plus Tikhonov term, summed over its words.
#[derive(Debug, Clone)]
pub struct Block {
    /// One row per noncore word of the block.
    pub vectors: Array2<f64>,
    /// `Σ_i [Σ_j f_ij (G*_ij − v_i·v_j)² + f_ji (G*_ji − v_i·v_j)² + μ_i ‖v_i‖²]`.
    pub loss: f64,
}

/// Solves the noncore words `rows` (0-based among the noncore words) against
/// the core vectors `core` (`|core| × dim`).
pub fn solve_block(stats: &Statistics, core: &Array2<f64>, rows: Range<usize>, mu: f64) -> Block {
    let dim = core.ncols();
    let core_words = stats.core();
    let flat = core.as_slice().expect("core vectors are standard layout");
    let mut vectors = Array2::<f64>::zeros((rows.len(), dim));
    let out = vectors.as_slice_mut().expect("fresh array");
    let losses: Vec<f64> = out
        .par_chunks_mut(dim.max(1))
        .zip(rows.clone().into_par_iter())
        .map_init(Scratch::default, |scratch, (v, r)| {
            let i = core_words + r;
            let m = gather(stats, r, &mut scratch.partners);
            let mu_i = mu_of(i, core_words, mu);
            let Scratch { partners, a, rhs } = scratch;
            let partners = &partners[..m];
            if m > 0 {
                if m >= dim {
                    solve_primal(flat, dim, partners, mu_i, a, v);
                } else {
                    solve_dual(flat, dim, partners, mu_i, (a, rhs), v);
                }
            }
            word_loss(stats, r, flat, dim, v) + mu_i * v.iter().map(|x| x * x).sum::<f64>()
        })
        .collect();
    Block {
        vectors,
        loss: losses.iter().sum(),
    }
}

/// Merges noncore word `r`'s bigrams with core words (both directions,
/// each sorted by core word) into `out`; returns how many have `f̄ > 0`.
fn gather(stats: &Statistics, r: usize, out: &mut Vec<Partner>) -> usize {
    out.clear();
    let (oj, ow, og) = stats.out_cells.row(r);
    let (ij, iw, ig) = stats.in_cells.row(r);
    let (mut a, mut b) = (0, 0);
    while a < oj.len() || b < ij.len() {
        let take_a = b >= ij.len() || (a < oj.len() && oj[a] <= ij[b]);
        let take_b = a >= oj.len() || (b < ij.len() && ij[b] <= oj[a]);
        let mut p = Partner {
            j: if take_a { oj[a] } else { ij[b] },
            f: 0.0,
            fg: 0.0,
        };
        if take_a {
            p.f += ow[a];
            p.fg += ow[a] * og[a];
            a += 1;
        }
        if take_b {
            p.f += iw[b];
            p.fg += iw[b] * ig[b];
            b += 1;
        }
        if p.f > 0.0 {
            out.push(p);
        }
    }
    out.len()
}

fn row(flat: &[f64], dim: usize, j: u32) -> &[f64] {
    let j = j as usize;
    &flat[j * dim..(j + 1) * dim]
}

/// `(Σ f̄ v_j v_jᵀ + μ I) v = Σ f̄ ḡ v_j`, an `N × N` Cholesky solve.
fn solve_primal(
    flat: &[f64],
    dim: usize,
    partners: &[Partner],
    mu: f64,
    a: &mut Vec<f64>,
    v: &mut [f64],
) {
    a.clear();
    a.resize(dim * dim, 0.0);
    v.fill(0.0);
    for p in partners {
        let x = row(flat, dim, p.j);
        for r in 0..dim {
            let fx = p.f * x[r];
            let line = &mut a[r * dim..r * dim + r + 1];
            for (a, &xc) in line.iter_mut().zip(&x[..=r]) {
                *a += fx * xc;
            }
            v[r] += p.fg * x[r];
        }
    }
    regularise(a, dim, mu);
    cholesky_solve(a, dim, v, WeakPivot::Drop);
}

/// The dual form: `K α = D^{-½} (f̄ ∘ ḡ)` with `K = D^½ V Vᵀ D^½ + μ I`,
/// then `v = Σ √f̄_a α_a v_a`.
fn solve_dual(
    flat: &[f64],
    dim: usize,
    partners: &[Partner],
    mu: f64,
    (a, rhs): (&mut Vec<f64>, &mut Vec<f64>),
    v: &mut [f64],
) {
    let m = partners.len();
    a.clear();
    a.resize(m * m, 0.0);
    rhs.clear();
    for (k, pa) in partners.iter().enumerate() {
        let xa = row(flat, dim, pa.j);
        for (b, pb) in partners[..=k].iter().enumerate() {
            a[k * m + b] = (pa.f * pb.f).sqrt() * dot(xa, row(flat, dim, pb.j));
        }
        rhs.push(pa.fg / pa.f.sqrt());
    }
    regularise(a, m, mu);
    cholesky_solve(a, m, rhs, WeakPivot::Drop);
    v.fill(0.0);
    for (p, &alpha) in partners.iter().zip(rhs.iter()) {
        let c = p.f.sqrt() * alpha;
        for (o, &x) in v.iter_mut().zip(row(flat, dim, p.j)) {
            *o += c * x;
        }
    }
}

/// Adds `μ` plus the jitter to the diagonal of the lower triangle `a`.
fn regularise(a: &mut [f64], n: usize, mu: f64) {
    let trace: f64 = (0..n).map(|i| a[i * n + i]).sum();
    let jitter = JITTER * (trace / n as f64).max(f64::MIN_POSITIVE);
    for i in 0..n {
        a[i * n + i] += mu + jitter;
    }
}

/// `Σ_j f_ij (G*_ij − v·v_j)² + f_ji (G*_ji − v·v_j)²` of noncore word `r`.
fn word_loss(stats: &Statistics, r: usize, flat: &[f64], dim: usize, v: &[f64]) -> f64 {
    let mut sum = 0.0;
    for cells in [&stats.out_cells, &stats.in_cells] {
        let (js, ws, gs) = cells.row(r);
        for ((&j, &w), &g) in js.iter().zip(ws).zip(gs) {
            if w > 0.0 {
                let e = g - dot(v, row(flat, dim, j));
                sum += w * e * e;
            }
        }
    }
    sum
}
