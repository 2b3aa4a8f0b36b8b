//! One graph embedding run in small steps: the neighbourhood graph, then
//! (Isomap) shortest paths a batch of sources at a time, then one Lanczos
//! block per step until the eigenpairs converge, then the coordinates and
//! the closed-form report (docs/methods/manifold.md, "Report values").

use std::fmt;
use std::sync::Arc;
use std::time::Instant;

use ndarray::{Array2, ArrayView2};

use super::graph::{check_k, Graph, Neighbourhood};
use super::laplacian::Symmetrise;
use super::{isomap, laplacian, lle, paths};
use crate::geometry::knn::{search, within, Search};
use crate::linalg::{
    EigenConfig, EigenPairs, Lanczos, Status, SymmetricCsr, SymmetricOperator, Which,
};
use crate::{Error, Result};

/// Basis of the LLE solves (see [`auto_basis`]).
const LARGE_BASIS: usize = 200;

/// Smallest basis of the Laplacian solves, on the filtered operator (see
/// [`auto_basis`]).
const LAPLACIAN_BASIS: usize = 64;

/// Power `m` of the lazy matrix the Laplacian solve runs on
/// ([`laplacian::LazyPower`]). On the 5,000-point mixture (2-D, k = 10) the
/// solve took 328 block products with a basis of 200 on `S` itself, and 104
/// with `m = 8` and a basis of 64 (144 with `m = 4`): the whole run's CPU
/// time fell from 163 to 111 ms (docs/methods/manifold.md, "Eigensolver").
const LAPLACIAN_POWER: usize = 8;

/// Edge relaxations aimed at per paths step (tens of milliseconds).
const RELAXATIONS_PER_STEP: usize = 4_000_000;

/// Which method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Geodesic distances + classical MDS.
    Isomap,
    /// Locally linear embedding.
    Lle,
    /// Laplacian eigenmaps.
    Laplacian,
}

impl Kind {
    /// The name used by `--algo`, `--method` and the notes.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Isomap => "isomap",
            Kind::Lle => "lle",
            Kind::Laplacian => "laplacian",
        }
    }
}

/// Settings of one run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Config {
    /// The method.
    pub kind: Kind,
    /// Output dimension `d`.
    pub dim: usize,
    /// k nearest neighbours or an epsilon ball.
    pub neighbourhood: Neighbourhood,
    /// Isomap: landmarks (0 = exact, all sources).
    pub landmarks: usize,
    /// LLE: regulariser of the local Gram matrices (times their trace).
    pub reg: f64,
    /// Laplacian eigenmaps: heat-kernel width `t` (0 = unit weights).
    pub heat: f64,
    /// Laplacian eigenmaps: how the neighbour lists become symmetric weights.
    pub symmetrise: Symmetrise,
    /// Relative eigen residual to reach.
    pub tol: f64,
    /// Lanczos block size.
    pub block: usize,
    /// Lanczos basis size (0 = automatic).
    pub basis: usize,
    /// Lanczos block steps allowed.
    pub max_steps: u64,
    /// Seed of the starting block and the landmarks.
    pub seed: u64,
    /// How the k nearest neighbours are searched.
    pub knn: Search,
}

impl Config {
    /// `kind` to `dim` dimensions from `k` neighbours, with the defaults of
    /// docs/methods/manifold.md ("Defaults").
    pub fn new(kind: Kind, dim: usize, k: usize) -> Config {
        Config {
            kind,
            dim,
            neighbourhood: Neighbourhood::Knn(k),
            landmarks: 0,
            reg: 1e-3,
            heat: 0.0,
            symmetrise: Symmetrise::Union,
            tol: default_tol(kind),
            block: 8,
            basis: 0,
            max_steps: 20_000,
            seed: 1,
            knn: Search::Auto,
        }
    }

