//! t-SNE (van der Maaten & Hinton 2008), written here to be as good and as
//! fast as openTSNE.
//!
//! The pipeline: kNN ([`knn`]: exact on matrix products, NN-descent for
//! large `n`), perplexity-calibrated sparse affinities ([`affinity`]), a
//! scaled PCA (or random) start, then gradient descent on openTSNE's schedule ([`optimize`]) with the repulsion
//! computed exactly, by Barnes-Hut or by FFT-accelerated interpolation
//! ([`gradient`]), chosen by size unless set.
//!
//! A run is a [`Trainer`]: the training engine's [`Job`] drives it, so a
//! projection pauses, stops, takes live settings (`learning_rate`,
//! `exaggeration`) and reports its KL divergence exactly as training does.
//! Hyperparameters are declared once in [`SCHEMA`].

pub mod affinity;
mod attraction;
pub mod barnes_hut;
pub mod exact;
pub mod fft;
pub mod gradient;
pub mod knn;
pub mod layout;
pub mod optimize;
pub mod order;
pub mod points;

use ndarray::{Array2, ArrayView2};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use self::affinity::SparseP;
use self::fft::FftParams;
use self::gradient::Repulsion;
use self::optimize::{Optimizer, Phase, Schedule};
use self::order::Order;
use crate::embedding::Embedding;
use crate::geometry::pca::{pca, PcaSolver};
use crate::geometry::random::gaussian;
use crate::schema::{bind_params, choice_names, Choice, ParamSpec, Params};
use crate::train::{Job, JobConfig, Method, StepReport, TrainInput, Trainer};
use crate::words::WordIndex;
use crate::{Error, Result};

/// Below this many points the exact O(n²) repulsion is used (by `gradient=auto`).
pub const EXACT_BELOW: usize = 1000;
/// From this many points on the FFT repulsion is used (Barnes-Hut in between).
pub const FFT_FROM: usize = 5000;
/// Standard deviation of the first coordinate of the initial layout (openTSNE's).
const INIT_STD: f64 = 1e-4;
/// Roughly how many point-iterations one engine step should hold (~20-200 ms).
const POINT_ITERATIONS_PER_STEP: usize = 100_000;
/// KL is evaluated at most once per this many iterations (and at the end): its
/// `ln` per non-zero of `P` cost a quarter of the run at 50k points when
/// evaluated every other iteration.
const KL_EVERY: usize = 25;
/// From this many points on the optimiser numbers the points in
/// breadth-first order over `P` ([`order`]): there the 2-D layout (16 bytes
/// a point, 1.6 MB at 100,000) outgrows a 1 MB L2 cache. Below it the
/// caller's order is kept, and with it the bits of earlier releases.
pub const REORDER_FROM: usize = 100_000;

/// t-SNE's perplexity, declared once for its schema and for the
/// workbench's projection form.
pub const PERPLEXITY: ParamSpec = ParamSpec::float(
    "perplexity",
    1.0,
    1000.0,
    30.0,
    "effective number of neighbours (k = 3 x perplexity are searched)",
);

/// t-SNE's hyperparameters (the CLI's `--set`, the TUI's form, session files).
pub static SCHEMA: &[ParamSpec] = &[
    PERPLEXITY,
    ParamSpec::int(
        "early_iterations",
        0,
        100_000,
        250,
        "iterations with early exaggeration",
    ),
    ParamSpec::float(
        "early_exaggeration",
        1.0,
        1000.0,
        12.0,
        "exaggeration of P during the early iterations",
    ),
    ParamSpec::int(
        "iterations",
        0,
        100_000,
        500,
        "iterations after early exaggeration",
    ),
    ParamSpec::float(
        "exaggeration",
        0.01,
        1000.0,
        1.0,
        "exaggeration after the early phase (1 = plain t-SNE)",
    )
    .live(),
    ParamSpec::float(
        "learning_rate",
        0.0,
        1e9,
        0.0,
        "step size; 0 = n / exaggeration (openTSNE's scale: gradient / 4)",
    )
    .live(),
    ParamSpec::float(
        "early_momentum",
        0.0,
        0.99,
        0.5,
        "momentum during early exaggeration",
    ),
    ParamSpec::float(
        "momentum",
        0.0,
        0.99,
        0.8,
        "momentum after early exaggeration",
    ),
    ParamSpec::choice(
        "gradient",
        GradientChoice::NAMES,
        "auto",
        "repulsion: exact below 1k points, Barnes-Hut below 5k, FFT above",
    ),
    ParamSpec::float("theta", 0.0, 1.0, 0.5, "Barnes-Hut opening angle"),
    ParamSpec::choice(
        "init",
        Init::NAMES,
        "pca",
        "initial layout: first two principal components (scaled) or Gaussian noise",
    ),
    crate::geometry::knn::KNN,
];

