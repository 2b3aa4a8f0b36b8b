//! Gradient descent with momentum and per-coordinate gains, on openTSNE's schedule.
//!
//! Converging within the usual 750 iterations is the hard part of t-SNE, and
//! the details matter (a native loop that missed them was measured stopping
//! at a KL 20-30% worse: docs/methods/projection.md, "Optimisation
//! schedule"). Followed here, as openTSNE does:
//!
//! - early exaggeration `α = 12` for 250 iterations, then `α = 1`;
//! - learning rate `n / α` in each phase unless set ([`Gradient`] returns the
//!   gradient divided by 4, openTSNE's scale, so the rates carry over);
//! - gains `+0.2` where the gradient's sign differs from the last update's,
//!   else `× 0.8 + 0.01`, with no upper cap;
//! - each point's step clipped to length 5, and the layout re-centred.

use rayon::prelude::*;

use super::affinity::SparseP;
use super::fft::FftWorkspace;
use super::gradient::{FftIn, Gradient, Repulsion, CHUNK};
use crate::Result;

/// Gains never fall below this.
const MIN_GAIN: f64 = 0.01;
/// A point moves at most this far in one iteration.
const MAX_STEP: f64 = 5.0;

/// The optimisation schedule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Schedule {
    /// Iterations with early exaggeration.
    pub early_iterations: usize,
    /// Exaggeration of `P` during them.
    pub early_exaggeration: f64,
    /// Momentum during them.
    pub early_momentum: f64,
    /// Iterations after early exaggeration.
    pub iterations: usize,
    /// Exaggeration afterwards (1 = plain t-SNE).
    pub exaggeration: f64,
    /// Momentum afterwards.
    pub momentum: f64,
    /// Fixed learning rate, or `None` for `n / exaggeration`.
    pub learning_rate: Option<f64>,
}

impl Default for Schedule {
    fn default() -> Self {
        Schedule {
            early_iterations: 250,
            early_exaggeration: 12.0,
            // As the `early_momentum` schema default (the 0.5; openTSNE uses 0.8).
            early_momentum: 0.5,
            iterations: 500,
            exaggeration: 1.0,
            momentum: 0.8,
            learning_rate: None,
        }
    }
}

/// The settings in force at one iteration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Phase {
    /// Exaggeration of `P`.
    pub exaggeration: f64,
    /// Momentum.
    pub momentum: f64,
    /// Learning rate.
    pub learning_rate: f64,
}

impl Schedule {
    /// All iterations.
    pub fn total(&self) -> usize {
        self.early_iterations + self.iterations
    }

    /// The settings for iteration `iteration` (0-based) with `n` points.
    pub fn phase(&self, iteration: usize, n: usize) -> Phase {
        let (exaggeration, momentum) = if iteration < self.early_iterations {
            (self.early_exaggeration, self.early_momentum)
        } else {
            (self.exaggeration, self.momentum)
        };
        Phase {
            exaggeration,
            momentum,
            learning_rate: self
                .learning_rate
                .unwrap_or((n as f64 / exaggeration).max(1.0)),
        }
    }
}

/// A layout in `D` dimensions being optimised, with its momentum and gains.
#[derive(Debug)]
pub struct Optimizer<const D: usize = 2> {
    y: Vec<[f64; D]>,
    update: Vec<[f64; D]>,
    gains: Vec<[f64; D]>,
    grad: Vec<[f64; D]>,
    gradient: Gradient<D>,
}

impl Optimizer<2> {
    /// Starts from the 2-D layout `y0` (one point per row of `p`).
    pub fn new(p: &SparseP, y0: Vec<[f64; 2]>, repulsion: Repulsion) -> Self {
        Self::try_new(p, y0, repulsion).expect("every repulsion lays out in 2-D")
    }
}

impl<const D: usize> Optimizer<D>
where
    FftWorkspace: FftIn<D>,
{
    /// Starts from layout `y0` (one point per row of `p`); refuses a
    /// repulsion that does not work in `D` dimensions.
    pub fn try_new(p: &SparseP, y0: Vec<[f64; D]>, repulsion: Repulsion) -> Result<Self> {
        let n = y0.len();
        Ok(Optimizer {
            y: y0,
            update: vec![[0.0; D]; n],
            gains: vec![[1.0; D]; n],
            grad: vec![[0.0; D]; n],
            gradient: Gradient::try_new(p, repulsion)?,
        })
    }

    /// The current layout.
    pub fn layout(&self) -> &[[f64; D]] {
        &self.y
    }

    /// The repulsion method in use.
    pub fn repulsion(&self) -> Repulsion {
        self.gradient.repulsion()
    }

    /// One iteration. With `want_kl`, returns KL(P ‖ Q) of the layout before the step.
    pub fn iterate(&mut self, p: &SparseP, phase: Phase, want_kl: bool) -> Option<f64> {
        let kl = self
            .gradient
            .compute(p, &self.y, phase.exaggeration, want_kl, &mut self.grad);
        let Phase {
            momentum,
            learning_rate,
            ..
        } = phase;
        self.y
            .par_chunks_mut(CHUNK)
            .zip(self.update.par_chunks_mut(CHUNK))
            .zip(self.gains.par_chunks_mut(CHUNK))
            .zip(self.grad.par_chunks(CHUNK))
            .for_each(|(((y, update), gains), grad)| {
                for (((y, u), g), dy) in y.iter_mut().zip(update).zip(gains).zip(grad) {
                    for d in 0..D {
                        // numpy's sign semantics: sign(0) = 0, so the first step counts as a flip.
                        if sign(u[d]) != sign(dy[d]) {
                            g[d] += 0.2;
                        } else {
                            g[d] = g[d] * 0.8 + MIN_GAIN;
                        }
                        u[d] = momentum * u[d] - learning_rate * g[d] * dy[d];
                    }
                    let len = u.iter().fold(0.0, |s, v| s + v * v).sqrt();
                    if len > MAX_STEP {
                        let s = MAX_STEP / len;
                        for v in u.iter_mut() {
                            *v *= s;
                        }
                    }
                    for d in 0..D {
                        y[d] += u[d];
                    }
                }
            });
        recentre(&mut self.y);
        kl
    }
}

