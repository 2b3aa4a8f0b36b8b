//! MPNNLM's row operations: momentum steps on a row of a table and the same
//! row of its velocity table, and the distance-softmax reads of prototype
//! rows.
//!
//! The MPNNLM (`algo::mpnnlm::model`) trains every table, both dense layers
//! and the prototypes, by momentum SGD, `v ← μ v − lr g; θ ← θ + v`, so a
//! step needs a row of a table and the same row of its velocity table at
//! once. A safe function that lent the two rows to caller code could be
//! asked, inside it, for one of them again (two `&mut` to one row), so each
//! whole step lives here as a function of plain slices and scalars, and the
//! row versions take the two handles ([`Rows`]: a shared Hogwild table or a
//! lane's replica) and refuse them when they lend the same table, as
//! [`super::adagrad::hogwild_step`] does. The reads of prototype rows (the
//! distance to the prediction, the gradient's sum over the softmax entries)
//! are whole operations for the same reason. Other threads may write the
//! rows meanwhile: the Hogwild race, accepted by design ([`super::hogwild`]).
//!
//! The arithmetic is written in the order the model's loops had it, so
//! moving it here changed no bit of a run.

use super::replicas::Rows;

/// `v ← μ v − lr · a · x; θ ← θ + v`, element-wise over the common length.
#[inline(always)]
pub fn step(theta: &mut [f32], vel: &mut [f32], a: f32, x: &[f32], lr: f32, mu: f32) {
    let la = lr * a;
    for ((t, v), &x) in theta.iter_mut().zip(vel.iter_mut()).zip(x) {
        *v = mu * *v - la * x;
        *t += *v;
    }
}

/// A prototype's step along its distance-softmax gradient `c · (θ − p)`:
/// `v ← μ v − lr · (c · (θ − p)); θ ← θ + v`, element-wise, the gradient
/// taken at the old `θ`.
#[inline(always)]
pub fn step_toward(theta: &mut [f32], vel: &mut [f32], c: f32, p: &[f32], lr: f32, mu: f32) {
    for ((t, v), &p) in theta.iter_mut().zip(vel.iter_mut()).zip(p) {
        let g = c * (*t - p);
        *v = mu * *v - lr * g;
        *t += *v;
    }
}

/// `−‖a − b‖² / 2` over the common length, summed in `f32` in eight
/// partial sums (then the tail), returned as `f64`.
#[inline(always)]
pub fn half_sq_distance(a: &[f32], b: &[f32]) -> f64 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for k in 0..8 {
            let t = x[k] - y[k];
            acc[k] += t * t;
        }
    }
    let mut s: f32 = acc.iter().sum();
    for (x, y) in ra.iter().zip(rb) {
        let t = x - y;
        s += t * t;
    }
    -0.5 * s as f64
}

/// `acc −= coef · (a − b)`, the difference taken in `f32`, the sum in `f64`.
#[inline(always)]
pub fn sub_scaled_diff(acc: &mut [f64], coef: f64, a: &[f32], b: &[f32]) {
    for ((g, &x), &y) in acc.iter_mut().zip(a).zip(b) {
        *g -= coef * (x - y) as f64;
    }
}

/// Panics when the two handles lend one table (the same row twice).
#[inline(always)]
fn two_tables<R: Rows>(table: &R, vel: &R) {
    assert!(!table.same_table(vel), "one row lent twice");
}

/// [`step`] on row `i` of `table` and row `i` of `vel`. Panics when `i` is
/// out of range or the two handles lend one table.
#[inline(always)]
pub fn step_row<R: Rows>(table: &R, vel: &R, i: usize, a: f32, x: &[f32], lr: f32, mu: f32) {
    two_tables(table, vel);
    // SAFETY: rows of two different tables (checked above), the only slices
    // of these handles alive in this call; `step` cannot reach the handles.
    // Concurrent use of the rows by other threads is the Hogwild race.
    let (t, v) = unsafe { (table.row(i), vel.row(i)) };
    step(t, v, a, x, lr, mu);
}

/// [`step_toward`] on row `i` of `table` and row `i` of `vel`. Panics when
/// `i` is out of range or the two handles lend one table.
#[inline(always)]
pub fn step_toward_row<R: Rows>(table: &R, vel: &R, i: usize, c: f32, p: &[f32], lr: f32, mu: f32) {
    two_tables(table, vel);
    // SAFETY: as in `step_row`.
    let (t, v) = unsafe { (table.row(i), vel.row(i)) };
    step_toward(t, v, c, p, lr, mu);
}

/// [`half_sq_distance`] of row `i` of `table` and `p`.
#[inline(always)]
pub fn half_sq_distance_row<R: Rows>(table: &R, i: usize, p: &[f32]) -> f64 {
    // SAFETY: the only slice of this handle alive in this call, read only
    // (the `Rows` operations' argument).
    half_sq_distance(unsafe { table.row(i) }, p)
}

