//! The sweep form of the HParams screen: a sweep declared in the workbench
//! as on the command line (`wordbench sweep --grid ... --range ...
//! --random N --metric M --prune ETA --prune-on SIGNAL --max-runs N
//! --time-budget T`), for the method chosen on the Train screen, whose
//! other fields every run shares.
//!
//! Each field is text as a user types it and is read by the same functions
//! as the CLI's flags ([`crate::sweep::spec::parse_grid`],
//! [`parse_range`], [`Metric::parse`],
//! [`Prune::halving`], [`Prune::on`], [`crate::train::parse_seconds`],
//! [`crate::sweep::expand()`]), so a bad value or
//! range is refused in the form with the parameter named, before anything
//! trains. Corpus options are not swept here: the workbench's runs train on
//! the corpus loaded on the Corpus screen.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::schema::ParamSpec;
use crate::sweep::spec::{parse_grid, parse_range, target};
use crate::sweep::{expand, Metric, Prune, SweepSpec, Trial};
use crate::train::Method;
use crate::tui::form::Form;

/// Longest text of a list field.
const LIST_LEN: usize = 400;

/// The form's fields: several grid axes or ranges are separated by `;`.
pub const FIELDS: &[ParamSpec] = &[
    ParamSpec::text(
        "grid",
        LIST_LEN,
        "",
        "values to try, every combination: NAME=V1,V2,... (several: window=2,5; negative=2,5)",
    ),
    ParamSpec::int(
        "random",
        0,
        10_000,
        0,
        "random draws of the ranges for each grid point (0: no draws)",
    ),
    ParamSpec::text(
        "range",
        LIST_LEN,
        "",
        "ranges to draw from: NAME=LO..HI[:log] (several separated by ;)",
    ),
    ParamSpec::text(
        "metric",
        60,
        "simlex",
        "what ranks the runs: perplexity, loss, ws353, simlex, analogy, or an added set's name",
    ),
    ParamSpec::int(
        "prune",
        0,
        10,
        0,
        "successive halving with this eta (2 to 10): only the best 1/eta so far go past a rung; 0: every run trains to its end",
    ),
    ParamSpec::text(
        "prune_on",
        60,
        "perplexity",
        "what prune compares at a rung: perplexity (held-out) or a similarity set (simlex, ws353, an added set's name)",
    ),
    ParamSpec::int(
        "max_runs",
        0,
        10_000,
        0,
        "at most this many runs, the first ones of the grid (0: all)",
    ),
    ParamSpec::text(
        "time_budget",
        20,
        "",
        "start no run after this long (90s, 30m, 2h); the runs left are skipped. Empty: no budget",
    ),
];

/// The form, for one method.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepForm {
    /// The method's index in the registry (the Train screen's choice when opened).
    pub method: usize,
    /// The fields.
    pub form: Form,
}

/// A field that refused its text, and why (the parameter named).
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// The form's field.
    pub field: &'static str,
    /// The reason.
    pub message: String,
}

/// What the Train screen gives every run of the sweep.
#[derive(Debug, Clone, Default)]
pub struct Shared {
    /// The Train form's values that differ from the defaults (method
    /// hyperparameters only), by name.
    pub fixed: BTreeMap<String, String>,
    /// Seed of every run and of the draws.
    pub seed: u64,
    /// Threads of each run.
    pub threads: usize,
    /// The evaluation's similarity sets (a similarity metric must name one).
    pub similarity: Vec<PathBuf>,
}

impl SweepForm {
    /// A form at its defaults for method `method` (index in the registry).
    pub fn new(method: usize) -> SweepForm {
        SweepForm {
            method,
            form: Form::new(FIELDS.to_vec()),
        }
    }

    /// Whether a field is being typed.
    pub fn typing(&self) -> bool {
        self.form.editing().is_some()
    }

