//! A sweep's declaration: which hyperparameters vary and how (a grid of
//! values, random samples from ranges), what to optimise, and when to stop.
//!
//! The declaration is text as a user types it (`window=2,5,10`,
//! `lr=0.005..0.1:log`), checked against the method's schema and the corpus
//! options' schema ([`crate::corpus::options::OPTIONS`]) as it is parsed, so
//! an invalid value or range is refused with the parameter named before any
//! run starts. It is saved in the session as typed, so a reopened sweep reads
//! the same declaration again.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::corpus::options::OPTIONS as CORPUS_OPTIONS;
use crate::schema::{Kind, ParamSpec};
use crate::train::Method;
use crate::{Error, Result};

/// Prefix that names a corpus option where the method has a hyperparameter
/// of the same name (`corpus.max_vocab`).
pub const CORPUS_PREFIX: &str = "corpus.";

/// What a swept name sets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Target {
    /// A hyperparameter of the method.
    Method(&'static ParamSpec),
    /// A corpus option (the corpus is read again for each of its values).
    Corpus(&'static ParamSpec),
}

impl Target {
    /// The parameter's declaration.
    pub fn spec(self) -> &'static ParamSpec {
        match self {
            Target::Method(s) | Target::Corpus(s) => s,
        }
    }

    /// Whether this is a corpus option.
    pub fn is_corpus(self) -> bool {
        matches!(self, Target::Corpus(_))
    }
}

/// Finds what `name` sets for `method`: its hyperparameter of that name,
/// else the corpus option (`corpus.NAME` always means the corpus option).
pub fn target(method: &Method, name: &str) -> Result<Target> {
    let corpus = |n: &str| CORPUS_OPTIONS.iter().find(|s| s.name == n);
    if let Some(bare) = name.strip_prefix(CORPUS_PREFIX) {
        return corpus(bare).map(Target::Corpus).ok_or_else(|| {
            let names: Vec<&str> = CORPUS_OPTIONS.iter().map(|s| s.name).collect();
            Error::param(
                name,
                format!("not a corpus option (valid: {})", names.join(", ")),
            )
        });
    }
    if let Some(spec) = method.schema.iter().find(|s| s.name == name) {
        return Ok(Target::Method(spec));
    }
    corpus(name).map(Target::Corpus).ok_or_else(|| {
        let names: Vec<&str> = method.schema.iter().map(|s| s.name).collect();
        Error::param(
            name,
            format!(
                "{} has no such hyperparameter and no corpus option has that name (valid: {})",
                method.name,
                names.join(", ")
            ),
        )
    })
}

/// One hyperparameter tried at each of a list of values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GridAxis {
    /// Hyperparameter (or `corpus.`-option) name.
    pub name: String,
    /// The values, as typed.
    pub values: Vec<String>,
}

/// One numeric hyperparameter drawn at random between two bounds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RangeAxis {
    /// Hyperparameter (or `corpus.`-option) name.
    pub name: String,
    /// Lower bound (inclusive).
    pub lo: f64,
    /// Upper bound (inclusive).
    pub hi: f64,
    /// Drawn uniformly in `log` (for rates and regularisers) rather than linearly.
    #[serde(default)]
    pub log: bool,
}

/// What a sweep ranks its runs by.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Metric {
    /// The final held-out perplexity (lower is better).
    Perplexity,
    /// The final training loss (lower is better; comparable only between
    /// runs whose loss means the same).
    Loss,
    /// Spearman's rho on the similarity set of this name (file stem, e.g.
    /// `wordsim353`, `simlex999`, or a user's file).
    Similarity(String),
    /// Accuracy on the analogy set.
    Analogy,
}

impl Metric {
    /// Reads a metric name: `perplexity`, `loss`, `analogy`, or a similarity
    /// set (`ws353` and `simlex` are short for the bundled ones).
    pub fn parse(text: &str) -> Result<Metric> {
        let text = text.trim();
        Ok(match text {
            "perplexity" | "ppl" => Metric::Perplexity,
            "loss" => Metric::Loss,
            "analogy" => Metric::Analogy,
            "ws353" | "wordsim" | "wordsim353" => Metric::Similarity("wordsim353".into()),
            "simlex" | "simlex999" => Metric::Similarity("simlex999".into()),
            "" => {
                return Err(Error::param(
                    "metric",
                    "empty (expected perplexity, loss, analogy, ws353, simlex or a similarity file's name)",
                ))
            }
            name => Metric::Similarity(name.to_string()),
        })
    }

    /// Whether a larger value is better.
    pub fn higher_is_better(&self) -> bool {
        matches!(self, Metric::Similarity(_) | Metric::Analogy)
    }

    /// Whether the metric needs the run's vectors evaluated.
    pub fn needs_evaluation(&self) -> bool {
        self.higher_is_better()
    }

