//! Replaying a recorded run headless and comparing its curves with the record.
//!
//! The replay uses the run's own corpus and settings and applies the recorded
//! hyperparameter changes and stop at exactly the recorded steps (pauses do
//! not change results and are not replayed); a run that was interrupted (the
//! program ended while it trained) is replayed up to its last recorded step,
//! so the two end alike and every replayed step has a recorded one to meet.
//!
//! A run whose method and settings give the same bits every time
//! ([`Run::bit_for_bit`]: one thread, or the
//! deterministic schedule with any number) must match bit for bit at every
//! step; the run is replayed with its recorded thread count even where fewer
//! CPUs run it, since the deterministic schedule's result depends on that
//! count, not on the threads that carry it out. A run that races (Hogwild
//! with several threads) is judged by its final values only
//! ([`super::finals`]), within tolerances measured from seed-to-seed spread.
//! [`ReplayReport::verdict`] says which: bit for bit, within tolerance
//! (final values), or different (and where).

use std::path::Path;
use std::sync::Arc;

use super::corpus_ref::CorpusCheck;
use super::finals::{self, FinalDiff};
use super::{Outcome, Recorder, Run, RunEnd, Session, TimelineEvent};
use crate::embedding::Embedding;
use crate::train::{Event, Job, JobConfig, Progress, TrainInput};
use crate::{Error, Result};

/// How one metric curve compares.
#[derive(Debug, Clone, PartialEq)]
pub struct CurveDiff {
    /// `loss`, `perplexity`, `lr` or `model perplexity`.
    pub metric: &'static str,
    /// Steps present in both curves.
    pub points: usize,
    /// Largest absolute difference.
    pub max_abs: f64,
    /// Largest relative difference.
    pub max_rel: f64,
    /// Points outside the tolerance.
    pub mismatches: usize,
    /// First mismatching step, if any.
    pub first_mismatch: Option<u64>,
}

/// What a replay concluded.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Every point of every curve has the same bits, and the run ended alike.
    Identical,
    /// A run that cannot be bit for bit: ended alike, and its final values
    /// are within their tolerances.
    WithinTolerance,
    /// Different: what and where, e.g. `loss at step 20` or `final
    /// perplexity 12.0% off (tolerance 5.0%)`.
    Different(String),
}

impl Verdict {
    /// Whether the replay counts as matching its recording.
    pub fn passed(&self) -> bool {
        !matches!(self, Verdict::Different(_))
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Verdict::Identical => f.write_str("identical to the recording (bit for bit)"),
            Verdict::WithinTolerance => f.write_str("within tolerance (final values)"),
            Verdict::Different(at) => write!(f, "different: {at}"),
        }
    }
}

/// The outcome of a replay.
#[derive(Debug, Clone)]
pub struct ReplayReport {
    /// Which run (0-based index; users see it numbered from 1).
    pub run: usize,
    /// How it compares with the recording.
    pub judgement: Judgement,
    /// Things to tell the user (changed corpus, defaults filled in, ...).
    pub warnings: Vec<String>,
    /// The replayed run's record.
    pub replayed: Run,
    /// The replayed vectors (none when the replay failed).
    pub embedding: Option<Embedding>,
}

impl ReplayReport {
    /// The verdict ([`Judgement::verdict`]).
    pub fn verdict(&self) -> Verdict {
        self.judgement.verdict()
    }

    /// True unless the verdict is [`Verdict::Different`].
    pub fn passed(&self) -> bool {
        self.judgement.passed()
    }
}