    /// Checks the settings against `n` points, naming the parameter at fault.
    pub fn check(&self, n: usize) -> Result<()> {
        if n < 3 {
            return Err(Error::param(
                "points",
                format!("{n} points (a graph embedding needs at least 3)"),
            ));
        }
        // LLE and Laplacian eigenmaps compute one vector more and drop it.
        let extra = usize::from(self.kind != Kind::Isomap);
        // Landmark Isomap's eigenproblem is the landmarks' block.
        let landmarks = self.kind == Kind::Isomap && self.landmarks > 0;
        let cap = if landmarks { self.landmarks } else { n };
        if self.dim == 0 || self.dim + extra >= cap {
            return Err(Error::param(
                "dim",
                format!(
                    "{} dimensions from {cap} {} (expected 1 to {})",
                    self.dim,
                    if landmarks { "landmarks" } else { "points" },
                    cap.saturating_sub(1 + extra)
                ),
            ));
        }
        if let Neighbourhood::Knn(k) = self.neighbourhood {
            check_k(k, n)?;
            if self.kind == Kind::Laplacian && self.symmetrise == Symmetrise::Mean && k < 2 {
                return Err(Error::param(
                    "k",
                    format!(
                        "{k} with symmetrise=mean, which counts each point among its \
                         own k (expected at least 2)"
                    ),
                ));
            }
        }
        if self.landmarks > n {
            return Err(Error::param(
                "landmarks",
                format!("{} of {n} points (expected 0 to {n})", self.landmarks),
            ));
        }
        if !(self.reg > 0.0 && self.reg.is_finite()) {
            return Err(Error::param("reg", format!("{} (expected > 0)", self.reg)));
        }
        Ok(())
    }

    /// Refuses, before anything is allocated, an Isomap whose shortest-path
    /// matrix (`sources × n` `f32`: all pairs without landmarks, 160 GB at
    /// 200,000 points) would need more than `budget` bytes. The other
    /// methods' working sets are linear in `n`.
    pub fn check_memory(&self, n: usize, budget: u64) -> Result<()> {
        if self.kind != Kind::Isomap {
            return Ok(());
        }
        let sources = if self.landmarks > 0 {
            self.landmarks
        } else {
            n
        };
        let needed = (sources as u64)
            .saturating_mul(n as u64)
            .saturating_mul(std::mem::size_of::<f32>() as u64);
        if self.landmarks > 0 {
            let what = format!(
                "{sources} landmarks on {n} points: their geodesic distances ({sources} x {n} f32)"
            );
            crate::memory::check("landmarks", &what, needed, budget)
        } else {
            let what = format!(
                "0 (exact Isomap) on {n} points: all-pairs geodesic distances ({n} x {n} f32)"
            );
            let advice = "set landmarks (e.g. --set landmarks=1000)";
            crate::memory::check_advising("landmarks", &what, needed, budget, advice)
        }
    }

    fn eigen(&self, k: usize) -> EigenConfig {
        EigenConfig {
            tol: self.tol,
            block: self.block,
            basis: Some(if self.basis > 0 {
                self.basis
            } else {
                auto_basis(self.kind, k, self.block)
            }),
            max_steps: self.max_steps,
            seed: self.seed,
            ..EigenConfig::new(k, Which::LargestAlgebraic)
        }
    }
}

/// Default relative residual: MDS eigenvalues are well separated; the
/// shifted LLE operator and the normalised adjacency put the wanted values
/// in a tight cluster near the top, so their residuals must be smaller.
pub const fn default_tol(kind: Kind) -> f64 {
    match kind {
        Kind::Isomap => 1e-6,
        Kind::Lle | Kind::Laplacian => 1e-9,
    }
}

/// Basis used unless one is set. The wanted eigenvalues of the LLE
/// operator sit in a cluster of relative width ~1e-7 at the top of a
/// spectrum of width ~1; a restarted Krylov space must be large for that
/// (on a 2,000-point Swiss roll a basis of 40 took 23 s and did not
/// converge, 200 took 1 s; docs/methods/manifold.md, "Eigensolver"). The
/// Laplacian's filtered operator spreads its cluster, so 64 suffices.
pub fn auto_basis(kind: Kind, k: usize, block: usize) -> usize {
    let auto = EigenConfig {
        block,
        ..EigenConfig::new(k, Which::LargestAlgebraic)
    }
    .auto_basis();
    match kind {
        Kind::Isomap => auto,
        Kind::Lle => auto.max(LARGE_BASIS),
        Kind::Laplacian => auto.max(LAPLACIAN_BASIS),
    }
}

