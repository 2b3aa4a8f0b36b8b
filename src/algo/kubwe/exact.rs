//! Exact forces on a block of words, as two dense matrix products.
//!
//! For a block `B` of up to [`BLOCK`] rows: `S = Y_B Yᵀ` (all cosines of the
//! block), `K = kernel(S)` with the block's own and positive cells zeroed
//! (so the repulsion runs over `N_i` exactly), then `v₂ = K Y`. Both products
//! go to `matrixmultiply` (cache-blocked, SIMD); the kernel is taken in
//! vectorised passes ([`Kernel::apply_row`]). Attraction `v₁ = Σ_{P_i} a_ij y_j`
//! walks the sparse row in `f64`. The row energy
//! `e_i = −Σ_{P_i} a_ij c_ij + Σ_{N_i} (c_ij + 1) K(c_ij)/(p + 1)` comes
//! out of the same cosines for free.
//!
//! Cost per block `O(|B| n d)`; a sweep is `O(n² d)`. All buffers live in a
//! [`BlockScratch`] reused across steps: nothing is allocated per word.

use ndarray::linalg::general_mat_mul;
use ndarray::{s, Array2, ArrayView2};

use super::affinity::Affinity;
use super::kernel::Kernel;

/// Rows per block (per dense product).
pub const BLOCK: usize = 32;

/// Reusable buffers for one block.
#[derive(Debug, Clone)]
pub struct BlockScratch {
    queries: Array2<f32>,
    sims: Array2<f32>,
    repulsion: Array2<f32>,
    base: Vec<f32>,
    power: Vec<f32>,
}

impl BlockScratch {
    /// Buffers for blocks over `n` words of dimension `dim`.
    pub fn new(n: usize, dim: usize) -> Self {
        BlockScratch {
            queries: Array2::zeros((BLOCK, dim)),
            sims: Array2::zeros((BLOCK, n)),
            repulsion: Array2::zeros((BLOCK, dim)),
            base: vec![0.0; n],
            power: vec![0.0; n],
        }
    }
}

/// Where the forces of a block go: `rows.len() × dim` row-major slices and
/// one energy per row.
#[derive(Debug)]
pub struct BlockOut<'a> {
    /// Attraction `v₁` per row.
    pub attraction: &'a mut [f64],
    /// Repulsion `v₂` per row (left untouched when not asked for).
    pub repulsion: &'a mut [f64],
    /// Row energy `e_i`.
    pub energy: &'a mut [f64],
}

/// Computes the forces (if `repel`; the energies always) on the words
/// `rows` (at most [`BLOCK`]) of `y`.
pub fn block_forces(
    a: &Affinity,
    y: ArrayView2<'_, f32>,
    rows: &[u32],
    kernel: Kernel,
    repel: bool,
    scratch: &mut BlockScratch,
    out: BlockOut<'_>,
) {
    let (b, dim) = (rows.len(), y.ncols());
    assert!(b <= BLOCK, "a block holds at most {BLOCK} rows");
    for (r, &i) in rows.iter().enumerate() {
        scratch.queries.row_mut(r).assign(&y.row(i as usize));
    }
    let queries = scratch.queries.slice(s![..b, ..]);
    let mut sims = scratch.sims.slice_mut(s![..b, ..]);
    general_mat_mul(1.0, &queries, &y.t(), 0.0, &mut sims);
    let norm = 1.0 / (kernel.p as f64 + 1.0);
    for (r, &i) in rows.iter().enumerate() {
        let (cols, vals) = a.row(i as usize);
        let mut srow = sims.row_mut(r);
        let srow = srow.as_slice_mut().expect("standard layout");
        let v1 = &mut out.attraction[r * dim..(r + 1) * dim];
        v1.fill(0.0);
        let mut e_att = 0.0f64;
        let mut excluded = 0.0f64;
        for (&j, &v) in cols.iter().zip(vals) {
            let j = j as usize;
            let c = srow[j];
            e_att += v as f64 * c as f64;
            excluded += ((c + 1.0) * kernel.weight(c)) as f64;
            for (acc, &x) in v1.iter_mut().zip(y.row(j).iter()) {
                *acc += v as f64 * x as f64;
            }
        }
        let own = i as usize;
        excluded += ((srow[own] + 1.0) * kernel.weight(srow[own])) as f64;
        let total = kernel.apply_row(srow, &mut scratch.base, &mut scratch.power);
        srow[own] = 0.0;
        for &j in cols {
            srow[j as usize] = 0.0;
        }
        out.energy[r] = -e_att + (total - excluded) * norm;
    }
    if repel {
        let mut rep = scratch.repulsion.slice_mut(s![..b, ..]);
        general_mat_mul(1.0, &sims.view(), &y, 0.0, &mut rep);
        for (dst, &src) in out.repulsion[..b * dim].iter_mut().zip(rep.iter()) {
            *dst = src as f64;
        }
    }
}