/// How a replay compares with its recording: every metric curve, the final
/// values of a run that cannot be bit for bit, and how and after how many
/// steps each ended. The command line (`wordbench replay`) and the
/// workbench (`R` on Runs) both judge with [`judge`], so they agree.
#[derive(Debug, Clone, PartialEq)]
pub struct Judgement {
    /// Whether the run had to replay bit for bit (its method and settings
    /// give the same bits every time).
    pub exact: bool,
    /// One row per metric, every point compared bit for bit.
    pub curves: Vec<CurveDiff>,
    /// For a run that cannot be bit for bit: its final values (loss,
    /// perplexities, scores) against their tolerances; empty otherwise.
    pub finals: Vec<FinalDiff>,
    /// How the recorded run ended.
    pub recorded_end: RunEnd,
    /// Steps done in the recording (its last progress report).
    pub recorded_steps: u64,
    /// How the replay ended (an interrupted run replayed up to its last
    /// step and stopped there counts as interrupted there).
    pub replayed_end: RunEnd,
    /// Steps done in the replay.
    pub replayed_steps: u64,
}

/// Compares the replay `replayed` with the recording `recorded`: bit for
/// bit where the run's settings give the same bits every time
/// ([`Run::bit_for_bit`]), else by the final values of the curves plus
/// `scores` (the replayed vectors' scores against the recorded ones).
pub fn judge(recorded: &Run, replayed: &Run, scores: Vec<FinalDiff>) -> Judgement {
    let exact = recorded.bit_for_bit();
    let recorded_end = recorded.end();
    let replayed_end = match (&recorded_end, replayed.end()) {
        // An interrupted run is replayed up to its last step and stopped
        // there: that is ending alike.
        (RunEnd::Interrupted(r), RunEnd::Stopped(s)) if *r == s => RunEnd::Interrupted(s),
        (_, end) => end,
    };
    let finals = if exact {
        Vec::new()
    } else {
        let mut f = finals::final_values(&recorded.method, &recorded.metrics, &replayed.metrics);
        f.extend(scores);
        f
    };
    Judgement {
        exact,
        curves: compare(&recorded.metrics, &replayed.metrics, 0.0),
        finals,
        recorded_end,
        recorded_steps: recorded.last_step(),
        replayed_end,
        replayed_steps: replayed.last_step(),
    }
}

impl Judgement {
    /// Whether the replay ended like the recording, after as many steps.
    pub fn ended_alike(&self) -> bool {
        self.recorded_end == self.replayed_end && self.recorded_steps == self.replayed_steps
    }

    /// Whether every point of every curve has the same bits.
    pub fn curves_identical(&self) -> bool {
        self.curves
            .iter()
            .all(|c| c.mismatches == 0 && c.points > 0)
    }

    /// Identical, within tolerance (final values), or different and where.
    pub fn verdict(&self) -> Verdict {
        if !self.ended_alike() {
            return Verdict::Different(format!(
                "the recording {} after {} steps, the replay {} after {}",
                self.recorded_end, self.recorded_steps, self.replayed_end, self.replayed_steps
            ));
        }
        if self.curves_identical() {
            return Verdict::Identical;
        }
        if self.exact {
            let first = self
                .curves
                .iter()
                .filter_map(|c| Some((c.first_mismatch?, c)))
                .min_by_key(|(step, _)| *step);
            return Verdict::Different(match first {
                Some((step, c)) => format!(
                    "{} differs from step {step} ({} of {} points; largest relative difference {:.2e})",
                    c.metric, c.mismatches, c.points, c.max_rel
                ),
                None => "no point to compare".to_string(),
            });
        }
        match self.finals.iter().find(|f| !f.within()) {
            None if !self.finals.is_empty() => Verdict::WithinTolerance,
            None => Verdict::Different("no final value to compare".to_string()),
            Some(f) if f.relative => Verdict::Different(format!(
                "final {} {:.1}% off (tolerance {:.1}%)",
                f.metric,
                100.0 * f.difference(),
                100.0 * f.tolerance
            )),
            Some(f) => Verdict::Different(format!(
                "final {} {:.4} off (tolerance {})",
                f.metric,
                f.difference(),
                f.tolerance
            )),
        }
    }