    /// Sets field `name` to `text`, checked as the CLI checks its flag for
    /// `method`; the reason is kept on the field and returned.
    pub fn set(&mut self, method: &Method, name: &str, text: &str) -> Result<(), String> {
        self.form.set(name, text).or_else(|e| {
            // An empty list is no axis, an empty budget none: not errors.
            if may_be_empty(name) && text.trim().is_empty() {
                Ok(crate::schema::Value::Choice(String::new()))
            } else {
                Err(e)
            }
        })?;
        let checked = match name {
            "grid" => items(text)
                .try_for_each(|g| parse_grid(method, g).and_then(|a| on_method(method, &a.name))),
            "range" => items(text)
                .try_for_each(|r| parse_range(method, r).and_then(|a| on_method(method, &a.name))),
            "metric" => Metric::parse(text).map(|_| ()),
            "prune" => prune(self.form.int("prune").unwrap_or(0), "perplexity").map(|_| ()),
            "prune_on" => prune(2, text).map(|_| ()),
            "time_budget" => budget(text).map(|_| ()),
            _ => Ok(()),
        };
        let error = checked.err().map(|e| e.to_string());
        if let Some(i) = self.form.index(name) {
            self.form.set_error(i, error.clone());
        }
        error.map_or(Ok(()), Err)
    }

    /// The declaration the fields make for `method` with what the Train
    /// screen shares, and its runs; or the first field that refuses.
    pub fn declare(
        &self,
        method: &Method,
        shared: &Shared,
    ) -> Result<(SweepSpec, Vec<Trial>), Refusal> {
        let refuse = |field: &'static str| {
            move |e: crate::Error| Refusal {
                field,
                message: e.to_string(),
            }
        };
        if let Err(message) = self.form.assignments() {
            let field = FIELDS
                .iter()
                .map(|s| s.name)
                .find(|n| message.starts_with(&format!("fix {n} ")))
                .unwrap_or("grid");
            return Err(Refusal { field, message });
        }
        let grid = items(self.form.text("grid"))
            .map(|g| parse_grid(method, g))
            .collect::<crate::Result<Vec<_>>>()
            .map_err(refuse("grid"))?;
        let ranges = items(self.form.text("range"))
            .map(|r| parse_range(method, r))
            .collect::<crate::Result<Vec<_>>>()
            .map_err(refuse("range"))?;
        for name in grid.iter().map(|a| &a.name) {
            on_method(method, name).map_err(refuse("grid"))?;
        }
        for name in ranges.iter().map(|a| &a.name) {
            on_method(method, name).map_err(refuse("range"))?;
        }
        if grid.is_empty() && ranges.is_empty() {
            return Err(Refusal {
                field: "grid",
                message:
                    "a sweep needs a grid (NAME=V1,V2) or a range (NAME=LO..HI) with random draws"
                        .into(),
            });
        }
        let metric = Metric::parse(self.form.text("metric")).map_err(refuse("metric"))?;
        check_metric("metric", &metric, &shared.similarity).map_err(refuse("metric"))?;
        let prune_on = self.form.text("prune_on");
        prune(2, prune_on).map_err(refuse("prune_on"))?;
        let prune =
            prune(self.form.int("prune").unwrap_or(0), prune_on).map_err(refuse("prune"))?;
        if let Some(on @ Metric::Similarity(_)) = prune.as_ref().and_then(|p| p.on.as_ref()) {
            check_metric("prune_on", on, &shared.similarity).map_err(refuse("prune_on"))?;
        }
        let time_budget = budget(self.form.text("time_budget")).map_err(refuse("time_budget"))?;
        let max_runs = match self.form.int("max_runs").unwrap_or(0) {
            0 => None,
            n => Some(n as usize),
        };
        let swept: Vec<&str> = grid
            .iter()
            .map(|a| a.name.as_str())
            .chain(ranges.iter().map(|a| a.name.as_str()))
            .collect();
        let mut fixed = shared.fixed.clone();
        fixed.retain(|k, _| !swept.contains(&k.as_str()));
        let spec = SweepSpec {
            fixed,
            grid,
            ranges,
            samples: self.form.int("random").unwrap_or(0) as usize,
            prune,
            max_runs,
            time_budget,
            seed: shared.seed,
            threads: shared.threads.max(1),
            ..SweepSpec::new(method.name, metric)
        };
        let field = if spec.ranges.is_empty() && spec.samples > 0 {
            "random"
        } else if spec.ranges.is_empty() {
            "grid"
        } else {
            "range"
        };
        let trials = expand(&spec, method).map_err(refuse(field))?;
        Ok((spec, trials))
    }
}

