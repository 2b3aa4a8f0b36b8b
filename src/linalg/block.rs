//! Tall-and-thin dense products on row-major blocks, parallel over rows.
//!
//! The Krylov basis `V` is an `n × stride` row-major array whose first `p`
//! columns are in use; a block `W` is `n × b` row-major (`b` a handful of
//! columns). Every product here reads `V` once, cut into [`GROUPS`] fixed
//! row ranges that rayon runs in parallel; each range calls a
//! register-blocked kernel of [`crate::fast::blocked`] for `b` in {4, 8, 16}, or a
//! single-threaded `matrixmultiply` GEMM through ndarray otherwise (and for
//! the square-ish rotation at a restart). Partial
//! sums of the reductions (`Vᵀ W`) are added in range order, so results are
//! bit-for-bit identical whatever the number of threads.
//!
//! Measured here (n = 30,000, p = 300, b = 8): `Vᵀ W` as one ndarray or faer
//! call took 11-12 ms single-threaded, and faer's own 2-thread split of that
//! thin product was 5x *slower* (58 ms); splitting rows ourselves scales.

use ndarray::linalg::general_mat_mul;
use ndarray::{ArrayView2, ArrayViewMut2, ShapeBuilder};
use rayon::prelude::*;

use crate::fast::blocked as kernels;

/// Fixed number of row ranges per product (independent of the thread count,
/// for reproducible sums).
pub const GROUPS: usize = 32;

/// Row ranges `0..n` cut into at most [`GROUPS`] near-equal pieces.
fn groups(n: usize) -> Vec<std::ops::Range<usize>> {
    let g = GROUPS.min(n.max(1));
    (0..g).map(|k| n * k / g..n * (k + 1) / g).collect()
}

/// A read-only view of rows `rows` and columns `0..cols` of a row-major array
/// with row stride `stride`.
fn view<'a>(
    data: &'a [f64],
    stride: usize,
    rows: std::ops::Range<usize>,
    col0: usize,
    cols: usize,
) -> ArrayView2<'a, f64> {
    let len = rows.len();
    if len == 0 || cols == 0 {
        return ArrayView2::from_shape((len, cols), &[]).expect("empty view");
    }
    let start = rows.start * stride + col0;
    let end = start + (len - 1) * stride + cols;
    ArrayView2::from_shape((len, cols).strides((stride, 1)), &data[start..end])
        .expect("row-major view within bounds")
}

/// The mutable counterpart of [`view`] on a slice holding exactly the rows.
fn view_mut(data: &mut [f64], stride: usize, col0: usize, cols: usize) -> ArrayViewMut2<'_, f64> {
    let len = data.len() / stride.max(1);
    if len == 0 || cols == 0 {
        return ArrayViewMut2::from_shape((len, cols), &mut []).expect("empty view");
    }
    let end = col0 + (len - 1) * stride + cols;
    ArrayViewMut2::from_shape((len, cols).strides((stride, 1)), &mut data[col0..end])
        .expect("row-major view within bounds")
}

/// `C = V[:, 0..p]ᵀ W` as a `p × b` row-major vector; `V` has row stride
/// `ldv`, `W` is `n × b` row-major.
pub fn project(v: &[f64], ldv: usize, p: usize, w: &[f64], b: usize) -> Vec<f64> {
    let n = w.len() / b.max(1);
    let parts: Vec<Vec<f64>> = groups(n)
        .into_par_iter()
        .map(|rows| {
            let mut c = vec![0.0; p * b];
            let wr = &w[rows.start * b..rows.end * b];
            if !kernels::project_rows(&v[rows.start * ldv..], ldv, p, wr, b, &mut c) {
                let vr = view(v, ldv, rows.clone(), 0, p);
                let wr = view(w, b, rows, 0, b);
                let mut cv = view_mut(&mut c, b, 0, b);
                general_mat_mul(1.0, &vr.t(), &wr, 0.0, &mut cv);
            }
            c
        })
        .collect();
    sum_in_order(parts, p * b)
}

/// `W ← W − V[:, 0..p] C`, then returns `V[:, 0..p]ᵀ W` of the updated `W`
/// and the squared column norms of the updated `W` (one pass over `V` for
/// all three: the second Gram–Schmidt projection rides along with the first
/// subtraction).
pub fn subtract_and_project(
    v: &[f64],
    ldv: usize,
    p: usize,
    w: &mut [f64],
    b: usize,
    c: &[f64],
) -> (Vec<f64>, Vec<f64>) {
    let n = w.len() / b.max(1);
    let ranges = groups(n);
    let parts: Vec<Vec<f64>> = split_rows(w, b, &ranges)
        .into_par_iter()
        .zip(ranges.par_iter())
        .map(|(wrows, rows)| {
            // p·b projection values, then b squared norms.
            let mut out = vec![0.0; p * b + b];
            let (c2, norms) = out.split_at_mut(p * b);
            let vrows = &v[rows.start * ldv..];
            if !kernels::subtract_rows(vrows, ldv, p, wrows, b, c, Some((c2, norms))) {
                let vr = view(v, ldv, rows.clone(), 0, p);
                let cm = view(c, b, 0..p, 0, b);
                let mut wv = view_mut(wrows, b, 0, b);
                general_mat_mul(-1.0, &vr, &cm, 1.0, &mut wv);
                let mut cv = view_mut(c2, b, 0, b);
                general_mat_mul(1.0, &vr.t(), &wv, 0.0, &mut cv);
                for row in wrows.chunks_exact(b) {
                    norms.iter_mut().zip(row).for_each(|(s, x)| *s += x * x);
                }
            }
            out
        })
        .collect();
    let mut total = sum_in_order(parts, p * b + b);
    let norms = total.split_off(p * b);
    (total, norms)
}

