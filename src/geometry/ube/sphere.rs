//! Pictures of points on the unit sphere `S²`: the Hammer equal-area map
//! (the whole sphere in one ellipse, areas — hence cluster sizes — kept),
//! centred on a chosen direction, and the turns that move that centre (the
//! workbench turns the sphere with keys, so the clusters cut by the map's
//! edge can be brought to its middle).

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
    hammer_map_in(coords, &frame(centre(coords)))
}

/// A 3 × 3 matrix, rows first.
pub type Matrix3 = [[f64; 3]; 3];

/// The identity: no turn.
pub const IDENTITY: Matrix3 = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

/// A turn of the sphere as seen on the map, in degrees: `right` moves the
/// points under the centre towards the map's right (about the map's
/// vertical axis), `up` towards its top (about its horizontal axis). In the
/// map's own coordinates (centre, east, north), so composing turns is
/// multiplying matrices: [`compose`].
pub fn turn(right: f64, up: f64) -> Matrix3 {
    let (sr, cr) = right.to_radians().sin_cos();
    let (su, cu) = up.to_radians().sin_cos();
    // About north: (centre, east) rotate by `right`.
    let yaw = [[cr, -sr, 0.0], [sr, cr, 0.0], [0.0, 0.0, 1.0]];
    // About east: (centre, north) rotate by `up`.
    let pitch = [[cu, 0.0, -su], [0.0, 1.0, 0.0], [su, 0.0, cu]];
    compose(&pitch, &yaw)
}

/// `a · b`: the turn `b`, then `a`.
pub fn compose(a: &Matrix3, b: &Matrix3) -> Matrix3 {
    let mut out = [[0.0; 3]; 3];
    for (i, row) in out.iter_mut().enumerate() {
        for (j, v) in row.iter_mut().enumerate() {
            *v = (0..3).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    out
}

/// The map frame of `coords` (centred on their mean direction) after the
/// turn `t`: the frame [`hammer_map_in`] takes.
pub fn turned_frame(coords: ArrayView2<'_, f64>, t: &Matrix3) -> Matrix3 {
    compose(t, &frame(centre(coords)))
}

/// The centre of a turned frame as longitude and latitude in degrees, in
/// the unturned map's coordinates (for titles: where the view looks).
pub fn looking_at(t: &Matrix3) -> (f64, f64) {
    // The view centre is row 0 of `t` read back: t^T e1 = t[0].
    let [u, v, w] = t[0];
    (
        v.atan2(u).to_degrees(),
        w.clamp(-1.0, 1.0).asin().to_degrees(),
    )
}

/// The Hammer map of the unit rows of an `n × 3` matrix seen in `frame`.
pub fn hammer_map_in(coords: ArrayView2<'_, f64>, frame: &Matrix3) -> Array2<f64> {
    let f = frame;
    let mut out = Array2::zeros((coords.nrows(), 2));
    for (i, r) in coords.rows().into_iter().enumerate() {
        let n = r.dot(&r).sqrt().max(1e-300);
        let [x, y] = hammer([r[0] / n, r[1] / n, r[2] / n], f);
        out[[i, 0]] = x;
        out[[i, 1]] = y;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::ube::init::random_sphere;

    fn apply(m: &Matrix3, p: [f64; 3]) -> [f64; 3] {
        [0, 1, 2].map(|i| (0..3).map(|k| m[i][k] * p[k]).sum())
    }

    #[test]
    fn turns_keep_points_on_the_sphere_and_their_angles() {
        let y = random_sphere(200, 3, 9);
        let t = compose(
            &turn(15.0, 0.0),
            &compose(&turn(0.0, -15.0), &turn(40.0, 25.0)),
        );
        let f = turned_frame(y.view(), &t);
        // The turned frame is orthonormal: seen in it, every point keeps its
        // length (stays on the sphere) and every pair its angle.
        for a in 0..3 {
            for b in 0..3 {
                let d: f64 = (0..3).map(|k| f[a][k] * f[b][k]).sum();
                assert!((d - f64::from(u8::from(a == b))).abs() < 1e-12);
            }
        }
        let seen: Vec<[f64; 3]> = y
            .rows()
            .into_iter()
            .map(|r| apply(&f, [r[0], r[1], r[2]]))
            .collect();
        for (i, p) in seen.iter().enumerate() {
            let n: f64 = p.iter().map(|v| v * v).sum();
            assert!((n - 1.0).abs() < 1e-12, "row {i}: |p|² = {n}");
            let j = (i + 1) % seen.len();
            let before = y.row(i).dot(&y.row(j));
            let after: f64 = (0..3).map(|k| p[k] * seen[j][k]).sum();
            assert!((before - after).abs() < 1e-12);
        }
    }

    #[test]
    fn turns_move_the_centre_and_a_full_turn_comes_back() {
        // Turning right by 90° brings the point a quarter to the west
        // (left of the centre) to the centre.
        let f = frame([1.0, 0.0, 0.0]);
        let west = [-f[1][0], -f[1][1], -f[1][2]];
        let t = turn(90.0, 0.0);
        let c = hammer(west, &compose(&t, &f));
        assert!(c[0].abs() < 1e-12 && c[1].abs() < 1e-12, "{c:?}");
        // Up by 90°: the south pole comes to the centre.
        let south = [-f[2][0], -f[2][1], -f[2][2]];
        let c = hammer(south, &compose(&turn(0.0, 90.0), &f));
        assert!(c[0].abs() < 1e-12 && c[1].abs() < 1e-12, "{c:?}");
        let (lon, lat) = looking_at(&t);
        assert!((lon + 90.0).abs() < 1e-9 && lat.abs() < 1e-9, "{lon} {lat}");
        // 24 steps of 15° in either direction are the identity again.
        for step in [turn(15.0, 0.0), turn(0.0, 15.0), turn(-15.0, 0.0)] {
            let mut m = IDENTITY;
            for _ in 0..24 {
                m = compose(&step, &m);
            }
            for a in 0..3 {
                for b in 0..3 {
                    assert!((m[a][b] - IDENTITY[a][b]).abs() < 1e-12);
                }
            }
        }
    }

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