/// The engine's entry for t-SNE: its name and schema. It is not in the
/// training registry (it projects vectors, it does not read a corpus):
/// start it with [`spawn`].
pub static TSNE: Method = Method {
    name: "tsne",
    summary: "t-SNE projection to 2-D or 3-D (exact, Barnes-Hut or FFT gradient)",
    schema: SCHEMA,
    dimension: None,
    build: needs_vectors,
};

fn needs_vectors(_: &TrainInput, _: &mut dyn FnMut(String)) -> Result<Box<dyn Trainer>> {
    Err(Error::param(
        "algo",
        "tsne projects word vectors, not a corpus: use `wordbench project --method tsne`",
    ))
}

/// Which repulsion to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GradientChoice {
    /// By size: exact, Barnes-Hut, then FFT.
    Auto,
    /// All pairs.
    Exact,
    /// Barnes-Hut.
    BarnesHut,
    /// FFT-accelerated interpolation.
    Fft,
}

/// Initial layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Init {
    /// First two principal components, scaled to standard deviation 1e-4 (plus tiny jitter).
    Pca,
    /// Gaussian noise with standard deviation 1e-4.
    Random,
}

choice_names!(GradientChoice {
    Auto = "auto",
    Exact = "exact",
    BarnesHut = "bh",
    Fft = "fft",
});

choice_names!(Init {
    Pca = "pca",
    Random = "random",
});

bind_params! {
    /// The values of [`SCHEMA`], a field per entry.
    #[derive(Debug, Clone, Copy)]
    struct Values for SCHEMA {
        perplexity: f64,
        early_iterations: usize,
        early_exaggeration: f64,
        iterations: usize,
        exaggeration: f64,
        learning_rate: f64,
        early_momentum: f64,
        momentum: f64,
        gradient: GradientChoice,
        theta: f64,
        init: Init,
        knn: knn::Search,
    }
}

/// Validated t-SNE settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TsneConfig {
    /// Target perplexity (lowered to `(n − 1) / 3` for tiny inputs).
    pub perplexity: f64,
    /// Iterations, exaggeration, momentum, learning rate.
    pub schedule: Schedule,
    /// Repulsion method.
    pub gradient: GradientChoice,
    /// Barnes-Hut opening angle.
    pub theta: f64,
    /// Initial layout.
    pub init: Init,
    /// The neighbour search.
    pub knn: knn::Search,
    /// Seed of every random choice.
    pub seed: u64,
    /// Layout dimensions, 2 or 3 (the output's, set by the caller rather
    /// than the schema: `--dims`, the form's `dims`).
    pub dims: usize,
}

impl Default for TsneConfig {
    fn default() -> Self {
        TsneConfig::from_params(&Params::defaults(SCHEMA), 1)
    }
}

impl TsneConfig {
    /// Settings from schema-validated parameters.
    pub fn from_params(p: &Params, seed: u64) -> Self {
        let v = Values::from_params(p);
        TsneConfig {
            perplexity: v.perplexity,
            schedule: Schedule {
                early_iterations: v.early_iterations,
                early_exaggeration: v.early_exaggeration,
                early_momentum: v.early_momentum,
                iterations: v.iterations,
                exaggeration: v.exaggeration,
                momentum: v.momentum,
                learning_rate: (v.learning_rate > 0.0).then_some(v.learning_rate),
            },
            gradient: v.gradient,
            theta: v.theta,
            init: v.init,
            knn: v.knn,
            seed,
            dims: 2,
        }
    }

    /// The repulsion method for `n` points (in 3-D `auto` never picks the
    /// FFT, whose grid is planar).
    pub fn repulsion(&self, n: usize) -> Repulsion {
        let choice = match self.gradient {
            GradientChoice::Auto if n < EXACT_BELOW => GradientChoice::Exact,
            GradientChoice::Auto if n < FFT_FROM || self.dims > 2 => GradientChoice::BarnesHut,
            GradientChoice::Auto => GradientChoice::Fft,
            c => c,
        };
        match choice {
            GradientChoice::Exact => Repulsion::Exact,
            GradientChoice::BarnesHut => Repulsion::BarnesHut { theta: self.theta },
            _ => Repulsion::Fft(FftParams::default()),
        }
    }

