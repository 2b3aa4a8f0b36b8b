//! A UBE run in small steps: the affinity graph first, then one
//! Gauss–Seidel sweep over the points per step, `J` after every sweep
//! (docs/methods/ube.md, "Optimisation").

use std::collections::VecDeque;

use ndarray::{Array2, ArrayView2};

use super::affinity::Affinities;
use super::init::random_sphere;
use super::newton::Inverse;
use super::objective::{gradient, loss, Moments};
use crate::geometry::knn::Search;
use crate::schema::choice_names;
use crate::{Error, Result};

/// How a point moves along its gradient `g` (radial part removed, see
/// [`Update::Newton`]), before it is put back on the sphere.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Update {
    /// The paper's Newton step, `y ← y − lr G⁻¹ g` with `G = YᵀY`.
    Newton,
    /// The paper's gradient step with the Hessian replaced by its isotropic
    /// part `tr(G)/d · I` (so that one learning rate suits both): `y ← y − lr (d/n) g`.
    Sgd,
    /// The authors' step direction without their other choices: a step of
    /// length `lr / √t` along `v₁/‖v₁‖ − v₂/‖v₂‖`, attraction against
    /// repulsion as unit directions, every other point in the repulsion.
    Normalised,
    /// The authors' C code (`ube_optimize_underdevel` of `behrouzhs/kube`):
    /// the normalised direction with the point's graph neighbours left out
    /// of the repulsion (their `s_ij` zeroed), and the learning rate falling
    /// from `lr` to `lr / 10` along a sigmoid over the run
    /// ([`authors_lr`]; their `lr` 0.1 over 500 sweeps).
    Authors,
}

choice_names!(Update {
    Normalised = "normalised",
    Newton = "newton",
    Sgd = "sgd",
    Authors = "authors",
});

/// The settings of one run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Config {
    /// Output dimension `d`.
    pub dim: usize,
    /// Neighbours searched before the elbow cut.
    pub k_max: usize,
    /// Standard deviations the elbow lies at (the paper: 3).
    pub coverage: f64,
    /// Sweeps over all points.
    pub iters: usize,
    /// Initial learning rate; sweep `t` uses `lr / √t` ([`authors_lr`]
    /// for [`Update::Authors`]).
    pub lr: f64,
    /// Neighbours every point keeps at least, whatever its elbow (the
    /// thesis: 1, the elbow alone; the authors' code: 15).
    pub min_k: usize,
    /// The update rule.
    pub update: Update,
    /// Seed of the initialisation.
    pub seed: u64,
    /// How the `k_max` nearest neighbours are searched.
    pub knn: Search,
}

impl Config {
    /// The defaults for a `dim`-dimensional output: the paper's graph and
    /// schedule (`k_max` 50, elbow at 3σ, 250 sweeps, `lr/√t`) with the
    /// authors' normalised update at `lr` 0.3 (docs/methods/ube.md,
    /// "Update rules": the paper's Newton step barely moves the points).
    pub fn new(dim: usize) -> Config {
        Config {
            dim,
            k_max: 50,
            coverage: 3.0,
            iters: 250,
            lr: 0.3,
            min_k: 1,
            update: Update::Normalised,
            seed: 1,
            knn: Search::Auto,
        }
    }

    /// Fails on settings no run can use.
    pub fn check(&self) -> Result<()> {
        if self.dim < 2 {
            return Err(Error::param(
                "dim",
                format!("{} (expected at least 2)", self.dim),
            ));
        }
        if self.k_max < 2 {
            return Err(Error::param(
                "k_max",
                format!("{} (expected at least 2)", self.k_max),
            ));
        }
        if self.min_k > self.k_max {
            return Err(Error::param(
                "min_k",
                format!(
                    "{} (expected at most k_max = {}: a point keeps at most the neighbours searched)",
                    self.min_k, self.k_max
                ),
            ));
        }
        if !(self.coverage > 0.0 && self.coverage.is_finite()) {
            return Err(Error::param(
                "coverage",
                format!("{} (expected > 0)", self.coverage),
            ));
        }
        if !(self.lr > 0.0 && self.lr.is_finite()) {
            return Err(Error::param("lr", format!("{} (expected > 0)", self.lr)));
        }
        Ok(())
    }

    /// The learning rate of sweep `t` (1-based).
    pub fn lr_at(&self, t: usize) -> f64 {
        match self.update {
            Update::Authors => authors_lr(self.lr, t, self.iters),
            _ => self.lr / (t.max(1) as f64).sqrt(),
        }
    }
}

