//! FFT-accelerated interpolation for t-SNE's repulsion (FIt-SNE: Linderman
//! et al. 2019, as openTSNE implements it).
//!
//! The repulsion needs, for every point, sums over all points of the kernel
//! `K(y_i, y_j) = w_ij² = (1 + ‖y_i − y_j‖²)⁻²` times four charges
//! `(1, y_j1, y_j2, ‖y_j‖²)`:
//!
//! - `Σ_j w_ij² (y_i − y_j) = y_i φ₁ − (φ₂, φ₃)`, and
//! - `Z = Σ_i [(1 + ‖y_i‖²) φ₁ − 2 y_i·(φ₂, φ₃) + φ₄] − n`, because
//!   `w = w² (1 + d²)` (the `− n` removes the `i = j` terms).
//!
//! The layout's bounding square is cut into `B × B` boxes (at least 50, about
//! one per unit of length) with `p = 3` equispaced interpolation nodes per box
//! and axis, so the nodes form one regular `m × m` grid (`m = pB`). Charges
//! are spread onto the nodes with Lagrange weights, the kernel is applied on
//! the grid as a convolution (a Toeplitz product, done by zero-padded FFTs of
//! size `2m × 2m`), and the potentials are interpolated back with the same
//! weights. Cost: O(n) for spreading and interpolation plus O(m² log m) for
//! the FFTs, which is what makes 50k points cheap.
//!
//! Two real charges ride in one complex grid (real and imaginary parts; the
//! kernel is real, so they do not mix), so four charges cost two complex
//! transforms. The grids are `f32`: their rounding error (~1e-6 of the largest
//! potential) is far below the interpolation error (~1e-3, see the tests).
//! Point sums are `f64`, in fixed chunks, so results do not depend on the
//! number of threads.

use std::sync::Arc;

use rayon::prelude::*;
use rustfft::num_complex::Complex;
use rustfft::{Fft, FftPlanner};

use super::points::CHUNK;

type C32 = Complex<f32>;

/// Grid rows transformed per parallel work item.
const ROW_CHUNK: usize = 8;
/// Columns handled per block of a transpose.
const TILE: usize = 16;

/// Settings of the interpolation grid (openTSNE's defaults).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FftParams {
    /// Interpolation nodes per box and axis.
    pub nodes: usize,
    /// Boxes per axis at least.
    pub min_boxes: usize,
    /// Box width at most, in layout units (more boxes as the layout grows).
    pub box_width: f64,
}

impl Default for FftParams {
    fn default() -> Self {
        FftParams {
            nodes: 3,
            min_boxes: 50,
            box_width: 1.0,
        }
    }
}

/// The grid for one iteration.
#[derive(Debug, Clone, Copy)]
struct Grid {
    /// Lower corner of the bounding square (same on both axes).
    lo: f64,
    /// Box side length.
    box_w: f64,
    /// Boxes per axis.
    boxes: usize,
    /// Nodes per axis (`nodes × boxes`).
    m: usize,
    /// FFT size per axis (`2m`).
    l: usize,
    /// Node spacing.
    h: f64,
}

impl Grid {
    fn fit(y: &[[f64; 2]], params: FftParams) -> Grid {
        let (lo, hi) = y
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
                (lo.min(p[0]).min(p[1]), hi.max(p[0]).max(p[1]))
            });
        let range = (hi - lo).max(1e-9);
        let wanted = ((range / params.box_width).ceil() as usize).max(params.min_boxes);
        let boxes = smooth_at_least(wanted);
        let box_w = range / boxes as f64;
        let m = params.nodes * boxes;
        Grid {
            lo,
            box_w,
            boxes,
            m,
            l: 2 * m,
            h: box_w / params.nodes as f64,
        }
    }
}

/// The smallest `2^a 3^b 5^c ≥ n` (FFT sizes `6 × that` stay fast).
fn smooth_at_least(n: usize) -> usize {
    (n.max(1)..)
        .find(|&k| {
            let mut r = k;
            for f in [2, 3, 5] {
                while r % f == 0 {
                    r /= f;
                }
            }
            r == 1
        })
        .unwrap_or(n)
}