    /// The perplexity actually used for `n` points.
    pub fn effective_perplexity(&self, n: usize) -> f64 {
        self.perplexity.min((n.saturating_sub(1)) as f64 / 3.0)
    }

    /// A one-line description for plot titles and logs.
    pub fn describe(&self, n: usize) -> String {
        let gradient = match self.repulsion(n) {
            Repulsion::Exact => "exact".to_string(),
            Repulsion::BarnesHut { theta } => format!("Barnes-Hut θ={theta}"),
            Repulsion::Fft(_) => "FFT".to_string(),
        };
        let space = if self.dims == 2 { "" } else { " in 3-D" };
        format!(
            "t-SNE{space}: perplexity {}, {} iterations ({} exaggerated x{}), {gradient} gradient, {} init, seed {}",
            short_number(self.effective_perplexity(n)),
            self.schedule.total(),
            self.schedule.early_iterations,
            self.schedule.early_exaggeration,
            match self.init {
                Init::Pca => "PCA",
                Init::Random => "random",
            },
            self.seed
        )
    }
}

/// `30` as "30", `19.666…` as "19.67": numbers for titles.
fn short_number(v: f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{}", v.round())
    } else {
        let s = format!("{v:.2}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// The layout being optimised, in the plane or in space.
#[derive(Debug)]
enum Flow {
    Plane(Optimizer<2>),
    Space(Optimizer<3>),
}

impl Flow {
    fn iterate(&mut self, p: &SparseP, phase: Phase, want_kl: bool) -> Option<f64> {
        match self {
            Flow::Plane(o) => o.iterate(p, phase, want_kl),
            Flow::Space(o) => o.iterate(p, phase, want_kl),
        }
    }
}

/// A t-SNE run: affinities, the layout being optimised and the schedule.
#[derive(Debug)]
pub struct Tsne {
    words: WordIndex,
    p: SparseP,
    opt: Flow,
    schedule: Schedule,
    per_step: usize,
    /// Last evaluated KL and the iteration count it was evaluated at.
    kl: f64,
    kl_at: Option<usize>,
    /// The optimiser's numbering of the points, when it is not the caller's.
    order: Option<Order>,
}

impl Tsne {
    /// Computes neighbours, affinities and the initial layout for the rows of
    /// `x` (one per word of `words`). `log` receives progress lines.
    pub fn prepare(
        words: WordIndex,
        x: ArrayView2<'_, f32>,
        config: &TsneConfig,
        log: &mut dyn FnMut(String),
    ) -> Result<Tsne> {
        let reorder = x.nrows() >= REORDER_FROM;
        Tsne::prepare_ordered(words, x, config, reorder, log)
    }

    /// [`Tsne::prepare`], with the breadth-first numbering chosen by the
    /// caller instead of by size (tests use it on small inputs).
    fn prepare_ordered(
        words: WordIndex,
        x: ArrayView2<'_, f32>,
        config: &TsneConfig,
        reorder: bool,
        log: &mut dyn FnMut(String),
    ) -> Result<Tsne> {
        if !(2..=3).contains(&config.dims) {
            return Err(Error::param(
                "dims",
                format!("{} (t-SNE lays out in 2 or 3 dimensions)", config.dims),
            ));
        }
        if config.dims == 3 && config.gradient == GradientChoice::Fft {
            return Err(Error::param(
                "gradient",
                "fft in 3-D (the FFT repulsion lays out in 2-D; use bh or exact)",
            ));
        }
        let n = x.nrows();
        check_points(n)?;
        if words.len() != n {
            return Err(Error::param(
                "words",
                format!("{} words for {n} vectors", words.len()),
            ));
        }
        crate::geometry::check_finite(x, Some(words.words()))?;
        let perplexity = config.effective_perplexity(n);
        if perplexity < config.perplexity {
            log(format!(
                "perplexity lowered to {perplexity:.2} for {n} points (at most (n - 1) / 3)"
            ));
        }
        let k = ((3.0 * perplexity) as usize).max(1);
        check_memory(n, k, crate::memory::default_budget())?;
        let t = std::time::Instant::now();
        let how = config.knn;
        let graph = knn::search(x, k, how);
        log(format!(
            "{k} nearest neighbours of {n} points ({}): {:.2}s",
            if how.approximate(n) {
                "approximate"
            } else {
                "exact"
            },
            t.elapsed().as_secs_f64()
        ));
        let t = std::time::Instant::now();
        let p = affinity::affinities(&graph, perplexity)?;
        log(format!(
            "affinities: {} nonzeros, {:.2}s",
            p.nnz(),
            t.elapsed().as_secs_f64()
        ));
        let order = reorder.then(|| Order::breadth_first(&p));
        let p = match &order {
            Some(o) => {
                log(format!("{n} points numbered breadth-first over P"));
                o.permute(&p)
            }
            None => p,
        };
        // The start is drawn in the caller's order, so each point starts
        // where it would without the renumbering.
        fn start<const D: usize>(
            x: ArrayView2<'_, f32>,
            config: &TsneConfig,
            order: Option<&Order>,
        ) -> Result<Vec<[f64; D]>> {
            let y0 = initial_layout(x, config.init, config.seed)?;
            Ok(match order {
                Some(o) => o.apply(&y0),
                None => y0,
            })
        }
        let repulsion = config.repulsion(n);
        let opt = match config.dims {
            2 => Flow::Plane(Optimizer::try_new(
                &p,
                start(x, config, order.as_ref())?,
                repulsion,
            )?),
            3 => Flow::Space(Optimizer::try_new(
                &p,
                start(x, config, order.as_ref())?,
                repulsion,
            )?),
            d => {
                return Err(Error::param(
                    "dims",
                    format!("{d} (t-SNE lays out in 2 or 3 dimensions)"),
                ))
            }
        };
        log(config.describe(n));
        Ok(Tsne {
            words,
            opt,
            p,
            schedule: config.schedule,
            per_step: (POINT_ITERATIONS_PER_STEP / n).clamp(1, 25),
            kl: f64::NAN,
            kl_at: None,
            order,
        })
    }

    /// The current layout as seen on a screen: its first two coordinates,
    /// in the caller's order.
    pub fn layout(&self) -> std::borrow::Cow<'_, [[f64; 2]]> {
        use std::borrow::Cow;
        let plane: Cow<'_, [[f64; 2]]> = match &self.opt {
            Flow::Plane(o) => Cow::Borrowed(o.layout()),
            Flow::Space(o) => o.layout().iter().map(|p| [p[0], p[1]]).collect(),
        };
        match &self.order {
            Some(order) => Cow::Owned(order.restore(&plane)),
            None => plane,
        }
    }

    /// The input affinities, numbered in the optimiser's order
    /// ([`Tsne::order`]).
    pub fn affinities(&self) -> &SparseP {
        &self.p
    }

    /// The optimiser's numbering of the points, when it is not the
    /// caller's (from [`REORDER_FROM`] points on).
    pub fn order(&self) -> Option<&Order> {
        self.order.as_ref()
    }

    /// Runs every remaining step without the engine (tests, library use);
    /// returns the last reported KL.
    pub fn run(&mut self) -> Result<f64> {
        let mut kl = f64::NAN;
        for s in 0..self.total_steps() {
            kl = self.step(s)?.loss;
        }
        Ok(kl)
    }

    /// The layout as an `n × dims` matrix.
    pub fn coords(&self) -> Array2<f64> {
        fn matrix<const D: usize>(y: &[[f64; D]], order: Option<&Order>) -> Array2<f64> {
            let y = order.map_or(std::borrow::Cow::Borrowed(y), |o| o.restore(y).into());
            Array2::from_shape_fn((y.len(), D), |(i, d)| y[i][d])
        }
        match &self.opt {
            Flow::Plane(o) => matrix(o.layout(), self.order.as_ref()),
            Flow::Space(o) => matrix(o.layout(), self.order.as_ref()),
        }
    }
}

