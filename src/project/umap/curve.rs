//! The low-dimensional membership curve `1 / (1 + a d^(2b))` (McInnes et al.
//! 2018, §3.2): `a` and `b` are fitted by least squares to the offset
//! exponential that `min_dist` and `spread` describe, as umap-learn's
//! `find_ab_params` does with scipy's `curve_fit` (300 points on
//! `[0, 3 spread]`, start `(1, 1)`). A two-parameter Levenberg-Marquardt
//! fit is all that needs, so it is written here.

/// Points the target curve is sampled at (umap-learn's).
const SAMPLES: usize = 300;
/// Levenberg-Marquardt iterations allowed (the fit converges in tens).
const MAX_ITERATIONS: usize = 500;

/// The fitted curve: membership `1 / (1 + a d^(2b))` at distance `d`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Curve {
    /// Scale of the curve.
    pub a: f64,
    /// Steepness of the curve.
    pub b: f64,
}

/// The target: 1 below `min_dist`, `exp(-(d - min_dist) / spread)` above.
fn target(d: f64, min_dist: f64, spread: f64) -> f64 {
    if d < min_dist {
        1.0
    } else {
        (-(d - min_dist) / spread).exp()
    }
}

/// Residuals `f(x) − y` and their Jacobian rows `(∂/∂a, ∂/∂b)` at `(a, b)`.
fn residuals(xs: &[f64], ys: &[f64], a: f64, b: f64) -> (Vec<f64>, Vec<[f64; 2]>) {
    xs.iter()
        .zip(ys)
        .map(|(&x, &y)| {
            let p = if x > 0.0 { x.powf(2.0 * b) } else { 0.0 };
            let f = 1.0 / (1.0 + a * p);
            let ln = if x > 0.0 { x.ln() } else { 0.0 };
            let df = -f * f;
            (f - y, [df * p, df * a * p * 2.0 * ln])
        })
        .unzip()
}

/// Fits `a`, `b` for `min_dist` and `spread` (both checked by the caller:
/// `0 ≤ min_dist ≤ spread`, `spread > 0`).
pub fn fit(min_dist: f64, spread: f64) -> Curve {
    let xs: Vec<f64> = (0..SAMPLES)
        .map(|i| 3.0 * spread * i as f64 / (SAMPLES - 1) as f64)
        .collect();
    let ys: Vec<f64> = xs.iter().map(|&x| target(x, min_dist, spread)).collect();
    let (mut a, mut b) = (1.0f64, 1.0f64);
    let cost = |r: &[f64]| r.iter().map(|v| v * v).sum::<f64>();
    let (mut r, mut j) = residuals(&xs, &ys, a, b);
    let mut c = cost(&r);
    let mut lambda = 1e-3;
    for _ in 0..MAX_ITERATIONS {
        // Normal equations JᵀJ δ = −Jᵀr, damped on the diagonal.
        let (mut h, mut g) = ([[0.0f64; 2]; 2], [0.0f64; 2]);
        for (ri, ji) in r.iter().zip(&j) {
            for p in 0..2 {
                g[p] += ji[p] * ri;
                for q in 0..2 {
                    h[p][q] += ji[p] * ji[q];
                }
            }
        }
        let mut improved = false;
        while lambda < 1e12 {
            let m = [
                [h[0][0] * (1.0 + lambda), h[0][1]],
                [h[1][0], h[1][1] * (1.0 + lambda)],
            ];
            let det = m[0][0] * m[1][1] - m[0][1] * m[1][0];
            let da = -(m[1][1] * g[0] - m[0][1] * g[1]) / det;
            let db = -(m[0][0] * g[1] - m[1][0] * g[0]) / det;
            let (na, nb) = (a + da, b + db);
            if na > 0.0 && nb > 0.0 && det.is_finite() && det != 0.0 {
                let (nr, nj) = residuals(&xs, &ys, na, nb);
                let nc = cost(&nr);
                if nc <= c {
                    let step = (da.abs() / a).max(db.abs() / b);
                    (a, b, r, j, c) = (na, nb, nr, nj, nc);
                    lambda = (lambda / 10.0).max(1e-12);
                    improved = step > 1e-12;
                    break;
                }
            }
            lambda *= 10.0;
        }
        if !improved {
            break;
        }
    }
    Curve { a, b }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fit_matches_umap_learns_find_ab_params() {
        // umap-learn 0.5.12 (scipy curve_fit), printed by
        // `python -c "from umap.umap_ import find_ab_params as f; print(f(1.0, 0.1), f(1.0, 0.5), f(2.0, 0.0))"`.
        for (spread, min_dist, a, b) in [
            (1.0, 0.1, 1.576_943_460_269_765_2, 0.895_060_877_851_573_3),
            (1.0, 0.5, 0.583_030_020_341_442_5, 1.334_166_992_431_491_4),
            (2.0, 0.0, 0.646_046_671_952_582_6, 0.790_494_490_688_904_4),
        ] {
            let c = fit(min_dist, spread);
            assert!(
                (c.a - a).abs() < 1e-4 * a && (c.b - b).abs() < 1e-4 * b,
                "spread {spread}, min_dist {min_dist}: got {c:?}, umap-learn ({a}, {b})"
            );
        }
    }
}
