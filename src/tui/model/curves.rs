//! The points the Train charts draw: a run's metrics against steps, epochs
//! or seconds (TensorBoard's step / relative / wall axes), with its mid-run
//! changes placed on the same axis.

use crate::schema::Params;
use crate::train::Progress;
use crate::tui::run::RunEntry;

/// What the charts' x axis counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum XAxis {
    /// Engine steps.
    #[default]
    Steps,
    /// Passes over the data (epochs, iterations or sweeps, as the method
    /// calls them).
    Epochs,
    /// Seconds of training (paused time excluded).
    Seconds,
}

impl XAxis {
    /// The axis after this one.
    pub fn next(self) -> XAxis {
        match self {
            XAxis::Steps => XAxis::Epochs,
            XAxis::Epochs => XAxis::Seconds,
            XAxis::Seconds => XAxis::Steps,
        }
    }

    /// Its name in chart titles.
    pub fn name(self) -> &'static str {
        match self {
            XAxis::Steps => "steps",
            XAxis::Epochs => "epochs",
            XAxis::Seconds => "seconds",
        }
    }
}

/// The hyperparameters that count a method's passes over its data, in the
/// order they are looked for.
const PASSES: [&str; 4] = ["epochs", "iterations", "sweeps", "iters"];

/// The passes the run was set to make, when its method counts them.
fn passes(params: &Params) -> Option<f64> {
    let spec = params.schema().iter().find(|s| PASSES.contains(&s.name))?;
    Some(params.f64(spec.name))
}

/// A run's curves on one axis.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Curves {
    /// `(x, loss)`.
    pub loss: Vec<(f64, f64)>,
    /// `(x, held-out perplexity)` where it was measured.
    pub perplexity: Vec<(f64, f64)>,
    /// `(x, the model's own perplexity)` for methods that have one.
    pub model: Vec<(f64, f64)>,
    /// Where the axis ends for this run (its planned length).
    pub x_max: f64,
    /// Mid-run changes: `(x, "name=value")`.
    pub changes: Vec<(f64, String)>,
}

/// Whether a method may end before its planned steps, once a tolerance is
/// met (its schema has a `tol`: dsnmf, the spectral and manifold methods).
fn stops_on_tolerance(params: &Params) -> bool {
    params.schema().iter().any(|s| s.name == "tol")
}

/// Where the step axis of a run ends: its planned steps; for a method that
/// stops on a tolerance and is still running, the steps done plus a quarter
/// (at least ten more), so a run planned for 1,000 iterations that
/// converges after 100 is drawn across the chart, not in its first tenth.
fn axis_steps(metrics: &[Progress], tolerance: bool, active: bool) -> f64 {
    let Some(last) = metrics.last() else {
        return 1.0;
    };
    let total = last.total_steps.max(1) as f64;
    if !(tolerance && active) {
        return total;
    }
    let done = last.step as f64;
    (done * 1.25).max(done + 10.0).ceil().min(total)
}

/// Maps steps to an axis for one run.
struct Mapper<'a> {
    axis: XAxis,
    metrics: &'a [Progress],
    /// Where the step axis ends.
    total: f64,
    /// The steps the run was planned with (its passes are spread over
    /// them, also when it ended early).
    planned: f64,
    passes: Option<f64>,
}

impl Mapper<'_> {
    /// Where report `p` goes. Epochs are the share of the run done times
    /// its passes (each method that counts passes gives them equal steps);
    /// a method without passes falls back to its outer-iteration counter.
    fn x(&self, p: &Progress) -> f64 {
        match self.axis {
            XAxis::Steps => p.step as f64,
            XAxis::Epochs => match self.passes {
                Some(e) => p.step as f64 * e / self.planned,
                None => f64::from(p.epoch) + 1.0,
            },
            XAxis::Seconds => p.elapsed,
        }
    }

    /// Where step `step` goes (a change between reports takes the time of
    /// the first report at or after it).
    fn x_of_step(&self, step: u64) -> f64 {
        match self.axis {
            XAxis::Seconds => self
                .metrics
                .iter()
                .find(|p| p.step >= step)
                .or(self.metrics.last())
                .map_or(0.0, |p| p.elapsed),
            _ => {
                let p = Progress {
                    step,
                    ..Progress::default()
                };
                self.x(&p)
            }
        }
    }

    /// Where the run's axis ends: its planned length; in seconds, the time
    /// so far stretched to the whole run while it trains.
    fn end(&self) -> f64 {
        let Some(last) = self.metrics.last() else {
            return 1.0;
        };
        match self.axis {
            XAxis::Steps => self.total,
            XAxis::Epochs => match self.passes {
                Some(e) => self.total * e / self.planned,
                None => f64::from(last.epoch) + 1.0,
            },
            XAxis::Seconds if last.step > 0 => last.elapsed * self.total / last.step as f64,
            XAxis::Seconds => last.elapsed,
        }
    }
}