    /// True unless the verdict is [`Verdict::Different`].
    pub fn passed(&self) -> bool {
        self.verdict().passed()
    }
}

/// Re-runs the run at place `index` (from 0) of `session` (read from
/// `session_file`, which anchors relative paths; [`Session::run_index`]
/// finds a run's place from its number); `on_event` sees every engine event
/// (for live display).
pub fn replay(
    session: &Session,
    session_file: &Path,
    index: usize,
    mut on_event: impl FnMut(&Event),
) -> Result<ReplayReport> {
    let run = session.runs.get(index).ok_or_else(|| {
        Error::param(
            "run",
            format!(
                "no run at place {index} from 0 (the session has {} runs)",
                session.runs.len()
            ),
        )
    })?;
    let settings = run.settings(session_file)?;
    let (method, missing) = (settings.method, settings.missing.clone());
    let mut params = settings.into_params()?;
    let mut warnings: Vec<String> = Vec::new();
    let reference = run.corpus.as_ref().unwrap_or(&session.corpus);
    let path = reference.resolve(session_file)?;
    if let CorpusCheck::Changed { recorded, actual } = reference.check(&path)? {
        warnings.push(format!(
            "corpus {} changed: now {actual}; recorded {recorded}",
            path.display()
        ));
    }
    let corpus = crate::counts::open_for_training(&path, reference.config)?;
    // A session records every value; one written before a parameter had a
    // corpus-sized default lacks it, and gets the rule's value here.
    params.resolve(corpus.size());
    let defaults = missing.iter().map(|name| {
        let absent = method.schema.iter().find(|s| s.name == *name);
        match absent.and_then(|s| s.absent) {
            Some(a) => format!(
                "{name} not in the session: {} used ({})",
                params.get(name),
                a.why
            ),
            None => format!(
                "{name} not in the session: default {} used",
                params.get(name)
            ),
        }
    });
    warnings.splice(0..0, defaults);
    warnings.extend(corpus.warnings().iter().cloned());
    let config = job_config(run);
    let exact = run.bit_for_bit();
    let (_, capped) = crate::train::cap_threads(run.threads, "threads:");
    warnings.extend(capped.map(|w| {
        if exact {
            format!(
                "{w} (the work is still cut for {} threads, as recorded)",
                run.threads
            )
        } else {
            w
        }
    }));
    // The recorded count, not the capped one: the job caps its pool, and the
    // deterministic schedule cuts the work by this count.
    let input = TrainInput {
        corpus: Arc::new(corpus),
        params: params.clone(),
        seed: run.seed,
        threads: run.threads.max(1),
        counts: Default::default(),
    };
    let mut recorder = Recorder::new(method.name, &params, run.seed, run.threads);
    let result = Job::spawn(method, input, config).wait(|e| {
        recorder.observe(e);
        on_event(e);
    });
    let embedding = match result {
        Ok(e) => Some(e),
        Err(e) if !matches!(run.outcome, Outcome::Failed(_)) => return Err(e),
        Err(_) => None,
    };
    let replayed = recorder.into_run();
    let scores = if exact {
        Vec::new()
    } else {
        scores(
            session,
            session_file,
            run,
            embedding.as_ref(),
            &mut warnings,
        )?
    };
    Ok(ReplayReport {
        run: index,
        judgement: judge(run, &replayed, scores),
        warnings,
        replayed,
        embedding,
    })
}

/// The replayed vectors' scores against the recorded ones, on the recorded
/// datasets (none when the run was not evaluated or the replay failed).
fn scores(
    session: &Session,
    session_file: &Path,
    run: &Run,
    embedding: Option<&Embedding>,
    warnings: &mut Vec<String>,
) -> Result<Vec<FinalDiff>> {
    let (Some(recorded), Some(embedding)) = (&run.evaluation, embedding) else {
        return Ok(Vec::new());
    };
    let available = finals::available_datasets(&session.datasets, session_file);
    let (plan, missing) = finals::score_plan(recorded, &available);
    warnings.extend(
        missing
            .into_iter()
            .map(|name| format!("evaluation set {name} not found: its score is not compared")),
    );
    let replayed = plan.run(embedding)?;
    Ok(finals::final_scores(recorded, &replayed))
}