    /// Whether `a` is better than `b`.
    pub fn better(&self, a: f64, b: f64) -> bool {
        if self.higher_is_better() {
            a > b
        } else {
            a < b
        }
    }
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Metric::Perplexity => f.write_str("perplexity"),
            Metric::Loss => f.write_str("loss"),
            Metric::Similarity(name) => f.write_str(name),
            Metric::Analogy => f.write_str("analogy"),
        }
    }
}

/// Early stopping of unpromising runs by successive halving.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Prune {
    /// Only the best `1/eta` of the runs that reached a rung go past it.
    pub eta: u32,
    /// Rungs, as fractions of a run's steps, ascending.
    pub rungs: Vec<f64>,
}

impl Prune {
    /// Successive halving with reduction factor `eta` and rungs at
    /// `1/eta^k` of the run for k = `levels`..1 (eta = 3, 2 levels: 1/9 and 1/3).
    pub fn halving(eta: u32, levels: u32) -> Result<Prune> {
        if !(2..=10).contains(&eta) {
            return Err(Error::param(
                "prune",
                format!("{eta} (expected an eta in [2, 10])"),
            ));
        }
        let rungs = (1..=levels.max(1))
            .rev()
            .map(|k| 1.0 / f64::from(eta).powi(k as i32))
            .collect();
        Ok(Prune { eta, rungs })
    }
}

/// A whole sweep declaration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepSpec {
    /// The method every run trains.
    pub method: String,
    /// Values every run shares (`--set`), by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub fixed: BTreeMap<String, String>,
    /// Grid axes: every combination of their values is a run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub grid: Vec<GridAxis>,
    /// Ranges drawn at random, `samples` times for each grid point.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ranges: Vec<RangeAxis>,
    /// Random draws of the ranges per grid point.
    #[serde(default)]
    pub samples: usize,
    /// What ranks the runs.
    pub metric: Metric,
    /// Early stopping, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prune: Option<Prune>,
    /// At most this many runs (the first ones in order).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_runs: Option<usize>,
    /// No run starts after this many seconds of the sweep.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_budget: Option<f64>,
    /// Seed of every run and of the random draws.
    pub seed: u64,
    /// Worker threads of each run.
    pub threads: usize,
    /// Runs trained at once.
    pub parallel: usize,
}

impl SweepSpec {
    /// A sweep of `method` ranked by `metric` with nothing swept yet: no
    /// pruning or budget, the default seed, one run at a time on one thread.
    pub fn new(method: &str, metric: Metric) -> SweepSpec {
        SweepSpec {
            method: method.to_string(),
            fixed: BTreeMap::new(),
            grid: Vec::new(),
            ranges: Vec::new(),
            samples: 0,
            metric,
            prune: None,
            max_runs: None,
            time_budget: None,
            seed: crate::train::DEFAULT_SEED,
            threads: 1,
            parallel: 1,
        }
    }
}

/// Parses `NAME=V1,V2,...` into a grid axis, each value checked against the
/// parameter's declaration.
pub fn parse_grid(method: &Method, text: &str) -> Result<GridAxis> {
    let (name, values) = split_assignment("grid", text)?;
    let spec = target(method, name)?.spec();
    let values: Vec<String> = values.split(',').map(|v| v.trim().to_string()).collect();
    if values.iter().any(String::is_empty) {
        return Err(Error::param(
            name,
            format!("'{text}': an empty value in the list"),
        ));
    }
    for v in &values {
        spec.parse(v)?;
    }
    let mut seen = values.clone();
    seen.sort();
    seen.dedup();
    if seen.len() != values.len() {
        return Err(Error::param(
            name,
            format!("'{text}': a value is listed twice"),
        ));
    }
    Ok(GridAxis {
        name: name.to_string(),
        values,
    })
}

/// Parses `NAME=LO..HI` or `NAME=LO..HI:log` into a range, checked against
/// the parameter's declaration: numeric, `LO < HI`, both in its range, and
/// `LO > 0` on a log scale.
pub fn parse_range(method: &Method, text: &str) -> Result<RangeAxis> {
    let (name, rest) = split_assignment("range", text)?;
    let spec = target(method, name)?.spec();
    let (bounds, log) = match rest.rsplit_once(':') {
        Some((b, "log")) => (b, true),
        Some((b, "lin" | "linear")) => (b, false),
        Some((_, other)) => {
            return Err(Error::param(
                name,
                format!("'{text}': unknown scale '{other}' (expected log or lin)"),
            ))
        }
        None => (rest, false),
    };
    let bad = |why: &str| Error::param(name, format!("'{text}': {why}"));
    let (lo, hi) = bounds
        .split_once("..")
        .ok_or_else(|| bad("expected LO..HI, e.g. 0.005..0.1:log"))?;
    let (min, max) = match spec.kind {
        Kind::Int { min, max } => (min as f64, max as f64),
        Kind::Float { min, max } => (min, max),
        _ => {
            return Err(bad(
                "only a number can be drawn from a range (list values with --grid)",
            ))
        }
    };
    let lo = crate::schema::parse_float(name, lo, min, max)?;
    let hi = crate::schema::parse_float(name, hi, min, max)?;
    if lo >= hi {
        return Err(bad("the lower bound must be below the upper one"));
    }
    if log && lo <= 0.0 {
        return Err(bad("a log range must be above 0"));
    }
    if matches!(spec.kind, Kind::Int { .. }) && lo.ceil() > hi.floor() {
        return Err(bad("holds no integer"));
    }
    Ok(RangeAxis {
        name: name.to_string(),
        lo,
        hi,
        log,
    })
}

