//! Hyperparameters of the three spectral methods, declared once, and the
//! validated [`Settings`] a run reads from them.

use crate::cooc::{LogBase, Weighting};
use crate::linalg::params::BLOCK;
use crate::linalg::{EigenConfig, Which};
use crate::schema::{bind_params, choice_names, Choice, ParamSpec, Params};

/// The matrix a method factorises (built by [`super::matrix`] with `crate::cooc`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Input {
    /// Raw window counts `X` (SVD).
    Counts,
    /// `√X` (SVD-Sqrt).
    Sqrt,
    /// `log(1 + X)` (SVD-Log; docs/methods/cooc.md, "Rescaled counts").
    Log,
    /// `max(PMI, 0)`.
    Ppmi,
    /// `max(PMI − log k, 0)`.
    Sppmi {
        /// The shift's `k`.
        k: f64,
    },
    /// `M^τ`: PMI where `PMI > τ`, else 0 (Soleimani eq 4.5).
    Thresholded {
        /// The threshold `τ` in `log_base` units.
        tau: f64,
    },
    /// The released SVD-NS code: PMI cut at `τ`, survivors shifted by `−τ`
    /// (`max(PMI − τ, 0)`; docs/methods/spectral.md, "Our choices where the
    /// thesis is silent or ambiguous").
    ShiftedThreshold {
        /// The cut-off `τ`.
        tau: f64,
    },
}

/// What is computed from the matrix.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Target {
    /// Eigenvectors of the `d` algebraically largest eigenvalues (EigenWord).
    Eigen,
    /// The `d` leading singular triplets, vectors `U Σ^power`.
    Svd {
        /// Singular-value weighting exponent `p` (0 = `U`, 0.5, 1 = `UΣ`).
        power: f64,
    },
}

/// The validated settings of one spectral run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// Embedding dimension `d`.
    pub dim: usize,
    /// Symmetric window size `L`.
    pub window: usize,
    /// Distance weighting of the window.
    pub weighting: Weighting,
    /// Only the `max_vocab` most frequent words (rows/columns), or all.
    pub max_vocab: Option<usize>,
    /// Log base of PMI values (and of the thresholds).
    pub log_base: LogBase,
    /// Context-distribution smoothing exponent (`None` = 1, no smoothing).
    pub cds: Option<f64>,
    /// The factorised matrix.
    pub input: Input,
    /// Eigen or SVD.
    pub target: Target,
    /// EigenWord's PSD fix `m_ii = Σ_{j≠i} |m_ij|` (docs/methods/spectral.md).
    pub psd_fix: bool,
    /// Relative residual tolerance.
    pub tol: f64,
    /// Solver block size.
    pub block: usize,
    /// Solver basis size (`None` = automatic).
    pub basis: Option<usize>,
    /// Solver steps allowed (the run's `total_steps`).
    pub max_steps: u64,
}

impl Settings {
    /// The solver configuration for these settings and `seed`.
    pub fn eigen_config(&self, seed: u64) -> EigenConfig {
        EigenConfig {
            tol: self.tol,
            block: self.block,
            basis: self.basis,
            max_steps: self.max_steps,
            seed,
            ..EigenConfig::new(self.dim, Which::LargestAlgebraic)
        }
    }

    /// Settings of `svd` from its parameters.
    pub fn svd(p: &Params) -> Settings {
        let v = SvdValues::from_params(p);
        let input = match v.input {
            InputName::Counts => Input::Counts,
            InputName::Sqrt => Input::Sqrt,
            InputName::Log => Input::Log,
            InputName::Ppmi => Input::Ppmi,
            InputName::Sppmi => Input::Sppmi { k: v.neg },
        };
        Settings {
            cds: (v.cds != 1.0).then_some(v.cds),
            ..common!(v, input, Target::Svd { power: v.power })
        }
    }

    /// Settings of `eigenword` from its parameters.
    pub fn eigenword(p: &Params) -> Settings {
        let v = EigenwordValues::from_params(p);
        Settings {
            psd_fix: v.psd_fix,
            ..common!(v, Input::Thresholded { tau: v.tau }, Target::Eigen)
        }
    }