impl Trainer for Tsne {
    fn total_steps(&self) -> u64 {
        self.schedule.total().div_ceil(self.per_step) as u64
    }

    fn step(&mut self, step: u64) -> Result<StepReport> {
        let n = self.p.n();
        let start = step as usize * self.per_step;
        let end = (start + self.per_step).min(self.schedule.total());
        let mut report = StepReport::default();
        let total = self.schedule.total();
        for it in start..end {
            let phase = self.schedule.phase(it, n);
            let due = self.kl_at.is_none_or(|at| it + 1 >= at + KL_EVERY) || it + 1 == total;
            if let Some(kl) = self.opt.iterate(&self.p, phase, it + 1 == end && due) {
                self.kl = kl;
                self.kl_at = Some(it + 1);
            }
            report.lr = phase.learning_rate;
        }
        report.loss = self.kl;
        report.items = ((end - start) * n) as u64;
        report.epoch = end as u32;
        Ok(report)
    }

    fn set(&mut self, params: &Params) -> Result<()> {
        let live = TsneConfig::from_params(params, 0).schedule;
        self.schedule.learning_rate = live.learning_rate;
        self.schedule.exaggeration = live.exaggeration;
        Ok(())
    }

    fn scores(&self) -> Option<crate::train::ScoreView<'_>> {
        None
    }

    fn into_embedding(self: Box<Self>) -> Result<Embedding> {
        let coords = self.coords().mapv(|v| v as f32);
        Embedding::new(self.words, coords)
    }
}