/// `W ← W − V[:, 0..p] C` with `C` a `p × b` row-major matrix.
pub fn subtract(v: &[f64], ldv: usize, p: usize, w: &mut [f64], b: usize, c: &[f64]) {
    let n = w.len() / b.max(1);
    let ranges = groups(n);
    split_rows(w, b, &ranges)
        .into_par_iter()
        .zip(ranges.par_iter())
        .for_each(|(wrows, rows)| {
            if !kernels::subtract_rows(&v[rows.start * ldv..], ldv, p, wrows, b, c, None) {
                let vr = view(v, ldv, rows.clone(), 0, p);
                let cm = view(c, b, 0..p, 0, b);
                let mut wv = view_mut(wrows, b, 0, b);
                general_mat_mul(-1.0, &vr, &cm, 1.0, &mut wv);
            }
        });
}

/// Rotates the basis in place: `V[:, 0..k] ← V[:, 0..p] Y` with `Y` a
/// `p × k` row-major matrix, `k <= p`; columns from `p` on are untouched.
pub fn rotate(v: &mut [f64], ldv: usize, p: usize, y: &[f64], k: usize) {
    assert!(k <= p && p <= ldv, "rotate: k <= p <= stride");
    let n = v.len() / ldv.max(1);
    let ym = view(y, k, 0..p, 0, k);
    let ranges = groups(n);
    split_rows(v, ldv, &ranges)
        .into_par_iter()
        .for_each(|vrows| {
            let rows = vrows.len() / ldv;
            let mut tmp = vec![0.0; rows * k];
            {
                let vr = view(vrows, ldv, 0..rows, 0, p);
                let mut tv = view_mut(&mut tmp, k, 0, k);
                general_mat_mul(1.0, &vr, &ym, 0.0, &mut tv);
            }
            for (r, t) in tmp.chunks_exact(k).enumerate() {
                vrows[r * ldv..r * ldv + k].copy_from_slice(t);
            }
        });
}

/// `Wᵀ W` (`b × b`, row-major) of an `n × b` row-major block.
pub fn gram(w: &[f64], b: usize) -> Vec<f64> {
    project(w, b, b, w, b)
}

/// `W ← W R⁻¹` for an upper-triangular `b × b` row-major `R` with a
/// non-zero diagonal (each row solves `x R = w`).
pub fn solve_upper_right(w: &mut [f64], b: usize, r: &[f64]) {
    w.par_chunks_mut(b * 256).for_each(|rows| {
        for row in rows.chunks_exact_mut(b) {
            solve_row(row, b, r);
        }
    });
}

/// [`solve_upper_right`] and then [`gram`] of the result, in one pass over
/// `W` (the same row ranges and order of sums as [`gram`]).
pub fn solve_upper_right_gram(w: &mut [f64], b: usize, r: &[f64]) -> Vec<f64> {
    let n = w.len() / b.max(1);
    let ranges = groups(n);
    let parts: Vec<Vec<f64>> = split_rows(w, b, &ranges)
        .into_par_iter()
        .map(|rows| {
            for row in rows.chunks_exact_mut(b) {
                solve_row(row, b, r);
            }
            let mut c = vec![0.0; b * b];
            if !kernels::project_rows(rows, b, b, rows, b, &mut c) {
                let len = rows.len() / b.max(1);
                let wr = view(rows, b, 0..len, 0, b);
                let mut cv = view_mut(&mut c, b, 0, b);
                general_mat_mul(1.0, &wr.t(), &wr, 0.0, &mut cv);
            }
            c
        })
        .collect();
    sum_in_order(parts, b * b)
}

/// One row of `x R = w`, in place.
fn solve_row(row: &mut [f64], b: usize, r: &[f64]) {
    for j in 0..b {
        let mut s = row[j];
        for i in 0..j {
            s -= row[i] * r[i * b + j];
        }
        row[j] = s / r[j * b + j];
    }
}

/// Column norms of an `n × b` row-major block.
pub fn column_norms(w: &[f64], b: usize) -> Vec<f64> {
    let g = gram(w, b);
    (0..b).map(|j| g[j * b + j].max(0.0).sqrt()).collect()
}

