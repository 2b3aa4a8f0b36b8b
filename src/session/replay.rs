//! Replaying a recorded run headless and comparing its curves with the record.
//!
//! The replay uses the run's own corpus and settings and applies the recorded
//! hyperparameter changes and stop at exactly the recorded steps (pauses do
//! not change results and are not replayed); a run that was interrupted (the
//! program ended while it trained) is replayed up to its last recorded step,
//! so the two end alike and every replayed step has a recorded one to meet. Single-thread runs must match
//! bit for bit; with more threads Hogwild-style updates race, so the curves
//! are compared within a relative tolerance of [`MULTI_THREAD_TOLERANCE`].

use std::path::Path;
use std::sync::Arc;

use super::corpus_ref::CorpusCheck;
use super::{Outcome, Recorder, Run, RunEnd, Session, TimelineEvent};
use crate::corpus::Corpus;
use crate::embedding::Embedding;
use crate::train::{Event, Job, JobConfig, Progress, TrainInput};
use crate::{Error, Result};

/// Relative tolerance on loss and perplexity for multi-thread runs.
pub const MULTI_THREAD_TOLERANCE: f64 = 0.10;

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
    /// True when the replay matches the recording ([`Judgement::passed`]).
    pub fn passed(&self) -> bool {
        self.judgement.passed()
    }
}

/// How a replay compares with its recording: every metric curve, and how
/// and after how many steps each ended. The command line (`wordbench
/// replay`) and the workbench (`R` on Runs) both judge with [`judge`], so
/// they always agree.
#[derive(Debug, Clone, PartialEq)]
pub struct Judgement {
    /// Relative tolerance used (0 = bit for bit).
    pub tolerance: f64,
    /// One row per metric.
    pub curves: Vec<CurveDiff>,
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

/// What a replay shows, in a word and where.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Every compared value is the same bit for bit, and it ended alike.
    Identical,
    /// Values differ, all within the tolerance (multi-thread runs).
    WithinTolerance {
        /// The tolerance (relative).
        tolerance: f64,
        /// The largest relative difference.
        max_rel: f64,
    },
    /// Outside the tolerance, or ended otherwise: where, in words.
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
            Verdict::WithinTolerance { tolerance, max_rel } => write!(
                f,
                "within tolerance: largest relative difference {max_rel:.2e} (allowed {tolerance})"
            ),
            Verdict::Different(at) => write!(f, "different: {at}"),
        }
    }
}