/// Whether field `name` may be left empty: the `;`-separated lists
/// (empty: no axis) and the time budget (empty: none).
fn may_be_empty(name: &str) -> bool {
    matches!(name, "grid" | "range" | "time_budget")
}

/// The `;`-separated items of a list field.
fn items(text: &str) -> impl Iterator<Item = &str> {
    text.split(';').map(str::trim).filter(|s| !s.is_empty())
}

/// The prune fields' setting: eta 0 is none, else successive halving with
/// that eta on the signal `on` (the CLI's `--prune ETA --prune-on SIGNAL`).
fn prune(eta: i64, on: &str) -> crate::Result<Option<Prune>> {
    match eta {
        0 => Ok(None),
        eta => Prune::halving(eta as u32, 2)?
            .on(Metric::parse(on)?)
            .map(Some),
    }
}

/// The time budget field's seconds (the CLI's `--time-budget`); empty is none.
fn budget(text: &str) -> crate::Result<Option<f64>> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    crate::train::parse_seconds("time_budget", text).map(|d| Some(d.as_secs_f64()))
}

/// A swept name must be the method's: the workbench trains on the corpus
/// loaded on the Corpus screen.
fn on_method(method: &Method, name: &str) -> crate::Result<()> {
    if target(method, name)?.is_corpus() {
        return Err(crate::Error::param(
            name,
            "a corpus option: the workbench trains on the corpus loaded on 1 Corpus (sweep it with `wordbench sweep`)",
        ));
    }
    Ok(())
}