/// Cuts a row-major slice into the mutable row ranges `ranges` (contiguous, in order).
fn split_rows<'a>(
    mut data: &'a mut [f64],
    stride: usize,
    ranges: &[std::ops::Range<usize>],
) -> Vec<&'a mut [f64]> {
    let mut out = Vec::with_capacity(ranges.len());
    for r in ranges {
        let (head, tail) = std::mem::take(&mut data).split_at_mut(r.len() * stride);
        out.push(head);
        data = tail;
    }
    out
}

/// Adds equal-length vectors in their order.
fn sum_in_order(parts: Vec<Vec<f64>>, len: usize) -> Vec<f64> {
    let mut total = vec![0.0; len];
    for part in parts {
        total.iter_mut().zip(&part).for_each(|(t, x)| *t += x);
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filled(rows: usize, cols: usize, seed: u64) -> Vec<f64> {
        (0..rows * cols)
            .map(|i| (((i as u64 + 1) * 2_654_435_761 + seed * 97) % 1000) as f64 / 500.0 - 1.0)
            .collect()
    }

    fn naive_tn(v: &[f64], ldv: usize, p: usize, w: &[f64], b: usize) -> Vec<f64> {
        let n = w.len() / b;
        let mut c = vec![0.0; p * b];
        for r in 0..n {
            for i in 0..p {
                for j in 0..b {
                    c[i * b + j] += v[r * ldv + i] * w[r * b + j];
                }
            }
        }
        c
    }

    fn close(a: &[f64], b: &[f64]) -> bool {
        a.len() == b.len()
            && a.iter()
                .zip(b)
                .all(|(x, y)| (x - y).abs() <= 1e-10 * (1.0 + y.abs()))
    }

    #[test]
    fn products_match_naive_loops() {
        // Widths 4, 8, 16 take the register-blocked kernels, 3 the GEMM path;
        // 101 rows leave a partial group of rows.
        for (ldv, p, b) in [(9, 7, 3), (12, 10, 4), (9, 7, 8), (20, 17, 16)] {
            check_products(101, ldv, p, b);
        }
    }

    fn check_products(n: usize, ldv: usize, p: usize, b: usize) {
        let v = filled(n, ldv, 1);
        let w = filled(n, b, 2);
        let c = project(&v, ldv, p, &w, b);
        assert!(close(&c, &naive_tn(&v, ldv, p, &w, b)));
        // W - V C, and its projection.
        let mut w2 = w.clone();
        let (c2, norms) = subtract_and_project(&v, ldv, p, &mut w2, b, &c);
        let mut expect = w.clone();
        for r in 0..n {
            for j in 0..b {
                for i in 0..p {
                    expect[r * b + j] -= v[r * ldv + i] * c[i * b + j];
                }
            }
        }
        assert!(close(&w2, &expect));
        assert!(close(&c2, &naive_tn(&v, ldv, p, &expect, b)));
        let g = naive_tn(&expect, b, b, &expect, b);
        assert!(close(
            &norms,
            &(0..b).map(|j| g[j * b + j]).collect::<Vec<_>>()
        ));
        let mut w3 = w.clone();
        subtract(&v, ldv, p, &mut w3, b, &c);
        assert!(close(&w3, &expect));
    }

    #[test]
    fn rotation_replaces_leading_columns_only() {
        let (n, ldv, p, k) = (37, 8, 5, 3);
        let mut v = filled(n, ldv, 3);
        let orig = v.clone();
        let y = filled(p, k, 4);
        rotate(&mut v, ldv, p, &y, k);
        for r in 0..n {
            for j in 0..k {
                let e: f64 = (0..p).map(|i| orig[r * ldv + i] * y[i * k + j]).sum();
                assert!((v[r * ldv + j] - e).abs() < 1e-12);
            }
            assert_eq!(
                &v[r * ldv + k..(r + 1) * ldv],
                &orig[r * ldv + k..(r + 1) * ldv]
            );
        }
    }

    #[test]
    fn triangular_solve_inverts_a_product() {
        let b = 3;
        let r = vec![2.0, 1.0, -1.0, 0.0, 3.0, 0.5, 0.0, 0.0, 1.5];
        let x = filled(10, b, 5);
        // w = x R
        let mut w: Vec<f64> = (0..10 * b)
            .map(|t| {
                let (row, j) = (t / b, t % b);
                (0..b).map(|i| x[row * b + i] * r[i * b + j]).sum()
            })
            .collect();
        let mut w2 = w.clone();
        solve_upper_right(&mut w, b, &r);
        assert!(close(&w, &x));
        // The fused form gives the same rows and their Gram matrix.
        let g = solve_upper_right_gram(&mut w2, b, &r);
        assert_eq!(w2, w);
        assert_eq!(g, gram(&w, b));
    }

    #[test]
    fn sums_do_not_depend_on_the_thread_count() {
        let (n, p, b) = (5000, 6, 4);
        let v = filled(n, p, 6);
        let w = filled(n, b, 7);
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let three = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let a = one.install(|| project(&v, p, p, &w, b));
        let c = three.install(|| project(&v, p, p, &w, b));
        assert_eq!(a, c);
    }
}