/// The recorded changes and stop of `run` as a job schedule (what a replay,
/// headless or in the workbench, feeds the engine). An interrupted run stops
/// after its last recorded step.
pub fn job_config(run: &Run) -> JobConfig {
    let mut config = JobConfig::default();
    if let RunEnd::Interrupted(step) = run.end() {
        config.stop_at = Some(step);
    }
    for entry in &run.timeline {
        match &entry.event {
            TimelineEvent::Set { name, value } => {
                config
                    .schedule
                    .push((entry.step, name.clone(), value.to_string()))
            }
            TimelineEvent::Stop => config.stop_at = Some(entry.step),
            TimelineEvent::Cut { units } => config.cut_at = Some((entry.step, *units)),
            TimelineEvent::Pause | TimelineEvent::Resume => {}
        }
    }
    config
}

/// Compares two metric histories step by step.
pub fn compare(recorded: &[Progress], replayed: &[Progress], tolerance: f64) -> Vec<CurveDiff> {
    type Get = fn(&Progress) -> Option<f64>;
    let metrics: [(&'static str, Get); 4] = [
        ("loss", |p| Some(p.loss)),
        ("perplexity", |p| p.perplexity),
        ("lr", |p| Some(p.lr)),
        ("model perplexity", |p| p.model_perplexity),
    ];
    metrics
        .iter()
        .map(|&(metric, get)| {
            let mut diff = CurveDiff {
                metric,
                points: 0,
                max_abs: 0.0,
                max_rel: 0.0,
                mismatches: 0,
                first_mismatch: None,
            };
            for r in recorded {
                let Some(p) = replayed.iter().find(|p| p.step == r.step) else {
                    continue;
                };
                let (Some(a), Some(b)) = (get(r), get(p)) else {
                    continue;
                };
                diff.points += 1;
                let abs = (a - b).abs();
                let rel = if a == b {
                    0.0
                } else {
                    abs / a.abs().max(b.abs())
                };
                diff.max_abs = diff.max_abs.max(abs);
                diff.max_rel = diff.max_rel.max(rel);
                let ok = if tolerance == 0.0 {
                    a.to_bits() == b.to_bits()
                } else {
                    rel <= tolerance
                };
                if !ok {
                    diff.mismatches += 1;
                    diff.first_mismatch.get_or_insert(r.step);
                }
            }
            diff
        })
        .filter(|d| !d.metric.ends_with("perplexity") || d.points > 0)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn curve(losses: &[f64]) -> Vec<Progress> {
        losses
            .iter()
            .enumerate()
            .map(|(i, &l)| Progress {
                step: i as u64 + 1,
                loss: l,
                lr: 0.1,
                perplexity: (i == losses.len() - 1).then_some(10.0),
                ..Default::default()
            })
            .collect()
    }

    /// The judgement of a finished run of `losses`, replayed as `replayed`
    /// (`exact`: it had to be bit for bit).
    fn report(losses: &[f64], replayed: &[f64], exact: bool, finals: Vec<FinalDiff>) -> Judgement {
        Judgement {
            exact,
            curves: compare(&curve(losses), &curve(replayed), 0.0),
            finals,
            recorded_end: RunEnd::Finished,
            recorded_steps: losses.len() as u64,
            replayed_end: RunEnd::Finished,
            replayed_steps: replayed.len() as u64,
        }
    }

    fn last(metric: &str, recorded: f64, replayed: f64) -> FinalDiff {
        FinalDiff {
            metric: metric.into(),
            recorded,
            replayed,
            tolerance: 0.05,
            relative: true,
        }
    }

    #[test]
    fn the_verdict_says_bit_for_bit_within_tolerance_or_where_it_differs() {
        let exact = report(&[3.0, 2.0, 1.0], &[3.0, 2.0, 1.0], true, Vec::new());
        assert_eq!(exact.verdict(), Verdict::Identical);
        assert_eq!(
            exact.verdict().to_string(),
            "identical to the recording (bit for bit)"
        );
        let off = report(&[3.0, 2.0, 1.0], &[3.0, 2.5, 1.0], true, Vec::new());
        assert_eq!(
            off.verdict(),
            Verdict::Different(
                "loss differs from step 2 (1 of 3 points; largest relative difference 2.00e-1)"
                    .into()
            )
        );
        assert!(!off.passed());
        // A racing run: mid-curve differences do not count, final values do.
        let close = vec![last("loss", 1.0, 1.01), last("perplexity", 10.0, 10.2)];
        let raced = report(&[3.0, 2.0, 1.0], &[3.0, 2.5, 1.01], false, close);
        assert_eq!(raced.verdict(), Verdict::WithinTolerance);
        assert_eq!(
            raced.verdict().to_string(),
            "within tolerance (final values)"
        );
        assert!(raced.passed());
        let far = vec![last("loss", 1.0, 1.01), last("perplexity", 10.0, 11.364)];
        let apart = report(&[3.0, 2.0, 1.0], &[3.0, 2.0, 1.01], false, far);
        assert_eq!(
            apart.verdict(),
            Verdict::Different("final perplexity 12.0% off (tolerance 5.0%)".into())
        );
        // Ending after another number of steps is a difference either way.
        let short = report(
            &[3.0, 2.0, 1.0],
            &[3.0, 2.0],
            false,
            vec![last("loss", 1.0, 1.0)],
        );
        assert!(
            matches!(short.verdict(), Verdict::Different(ref s) if s.starts_with("the recording"))
        );
    }

    #[test]
    fn exact_comparison_finds_the_first_differing_step() {
        let a = curve(&[3.0, 2.0, 1.0]);
        let b = curve(&[3.0, 2.0 + 1e-12, 1.0]);
        let d = compare(&a, &b, 0.0);
        assert_eq!(d[0].metric, "loss");
        assert_eq!(
            (d[0].points, d[0].mismatches, d[0].first_mismatch),
            (3, 1, Some(2))
        );
        assert_eq!(d[1].metric, "perplexity");
        assert_eq!((d[1].points, d[1].mismatches), (1, 0));
        assert!(compare(&a, &a, 0.0).iter().all(|c| c.mismatches == 0));
    }

    #[test]
    fn tolerance_accepts_small_relative_differences() {
        let a = curve(&[3.0, 2.0, 1.0]);
        let b = curve(&[3.1, 2.0, 1.05]);
        assert!(compare(&a, &b, 0.1).iter().all(|c| c.mismatches == 0));
        assert_eq!(compare(&a, &b, 0.01)[0].mismatches, 2);
    }

    #[test]
    fn model_perplexity_is_compared_only_when_recorded() {
        let a = curve(&[3.0, 2.0]);
        assert!(compare(&a, &a, 0.0)
            .iter()
            .all(|c| c.metric != "model perplexity"));
        let with = |x: f64| {
            let mut c = curve(&[3.0, 2.0]);
            c[1].model_perplexity = Some(x);
            c
        };
        let d = compare(&with(50.0), &with(50.5), 0.0);
        let m = d.iter().find(|c| c.metric == "model perplexity").unwrap();
        assert_eq!((m.points, m.mismatches, m.first_mismatch), (1, 1, Some(2)));
        // Absent from session text when a method has none (old files unchanged).
        let text = ron::to_string(&a[1]).unwrap();
        assert!(!text.contains("model_perplexity"), "{text}");
        let back: Progress = ron::from_str(&text).unwrap();
        assert_eq!(back, a[1]);
    }
}