/// Fails unless `n` points are enough for t-SNE (at least 4), so callers can
/// check before starting a job.
pub fn check_points(n: usize) -> Result<()> {
    if n < 4 {
        return Err(Error::param(
            "words",
            format!("{n} point(s); t-SNE needs at least 4"),
        ));
    }
    Ok(())
}

/// Bytes per (point, neighbour) pair that t-SNE holds at its peak: the kNN
/// graph (id + distance), the conditional affinities, and the symmetrised
/// matrix with up to twice the entries (ids and values) while it is built.
/// Measured: perplexity 1000 on 22k points peaked at 3.9 GB, 59 bytes a pair.
const BYTES_PER_PAIR: u64 = 60;

/// Refuses a perplexity whose neighbour graph and affinities (`n` points,
/// `k` neighbours each) would not fit in `budget` bytes.
pub fn check_memory(n: usize, k: usize, budget: u64) -> Result<()> {
    let needed = (n as u64)
        .saturating_mul(k as u64)
        .saturating_mul(BYTES_PER_PAIR);
    let what = format!("t-SNE on {n} points with {k} neighbours each (3 x perplexity)");
    crate::memory::check("perplexity", &what, needed, budget)
}

/// Starts t-SNE on `vectors` (one row per word of `words`) with the
/// options `params` (of [`SCHEMA`]) and `seed` as an engine job with
/// `threads` threads; the job's `Finished` embedding holds the 2-D layout,
/// and its live options (`learning_rate`, `exaggeration`) change mid-run.
pub fn spawn(
    words: WordIndex,
    vectors: Array2<f32>,
    params: Params,
    seed: u64,
    threads: usize,
) -> Job {
    let job_config = JobConfig {
        perplexity: false,
        ..JobConfig::default()
    };
    let config = TsneConfig::from_params(&params, seed);
    Job::spawn_with(
        &TSNE,
        threads,
        params,
        job_config,
        Box::new(move |log| {
            let tsne = Tsne::prepare(words, vectors.view(), &config, log)?;
            Ok(Box::new(tsne) as Box<dyn Trainer>)
        }),
    )
}