/// Buffers and FFT plans kept between iterations.
pub struct FftWorkspace {
    params: FftParams,
    planner: FftPlanner<f32>,
    /// Per point: first node column and row of its box.
    base: Vec<[u32; 2]>,
    /// Per point: `nodes` interpolation weights along x, then along y.
    weights: Vec<f64>,
    /// Charge grids `(1 + i y₁)` and `(y₂ + i ‖y‖²)`, row-major `l × l`; potentials after the transform.
    a: Vec<C32>,
    b: Vec<C32>,
    /// Their transposed spectra.
    at: Vec<C32>,
    bt: Vec<C32>,
    /// The kernel grid and its transposed spectrum.
    k: Vec<C32>,
    kt: Vec<C32>,
}

impl std::fmt::Debug for FftWorkspace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FftWorkspace")
            .field("params", &self.params)
            .finish_non_exhaustive()
    }
}

impl FftWorkspace {
    /// An empty workspace; buffers grow on first use.
    pub fn new(params: FftParams) -> Self {
        FftWorkspace {
            params,
            planner: FftPlanner::new(),
            base: Vec::new(),
            weights: Vec::new(),
            a: Vec::new(),
            b: Vec::new(),
            at: Vec::new(),
            bt: Vec::new(),
            k: Vec::new(),
            kt: Vec::new(),
        }
    }

    /// Writes the estimate of `Σ_j w_ij² (y_i − y_j)` into `out` and returns the estimate of `Z`.
    pub fn repulsion(&mut self, y: &[[f64; 2]], out: &mut [[f64; 2]]) -> f64 {
        let grid = Grid::fit(y, self.params);
        let (m, l) = (grid.m, grid.l);
        for buf in [
            &mut self.a,
            &mut self.b,
            &mut self.at,
            &mut self.bt,
            &mut self.k,
            &mut self.kt,
        ] {
            buf.resize(l * l, C32::default());
        }
        self.locate(y, &grid);
        self.spread(y, &grid);
        fill_kernel(&mut self.k, &grid);
        let forward = self.planner.plan_fft_forward(l);
        let inverse = self.planner.plan_fft_inverse(l);
        // Spectra (transposed layout): kernel in full, charges with only m nonzero rows.
        fft2(&forward, &mut self.k, l, &mut self.kt, l);
        fft2(&forward, &mut self.a, m, &mut self.at, l);
        fft2(&forward, &mut self.b, m, &mut self.bt, l);
        let kt = &self.kt;
        for spec in [&mut self.at, &mut self.bt] {
            spec.par_chunks_mut(l * ROW_CHUNK)
                .zip(kt.par_chunks(l * ROW_CHUNK))
                .for_each(|(s, k)| s.iter_mut().zip(k).for_each(|(x, k)| *x *= *k));
        }
        // Back: all rows of the transposed spectrum, then the m output rows.
        ifft2(&inverse, &mut self.at, &mut self.a, m, l);
        ifft2(&inverse, &mut self.bt, &mut self.b, m, l);
        self.gather(y, &grid, out)
    }

    /// Box and interpolation weights of every point.
    fn locate(&mut self, y: &[[f64; 2]], grid: &Grid) {
        let p = self.params.nodes;
        self.base.resize(y.len(), [0, 0]);
        self.weights.resize(y.len() * 2 * p, 0.0);
        let nodes: Vec<f64> = (0..p).map(|k| (k as f64 + 0.5) / p as f64).collect();
        let denom: Vec<f64> = (0..p)
            .map(|k| {
                (0..p)
                    .filter(|&j| j != k)
                    .map(|j| nodes[k] - nodes[j])
                    .product()
            })
            .collect();
        let (nodes, denom) = (&nodes, &denom);
        self.base
            .par_chunks_mut(CHUNK)
            .zip(self.weights.par_chunks_mut(CHUNK * 2 * p))
            .enumerate()
            .for_each(|(c, (base, weights))| {
                for ((b, w), yi) in base
                    .iter_mut()
                    .zip(weights.chunks_exact_mut(2 * p))
                    .zip(&y[c * CHUNK..])
                {
                    for d in 0..2 {
                        let t = (yi[d] - grid.lo) / grid.box_w;
                        let bx = (t.floor().max(0.0) as usize).min(grid.boxes - 1);
                        let u = t - bx as f64;
                        b[d] = (bx * p) as u32;
                        for k in 0..p {
                            let mut v = 1.0 / denom[k];
                            for (j, &node) in nodes.iter().enumerate() {
                                if j != k {
                                    v *= u - node;
                                }
                            }
                            w[d * p + k] = v;
                        }
                    }
                }
            });
    }

