//! A sweep's declaration: which hyperparameters vary and how (a grid of
//! values, random samples from ranges), what to optimise, and when to stop.
//!
//! The declaration is text as a user types it (`window=2,5,10`,
//! `lr=0.005..0.1:log`), checked against the method's schema and the corpus
//! options' schema ([`crate::corpus::options::OPTIONS`]) as it is parsed, so
//! an invalid value or range is refused with the parameter named before any
//! run starts. It is saved in the session as typed, so a reopened sweep reads
//! the same declaration again.

use crate::corpus::options::OPTIONS as CORPUS_OPTIONS;
use crate::schema::{Kind, ParamSpec};
pub use crate::session::sweep::{GridAxis, Metric, Prune, RangeAxis, SweepSpec};
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