/// The authors' learning rate of sweep `t` (1-based) of `iters`: `lr` for
/// the first sweep, then `lr/10 + 0.9 lr σ(13 b_t / lr − 6)` with `b_t`
/// falling linearly from `lr` by `0.9 lr / iters` a sweep, so about `lr`
/// early on and `lr/10` (plus 1%) at the end (their `ALPHA_INIT` 0.1,
/// `MAX_ITER` 500).
pub fn authors_lr(lr: f64, t: usize, iters: usize) -> f64 {
    if t <= 1 {
        return lr;
    }
    let base = lr - (t - 1) as f64 * 0.9 * lr / iters.max(1) as f64;
    let sigmoid = 1.0 / (1.0 + (-(base * 13.0 / lr - 6.0)).exp());
    sigmoid * 0.9 * lr + 0.1 * lr
}

/// A UBE run: the graph on the first step, then one sweep per step.
pub struct Ube {
    config: Config,
    input: Option<Array2<f32>>,
    w: Option<Affinities>,
    sum_w2: f64,
    y: Array2<f64>,
    mom: Moments,
    sweeps: usize,
    loss: f64,
    notes: VecDeque<String>,
}

impl Ube {
    /// A run over the rows of `x` (the graph is built by the first [`Ube::step`]).
    pub fn new(x: Array2<f32>, config: Config) -> Result<Ube> {
        config.check()?;
        let n = x.nrows();
        if n < 3 {
            return Err(Error::param(
                "points",
                format!("{n} points; UBE needs at least 3"),
            ));
        }
        crate::geometry::check_finite(x.view(), None)?;
        let y = random_sphere(n, config.dim, config.seed);
        Ok(Ube {
            config,
            input: Some(x),
            w: None,
            sum_w2: 0.0,
            mom: Moments::of(y.view()),
            y,
            sweeps: 0,
            loss: f64::NAN,
            notes: VecDeque::new(),
        })
    }

    /// A run on affinities already built (tests, benchmarks).
    pub fn from_affinities(w: Affinities, config: Config) -> Result<Ube> {
        config.check()?;
        let y = random_sphere(w.len(), config.dim, config.seed);
        let mom = Moments::of(y.view());
        let sum_w2 = w.sum_squares();
        let loss = loss(&w, y.view(), &mom, sum_w2);
        Ok(Ube {
            config,
            input: None,
            w: Some(w),
            sum_w2,
            y,
            mom,
            sweeps: 0,
            loss,
            notes: VecDeque::new(),
        })
    }

    /// The settings.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Steps in the whole run (graph + sweeps).
    pub fn total_steps(&self) -> u64 {
        1 + self.config.iters as u64
    }

    /// Sweeps done.
    pub fn sweeps(&self) -> usize {
        self.sweeps
    }

    /// `J` after the last sweep (at the random start after the graph step).
    pub fn loss(&self) -> f64 {
        self.loss
    }

    /// The affinities, once built.
    pub fn affinities(&self) -> Option<&Affinities> {
        self.w.as_ref()
    }

    /// True once every sweep has run.
    pub fn is_done(&self) -> bool {
        self.w.is_some() && self.sweeps >= self.config.iters
    }

    /// The current rows (unit length).
    pub fn coords(&self) -> ArrayView2<'_, f64> {
        self.y.view()
    }

    /// The final rows.
    pub fn into_coords(self) -> Array2<f64> {
        self.y
    }

    /// A line for the log, if the last step has one.
    pub fn take_note(&mut self) -> Option<String> {
        self.notes.pop_front()
    }

    /// Builds the graph, or runs one sweep; returns the points processed.
    pub fn step(&mut self) -> Result<u64> {
        if let Some(x) = self.input.take() {
            let t = std::time::Instant::now();
            let w = Affinities::build_with_floor(
                x.view(),
                self.config.k_max,
                self.config.min_k,
                self.config.coverage,
                self.config.knn,
            )?;
            self.sum_w2 = w.sum_squares();
            self.loss = loss(&w, self.y.view(), &self.mom, self.sum_w2);
            self.notes.push_back(format!(
                "ube: {} points, {} neighbours searched, {:.1} kept on average (elbows), \
                 {} affinities in {:.1}s",
                w.len(),
                self.config.k_max.min(w.len() - 1),
                w.mean_kept(),
                w.ids.len(),
                t.elapsed().as_secs_f64()
            ));
            self.w = Some(w);
            return Ok(x.nrows() as u64);
        }
        if self.is_done() {
            return Ok(0);
        }
        self.sweep();
        Ok(self.y.nrows() as u64)
    }

    /// One Gauss–Seidel sweep at the scheduled learning rate, then `J`.
    fn sweep(&mut self) {
        let w = self.w.as_ref().expect("the graph is built first");
        self.sweeps += 1;
        let lr = self.config.lr_at(self.sweeps);
        sweep(w, &mut self.y, &mut self.mom, self.config.update, lr);
        // Fresh moments each sweep: the rank-one updates drift by rounding.
        self.mom = Moments::of(self.y.view());
        self.loss = loss(w, self.y.view(), &self.mom, self.sum_w2);
    }
}