/// The closed-form values a run reports.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Report {
    /// `1 − ρ²(D_G, D_Y)`.
    Isomap {
        /// Residual variance.
        residual_variance: f64,
    },
    /// LLE's two costs.
    Lle {
        /// `Σ ‖x_i − Σ_j w_ij x_j‖²`.
        reconstruction_error: f64,
        /// `Tr(Yᵀ M Y)` for unit columns (the kept eigenvalues of `M`).
        trace: f64,
    },
    /// `Tr(Yᵀ L Y)` for `D`-orthonormal columns (the kept `λ`).
    Laplacian {
        /// The trace.
        trace: f64,
    },
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Report::Isomap { residual_variance } => {
                write!(f, "residual variance {residual_variance:.4}")
            }
            Report::Lle {
                reconstruction_error,
                trace,
            } => write!(
                f,
                "reconstruction error {reconstruction_error:.4e}, Tr(Y^T M Y) {trace:.4e}"
            ),
            Report::Laplacian { trace } => write!(f, "Tr(Y^T L Y) {trace:.4e}"),
        }
    }
}

/// A finished run.
#[derive(Debug, Clone)]
pub struct Embedded {
    /// `n × d` coordinates.
    pub coords: Array2<f64>,
    /// Eigenvalues of the kept vectors (of `B`, `M` or `L_rw`).
    pub eigenvalues: Vec<f64>,
    /// Worst relative eigen residual.
    pub residual: f64,
    /// Whether the solver reached its tolerance.
    pub converged: bool,
    /// The closed-form values.
    pub report: Report,
    /// The dropped trivial vector (LLE, Laplacian: constant on a connected graph).
    pub dropped: Option<Vec<f64>>,
}

/// Where a run stands.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Phase {
    /// Nothing done yet.
    Graph,
    /// Shortest paths from `done` of `total` sources.
    Paths {
        /// Sources done.
        done: usize,
        /// Sources in all.
        total: usize,
    },
    /// The eigensolve.
    Eigen(Status),
    /// Finished.
    Done,
}

/// What the finishing step needs besides the eigenpairs.
enum Finish {
    Isomap {
        squares: Arc<Vec<f32>>,
        sources: Vec<u32>,
        landmarks: bool,
    },
    Lle {
        shift: f64,
        reconstruction_error: f64,
    },
    Laplacian {
        degree: Vec<f64>,
        /// `D^-½ W D^-½`, for the exact residuals.
        s: Box<SymmetricCsr>,
        /// The solved operator's eigenvalues back to `S`'s.
        filter: Box<laplacian::LazyPower>,
    },
}

enum Stage {
    Graph,
    Paths {
        graph: Graph,
        lengths: Vec<f32>,
        sources: Vec<u32>,
        squares: Vec<f32>,
        next: usize,
    },
    Eigen {
        solver: Box<Lanczos<Box<dyn SymmetricOperator>>>,
        finish: Finish,
    },
    Done(Box<Embedded>),
    Failed,
}

/// A run in progress (see the module docs).
pub struct Embedder {
    x: Array2<f32>,
    config: Config,
    stage: Stage,
    notes: Vec<String>,
    /// Start of the current phase, for the notes' timings.
    clock: Instant,
}

impl Embedder {
    /// A run on the rows of `x`; checks the settings first.
    pub fn new(x: Array2<f32>, config: Config) -> Result<Embedder> {
        config.check(x.nrows())?;
        config.check_memory(x.nrows(), crate::memory::default_budget())?;
        crate::geometry::check_finite(x.view(), None)?;
        Ok(Embedder {
            x,
            config,
            stage: Stage::Graph,
            notes: Vec::new(),
            clock: Instant::now(),
        })
    }

    /// The settings.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Where the run stands.
    pub fn phase(&self) -> Phase {
        match &self.stage {
            Stage::Graph | Stage::Failed => Phase::Graph,
            Stage::Paths { sources, next, .. } => Phase::Paths {
                done: *next,
                total: sources.len(),
            },
            Stage::Eigen { solver, .. } => Phase::Eigen(solver.status()),
            Stage::Done(_) => Phase::Done,
        }
    }

    /// True once [`Embedder::finish`] has nothing left to compute.
    pub fn is_done(&self) -> bool {
        matches!(self.stage, Stage::Done(_))
    }

