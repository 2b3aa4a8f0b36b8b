//! Pictures of points on the unit sphere `S²`: the Hammer equal-area map
//! (the whole sphere in one ellipse, areas — hence cluster sizes — kept),
//! centred on a chosen direction.

use ndarray::{Array2, ArrayView2};

/// A rotation taking `centre` (any nonzero 3-vector) to the map centre
/// `(1, 0, 0)`, as an orthonormal basis: rows `centre`, east, north.
pub fn frame(centre: [f64; 3]) -> [[f64; 3]; 3] {
    let unit = |v: [f64; 3]| {
        let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        [v[0] / n, v[1] / n, v[2] / n]
    };
    let c = unit(centre);
    // North: the z axis made orthogonal to c (the y axis if c is vertical).
    let up = if c[2].abs() > 0.9 {
        [0.0, 1.0, 0.0]
    } else {
        [0.0, 0.0, 1.0]
    };
    let dot = c[0] * up[0] + c[1] * up[1] + c[2] * up[2];
    let north = unit([up[0] - dot * c[0], up[1] - dot * c[1], up[2] - dot * c[2]]);
    let east = [
        north[1] * c[2] - north[2] * c[1],
        north[2] * c[0] - north[0] * c[2],
        north[0] * c[1] - north[1] * c[0],
    ];
    [c, east, north]
}

/// The Hammer projection of the unit 3-vector `p` seen in `frame`:
/// `x ∈ [−2√2, 2√2]`, `y ∈ [−√2, √2]`.
pub fn hammer(p: [f64; 3], frame: &[[f64; 3]; 3]) -> [f64; 2] {
    let r = |a: &[f64; 3]| a[0] * p[0] + a[1] * p[1] + a[2] * p[2];
    let (u, v, w) = (r(&frame[0]), r(&frame[1]), r(&frame[2]));
    let lat = w.clamp(-1.0, 1.0).asin();
    let lon = v.atan2(u);
    let k = (1.0 + lat.cos() * (lon / 2.0).cos()).max(1e-12);
    let x = 2.0 * std::f64::consts::SQRT_2 * lat.cos() * (lon / 2.0).sin() / k.sqrt();
    let y = std::f64::consts::SQRT_2 * lat.sin() / k.sqrt();
    [x, y]
}

/// The map centre for `coords`: the mean direction if the points lean one
/// way, else the first axis (any centre is as good on a uniform sphere).
pub fn centre(coords: ArrayView2<'_, f64>) -> [f64; 3] {
    let mut m = [0.0; 3];
    for r in coords.rows() {
        for a in 0..3 {
            m[a] += r[a];
        }
    }
    let norm = (m[0] * m[0] + m[1] * m[1] + m[2] * m[2]).sqrt();
    if norm > 1e-6 * coords.nrows() as f64 {
        m
    } else {
        [1.0, 0.0, 0.0]
    }
}

/// The equal-area map of the unit rows of an `n × 3` matrix.
pub fn hammer_map(coords: ArrayView2<'_, f64>) -> Array2<f64> {
    let f = frame(centre(coords));
    let mut out = Array2::zeros((coords.nrows(), 2));
    for (i, r) in coords.rows().into_iter().enumerate() {
        let n = r.dot(&r).sqrt().max(1e-300);
        let [x, y] = hammer([r[0] / n, r[1] / n, r[2] / n], &f);
        out[[i, 0]] = x;
        out[[i, 1]] = y;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ube::init::random_sphere;

    #[test]
    fn hammer_map_fills_its_ellipse_evenly() {
        let f = frame([0.0, 1.0, 0.0]);
        let c = hammer([0.0, 1.0, 0.0], &f);
        assert!(c[0].abs() < 1e-12 && c[1].abs() < 1e-12, "centre maps to 0");
        let top = hammer([0.0, 0.0, 1.0], &f);
        assert!((top[1] - std::f64::consts::SQRT_2).abs() < 1e-9, "{top:?}");
        // Equal area: uniform points on the sphere land evenly in the
        // ellipse x²/8 + y²/2 <= 1, so half of them within the inner
        // ellipse of half the area (scale 1/√2).
        let y = random_sphere(20_000, 3, 4);
        let map = hammer_map(y.view());
        let mut inner = 0;
        for r in map.rows() {
            let e = r[0] * r[0] / 8.0 + r[1] * r[1] / 2.0;
            assert!(e <= 1.0 + 1e-9);
            if e <= 0.5 {
                inner += 1;
            }
        }
        let share = inner as f64 / 20_000.0;
        assert!((share - 0.5).abs() < 0.02, "{share}");
    }
}