/// Moves every point once, in order, keeping `mom` exact.
pub fn sweep(w: &Affinities, y: &mut Array2<f64>, mom: &mut Moments, update: Update, lr: f64) {
    let (n, d) = y.dim();
    let mut inv = (update == Update::Newton).then(|| Inverse::of(&mom.gram, d));
    let (mut g, mut scratch, mut step) = (vec![0.0; d], vec![0.0; d], vec![0.0; d]);
    let (mut old, mut v1) = (vec![0.0; d], vec![0.0; d]);
    for i in 0..n {
        old.copy_from_slice(y.row(i).as_slice().expect("standard layout"));
        match update {
            Update::Normalised | Update::Authors => normalised_direction(
                w,
                y.view(),
                mom,
                i,
                update == Update::Authors,
                [&mut step, &mut scratch, &mut v1],
            ),
            _ => {
                gradient(w, y.view(), mom, i, &mut g, &mut scratch);
                // Radial part removed: the projection back onto the sphere
                // discards it anyway, and G⁻¹ would turn it sideways.
                let radial: f64 = g.iter().zip(&old).map(|(a, b)| a * b).sum();
                for (gv, &yv) in g.iter_mut().zip(&old) {
                    *gv -= radial * yv;
                }
                match inv.as_ref() {
                    Some(inv) => inv.solve(&g, &mut step),
                    None => {
                        let scale = d as f64 / n as f64;
                        for (s, gv) in step.iter_mut().zip(&g) {
                            *s = scale * gv;
                        }
                    }
                }
                step.iter_mut().for_each(|s| *s = -*s);
            }
        }
        let mut row = y.row_mut(i);
        for (v, s) in row.iter_mut().zip(&step) {
            *v += lr * s;
        }
        let norm = row.dot(&row).sqrt();
        if norm > 1e-300 && norm.is_finite() {
            row.mapv_inplace(|v| v / norm);
        } else {
            row.assign(&ndarray::ArrayView1::from(&old));
        }
        let new = row.as_slice().expect("standard layout");
        mom.replace(&old, new);
        if let Some(inv) = inv.as_mut() {
            inv.replace(&old, new, &mom.gram);
        }
    }
}

/// The authors' direction `u/‖u‖`, `u = v₁/‖v₁‖ − v₂/‖v₂‖`, with
/// `v₁ = Σ_j w_ij y_j` and `v₂ = Σ_{j≠i} s_ij y_j` (collapsed), or with
/// `without_neighbours` `v₂ = Σ_{j≠i, w_ij = 0} s_ij y_j` (their code).
fn normalised_direction(
    w: &Affinities,
    y: ArrayView2<'_, f64>,
    mom: &Moments,
    i: usize,
    without_neighbours: bool,
    [out, scratch, v1]: [&mut [f64]; 3],
) {
    let d = out.len();
    // gradient() = v₂ − v₁; v₁ alone from the neighbours.
    gradient(w, y, mom, i, scratch, out);
    v1.iter_mut().for_each(|v| *v = 0.0);
    let (ids, ws) = w.row(i);
    for (&j, &wij) in ids.iter().zip(ws) {
        for (a, v) in v1.iter_mut().enumerate() {
            *v += wij * y[[j as usize, a]];
        }
    }
    let unit = |v: &mut [f64]| {
        let n = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        if n > 0.0 {
            v.iter_mut().for_each(|x| *x /= n);
        }
    };
    // v₂ = gradient + v₁.
    for (s, a) in scratch.iter_mut().zip(v1.iter()) {
        *s += a;
    }
    if without_neighbours {
        let yi = y.row(i);
        for &j in ids {
            let yj = y.row(j as usize);
            let sij = 0.5 * (yi.dot(&yj) + 1.0);
            for (s, &v) in scratch.iter_mut().zip(yj.iter()) {
                *s -= sij * v;
            }
        }
    }
    unit(v1);
    unit(scratch);
    for a in 0..d {
        out[a] = v1[a] - scratch[a];
    }
    unit(out);
}

/// Runs `config` on the rows of `x` to the end: the unit rows and `J` per sweep.
pub fn embed(x: Array2<f32>, config: Config) -> Result<(Array2<f64>, Vec<f64>)> {
    let mut u = Ube::new(x, config)?;
    let mut losses = Vec::with_capacity(config.iters);
    while !u.is_done() {
        u.step()?;
        if u.sweeps() > 0 {
            losses.push(u.loss());
        }
    }
    Ok((u.into_coords(), losses))
}