    /// Adds a log line, with the seconds since the last one.
    fn note(&mut self, line: String) {
        let secs = self.clock.elapsed().as_secs_f64();
        self.notes.push(format!("{line} ({secs:.2}s)"));
        self.clock = Instant::now();
    }

    /// A log line from the last step, if it had one.
    pub fn take_note(&mut self) -> Option<String> {
        (!self.notes.is_empty()).then(|| self.notes.remove(0))
    }

    /// Runs one step; returns the work done (points, sources or matvecs).
    pub fn step(&mut self) -> Result<u64> {
        let stage = std::mem::replace(&mut self.stage, Stage::Failed);
        let (stage, items) = match stage {
            Stage::Graph => self.build_graph()?,
            Stage::Paths {
                graph,
                lengths,
                sources,
                mut squares,
                next,
            } => {
                let n = graph.len();
                let batch = (RELAXATIONS_PER_STEP / (graph.ids.len() + n).max(1)).max(1);
                let end = (next + batch).min(sources.len());
                paths::squared_geodesics(
                    &graph,
                    &lengths,
                    &sources[next..end],
                    &mut squares[next * n..end * n],
                );
                let done = (end - next) as u64;
                if end < sources.len() {
                    let stage = Stage::Paths {
                        graph,
                        lengths,
                        sources,
                        squares,
                        next: end,
                    };
                    (stage, done)
                } else {
                    self.note(format!("isomap: shortest paths from {end} sources done"));
                    (self.mds(n, sources, squares)?, done)
                }
            }
            Stage::Eigen { mut solver, finish } => {
                let before = solver.status().matvecs;
                let status = solver.step();
                let items = status.matvecs - before;
                if status.done {
                    let (pairs, _) = solver.finish_with_operator();
                    let done = self.finish_pairs(pairs, finish)?;
                    let kind = self.config.kind.name();
                    self.note(format!(
                        "{kind}: eigensolve done, {} products",
                        status.matvecs
                    ));
                    self.notes.push(format!(
                        "{}: {}; eigen residual {:.2e}{}",
                        self.config.kind.name(),
                        done.report,
                        done.residual,
                        if done.converged {
                            ""
                        } else {
                            " (not converged)"
                        }
                    ));
                    (Stage::Done(Box::new(done)), items)
                } else {
                    (Stage::Eigen { solver, finish }, items)
                }
            }
            done @ Stage::Done(_) => (done, 0),
            Stage::Failed => {
                return Err(Error::param("run", "an earlier step failed".to_string()));
            }
        };
        self.stage = stage;
        Ok(items)
    }

    /// The worst eigen residual so far (1 before the first check).
    pub fn loss(&self) -> f64 {
        match &self.stage {
            Stage::Eigen { solver, .. } => solver.status().worst_residual,
            Stage::Done(e) => e.residual,
            _ => 1.0,
        }
    }

    /// Runs every remaining step and returns the result. A solve stopped
    /// early (`stop`) still gives the Ritz vectors it has.
    pub fn finish(mut self) -> Result<Embedded> {
        while !self.is_done() {
            self.step()?;
        }
        match self.stage {
            Stage::Done(e) => Ok(*e),
            _ => unreachable!("loop ends when done"),
        }
    }

    /// Ends the run now: a run in its eigensolve finishes with its current
    /// Ritz vectors; earlier phases are run to the end first.
    pub fn stop(mut self) -> Result<Embedded> {
        while !matches!(self.stage, Stage::Eigen { .. } | Stage::Done(_)) {
            self.step()?;
        }
        match std::mem::replace(&mut self.stage, Stage::Failed) {
            Stage::Eigen { solver, finish } => {
                let (pairs, _) = solver.finish_with_operator();
                self.finish_pairs(pairs, finish)
            }
            Stage::Done(e) => Ok(*e),
            _ => unreachable!("loop ends in the eigensolve or done"),
        }
    }