fn sign(v: f64) -> i8 {
    if v > 0.0 {
        1
    } else if v < 0.0 {
        -1
    } else {
        0
    }
}

/// Subtracts the mean (summed in fixed chunks, so thread-count independent).
fn recentre<const D: usize>(y: &mut [[f64; D]]) {
    let add = |a: [f64; D], p: &[f64; D]| std::array::from_fn(|d| a[d] + p[d]);
    let parts: Vec<[f64; D]> = y
        .par_chunks(CHUNK)
        .map(|c| c.iter().fold([0.0; D], add))
        .collect();
    let sum = parts.iter().fold([0.0; D], add);
    let n = y.len().max(1) as f64;
    let mean = sum.map(|s| s / n);
    y.par_iter_mut().for_each(|p| {
        for d in 0..D {
            p[d] -= mean[d];
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::testdata::{small_problem, spread_layout};
    use crate::project::tsne::exact;

    #[test]
    fn schedule_phases_follow_opentsne() {
        let s = Schedule::default();
        assert_eq!(s.total(), 750);
        let early = s.phase(0, 1200);
        assert_eq!((early.exaggeration, early.learning_rate), (12.0, 100.0));
        let late = s.phase(250, 1200);
        assert_eq!((late.exaggeration, late.learning_rate), (1.0, 1200.0));
        let fixed = Schedule {
            learning_rate: Some(200.0),
            ..s
        };
        assert_eq!(fixed.phase(10, 5).learning_rate, 200.0);
    }

    #[test]
    fn first_step_is_plain_gradient_times_gain_and_clipped() {
        let p = small_problem(30, 5.0, 1);
        let y0 = spread_layout(30, 1.0, 2);
        let mut grad = vec![[0.0; 2]; 30];
        Gradient::new(&p, Repulsion::Exact).compute(&p, &y0, 1.0, false, &mut grad);
        let mut opt = Optimizer::new(&p, y0.clone(), Repulsion::Exact);
        let phase = Phase {
            exaggeration: 1.0,
            momentum: 0.8,
            learning_rate: 3.0,
        };
        opt.iterate(&p, phase, false);
        // First step: gains 1.2, update = −3 · 1.2 · grad (all short), then re-centring.
        let moved: Vec<[f64; 2]> = y0
            .iter()
            .zip(&grad)
            .map(|(y, g)| [y[0] - 3.6 * g[0], y[1] - 3.6 * g[1]])
            .collect();
        let mean = moved
            .iter()
            .fold([0.0, 0.0], |a, p| [a[0] + p[0] / 30.0, a[1] + p[1] / 30.0]);
        for (got, want) in opt.layout().iter().zip(&moved) {
            assert!((got[0] - (want[0] - mean[0])).abs() < 1e-12);
            assert!((got[1] - (want[1] - mean[1])).abs() < 1e-12);
        }
        // A huge learning rate moves no point farther than MAX_STEP.
        let mut opt = Optimizer::new(&p, y0.clone(), Repulsion::Exact);
        let before = opt.layout().to_vec();
        let big = Phase {
            learning_rate: 1e9,
            ..phase
        };
        opt.iterate(&p, big, false);
        let shifts: Vec<f64> = before
            .iter()
            .zip(opt.layout())
            .map(|(a, b)| ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt())
            .collect();
        let spread = shifts.iter().cloned().fold(0.0, f64::max)
            - shifts.iter().cloned().fold(f64::INFINITY, f64::min);
        assert!(spread <= 2.0 * MAX_STEP + 1e-9);
    }

    #[test]
    fn optimisation_lowers_kl() {
        let p = small_problem(200, 15.0, 3);
        let y0 = spread_layout(200, 1e-4, 4);
        let mut opt = Optimizer::new(&p, y0.clone(), Repulsion::Exact);
        let s = Schedule {
            early_iterations: 100,
            iterations: 200,
            ..Schedule::default()
        };
        let start = exact::kl_divergence(&p, &y0);
        let mut last = None;
        for it in 0..s.total() {
            last = opt
                .iterate(&p, s.phase(it, 200), it + 1 == s.total())
                .or(last);
        }
        let end = exact::kl_divergence(&p, opt.layout());
        assert!(end < 0.5 * start, "KL {start} -> {end}");
        assert!(
            (last.unwrap() - end).abs() < 0.05 * end,
            "reported KL is of the layout before the last step"
        );
    }
}