/// A similarity metric (of field `field`) must name a set the runs are
/// evaluated on (as the CLI's `--metric`).
fn check_metric(field: &str, metric: &Metric, sets: &[PathBuf]) -> crate::Result<()> {
    let Metric::Similarity(name) = metric else {
        return Ok(());
    };
    let stems: Vec<String> = sets
        .iter()
        .filter_map(|p| p.file_stem())
        .map(|s| s.to_string_lossy().into_owned())
        .collect();
    if stems.contains(name) {
        return Ok(());
    }
    Err(crate::Error::param(
        field,
        format!(
            "{name}: not a similarity set of the evaluation (have: {}; add one on 5 Evaluate)",
            stems.join(", ")
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo;

    fn sgns() -> (usize, &'static Method) {
        let i = algo::methods()
            .iter()
            .position(|m| m.name == "sgns")
            .unwrap();
        (i, algo::methods()[i])
    }

    fn shared() -> Shared {
        Shared {
            fixed: [("dim".to_string(), "20".to_string())].into(),
            seed: 7,
            threads: 1,
            similarity: vec!["assets/eval/simlex999.txt".into()],
        }
    }

    #[test]
    fn a_grid_and_draws_declare_the_runs_the_cli_would() {
        let (i, m) = sgns();
        let mut f = SweepForm::new(i);
        f.set(m, "grid", "window=2,5; negative=2,5").unwrap();
        f.set(m, "range", "lr=0.01..0.1:log").unwrap();
        f.set(m, "random", "2").unwrap();
        f.set(m, "prune", "3").unwrap();
        let (spec, trials) = f.declare(m, &shared()).unwrap();
        assert_eq!(trials.len(), 8);
        assert_eq!(
            trials[0].label().split(' ').take(2).collect::<Vec<_>>(),
            ["window=2", "negative=2"]
        );
        assert_eq!(spec.metric, Metric::Similarity("simlex999".into()));
        assert_eq!(spec.prune.as_ref().unwrap().eta, 3);
        assert_eq!((spec.seed, spec.threads, spec.samples), (7, 1, 2));
        assert_eq!(spec.fixed.get("dim").map(String::as_str), Some("20"));
        // The same draws as the library gives the same declaration.
        assert_eq!(trials, expand(&spec, m).unwrap());
    }

    #[test]
    fn a_bad_value_or_range_is_refused_on_its_field_with_the_parameter_named() {
        let (i, m) = sgns();
        let mut f = SweepForm::new(i);
        let e = f.set(m, "grid", "window=2,0").unwrap_err();
        assert!(e.contains("window"), "{e}");
        assert_eq!(f.form.error(0), Some(e.as_str()));
        let r = f.declare(m, &shared()).unwrap_err();
        assert_eq!(r.field, "grid");
        assert!(
            r.message.contains("fix grid first") && r.message.contains("window"),
            "{r:?}"
        );
        f.set(m, "grid", "window=2,5").unwrap();
        assert_eq!(f.form.error(0), None);
        let e = f.set(m, "range", "lr=0.1..0.01").unwrap_err();
        assert!(e.contains("lr") && e.contains("below the upper"), "{e}");
        f.set(m, "range", "").unwrap();
        let e = f.set(m, "grid", "min_count=2,3").unwrap_err();
        assert!(
            e.contains("min_count") && e.contains("corpus option"),
            "{e}"
        );
        f.set(m, "grid", "window=2,5").unwrap();
        let e = f.set(m, "prune", "1").unwrap_err();
        assert!(e.contains("prune"), "{e}");
        f.set(m, "prune", "0").unwrap();
        f.set(m, "metric", "rw").unwrap();
        let r = f.declare(m, &shared()).unwrap_err();
        assert_eq!(r.field, "metric");
        assert!(
            r.message.contains("rw") && r.message.contains("simlex999"),
            "{r:?}"
        );
        f.set(m, "metric", "perplexity").unwrap();
        f.set(m, "random", "3").unwrap();
        let r = f.declare(m, &shared()).unwrap_err();
        assert_eq!(r.field, "random");
        assert!(r.message.contains("random"), "{r:?}");
        f.set(m, "random", "0").unwrap();
        let (spec, trials) = f.declare(m, &shared()).unwrap();
        assert_eq!((trials.len(), spec.metric), (2, Metric::Perplexity));
    }

    #[test]
    fn prune_on_max_runs_and_the_time_budget_declare_what_the_cli_flags_do() {
        let (i, m) = sgns();
        let mut f = SweepForm::new(i);
        f.set(m, "grid", "window=2,5,10").unwrap();
        f.set(m, "prune", "2").unwrap();
        f.set(m, "prune_on", "simlex999").unwrap();
        f.set(m, "max_runs", "2").unwrap();
        f.set(m, "time_budget", "30m").unwrap();
        let (spec, trials) = f.declare(m, &shared()).unwrap();
        assert_eq!(trials.len(), 2, "max_runs keeps the first two");
        assert_eq!(spec.time_budget, Some(1800.0));
        assert_eq!(
            spec.prune.unwrap().on,
            Some(Metric::Similarity("simlex999".into()))
        );
        // Refused on their fields, with the parameter named.
        let e = f.set(m, "time_budget", "soon").unwrap_err();
        assert!(e.contains("time_budget"), "{e}");
        f.set(m, "time_budget", "").unwrap();
        let e = f.set(m, "prune_on", "analogy").unwrap_err();
        assert!(e.contains("prune-on") && e.contains("analogy"), "{e}");
        f.set(m, "prune_on", "ws353").unwrap();
        let r = f.declare(m, &shared()).unwrap_err();
        assert_eq!(r.field, "prune_on");
        assert!(
            r.message.contains("prune_on: wordsim353") && r.message.contains("simlex999"),
            "{r:?}"
        );
        // Without prune, prune_on names nothing to compare and is not checked against the sets.
        f.set(m, "prune", "0").unwrap();
        let (spec, _) = f.declare(m, &shared()).unwrap();
        assert_eq!((spec.prune, spec.time_budget), (None, None));
    }

    #[test]
    fn a_swept_name_leaves_the_shared_values_and_an_empty_form_declares_nothing() {
        let (i, m) = sgns();
        let mut f = SweepForm::new(i);
        let r = f.declare(m, &shared()).unwrap_err();
        assert_eq!(r.field, "grid");
        f.set(m, "grid", "dim=10,30").unwrap();
        let (spec, trials) = f.declare(m, &shared()).unwrap();
        assert!(spec.fixed.is_empty(), "dim is swept, not fixed");
        assert_eq!(trials[1].get("dim"), Some("30"));
    }
}