    /// The neighbourhood graph, then the next stage of the method.
    fn build_graph(&mut self) -> Result<(Stage, u64)> {
        let n = self.x.nrows();
        let c = self.config;
        if c.kind == Kind::Lle {
            return Ok((self.lle()?, n as u64));
        }
        let graph = match c.neighbourhood {
            // Mean symmetrisation: the point itself is one of its k.
            Neighbourhood::Knn(k) if c.kind == Kind::Laplacian => Graph::from_knn(
                &search(self.x.view(), c.symmetrise.others(k), c.knn),
                c.neighbourhood,
            ),
            how => Graph::build_with(self.x.view(), how, c.knn)?,
        };
        graph.check_connected()?;
        self.note(format!(
            "{}: neighbourhood graph of {n} points, {} edges, connected",
            c.kind.name(),
            graph.ids.len() / 2
        ));
        let stage = match c.kind {
            Kind::Isomap => {
                let sources = if c.landmarks > 0 {
                    isomap::pick_landmarks(n, c.landmarks, c.seed)
                } else {
                    (0..n as u32).collect()
                };
                let lengths = paths::edge_lengths(&graph);
                let squares = vec![0.0f32; sources.len() * n];
                Stage::Paths {
                    graph,
                    lengths,
                    sources,
                    squares,
                    next: 0,
                }
            }
            Kind::Laplacian => {
                let nrm = laplacian::normalised(&graph, c.heat, c.symmetrise)?;
                let filter = laplacian::LazyPower::new(&nrm.s, LAPLACIAN_POWER)?;
                let op: Box<dyn SymmetricOperator> = Box::new(filter.clone());
                Stage::Eigen {
                    solver: Box::new(Lanczos::new(op, c.eigen(c.dim + 1))?),
                    finish: Finish::Laplacian {
                        degree: nrm.degree,
                        filter: Box::new(filter),
                        s: Box::new(SymmetricCsr::new(nrm.s)?),
                    },
                }
            }
            Kind::Lle => unreachable!("handled above"),
        };
        Ok((stage, n as u64))
    }

    /// LLE's weights and shifted operator.
    fn lle(&mut self) -> Result<Stage> {
        let c = self.config;
        let n = self.x.nrows();
        let lists: Vec<Vec<u32>> = match c.neighbourhood {
            Neighbourhood::Knn(k) => {
                let g = search(self.x.view(), k, c.knn);
                (0..n).map(|i| g.row(i).0.to_vec()).collect()
            }
            Neighbourhood::Radius(r) => {
                let b = within(self.x.view(), (r * r) as f32);
                (0..n).map(|i| b.row(i).0.to_vec()).collect()
            }
        };
        // The union graph of the lists must be connected, or M has one zero
        // eigenvalue per component and the embedding is meaningless.
        let dist: Vec<(Vec<u32>, Vec<f32>)> = lists
            .iter()
            .map(|l| (l.clone(), vec![0.0; l.len()]))
            .collect();
        check_lists_connected(&dist, c.neighbourhood)?;
        if let Some(i) = lists.iter().position(Vec::is_empty) {
            return Err(Error::param(
                "epsilon",
                format!("point {} has no neighbour within the radius", i + 1),
            ));
        }
        let refs: Vec<&[u32]> = lists.iter().map(Vec::as_slice).collect();
        let w = lle::weights(self.x.view(), &refs, c.reg)?;
        self.note(format!(
            "lle: weights of {n} points from their neighbours, reconstruction error {:.4e}",
            w.reconstruction_error
        ));
        let op = lle::ShiftedCost::new(w.w);
        let shift = op.shift();
        let op: Box<dyn SymmetricOperator> = Box::new(op);
        Ok(Stage::Eigen {
            solver: Box::new(Lanczos::new(op, c.eigen(c.dim + 1))?),
            finish: Finish::Lle {
                shift,
                reconstruction_error: w.reconstruction_error,
            },
        })
    }

    /// Classical MDS on the squared geodesic distances.
    fn mds(&mut self, n: usize, sources: Vec<u32>, squares: Vec<f32>) -> Result<Stage> {
        let c = self.config;
        let landmarks = c.landmarks > 0;
        let squares = Arc::new(squares);
        let op: Box<dyn SymmetricOperator> = if landmarks {
            Box::new(isomap::CentredSquares::landmarks(&squares, n, &sources))
        } else {
            Box::new(isomap::CentredSquares::full(Arc::clone(&squares), n))
        };
        Ok(Stage::Eigen {
            solver: Box::new(Lanczos::new(op, c.eigen(c.dim))?),
            finish: Finish::Isomap {
                squares,
                sources,
                landmarks,
            },
        })
    }