/// The starting layout in `D` dimensions: scaled PCA with jitter
/// (openTSNE's), or noise.
fn initial_layout<const D: usize>(
    x: ArrayView2<'_, f32>,
    init: Init,
    seed: u64,
) -> Result<Vec<[f64; D]>> {
    let n = x.nrows();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x7453_4e45);
    let pcs = match init {
        Init::Pca if x.ncols() >= D => Some(pca(x, D, PcaSolver::Auto, seed)?.coords),
        _ => None,
    };
    let Some(c) = pcs else {
        return Ok((0..n)
            .map(|_| std::array::from_fn(|_| INIT_STD * gaussian(&mut rng)))
            .collect());
    };
    let std0 = {
        let col = c.column(0);
        let mean = col.sum() / n as f64;
        (col.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n as f64).sqrt()
    };
    let scale = if std0 > 0.0 { INIT_STD / std0 } else { 1.0 };
    let jitter = 0.01 * INIT_STD;
    Ok((0..n)
        .map(|i| std::array::from_fn(|d| c[[i, d]] * scale + jitter * gaussian(&mut rng)))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::testdata::gaussian_blobs;
    use crate::train::Event;

    fn words(n: usize) -> WordIndex {
        WordIndex::from_words((0..n).map(|i| format!("w{i}")).collect())
    }

    fn short(gradient: &str) -> TsneConfig {
        TsneConfig::from_params(&short_params(gradient), 3)
    }

    fn short_params(gradient: &str) -> Params {
        Params::parse(
            SCHEMA,
            "tsne",
            [
                ("early_iterations", "60"),
                ("iterations", "90"),
                ("gradient", gradient),
                ("perplexity", "10"),
            ],
        )
        .unwrap()
    }

    #[test]
    fn lays_out_in_3d_with_barnes_hut_and_separates_clusters() {
        let x = gaussian_blobs(300, 10, 3, 5);
        let config = TsneConfig {
            dims: 3,
            ..short("bh")
        };
        let mut t = Tsne::prepare(words(300), x.view(), &config, &mut |_| {}).unwrap();
        let kl = t.run().unwrap();
        assert!(kl.is_finite() && kl > 0.0);
        let y = t.coords();
        assert_eq!(y.dim(), (300, 3));
        let d2 = |i: usize, j: usize| (0..3).map(|k| (y[[i, k]] - y[[j, k]]).powi(2)).sum::<f64>();
        let same = (0..300)
            .filter(|&i| {
                let nearest = (0..300)
                    .filter(|&j| j != i)
                    .min_by(|&a, &b| d2(i, a).total_cmp(&d2(i, b)))
                    .unwrap();
                nearest % 3 == i % 3
            })
            .count();
        assert!(
            same >= 297,
            "{same}/300 nearest neighbours in the same blob"
        );
        // The exact KL of the 3-D layout is what the run reported.
        let pts: Vec<[f64; 3]> = y.rows().into_iter().map(|r| [r[0], r[1], r[2]]).collect();
        let exact_kl = exact::kl_divergence(t.affinities(), &pts);
        assert!(
            (exact_kl - kl).abs() < 0.05 * exact_kl,
            "{exact_kl} vs {kl}"
        );
        // The FFT repulsion is planar: refused in 3-D by name.
        let fft = TsneConfig {
            dims: 3,
            ..short("fft")
        };
        let e = Tsne::prepare(words(300), x.view(), &fft, &mut |_| {}).unwrap_err();
        assert!(e.to_string().contains("gradient"), "{e}");
        assert!(
            TsneConfig {
                dims: 3,
                ..short("auto")
            }
            .repulsion(100_000)
                != Repulsion::Fft(FftParams::default())
        );
    }

    #[test]
    fn separates_clusters_and_is_reproducible() {
        let x = gaussian_blobs(300, 10, 3, 5);
        let mut a = Tsne::prepare(words(300), x.view(), &short("exact"), &mut |_| {}).unwrap();
        let kl = a.run().unwrap();
        assert!(kl.is_finite() && kl > 0.0);
        // Every point's nearest 2-D neighbour is in its own blob (label = i mod 3).
        let y = a.layout();
        let mut same = 0;
        for i in 0..300 {
            let nearest = (0..300)
                .filter(|&j| j != i)
                .min_by(|&p, &q| {
                    let d = |j: usize| (y[i][0] - y[j][0]).powi(2) + (y[i][1] - y[j][1]).powi(2);
                    d(p).total_cmp(&d(q))
                })
                .unwrap();
            same += usize::from(nearest % 3 == i % 3);
        }
        assert!(
            same >= 297,
            "{same}/300 nearest neighbours in the same blob"
        );
        let mut b = Tsne::prepare(words(300), x.view(), &short("exact"), &mut |_| {}).unwrap();
        b.run().unwrap();
        assert_eq!(a.layout(), b.layout(), "same seed, same layout");
    }

    /// Numbered breadth-first, the optimiser runs the same problem: the
    /// layout, put back in the caller's order, is the plain run's up to
    /// rounding (sums are taken in another order; 150 iterations grow it to
    /// ~6e-6 of the layout's scale, where a misplaced point would be off by
    /// the scale itself), and the exact KL on the renumbered `P` is the one
    /// reported.
    #[test]
    fn the_breadth_first_numbering_changes_only_the_rounding() {
        // Blob labels interleaved (i mod 3), so the renumbering moves points.
        let x = gaussian_blobs(300, 10, 3, 5);
        let prepare = |reorder| {
            let mut t =
                Tsne::prepare_ordered(words(300), x.view(), &short("exact"), reorder, &mut |_| {})
                    .unwrap();
            let kl = t.run().unwrap();
            (t, kl)
        };
        let (plain, plain_kl) = prepare(false);
        let (ordered, ordered_kl) = prepare(true);
        let order = ordered.order().expect("renumbered");
        assert!(plain.order().is_none());
        assert_ne!(
            order.apply(&(0..300).collect::<Vec<_>>()),
            (0..300).collect::<Vec<_>>()
        );
        let (a, b) = (plain.coords(), ordered.coords());
        let scale = a.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let worst = a
            .iter()
            .zip(&b)
            .fold(0.0f64, |m, (p, q)| m.max((p - q).abs()));
        assert!(
            worst <= 1e-4 * scale,
            "{worst} against a layout of scale {scale}"
        );
        assert_eq!(ordered.layout().len(), 300);
        assert_eq!(
            ordered.layout()[7][0],
            b[[7, 0]],
            "layout() in the caller's order"
        );
        assert!(
            (plain_kl - ordered_kl).abs() <= 1e-6 * plain_kl,
            "{plain_kl} vs {ordered_kl}"
        );
        let inner: Vec<[f64; 2]> = order.apply(&ordered.layout());
        let exact_kl = exact::kl_divergence(ordered.affinities(), &inner);
        assert!(
            (exact_kl - ordered_kl).abs() < 0.05 * exact_kl,
            "{exact_kl} vs {ordered_kl}"
        );
    }

    #[test]
    fn a_perplexity_too_large_for_memory_is_refused_with_what_it_needs() {
        assert!(check_memory(22_000, 90, 1 << 30).is_ok());
        let e = check_memory(22_000, 3000, 1 << 30).unwrap_err().to_string();
        assert!(e.contains("perplexity") && e.contains("4.0 GB"), "{e}");
    }

    #[test]
    fn auto_picks_by_size_and_tiny_inputs_lower_the_perplexity() {
        let c = TsneConfig::default();
        assert_eq!(c.repulsion(999), Repulsion::Exact);
        assert_eq!(c.repulsion(1000), Repulsion::BarnesHut { theta: 0.5 });
        assert!(matches!(c.repulsion(5000), Repulsion::Fft(_)));
        assert_eq!(c.effective_perplexity(31), 10.0);
        assert!(c
            .describe(60)
            .starts_with("t-SNE: perplexity 19.67, 750 iterations"));
        assert!(c
            .describe(5000)
            .starts_with("t-SNE: perplexity 30, 750 iterations"));
        assert_eq!(short_number(2.5), "2.5");
        let x = gaussian_blobs(31, 4, 2, 1);
        let mut lines = Vec::new();
        let config = TsneConfig {
            perplexity: 30.0,
            ..short("exact")
        };
        let mut t = Tsne::prepare(words(31), x.view(), &config, &mut |l| lines.push(l)).unwrap();
        assert!(
            lines[0].starts_with("perplexity lowered to 10.00"),
            "{lines:?}"
        );
        t.run().unwrap();
        assert!(Tsne::prepare(words(3), x.slice(ndarray::s![..3, ..]), &c, &mut |_| {}).is_err());
        let mut bad = x.clone();
        bad[[4, 1]] = f32::NAN;
        let e = Tsne::prepare(words(31), bad.view(), &c, &mut |_| {}).unwrap_err();
        assert!(
            e.to_string().contains("row 5 (word 'w4'), value 2 is NaN"),
            "{e}"
        );
    }

    #[test]
    fn runs_on_the_engine_with_live_settings() {
        let x = gaussian_blobs(200, 6, 2, 2);
        let job = spawn(words(200), x, short_params("bh"), 3, 1);
        job.send(crate::train::Command::Set(
            "learning_rate".into(),
            "50".into(),
        ));
        job.send(crate::train::Command::Set("perplexity".into(), "5".into()));
        let (mut progress, mut applied, mut rejected) = (Vec::new(), 0, 0);
        let emb = job
            .wait(|e| match e {
                Event::Progress(p) => progress.push((p.step, p.total_steps, p.loss, p.lr)),
                Event::ParamApplied { .. } => applied += 1,
                Event::ParamRejected { .. } => rejected += 1,
                _ => {}
            })
            .unwrap();
        assert_eq!((applied, rejected), (1, 1));
        assert_eq!(emb.len(), 200);
        assert_eq!(emb.dim(), 2);
        let last = progress.last().unwrap();
        assert_eq!(last.0, last.1);
        assert!(progress
            .iter()
            .all(|p| p.2.is_finite() && p.2 > 0.0 && p.3 == 50.0));
    }
}