    /// Spreads the four charges onto the grid (two complex grids, one thread each).
    fn spread(&mut self, y: &[[f64; 2]], grid: &Grid) {
        let (p, m, l) = (self.params.nodes, grid.m, grid.l);
        let (base, weights) = (&self.base, &self.weights);
        let spread_one = |g: &mut Vec<C32>, charge: &(dyn Fn(&[f64; 2]) -> (f64, f64) + Sync)| {
            g[..m * l].fill(C32::default());
            for ((b, w), yi) in base.iter().zip(weights.chunks_exact(2 * p)).zip(y) {
                let (re, im) = charge(yi);
                for ky in 0..p {
                    let row = (b[1] as usize + ky) * l + b[0] as usize;
                    for kx in 0..p {
                        let wt = w[p + ky] * w[kx];
                        let cell = &mut g[row + kx];
                        cell.re += (wt * re) as f32;
                        cell.im += (wt * im) as f32;
                    }
                }
            }
        };
        rayon::join(
            || spread_one(&mut self.a, &|yi| (1.0, yi[0])),
            || spread_one(&mut self.b, &|yi| (yi[1], yi[0] * yi[0] + yi[1] * yi[1])),
        );
    }

    /// Interpolates the potentials back to the points; forces into `out`, returns `Z`.
    fn gather(&self, y: &[[f64; 2]], grid: &Grid, out: &mut [[f64; 2]]) -> f64 {
        let (p, l) = (self.params.nodes, grid.l);
        let scale = 1.0 / (l * l) as f64;
        let parts: Vec<f64> = out
            .par_chunks_mut(CHUNK)
            .enumerate()
            .map(|(c, chunk)| {
                let mut z = 0.0;
                for (o, i) in chunk.iter_mut().zip(c * CHUNK..) {
                    let (b, w) = (self.base[i], &self.weights[i * 2 * p..(i + 1) * 2 * p]);
                    let mut phi = [0.0f64; 4];
                    for ky in 0..p {
                        let row = (b[1] as usize + ky) * l + b[0] as usize;
                        for kx in 0..p {
                            let wt = w[p + ky] * w[kx];
                            let (pa, pb) = (self.a[row + kx], self.b[row + kx]);
                            phi[0] += wt * f64::from(pa.re);
                            phi[1] += wt * f64::from(pa.im);
                            phi[2] += wt * f64::from(pb.re);
                            phi[3] += wt * f64::from(pb.im);
                        }
                    }
                    let [p1, p2, p3, p4] = phi.map(|v| v * scale);
                    let yi = y[i];
                    *o = [yi[0] * p1 - p2, yi[1] * p1 - p3];
                    z += (1.0 + yi[0] * yi[0] + yi[1] * yi[1]) * p1
                        - 2.0 * (yi[0] * p2 + yi[1] * p3)
                        + p4;
                }
                z
            })
            .collect();
        parts.iter().sum::<f64>() - y.len() as f64
    }
}

/// The kernel `(1 + h²(a² + b²))⁻²` on the wrapped `l × l` difference grid.
fn fill_kernel(k: &mut [C32], grid: &Grid) {
    let (m, l, h2) = (grid.m, grid.l, grid.h * grid.h);
    let offset = |a: usize| -> f64 {
        if a < m {
            a as f64
        } else {
            a as f64 - l as f64
        }
    };
    k.par_chunks_mut(l).enumerate().for_each(|(r, row)| {
        let dr = offset(r);
        for (c, v) in row.iter_mut().enumerate() {
            let dc = offset(c);
            let w = 1.0 / (1.0 + h2 * (dr * dr + dc * dc));
            *v = C32::new((w * w) as f32, 0.0);
        }
    });
}

/// 2-D forward transform of `src` (`l × l`, only the first `rows` rows
/// nonzero) into `dst` in transposed layout: `dst[kc][kr]`.
fn fft2(fft: &Arc<dyn Fft<f32>>, src: &mut [C32], rows: usize, dst: &mut [C32], l: usize) {
    rows_fft(fft, &mut src[..rows * l], l);
    transpose(src, rows, dst, l, l);
    rows_fft(fft, dst, l);
}