    /// Settings of `svd-ns` from its parameters.
    pub fn svd_ns(p: &Params) -> Settings {
        let v = SvdNsValues::from_params(p);
        let input = if v.pmi_shift {
            Input::ShiftedThreshold { tau: v.tau }
        } else {
            Input::Thresholded { tau: v.tau }
        };
        common!(v, input, Target::Svd { power: 0.0 })
    }
}

/// The settings every spectral schema has (from bound values `$v`), with
/// the method's own input and target.
macro_rules! common {
    ($v:expr, $input:expr, $target:expr) => {{
        let v = &$v;
        Settings {
            dim: v.dim,
            window: v.window,
            weighting: v.weighting,
            max_vocab: v.max_vocab,
            log_base: v.log_base,
            cds: None,
            input: $input,
            target: $target,
            psd_fix: false,
            tol: v.tol,
            block: v.block,
            basis: v.basis,
            max_steps: v.max_steps,
        }
    }};
}
use common;

/// The matrix `svd` factorises, by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum InputName {
    Counts,
    Sqrt,
    Log,
    Ppmi,
    Sppmi,
}
choice_names!(InputName {
    Counts = "counts",
    Sqrt = "sqrt",
    Log = "log",
    Ppmi = "ppmi",
    Sppmi = "sppmi",
});

bind_params! {
    /// The values of [`SVD_SCHEMA`], a field per entry.
    #[derive(Debug, Clone, Copy)]
    struct SvdValues for SVD_SCHEMA {
        dim: usize,
        input: InputName,
        cds: f64,
        neg: f64,
        power: f64,
        window: usize,
        weighting: Weighting,
        max_vocab: Option<usize>,
        log_base: LogBase,
        tol: f64,
        block: usize,
        basis: Option<usize>,
        max_steps: u64,
    }
}

bind_params! {
    /// The values of [`EIGENWORD_SCHEMA`], a field per entry.
    #[derive(Debug, Clone, Copy)]
    struct EigenwordValues for EIGENWORD_SCHEMA {
        dim: usize,
        tau: f64,
        psd_fix: bool,
        window: usize,
        weighting: Weighting,
        max_vocab: Option<usize>,
        log_base: LogBase,
        tol: f64,
        block: usize,
        basis: Option<usize>,
        max_steps: u64,
    }
}

bind_params! {
    /// The values of [`SVD_NS_SCHEMA`], a field per entry.
    #[derive(Debug, Clone, Copy)]
    struct SvdNsValues for SVD_NS_SCHEMA {
        dim: usize,
        tau: f64,
        pmi_shift: bool,
        window: usize,
        weighting: Weighting,
        max_vocab: Option<usize>,
        log_base: LogBase,
        tol: f64,
        block: usize,
        basis: Option<usize>,
        max_steps: u64,
    }
}

const DIM: ParamSpec = ParamSpec::int(
    "dim",
    1,
    2000,
    100,
    "embedding dimension d (eigenpairs / singular triplets computed)",
);

const WINDOW: ParamSpec = ParamSpec::int(
    "window",
    1,
    255,
    5,
    "symmetric window L (the authors' pipeline: 10 with harmonic weights)",
);

const WEIGHTING: ParamSpec = ParamSpec::choice(
    "weighting",
    Weighting::NAMES,
    "uniform",
    "a pair at distance d counts 1 (uniform) or 1/d (harmonic, GloVe's cooccur)",
);

const MAX_VOCAB: ParamSpec = ParamSpec::int(
    "max_vocab",
    0,
    1 << 28,
    0,
    "factorise only the N most frequent words (0 = the whole vocabulary)",
);

const LOG_BASE: ParamSpec = ParamSpec::choice(
    "log_base",
    LogBase::NAMES,
    "2",
    "log base of PMI values and thresholds (Soleimani: 2, so tau is in bits)",
);

