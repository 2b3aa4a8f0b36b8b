//! Building a [`Run`] from the engine's events, as the CLI and the TUI see them.

use std::collections::BTreeMap;

use super::{CorpusRef, Outcome, Run, TimelineEntry, TimelineEvent};
use crate::schema::Params;
use crate::train::Event;

/// Accumulates one run's record while it trains.
#[derive(Debug, Clone)]
pub struct Recorder {
    run: Run,
}

impl Recorder {
    /// Starts the record of a run of `method` with these settings.
    pub fn new(method: &str, params: &Params, seed: u64, threads: usize) -> Self {
        let params: BTreeMap<String, _> = params
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        Recorder {
            run: Run {
                number: 0,
                method: method.to_string(),
                label: None,
                tags: Vec::new(),
                params,
                seed,
                threads,
                corpus: None,
                timeline: Vec::new(),
                metrics: Vec::new(),
                outcome: Outcome::Running,
                evaluation: None,
                plots: Vec::new(),
                vectors: None,
                kept: None,
                source: None,
                baseline: None,
            },
        }
    }

    /// Names the corpus the run trains on (every run saved in a session does).
    pub fn on_corpus(mut self, corpus: CorpusRef) -> Self {
        self.run.corpus = Some(corpus);
        self
    }

    /// Records what an event says about the run; returns true when the record changed.
    pub fn observe(&mut self, event: &Event) -> bool {
        let r = &mut self.run;
        let mut at = |step, event| r.timeline.push(TimelineEntry { step, event });
        match event {
            Event::Progress(p) => self.run.metrics.push(*p),
            Event::ParamApplied { name, value, step } => at(
                *step,
                TimelineEvent::Set {
                    name: name.clone(),
                    value: value.clone(),
                },
            ),
            Event::Paused { step } => at(*step, TimelineEvent::Pause),
            Event::Resumed { step } => at(*step, TimelineEvent::Resume),
            Event::Stopped { step } => at(*step, TimelineEvent::Stop),
            Event::Cut { step, units } => at(*step, TimelineEvent::Cut { units: *units }),
            Event::Finished(_) => self.run.outcome = Outcome::Finished,
            Event::Failed { message, .. } => self.run.outcome = Outcome::Failed(message.clone()),
            Event::Baseline(b) => self.run.baseline = Some(*b),
            Event::Log(_)
            | Event::Counting(_)
            | Event::Phase(_)
            | Event::Checkpoint { .. }
            | Event::ParamRejected { .. } => return false,
        }
        true
    }

    /// The record so far.
    pub fn run(&self) -> &Run {
        &self.run
    }

    /// Mutable access (to attach evaluation, plots or the vectors' path).
    pub fn run_mut(&mut self) -> &mut Run {
        &mut self.run
    }

    /// The finished record.
    pub fn into_run(self) -> Run {
        self.run
    }
}
