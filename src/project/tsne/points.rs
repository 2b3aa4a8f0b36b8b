//! What every part of the gradient shares about the layout's points: the
//! fixed chunks parallel sums run in, and the Student-t kernel's distance.

/// Points per parallel work item (fixed, for thread-count-independent sums).
pub const CHUNK: usize = 256;

/// `1 + ‖a − b‖²` and `a − b`, summed in axis order (in 2-D the same bits
/// as `1 + d₀² + d₁²`).
#[inline]
pub fn one_plus_d2<const D: usize>(a: &[f64; D], b: &[f64; D]) -> (f64, [f64; D]) {
    let d: [f64; D] = std::array::from_fn(|k| a[k] - b[k]);
    let mut s = 1.0;
    for v in d {
        s += v * v;
    }
    (s, d)
}
