//! The repulsion kernel and the learning-rate schedule.
//!
//! Kernel (Soleimani eq. 3.11): `K(c) = (c + 1)^p` on the cosine `c = y_i·y_j`
//! of two unit vectors. The authors' code uses `((c + 1)/2)^p` — the thesis'
//! `[0, 1]`-normalised cosine of §3.3.2 raised to `p`, i.e. the same kernel
//! divided by the constant `2^p` ([`Scale::Half`], the default). Under the
//! default normalised-force update (see [`super::update`]) the repulsion is
//! divided by its own norm, so the constant cancels and both give the same
//! vectors (up to rounding); it only matters for the raw-gradient update and
//! for the size of the reported energy.
//!
//! Energy of a repelling pair: `F(c) = (c + 1) K(c) / (p + 1)`, whose
//! derivative in `c` is `K(c)` for both scales, so `∂F/∂y_i = K y_j`.

/// The constant in front of the kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// `((c + 1)/2)^p`: the authors' code (values in `[0, 1]`).
    Half,
    /// `(c + 1)^p`: eq. 3.11 as printed.
    Plain,
}

/// The polynomial kernel of degree `p`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kernel {
    /// Degree `p >= 1`.
    pub p: u32,
    /// Constant factor convention.
    pub scale: Scale,
}

impl Kernel {
    /// The kernel's base `b(c)`, so that `K = b^p`.
    #[inline]
    pub fn base(self, c: f32) -> f32 {
        match self.scale {
            Scale::Half => 0.5 * (c + 1.0),
            Scale::Plain => c + 1.0,
        }
    }

    /// `K(c)`.
    #[inline]
    pub fn weight(self, c: f32) -> f32 {
        powu(self.base(c), self.p)
    }

    /// The pair energy `F(c) = (c + 1) K(c) / (p + 1)` (f64).
    #[inline]
    pub fn energy(self, c: f32) -> f64 {
        (c as f64 + 1.0) * self.weight(c) as f64 / (self.p as f64 + 1.0)
    }

    /// Replaces every cosine `c` in `row` by `K(c)` and returns
    /// `Σ (c + 1) K(c)` over the row (f64). `base` and `power` are scratch of
    /// at least `row.len()`. Vectorises: the power is taken by squaring, in
    /// `⌈log2 p⌉` passes over the row instead of a loop per element.
    pub fn apply_row(self, row: &mut [f32], base: &mut [f32], power: &mut [f32]) -> f64 {
        let n = row.len();
        let (base, power) = (&mut base[..n], &mut power[..n]);
        for (b, &c) in base.iter_mut().zip(row.iter()) {
            *b = self.base(c);
        }
        power.fill(1.0);
        let mut e = self.p;
        while e > 0 {
            if e & 1 == 1 {
                power
                    .iter_mut()
                    .zip(base.iter())
                    .for_each(|(r, &b)| *r *= b);
            }
            e >>= 1;
            if e > 0 {
                base.iter_mut().for_each(|b| *b *= *b);
            }
        }
        let mut energy = 0.0f64;
        for (c, &k) in row.iter_mut().zip(power.iter()) {
            energy += ((*c + 1.0) * k) as f64;
            *c = k;
        }
        energy
    }
}

/// `x^p` by squaring.
#[inline]
pub fn powu(x: f32, p: u32) -> f32 {
    let (mut r, mut b, mut e) = (1.0f32, x, p);
    while e > 0 {
        if e & 1 == 1 {
            r *= b;
        }
        b *= b;
        e >>= 1;
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scales_differ_by_two_to_the_p() {
        let half = Kernel {
            p: 13,
            scale: Scale::Half,
        };
        let plain = Kernel {
            p: 13,
            scale: Scale::Plain,
        };
        for c in [-0.9f32, -0.2, 0.0, 0.3, 0.99] {
            let ratio = plain.weight(c) as f64 / half.weight(c) as f64;
            assert!((ratio - 8192.0).abs() < 1e-3, "{ratio}");
        }
        assert_eq!(half.weight(1.0), 1.0);
        assert_eq!(plain.weight(0.0), 1.0);
    }

    #[test]
    fn energy_derivative_is_the_kernel() {
        for scale in [Scale::Half, Scale::Plain] {
            let k = Kernel { p: 5, scale };
            for c in [-0.5f32, 0.0, 0.4] {
                let h = 1e-2f32;
                let numeric = (k.energy(c + h) - k.energy(c - h)) / (2.0 * h as f64);
                let rel = (numeric - k.weight(c) as f64).abs() / k.weight(c) as f64;
                assert!(rel < 2e-3, "{scale:?} c={c}: {numeric} vs {}", k.weight(c));
            }
        }
    }

    #[test]
    fn row_transform_matches_the_scalar_kernel() {
        for p in [1u32, 2, 5, 13, 16] {
            let k = Kernel {
                p,
                scale: Scale::Half,
            };
            let cos: Vec<f32> = (0..37).map(|i| -1.0 + i as f32 / 18.0).collect();
            let mut row = cos.clone();
            let (mut b, mut r) = (vec![0.0; 40], vec![0.0; 40]);
            let energy = k.apply_row(&mut row, &mut b, &mut r);
            let mut expect = 0.0;
            for (c, got) in cos.iter().zip(&row) {
                assert!(
                    (got - k.weight(*c)).abs() <= 1e-6 * k.weight(*c).max(1e-30),
                    "p={p} c={c}"
                );
                expect += k.energy(*c) * (p as f64 + 1.0);
            }
            assert!(
                (energy - expect).abs() < 1e-5 * expect.max(1.0),
                "{energy} vs {expect}"
            );
        }
        assert_eq!(powu(3.0, 5), 243.0);
        assert_eq!(powu(2.0, 0), 1.0);
    }
}
