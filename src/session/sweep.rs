//! A sweep as a session file keeps it: its declaration (what varies and
//! how, what ranks the runs, when to stop) and the runs it made. The data
//! lives here, with the file format; `crate::sweep` parses declarations into
//! it, runs them and reads the runs back as a table.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::{Error, Result};

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
    /// What is compared at a rung: a similarity set's Spearman on the
    /// vectors there (`Some`), or the held-out perplexity (`None`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on: Option<Metric>,
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
        Ok(Prune {
            eta,
            rungs,
            on: None,
        })
    }

    /// The same pruning, comparing runs at a rung by `signal`: `perplexity`
    /// (the default) or a similarity set, scored on the vectors there.
    pub fn on(self, signal: Metric) -> Result<Prune> {
        let on = match signal {
            Metric::Perplexity => None,
            Metric::Similarity(name) => Some(Metric::Similarity(name)),
            other => {
                return Err(Error::param(
                    "prune-on",
                    format!("{other}: prune on perplexity or a similarity set"),
                ))
            }
        };
        Ok(Prune { on, ..self })
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

    /// The swept names: the grid's axes, then the ranges, in declaration
    /// order (the columns of the sweep's table).
    pub fn swept_names(&self) -> impl Iterator<Item = &str> {
        self.grid
            .iter()
            .map(|a| a.name.as_str())
            .chain(self.ranges.iter().map(|a| a.name.as_str()))
    }
}

/// A sweep as declared, and the runs it made (ordinary runs of
/// [`super::Session::runs`], tagged with the sweep).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepRecord {
    /// The sweep's number in the session (`sweep-1` tags its runs).
    pub number: u32,
    /// The declaration.
    pub spec: SweepSpec,
    /// The swept names, in the declaration's order.
    pub names: Vec<String>,
    /// Numbers of its runs, in the sweep's order.
    pub runs: Vec<u32>,
    /// Runs the time budget left out, by what they would have set.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<Vec<String>>,
    /// Co-occurrence matrices counted for the whole sweep.
    #[serde(default)]
    pub counted: usize,
    /// Wall seconds of the whole sweep.
    #[serde(default)]
    pub seconds: f64,
}