/// [`sub_scaled_diff`] of row `i` of `table` and `p` into `acc`.
#[inline(always)]
pub fn sub_scaled_diff_row<R: Rows>(table: &R, i: usize, coef: f64, p: &[f32], acc: &mut [f64]) {
    // SAFETY: as in `half_sq_distance_row`.
    sub_scaled_diff(acc, coef, unsafe { table.row(i) }, p);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fast::hogwild::Hogwild;
    use crate::fast::replicas::Replicas;

    fn vals(k: f32, n: usize) -> Vec<f32> {
        (0..n).map(|i| ((i as f32 + k) * 0.37).sin()).collect()
    }

    #[test]
    fn a_momentum_step_by_hand() {
        let (mut t, mut v) = (vec![1.0f32, 2.0], vec![0.5f32, -1.0]);
        step(&mut t, &mut v, 2.0, &[1.0, 3.0], 0.25, 0.5);
        // v = 0.5 v − 0.5 x = [0.25 − 0.5, −0.5 − 1.5]; θ += v.
        assert_eq!(v, [-0.25, -2.0]);
        assert_eq!(t, [0.75, 0.0]);
        let (mut t, mut v) = (vec![1.0f32, 2.0], vec![0.5f32, -1.0]);
        step_toward(&mut t, &mut v, 2.0, &[0.0, 3.0], 0.25, 0.5);
        // g = 2 (θ − p) = [2, −2]; v = 0.5 v − 0.25 g.
        assert_eq!(v, [-0.25, 0.0]);
        assert_eq!(t, [0.75, 2.0]);
    }

    #[test]
    fn step_toward_is_the_step_on_its_gradient() {
        let (t0, v0, p) = (vals(0.0, 19), vals(5.0, 19), vals(9.0, 19));
        let c = -0.3f32;
        let g: Vec<f32> = t0.iter().zip(&p).map(|(t, p)| c * (t - p)).collect();
        let (mut ta, mut va) = (t0.clone(), v0.clone());
        step(&mut ta, &mut va, 1.0, &g, 0.01, 0.9);
        let (mut tb, mut vb) = (t0, v0);
        step_toward(&mut tb, &mut vb, c, &p, 0.01, 0.9);
        assert_eq!((ta, va), (tb, vb), "bit for bit");
    }

    #[test]
    fn distances_and_sums_by_hand() {
        let a: Vec<f32> = (0..11).map(|i| i as f32).collect();
        let b = vec![1.0f32; 11];
        // Σ (i − 1)² for i < 11 = 1 + 0 + 1 + 4 + ... + 81 = 286.
        assert_eq!(half_sq_distance(&a, &b), -143.0);
        let mut acc = vec![1.0f64; 3];
        sub_scaled_diff(&mut acc, 0.5, &[3.0, 1.0, -1.0], &[1.0, 1.0, 1.0]);
        assert_eq!(acc, [0.0, 1.0, 2.0]);
    }

    #[test]
    fn row_operations_equal_the_slice_operations() {
        let (d, i) = (13, 2);
        let (mut table, mut vel) = (vals(0.0, 4 * d), vals(7.0, 4 * d));
        let (x, p) = (vals(3.0, d), vals(4.0, d));
        let (mut t, mut v) = (
            table[i * d..(i + 1) * d].to_vec(),
            vel[i * d..(i + 1) * d].to_vec(),
        );
        step(&mut t, &mut v, 0.7, &x, 0.01, 0.9);
        step_toward(&mut t, &mut v, -0.2, &p, 0.01, 0.9);
        let dist = half_sq_distance(&t, &p);
        let mut acc = vec![0.0; d];
        sub_scaled_diff(&mut acc, 0.3, &t, &p);
        let (hdist, hacc) = {
            let (ht, hv) = (Hogwild::new(&mut table, d), Hogwild::new(&mut vel, d));
            step_row(&ht, &hv, i, 0.7, &x, 0.01, 0.9);
            step_toward_row(&ht, &hv, i, -0.2, &p, 0.01, 0.9);
            let mut hacc = vec![0.0; d];
            sub_scaled_diff_row(&ht, i, 0.3, &p, &mut hacc);
            (half_sq_distance_row(&ht, i, &p), hacc)
        };
        assert_eq!(table[i * d..(i + 1) * d], t[..]);
        assert_eq!(vel[i * d..(i + 1) * d], v[..]);
        assert_eq!((hdist.to_bits(), hacc), (dist.to_bits(), acc));
        assert_eq!(table[..i * d], vals(0.0, 4 * d)[..i * d], "other rows kept");
    }

    #[test]
    fn a_lane_replica_takes_the_same_step() {
        let d = 5;
        let (mut table, mut vel) = (vals(0.0, 3 * d), vals(1.0, 3 * d));
        let (mut rt, mut rv) = (Replicas::new(&table, d, 2), Replicas::new(&vel, d, 2));
        let x = vals(2.0, d);
        let (mut t, mut v) = (table[d..2 * d].to_vec(), vel[d..2 * d].to_vec());
        step(&mut t, &mut v, 1.5, &x, 0.1, 0.5);
        {
            let (ht, hv) = (rt.handles(&mut table), rv.handles(&mut vel));
            step_row(&ht[1], &hv[1], 1, 1.5, &x, 0.1, 0.5);
        }
        rt.merge(&mut table);
        rv.merge(&mut vel);
        assert_eq!((&table[d..2 * d], &vel[d..2 * d]), (&t[..], &v[..]));
    }

    #[test]
    #[should_panic(expected = "one row lent twice")]
    fn one_table_is_never_its_own_velocity() {
        let mut t = vec![1.0; 6];
        let h = Hogwild::new(&mut t, 3);
        step_row(&h, &h, 0, 1.0, &[1.0; 3], 0.1, 0.9);
    }

    #[test]
    #[should_panic(expected = "one row lent twice")]
    fn one_lane_table_is_never_its_own_velocity() {
        let mut t = vec![1.0; 6];
        let mut r = Replicas::new(&t, 3, 1);
        let h = r.handles(&mut t);
        step_toward_row(&h[0], &h[0], 1, 1.0, &[1.0; 3], 0.1, 0.9);
    }
}