/// Run `run`'s curves against `axis`.
pub fn curves(run: &RunEntry, axis: XAxis) -> Curves {
    let metrics = run.metrics();
    let planned = metrics
        .iter()
        .map(|p| p.total_steps)
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let tolerance = stops_on_tolerance(&run.params);
    let m = Mapper {
        axis,
        metrics,
        total: axis_steps(metrics, tolerance, run.status.is_active()),
        planned,
        passes: passes(&run.params),
    };
    let points = |f: &dyn Fn(&Progress) -> Option<f64>| {
        metrics
            .iter()
            .filter_map(|p| f(p).map(|y| (m.x(p), y)))
            .collect::<Vec<_>>()
    };
    Curves {
        loss: points(&|p| Some(p.loss)),
        perplexity: points(&|p| p.perplexity),
        model: points(&|p| p.model_perplexity),
        x_max: m.end().max(1e-9),
        changes: run
            .changes()
            .into_iter()
            .map(|(step, label)| (m.x_of_step(step), label))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo;
    use crate::schema::Value;
    use crate::session::CorpusRef;

    fn run(method: &str, set: &[(&str, Value)], reports: &[(u64, u32, f64)]) -> RunEntry {
        let m = algo::find(method).unwrap();
        let mut params = Params::defaults(m.schema);
        for (name, v) in set {
            params.set(m.name, name, v).unwrap();
        }
        let corpus = CorpusRef {
            path: "c.txt".into(),
            bytes: 1,
            hash: "h".into(),
            config: Default::default(),
        };
        let mut r = RunEntry::new(m, params, 1, 1, corpus);
        for &(step, epoch, elapsed) in reports {
            r.recorder.run_mut().metrics.push(Progress {
                step,
                total_steps: 100,
                epoch,
                loss: step as f64,
                perplexity: (step % 50 == 0).then_some(10.0),
                elapsed,
                ..Progress::default()
            });
        }
        r
    }

    #[test]
    fn steps_epochs_and_seconds_place_the_same_reports() {
        let r = run(
            "sgns",
            &[("epochs", Value::Int(4))],
            &[(25, 0, 1.0), (50, 1, 3.0), (100, 3, 9.0)],
        );
        let xs = |axis| -> Vec<f64> { curves(&r, axis).loss.iter().map(|p| p.0).collect() };
        assert_eq!(xs(XAxis::Steps), [25.0, 50.0, 100.0]);
        assert_eq!(xs(XAxis::Epochs), [1.0, 2.0, 4.0]);
        assert_eq!(xs(XAxis::Seconds), [1.0, 3.0, 9.0]);
        assert_eq!(curves(&r, XAxis::Steps).x_max, 100.0);
        assert_eq!(curves(&r, XAxis::Epochs).x_max, 4.0);
        assert_eq!(curves(&r, XAxis::Seconds).x_max, 9.0);
        assert_eq!(
            curves(&r, XAxis::Epochs).perplexity,
            [(2.0, 10.0), (4.0, 10.0)]
        );
    }

    #[test]
    fn a_run_in_progress_stretches_its_time_axis_to_the_whole_run() {
        let r = run("sgns", &[], &[(10, 0, 2.0), (25, 0, 5.0)]);
        assert_eq!(curves(&r, XAxis::Seconds).x_max, 20.0);
    }

    #[test]
    fn a_run_that_stops_on_a_tolerance_spans_the_steps_it_did() {
        // dsnmf planned for 100 iterations, at step 20: the axis ends at 30.
        let iterations = [("iterations", Value::Int(100))];
        let mut r = run("dsnmf", &iterations, &[(10, 9, 1.0), (20, 19, 2.0)]);
        assert_eq!(curves(&r, XAxis::Steps).x_max, 30.0);
        assert_eq!(
            curves(&r, XAxis::Epochs).x_max,
            30.0,
            "one iteration a step"
        );
        assert_eq!(curves(&r, XAxis::Seconds).x_max, 3.0);
        // Converged at step 40: the engine's last report says 40 of 40.
        r.recorder.run_mut().metrics.push(Progress {
            step: 40,
            total_steps: 40,
            epoch: 39,
            ..Progress::default()
        });
        r.status = crate::tui::run::RunStatus::Finished;
        let c = curves(&r, XAxis::Epochs);
        assert_eq!(c.x_max, 40.0);
        let xs: Vec<f64> = c.loss.iter().map(|p| p.0).collect();
        assert_eq!(xs, [10.0, 20.0, 40.0], "iterations, not stretched to 100");
        // Near its planned end the axis stops at the plan.
        let r = run("dsnmf", &iterations, &[(95, 94, 1.0)]);
        assert_eq!(curves(&r, XAxis::Steps).x_max, 100.0);
        // A method without a tolerance keeps its planned length.
        let r = run("sgns", &[], &[(10, 0, 1.0)]);
        assert_eq!(curves(&r, XAxis::Steps).x_max, 100.0);
    }

    #[test]
    fn a_method_without_passes_counts_its_outer_iterations() {
        let r = run("svd", &[], &[(1, 0, 1.0), (2, 1, 2.0)]);
        let c = curves(&r, XAxis::Epochs);
        assert_eq!(c.loss, [(1.0, 1.0), (2.0, 2.0)]);
        assert_eq!(c.x_max, 2.0);
    }

    #[test]
    fn changes_land_where_their_step_is_on_each_axis() {
        let mut r = run(
            "sgns",
            &[("epochs", Value::Int(2))],
            &[(20, 0, 4.0), (60, 1, 12.0), (100, 1, 20.0)],
        );
        r.recorder
            .run_mut()
            .timeline
            .push(crate::session::TimelineEntry {
                step: 50,
                event: crate::session::TimelineEvent::Set {
                    name: "lr".into(),
                    value: Value::Float(0.01),
                },
            });
        let at = |axis| curves(&r, axis).changes[0].0;
        assert_eq!(at(XAxis::Steps), 50.0);
        assert_eq!(at(XAxis::Epochs), 1.0);
        assert_eq!(at(XAxis::Seconds), 12.0, "the first report at or after it");
        assert_eq!(curves(&r, XAxis::Steps).changes[0].1, "lr=0.01");
    }

    #[test]
    fn axes_cycle_through_all_three() {
        let mut a = XAxis::default();
        let mut names = Vec::new();
        for _ in 0..3 {
            names.push(a.name());
            a = a.next();
        }
        assert_eq!(names, ["steps", "epochs", "seconds"]);
        assert_eq!(a, XAxis::Steps);
    }
}
