//! From a declaration to the list of runs: every combination of the grid's
//! values (the first axis varies slowest), each with `samples` random draws
//! of the ranges, from the sweep's seed.

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::spec::{target, RangeAxis, SweepSpec};
use crate::schema::Kind;
use crate::train::Method;
use crate::{Error, Result};

/// More runs than this is a typing mistake, not a sweep.
pub const MAX_TRIALS: usize = 10_000;

/// What the draws' generator mixes into the sweep's seed, so they differ
/// from the runs' own streams on the same seed.
const DRAW_STREAM: u64 = 0x5eed_5eed;

/// One run of a sweep: the values it sets by name, in declaration order
/// (grid axes, then ranges).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trial {
    /// `(name, value)` pairs as text, checked against their schemas.
    pub values: Vec<(String, String)>,
}

impl Trial {
    /// `window=2 negative=5`: how tables and run names show it.
    pub fn label(&self) -> String {
        let parts: Vec<String> = self
            .values
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        parts.join(" ")
    }

    /// The value this trial sets for `name`, if it sets one.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.values
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The runs `spec` declares, checked: names unique across axes, the draw
/// count given exactly when there are ranges, at most [`MAX_TRIALS`], and
/// cut to `max_runs`.
pub fn expand(spec: &SweepSpec, method: &Method) -> Result<Vec<Trial>> {
    check_names(spec, method)?;
    match (spec.ranges.is_empty(), spec.samples) {
        (true, n) if n > 0 => {
            return Err(Error::param(
                "random",
                "draws need at least one --range NAME=LO..HI",
            ))
        }
        (false, 0) => {
            return Err(Error::param(
                "range",
                "ranges need a number of draws (--random N)",
            ))
        }
        _ => {}
    }
    let points = grid_points(spec)?;
    let draws = spec.samples.max(1);
    if points.len().saturating_mul(draws) > MAX_TRIALS {
        return Err(Error::param(
            "grid",
            format!(
                "{} runs declared; a sweep has at most {MAX_TRIALS}",
                points.len().saturating_mul(draws)
            ),
        ));
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(spec.seed ^ DRAW_STREAM);
    let mut trials = Vec::with_capacity(points.len() * draws);
    for point in points {
        for _ in 0..draws {
            let mut values = point.clone();
            for axis in &spec.ranges {
                values.push((axis.name.clone(), draw(axis, method, &mut rng)?));
            }
            trials.push(Trial { values });
        }
    }
    if let Some(max) = spec.max_runs {
        trials.truncate(max);
    }
    if trials.is_empty() {
        return Err(Error::param("grid", "the sweep declares no run"));
    }
    Ok(trials)
}

fn check_names(spec: &SweepSpec, method: &Method) -> Result<()> {
    let names: Vec<&str> = spec.swept_names().collect();
    for (i, name) in names.iter().enumerate() {
        target(method, name)?;
        if names[..i].contains(name) {
            return Err(Error::param(
                *name,
                "swept twice (one --grid or --range per name)",
            ));
        }
        if spec.fixed.contains_key(*name) {
            return Err(Error::param(*name, "both swept and fixed with --set"));
        }
    }
    Ok(())
}

/// The grid's combinations; one empty point when there is no grid.
fn grid_points(spec: &SweepSpec) -> Result<Vec<Vec<(String, String)>>> {
    let mut points: Vec<Vec<(String, String)>> = vec![Vec::new()];
    for axis in &spec.grid {
        if points.len().saturating_mul(axis.values.len()) > MAX_TRIALS {
            return Err(Error::param(
                axis.name.as_str(),
                format!("the grid has more than {MAX_TRIALS} points"),
            ));
        }
        points = points
            .iter()
            .flat_map(|p| {
                axis.values.iter().map(move |v| {
                    let mut q = p.clone();
                    q.push((axis.name.clone(), v.clone()));
                    q
                })
            })
            .collect();
    }
    Ok(points)
}

/// One draw of `axis`, as the text its parameter parses: an integer
/// parameter's draw rounds to an integer in the range, a real one keeps 4
/// significant digits.
fn draw(axis: &RangeAxis, method: &Method, rng: &mut Xoshiro256PlusPlus) -> Result<String> {
    let spec = target(method, &axis.name)?.spec();
    let u: f64 = rng.random();
    let x = if axis.log {
        (axis.lo.ln() + u * (axis.hi.ln() - axis.lo.ln())).exp()
    } else {
        axis.lo + u * (axis.hi - axis.lo)
    };
    let text = match spec.kind {
        Kind::Int { .. } => format!(
            "{}",
            x.round().clamp(axis.lo.ceil(), axis.hi.floor()) as i64
        ),
        _ => format!("{}", significant(x, 4).clamp(axis.lo, axis.hi)),
    };
    spec.parse(&text)?;
    Ok(text)
}

/// `x` rounded to `digits` significant digits.
fn significant(x: f64, digits: i32) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let scale = 10f64.powi(digits - 1 - x.abs().log10().floor() as i32);
    (x * scale).round() / scale
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo;
    use crate::sweep::spec::{parse_grid, parse_range, Metric};

    fn spec() -> SweepSpec {
        SweepSpec::new("sgns", Metric::Perplexity)
    }

    #[test]
    fn a_grid_expands_to_every_combination_first_axis_slowest() {
        let m = algo::find("sgns").unwrap();
        let mut s = spec();
        s.grid = vec![
            parse_grid(m, "window=2,5").unwrap(),
            parse_grid(m, "negative=1,5,10").unwrap(),
        ];
        let t = expand(&s, m).unwrap();
        let labels: Vec<String> = t.iter().map(Trial::label).collect();
        assert_eq!(
            labels,
            [
                "window=2 negative=1",
                "window=2 negative=5",
                "window=2 negative=10",
                "window=5 negative=1",
                "window=5 negative=5",
                "window=5 negative=10"
            ]
        );
        s.max_runs = Some(4);
        assert_eq!(expand(&s, m).unwrap().len(), 4);
    }

    #[test]
    fn random_draws_stay_in_range_follow_the_seed_and_round_integers() {
        let m = algo::find("sgns").unwrap();
        let mut s = spec();
        s.grid = vec![parse_grid(m, "window=2,5").unwrap()];
        s.ranges = vec![
            parse_range(m, "lr=0.001..0.1:log").unwrap(),
            parse_range(m, "negative=2..20").unwrap(),
        ];
        s.samples = 50;
        let t = expand(&s, m).unwrap();
        assert_eq!(t.len(), 100);
        let lrs: Vec<f64> = t
            .iter()
            .map(|t| t.get("lr").unwrap().parse().unwrap())
            .collect();
        assert!(lrs.iter().all(|x| (0.001..=0.1).contains(x)));
        // Log-uniform: about half the draws fall below the geometric mean 0.01.
        let below = lrs.iter().filter(|&&x| x < 0.01).count();
        assert!((30..=70).contains(&below), "{below} of 100 below 0.01");
        for t in &t {
            let n: i64 = t.get("negative").unwrap().parse().unwrap();
            assert!((2..=20).contains(&n));
        }
        assert_eq!(
            t,
            expand(&s, m).unwrap(),
            "the same seed draws the same runs"
        );
        s.seed = 2;
        assert_ne!(t, expand(&s, m).unwrap());
    }

    #[test]
    fn inconsistent_declarations_are_refused_with_the_parameter_named() {
        let m = algo::find("sgns").unwrap();
        let mut s = spec();
        s.grid = vec![
            parse_grid(m, "window=2,5").unwrap(),
            parse_grid(m, "window=3").unwrap(),
        ];
        assert!(expand(&s, m).unwrap_err().to_string().contains("window"));
        let mut s = spec();
        s.ranges = vec![parse_range(m, "lr=0.01..0.1").unwrap()];
        assert!(expand(&s, m).unwrap_err().to_string().contains("--random"));
        let mut s = spec();
        s.samples = 3;
        assert!(expand(&s, m).unwrap_err().to_string().contains("--range"));
        let mut s = spec();
        s.grid = vec![parse_grid(m, "window=2,5").unwrap()];
        s.fixed.insert("window".into(), "3".into());
        assert!(expand(&s, m).unwrap_err().to_string().contains("fixed"));
    }

    #[test]
    fn significant_digits_round_as_written() {
        assert_eq!(significant(0.0123456, 4), 0.01235);
        assert_eq!(significant(123456.0, 2), 120000.0);
    }
}