fn split_assignment<'a>(flag: &str, text: &'a str) -> Result<(&'a str, &'a str)> {
    match text.split_once('=') {
        Some((name, rest)) if !name.trim().is_empty() && !rest.trim().is_empty() => {
            Ok((name.trim(), rest.trim()))
        }
        _ => Err(Error::param(flag, format!("'{text}' (expected NAME=...)"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo;

    fn sgns() -> &'static Method {
        algo::find("sgns").unwrap()
    }

    #[test]
    fn a_grid_is_checked_value_by_value_and_names_the_parameter() {
        let axis = parse_grid(sgns(), "window=2, 5,10").unwrap();
        assert_eq!(axis.values, ["2", "5", "10"]);
        let e = parse_grid(sgns(), "window=2,0").unwrap_err().to_string();
        assert!(e.contains("window"), "{e}");
        let e = parse_grid(sgns(), "window=2,,3").unwrap_err().to_string();
        assert!(e.contains("empty value"), "{e}");
        let e = parse_grid(sgns(), "window=2,2").unwrap_err().to_string();
        assert!(e.contains("twice"), "{e}");
        let e = parse_grid(sgns(), "windw=2").unwrap_err().to_string();
        assert!(
            e.contains("windw") && e.contains("no such hyperparameter"),
            "{e}"
        );
        let e = parse_grid(sgns(), "window").unwrap_err().to_string();
        assert!(e.contains("expected NAME="), "{e}");
    }

    #[test]
    fn corpus_options_are_found_by_name_or_with_the_prefix() {
        let m = sgns();
        assert!(target(m, "min_count").unwrap().is_corpus());
        assert!(target(m, "corpus.min_count").unwrap().is_corpus());
        assert!(!target(m, "window").unwrap().is_corpus());
        let e = target(m, "corpus.window").unwrap_err().to_string();
        assert!(e.contains("not a corpus option"), "{e}");
        let psdvec = algo::find("psdvec").unwrap();
        assert!(!target(psdvec, "max_vocab").unwrap().is_corpus());
        assert!(target(psdvec, "corpus.max_vocab").unwrap().is_corpus());
    }

    #[test]
    fn invalid_ranges_are_refused_with_the_parameter_named() {
        let r = parse_range(sgns(), "lr=0.005..0.1:log").unwrap();
        assert_eq!((r.lo, r.hi, r.log), (0.005, 0.1, true));
        assert!(!parse_range(sgns(), "window=2..10").unwrap().log);
        for (bad, says) in [
            ("lr=0.1..0.005", "below the upper"),
            ("sample=0..0.01:log", "above 0"),
            ("lr=0.1", "LO..HI"),
            ("lr=0.01..0.1:cubic", "unknown scale"),
            ("lr=0.01..5", "lr"),
            ("schedule=1..2", "only a number"),
            ("window=2.2..2.8", "no integer"),
        ] {
            let e = parse_range(sgns(), bad).unwrap_err().to_string();
            assert!(
                e.contains(says) && e.contains(bad.split('=').next().unwrap()),
                "{bad}: {e}"
            );
        }
    }

    #[test]
    fn metrics_read_their_short_names_and_know_their_direction() {
        assert_eq!(
            Metric::parse("ws353").unwrap(),
            Metric::Similarity("wordsim353".into())
        );
        assert_eq!(
            Metric::parse("simlex").unwrap(),
            Metric::Similarity("simlex999".into())
        );
        assert!(Metric::parse("perplexity").unwrap().better(10.0, 20.0));
        assert!(Metric::parse("simlex").unwrap().better(0.3, 0.2));
        assert!(Metric::parse(" ").is_err());
    }

    #[test]
    fn halving_puts_rungs_at_powers_of_one_over_eta() {
        let p = Prune::halving(3, 2).unwrap();
        assert_eq!(p.rungs.len(), 2);
        assert!((p.rungs[0] - 1.0 / 9.0).abs() < 1e-12 && (p.rungs[1] - 1.0 / 3.0).abs() < 1e-12);
        assert!(Prune::halving(1, 2).is_err());
    }
}