const TOL: ParamSpec = ParamSpec::float(
    "tol",
    1e-14,
    0.5,
    1e-6,
    "relative residual |Ax - theta x| / |theta| every pair must reach",
);

const BASIS: ParamSpec = crate::linalg::params::basis(
    "Krylov basis size before a restart (0 = automatic, 2d + 4 block)",
);

const MAX_STEPS: ParamSpec = ParamSpec::int("max_steps", 1, 10_000_000, 3000, "solver steps (one block of sparse products each); the run ends early steps as no-ops once converged");

const TAU: ParamSpec = ParamSpec::float(
    "tau",
    -100.0,
    0.0,
    -2.5,
    "PMI threshold: keep PMI > tau (thesis: -2.5 on 2016 data, -3 on 2018 data)",
);

/// Schema of `svd`.
pub static SVD_SCHEMA: &[ParamSpec] = &[
    DIM,
    ParamSpec::choice(
        "input",
        InputName::NAMES,
        "ppmi",
        "matrix factorised: X, sqrt X, log(1+X), PPMI or shifted PPMI",
    ),
    ParamSpec::float(
        "cds",
        0.01,
        1.0,
        1.0,
        "context-distribution smoothing exponent for ppmi/sppmi (1 = none; 0.75 customary)",
    ),
    ParamSpec::float("neg", 1.0, 1e6, 5.0, "k of the SPPMI shift log k"),
    ParamSpec::float(
        "power",
        0.0,
        1.0,
        0.0,
        "vectors U Sigma^power: 0 (U, best in Soleimani Table 4.1), 0.5, 1",
    ),
    WINDOW,
    WEIGHTING,
    MAX_VOCAB,
    LOG_BASE,
    TOL,
    BLOCK,
    BASIS,
    MAX_STEPS,
];

/// Schema of `eigenword`.
pub static EIGENWORD_SCHEMA: &[ParamSpec] = &[
    DIM,
    TAU,
    ParamSpec::flag(
        "psd_fix",
        false,
        "set m_ii = sum_j |m_ij| first (diagonally dominant, so PSD; off in the thesis)",
    ),
    WINDOW,
    WEIGHTING,
    MAX_VOCAB,
    LOG_BASE,
    TOL,
    BLOCK,
    BASIS,
    MAX_STEPS,
];

/// Schema of `svd-ns`.
pub static SVD_NS_SCHEMA: &[ParamSpec] = &[
    DIM,
    TAU,
    ParamSpec::flag(
        "pmi_shift",
        false,
        "as the released code: cut PMI at tau, then shift survivors by -tau (all positive)",
    ),
    WINDOW,
    WEIGHTING,
    MAX_VOCAB,
    LOG_BASE,
    TOL,
    BLOCK,
    BASIS,
    MAX_STEPS,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_follow_the_thesis() {
        let s = Settings::eigenword(&Params::defaults(EIGENWORD_SCHEMA));
        assert_eq!(s.input, Input::Thresholded { tau: -2.5 });
        assert_eq!(
            (s.target, s.log_base, s.dim, s.window),
            (Target::Eigen, LogBase::Two, 100, 5)
        );
        assert!(!s.psd_fix);
        let s = Settings::svd_ns(
            &Params::parse(SVD_NS_SCHEMA, "svd-ns", [("pmi_shift", "true")]).unwrap(),
        );
        assert_eq!(s.input, Input::ShiftedThreshold { tau: -2.5 });
        assert_eq!(s.target, Target::Svd { power: 0.0 });
        let s = Settings::svd(
            &Params::parse(
                SVD_SCHEMA,
                "svd",
                [("input", "sppmi"), ("cds", "0.75"), ("power", "0.5")],
            )
            .unwrap(),
        );
        assert_eq!(s.input, Input::Sppmi { k: 5.0 });
        assert_eq!((s.cds, s.target), (Some(0.75), Target::Svd { power: 0.5 }));
        assert_eq!(Settings::svd(&Params::defaults(SVD_SCHEMA)).cds, None);
    }
}