/// Compares the replay `replayed` with the recording `recorded`: bit for
/// bit for a single-thread run, within [`MULTI_THREAD_TOLERANCE`] otherwise.
pub fn judge(recorded: &Run, replayed: &Run) -> Judgement {
    let tolerance = if recorded.threads <= 1 {
        0.0
    } else {
        MULTI_THREAD_TOLERANCE
    };
    let recorded_end = recorded.end();
    let replayed_end = match (&recorded_end, replayed.end()) {
        // An interrupted run is replayed up to its last step and stopped
        // there: that is ending alike.
        (RunEnd::Interrupted(r), RunEnd::Stopped(s)) if *r == s => RunEnd::Interrupted(s),
        (_, end) => end,
    };
    Judgement {
        tolerance,
        curves: compare(&recorded.metrics, &replayed.metrics, tolerance),
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

    /// The verdict: identical, within tolerance, or different (the ending,
    /// else the metric that differs first, with its step).
    pub fn verdict(&self) -> Verdict {
        if !self.ended_alike() {
            return Verdict::Different(format!(
                "the recording {} after {} steps, the replay {} after {}",
                self.recorded_end, self.recorded_steps, self.replayed_end, self.replayed_steps
            ));
        }
        if let Some(c) = self.curves.iter().find(|c| c.points == 0) {
            return Verdict::Different(format!("no {} point to compare", c.metric));
        }
        let first = self
            .curves
            .iter()
            .filter_map(|c| c.first_mismatch.map(|step| (step, c)))
            .min_by_key(|(step, _)| *step);
        if let Some((step, c)) = first {
            return Verdict::Different(format!(
                "{} differs from step {step} ({} of {} points; largest relative difference {:.2e})",
                c.metric, c.mismatches, c.points, c.max_rel
            ));
        }
        let max_rel = self.curves.iter().map(|c| c.max_rel).fold(0.0, f64::max);
        if max_rel == 0.0 {
            Verdict::Identical
        } else {
            Verdict::WithinTolerance {
                tolerance: self.tolerance,
                max_rel,
            }
        }
    }

    /// True when the replay matches the recording (identical, or within
    /// the tolerance).
    pub fn passed(&self) -> bool {
        self.verdict().passed()
    }
}

/// Re-runs run `index` of `session` (read from `session_file`, which anchors
/// relative paths); `on_event` sees every engine event (for live display).
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
                "{} (the session has runs 1 to {})",
                index + 1,
                session.runs.len()
            ),
        )
    })?;
    let settings = run.settings(session_file, index)?;
    let (method, missing) = (settings.method, settings.missing.clone());
    let params = settings.into_params()?;
    let mut warnings: Vec<String> = missing
        .iter()
        .map(|name| {
            format!(
                "{name} not in the session: default {} used",
                params.get(name)
            )
        })
        .collect();
    let reference = run.corpus.as_ref().unwrap_or(&session.corpus);
    let path = reference.resolve(session_file)?;
    if let CorpusCheck::Changed { recorded, actual } = reference.check(&path)? {
        warnings.push(format!(
            "corpus {} changed: now {actual}; recorded {recorded}",
            path.display()
        ));
    }
    let corpus = Corpus::open_for_training(&path, reference.config)?;
    warnings.extend(corpus.warnings().iter().cloned());
    let config = job_config(run);
    let (threads, capped) = crate::train::cap_threads(run.threads, "threads:");
    warnings.extend(capped);
    let input = TrainInput {
        corpus: Arc::new(corpus),
        params: params.clone(),
        seed: run.seed,
        threads,
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
    Ok(ReplayReport {
        run: index,
        judgement: judge(run, &replayed),
        warnings,
        replayed,
        embedding,
    })
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

    /// A recorded run of `losses` on `threads` threads, ended `outcome`.
    fn run_of(losses: &[f64], threads: usize) -> Run {
        let mut r =
            Recorder::new("sgns", &crate::train::Params::defaults(&[]), 1, threads).into_run();
        r.metrics = curve(losses);
        r.outcome = Outcome::Finished;
        r
    }

    #[test]
    fn the_verdict_says_identical_within_tolerance_or_where_it_differs() {
        let rec = run_of(&[3.0, 2.0, 1.0], 1);
        assert_eq!(judge(&rec, &rec).verdict(), Verdict::Identical);
        assert!(judge(&rec, &rec).passed());
        let off = run_of(&[3.0, 2.0 + 1e-12, 1.0], 1);
        let v = judge(&rec, &off).verdict();
        assert!(!v.passed());
        assert_eq!(
            v.to_string(),
            "different: loss differs from step 2 (1 of 3 points; largest relative difference 5.00e-13)"
        );
        // Two threads: 10% relative is allowed.
        let (rec2, near) = (run_of(&[3.0, 2.0, 1.0], 2), run_of(&[3.0, 2.1, 1.0], 2));
        let v = judge(&rec2, &near).verdict();
        assert_eq!(
            v,
            Verdict::WithinTolerance {
                tolerance: MULTI_THREAD_TOLERANCE,
                max_rel: (2.0f64 - 2.1).abs() / 2.1
            }
        );
        assert_eq!(
            v.to_string(),
            "within tolerance: largest relative difference 4.76e-2 (allowed 0.1)"
        );
        // Fewer steps: the ending is what differs.
        let short = run_of(&[3.0, 2.0], 1);
        assert_eq!(
            judge(&rec, &short).verdict().to_string(),
            "different: the recording finished after 3 steps, the replay finished after 2"
        );
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