    /// Coordinates and report from the eigenpairs.
    fn finish_pairs(&self, pairs: EigenPairs, finish: Finish) -> Result<Embedded> {
        let n = self.x.nrows();
        let residual = pairs.residuals.iter().copied().fold(0.0, f64::max);
        let converged = pairs.converged;
        let embedded = match finish {
            Finish::Isomap {
                squares,
                sources,
                landmarks,
            } => {
                let mut coords = if landmarks {
                    isomap::triangulate(&squares, n, &sources, &pairs.values, &pairs.vectors)
                } else {
                    isomap::scaled_vectors(&pairs.values, &pairs.vectors)
                };
                fix_signs(&mut coords);
                let residual_variance =
                    isomap::residual_variance(&squares, n, &sources, &coords, self.config.seed);
                Embedded {
                    coords,
                    eigenvalues: pairs.values,
                    residual,
                    converged,
                    report: Report::Isomap { residual_variance },
                    dropped: None,
                }
            }
            Finish::Lle {
                shift,
                reconstruction_error,
            } => {
                let mu: Vec<f64> = pairs.values.iter().map(|t| shift - t).collect();
                let scale = (n as f64).sqrt();
                let (dropped, coords) = split_first(&pairs.vectors, |_| scale);
                Embedded {
                    coords,
                    report: Report::Lle {
                        reconstruction_error,
                        trace: mu[1..].iter().sum(),
                    },
                    eigenvalues: mu[1..].to_vec(),
                    residual,
                    converged,
                    dropped: Some(dropped),
                }
            }
            Finish::Laplacian { degree, s, filter } => {
                let theta: Vec<f64> = pairs.values.iter().map(|&mu| filter.theta(mu)).collect();
                let exact = crate::linalg::eigen_residuals(&*s, &theta, pairs.vectors.view());
                let residual = exact.iter().copied().fold(0.0, f64::max);
                let lambda: Vec<f64> = theta.iter().map(|t| 1.0 - t).collect();
                let volume: f64 = degree.iter().sum();
                let (dropped, coords) =
                    split_first(&pairs.vectors, |i| (volume / degree[i]).sqrt());
                Embedded {
                    coords,
                    report: Report::Laplacian {
                        trace: lambda[1..].iter().sum(),
                    },
                    eigenvalues: lambda[1..].to_vec(),
                    residual,
                    converged,
                    dropped: Some(dropped),
                }
            }
        };
        Ok(embedded)
    }
}

/// Splits the first (trivial) column off `v`, scaling row `i` by `scale(i)`,
/// with each column's sign fixed so that its largest entry is positive.
fn split_first(v: &Array2<f64>, scale: impl Fn(usize) -> f64) -> (Vec<f64>, Array2<f64>) {
    let (n, k) = v.dim();
    let mut out = Array2::<f64>::zeros((n, k - 1));
    let mut first = vec![0.0; n];
    for i in 0..n {
        let s = scale(i);
        first[i] = v[[i, 0]] * s;
        for j in 1..k {
            out[[i, j - 1]] = v[[i, j]] * s;
        }
    }
    fix_signs(&mut out);
    (first, out)
}

/// Flips each column so that its largest-magnitude entry is positive
/// (eigenvectors have no sign; this makes runs comparable).
fn fix_signs(y: &mut Array2<f64>) {
    for mut col in y.columns_mut() {
        let big = col
            .iter()
            .copied()
            .fold(0.0f64, |a, v| if v.abs() > a.abs() { v } else { a });
        if big < 0.0 {
            col.mapv_inplace(|v| -v);
        }
    }
}

/// The disconnected-graph error for directed neighbour lists.
fn check_lists_connected(lists: &[(Vec<u32>, Vec<f32>)], how: Neighbourhood) -> Result<()> {
    let g = Graph::from_lists(lists, how);
    g.check_connected()
}

/// Runs `config` on the rows of `x` to the end.
pub fn embed(x: ArrayView2<'_, f32>, config: Config) -> Result<Embedded> {
    Embedder::new(x.to_owned(), config)?.finish()
}