/// Inverse of [`fft2`] for the first `rows` output rows: `spec` (transposed
/// layout, destroyed) into `dst[r][c]`, `r < rows`. Unnormalised.
fn ifft2(fft: &Arc<dyn Fft<f32>>, spec: &mut [C32], dst: &mut [C32], rows: usize, l: usize) {
    if rows == 0 {
        return;
    }
    rows_fft(fft, spec, l);
    transpose(spec, l, dst, rows, l);
    rows_fft(fft, &mut dst[..rows * l], l);
}

/// Transforms every length-`l` row of `data` in place, rows in parallel.
fn rows_fft(fft: &Arc<dyn Fft<f32>>, data: &mut [C32], l: usize) {
    let scratch_len = fft.get_inplace_scratch_len();
    data.par_chunks_mut(l * ROW_CHUNK).for_each_init(
        || vec![C32::default(); scratch_len],
        |scratch, rows| fft.process_with_scratch(rows, scratch),
    );
}

/// `dst[x][r] = src[r][x]` for `x < dst_rows`, `r < l`, where rows of `src`
/// at or past `src_rows` count as zero. Rows have length `l`.
fn transpose(src: &[C32], src_rows: usize, dst: &mut [C32], dst_rows: usize, l: usize) {
    dst[..dst_rows * l]
        .par_chunks_mut(l * TILE)
        .enumerate()
        .for_each(|(t, block)| {
            let x0 = t * TILE;
            let width = block.len() / l;
            for r in 0..l {
                if r < src_rows {
                    let line = &src[r * l + x0..r * l + x0 + width];
                    for (dx, &v) in line.iter().enumerate() {
                        block[dx * l + r] = v;
                    }
                } else {
                    for dx in 0..width {
                        block[dx * l + r] = C32::default();
                    }
                }
            }
        });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::testdata::spread_layout;
    use crate::project::tsne::exact;

    #[test]
    fn smooth_sizes() {
        assert_eq!(smooth_at_least(50), 50);
        assert_eq!(smooth_at_least(51), 54);
        assert_eq!(smooth_at_least(97), 100);
        assert_eq!(smooth_at_least(1), 1);
    }

    #[test]
    fn transpose_with_zero_rows() {
        let l = 3;
        let src: Vec<C32> = (0..9).map(|v| C32::new(v as f32, 0.0)).collect();
        let mut dst = vec![C32::new(-1.0, 0.0); 9];
        transpose(&src, 2, &mut dst, 3, l);
        let re: Vec<f32> = dst.iter().map(|c| c.re).collect();
        assert_eq!(re, vec![0.0, 3.0, 0.0, 1.0, 4.0, 0.0, 2.0, 5.0, 0.0]);
    }

    #[test]
    fn matches_exact_repulsion_as_closely_as_opentsne() {
        // Uniform discs: a fine grid (50 boxes over 6 units), then t-SNE-like
        // densities (about one point per unit area) where boxes are one unit wide.
        // openTSNE's own FFT repulsion on the same kinds of layouts (measured
        // with its `_tsne.estimate_negative_gradient_fft_2d`): force errors
        // 2e-5, 1.3%, 3.8%, 4.4%; Z errors 6e-7, 0.13%, 0.37%, 1.1%.
        for (n, radius, seed, z_tol, f_tol) in [
            (500, 3.0, 1, 1e-5, 1e-4),
            (1000, 17.8, 2, 3e-3, 0.02),
            (3000, 31.0, 3, 6e-3, 0.05),
            (3000, 60.0, 4, 0.02, 0.06),
        ] {
            let y = spread_layout(n, radius, seed);
            let (mut want, mut got) = (vec![[0.0; 2]; n], vec![[0.0; 2]; n]);
            let z_exact = exact::repulsion(&y, &mut want);
            let z_fft = FftWorkspace::new(FftParams::default()).repulsion(&y, &mut got);
            let z_err = ((z_fft - z_exact) / z_exact).abs();
            let rel = crate::project::testdata::relative_l2(&want, &got);
            assert!(z_err < z_tol, "n={n} r={radius}: Z relative error {z_err}");
            assert!(rel < f_tol, "n={n} r={radius}: force relative error {rel}");
        }
    }
}
