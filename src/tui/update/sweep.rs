//! Sweeps declared and started in the workbench: the form's handlers, the
//! runs it queues on the workbench's engine (ordinary runs, named by what
//! they set and tagged with the sweep), and what happens as each ends: it
//! is evaluated and joins its sweep's table on the HParams screen. With a
//! prune setting, each run stops at a rung unless its held-out perplexity
//! (or its Spearman on the similarity set pruned on, scored off the UI
//! thread) there is among the best of the sweep's runs before it
//! ([`crate::sweep::prune::decide`], the rule `wordbench sweep` uses; runs
//! train one at a time here, so a decision never waits). With a time
//! budget, the sweep's runs still queued when it has passed are removed
//! and listed as skipped, as `wordbench sweep` lists those it never starts.

use std::sync::Arc;

use crate::algo;
use crate::session::SweepRecord;
use crate::sweep::prune::{decide, Decision, Rung};
use crate::sweep::run::prune_set;
use crate::sweep::table::{sweep_tag, Row, PRUNED_TAG};
use crate::sweep::{SweepSpec, Trial};
use crate::train::{Command, JobConfig};
use crate::tui::action::{Action, Screen};
use crate::tui::app::{App, Level, TICKS_PER_SECOND};
use crate::tui::model::sweep_form::{Shared, SweepForm};
use crate::tui::msg::Effect;
use crate::tui::run::RunStatus;
use std::path::Path;

/// `w`: opens the sweep form for the Train screen's method (a form for
/// another method starts afresh) on the HParams screen.
pub fn open(app: &mut App) -> Vec<Effect> {
    ensure_form(app);
    app.screen = Screen::HParams;
    app.set_status(
        Level::Info,
        format!(
            "sweep of {} (chosen on 2 Train, whose other fields every run shares): Enter edits a field, s starts, Esc closes",
            app.train.method().name
        ),
    );
    Vec::new()
}

fn ensure_form(app: &mut App) {
    let method = app.train.method;
    if app.sweep_form.as_ref().is_none_or(|f| f.method != method) {
        app.sweep_form = Some(SweepForm::new(method));
    }
}

/// Sets a field of the form (opening it), checked as the CLI checks the flag.
pub fn set_field(app: &mut App, name: &str, text: &str) -> Vec<Effect> {
    ensure_form(app);
    let method = app.train.method();
    let Some(form) = app.sweep_form.as_mut() else {
        return Vec::new();
    };
    match form.set(method, name, text) {
        Ok(()) => app.set_status(Level::Info, format!("sweep {name} = {}", text.trim())),
        Err(e) => app.set_status(Level::Error, e),
    }
    Vec::new()
}

/// Keys while the form is open; `None` when it is closed (the screen's
/// own keys apply).
pub fn navigate(app: &mut App, action: &Action) -> Option<Vec<Effect>> {
    let form = &mut app.sweep_form.as_mut()?.form;
    if form.editing().is_some() {
        return Some(match form.typed(action) {
            Some((name, text)) => app.user_action(Action::SetSweepField(name, text)),
            None => Vec::new(),
        });
    }
    match action {
        Action::Up => form.select(-1),
        Action::Down => form.select(1),
        Action::Activate | Action::Left | Action::Right => {
            let i = form.selected;
            if let Some((name, text)) = form.pressed(i, action) {
                return Some(app.user_action(Action::SetSweepField(name, text)));
            }
        }
        Action::Cancel => {
            app.sweep_form = None;
            app.set_status(Level::Info, "sweep form closed (w opens it again)");
        }
        _ => {}
    }
    Some(Vec::new())
}

/// Queues the runs the form declares, as ordinary runs of the Train
/// screen's method with its other fields, and adds the sweep to the
/// session (its table grows as the runs end).
pub fn start(app: &mut App) -> Vec<Effect> {
    let Some(form) = app.sweep_form.clone() else {
        app.set_status(Level::Info, "no sweep declared: w opens the sweep form");
        return Vec::new();
    };
    let method = algo::methods()[form.method];
    if app.corpus.loaded.is_none() {
        app.set_status(Level::Warn, "load a corpus first (1 Corpus)");
        return Vec::new();
    }
    let shared = match shared(app) {
        Ok(s) => s,
        Err(e) => {
            app.set_status(Level::Error, e);
            return Vec::new();
        }
    };
    let (spec, trials) = match form.declare(method, &shared) {
        Ok(d) => d,
        Err(refusal) => {
            if let (Some(f), Some(i)) = (app.sweep_form.as_mut(), form.form.index(refusal.field)) {
                f.form.set_error(i, Some(refusal.message.clone()));
                f.form.selected = i;
            }
            app.set_status(Level::Error, refusal.message);
            return Vec::new();
        }
    };
    let number = app
        .session
        .sweeps
        .iter()
        .map(|s| s.number)
        .max()
        .unwrap_or(0)
        + 1;
    let names: Vec<String> = spec.swept_names().map(String::from).collect();
    let checkpoints = spec
        .prune
        .as_ref()
        .map_or_else(Vec::new, |p| p.rungs.clone());
    let on_a_set = prune_set(&spec, &app.eval.plan.similarity).is_some();
    let mut effects = Vec::new();
    for trial in &trials {
        let mut values: Vec<(&str, &str)> = spec
            .fixed
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        values.extend(trial.values.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        let params = match method.params(values) {
            Ok(p) => p,
            Err(e) => {
                app.set_status(Level::Error, format!("{}: {e}", trial.label()));
                return effects;
            }
        };
        let before = app.runs.len();
        let config = JobConfig {
            checkpoints: checkpoints.clone(),
            checkpoint_vectors: on_a_set,
            ..JobConfig::default()
        };
        effects.extend(super::train::launch(
            app,
            method,
            params,
            spec.seed,
            spec.threads,
            config,
        ));
        let Some(run) = app.runs.get_mut(before) else {
            return effects;
        };
        let record = run.recorder.run_mut();
        record.label = Some(trial.label());
        record.tags.push(sweep_tag(number));
    }
    let count = trials.len();
    app.session.sweeps.push(SweepRecord {
        number,
        spec,
        names,
        runs: Vec::new(),
        skipped: Vec::new(),
        counted: 0,
        seconds: 0.0,
    });
    app.sweep_started.insert(number, app.tick);
    app.session.changed();
    app.hparams = Default::default();
    app.hparams.sweep = app.session.sweeps.len() - 1;
    app.sweep_form = None;
    app.set_status(
        Level::Info,
        format!(
            "sweep {number}: {count} runs of {} queued (3 Runs shows them; each joins this table when it ends)",
            method.name
        ),
    );
    effects
}

/// What the open form declares now (for the screen to preview): the
/// declaration and its runs, or the refusal.
pub fn declared(app: &App) -> Option<Result<(SweepSpec, Vec<Trial>), String>> {
    let form = app.sweep_form.as_ref()?;
    let shared = match shared(app) {
        Ok(s) => s,
        Err(e) => return Some(Err(e)),
    };
    Some(
        form.declare(algo::methods()[form.method], &shared)
            .map_err(|r| r.message),
    )
}

/// The Train screen's values every run shares: its fields that differ from
/// the defaults, its seed and threads; the evaluation's similarity sets.
pub fn shared(app: &App) -> Result<Shared, String> {
    let form = app.train.form();
    let method = app.train.method();
    let fixed = form
        .changed()
        .into_iter()
        .filter_map(|kv| {
            let (k, v) = kv.split_once('=')?;
            let ours = method.schema.iter().any(|s| s.name == k);
            ours.then(|| (k.to_string(), v.to_string()))
        })
        .collect();
    Ok(Shared {
        fixed,
        seed: form.int("seed")? as u64,
        threads: form.int("threads")? as usize,
        similarity: app.eval.plan.similarity.clone(),
    })
}

/// The number of the sweep run `run` belongs to, from its tag.
fn sweep_of(app: &App, run: usize) -> Option<u32> {
    let tags = &app.runs.get(run)?.record().tags;
    let number = tags
        .iter()
        .find_map(|t| t.strip_prefix("sweep-")?.parse().ok())?;
    app.session
        .sweeps
        .iter()
        .any(|s| s.number == number)
        .then_some(number)
}

/// Run `run` ended: a run of a sweep joins its table and is evaluated.
pub fn run_ended(app: &mut App, run: usize) -> Vec<Effect> {
    let Some(number) = sweep_of(app, run) else {
        return Vec::new();
    };
    let n = app.run_number(run);
    if let Some(record) = app.session.sweeps.iter_mut().find(|s| s.number == number) {
        if !record.runs.contains(&n) {
            record.runs.push(n);
            record.runs.sort_unstable();
        }
    }
    let rungs = app.rungs.entry(n).or_default();
    for r in rungs.iter_mut().filter(|r| **r == Rung::Pending) {
        *r = Rung::Ended;
    }
    app.session.changed();
    if app.runs[run].embedding.is_some() {
        app.follow_up(Action::EvaluateRun(run));
    }
    Vec::new()
}

/// The sweep record of sweep `number`.
fn record(app: &App, number: u32) -> Option<&SweepRecord> {
    app.session.sweeps.iter().find(|s| s.number == number)
}

/// Run `run` reached rung `rung` with held-out `perplexity` and, when its
/// sweep prunes on a similarity set, its vectors `words`: those are scored
/// on the set off the UI thread ([`Effect::ScoreRung`]), else the
/// perplexity decides ([`Action::SweepCheckpoint`]).
pub fn rung_reached(
    app: &mut App,
    run: usize,
    rung: usize,
    perplexity: Option<f64>,
    words: Option<Arc<ndarray::Array2<f32>>>,
) -> Vec<Effect> {
    let set = sweep_of(app, run)
        .and_then(|n| record(app, n))
        .and_then(|r| prune_set(&r.spec, &app.eval.plan.similarity))
        .map(Path::to_path_buf);
    let Some(set) = set else {
        app.follow_up(Action::SweepCheckpoint(run, rung, perplexity));
        return Vec::new();
    };
    match (words, vocabulary(app, run)) {
        (Some(words), Some(index)) => vec![Effect::ScoreRung {
            run,
            rung,
            words,
            index,
            set,
        }],
        _ => {
            app.follow_up(Action::SweepCheckpoint(run, rung, None));
            Vec::new()
        }
    }
}

/// The vocabulary run `run` trains on: the loaded corpus's, when the run
/// trains on it (a sweep's runs do).
fn vocabulary(app: &App, run: usize) -> Option<crate::words::WordIndex> {
    let loaded = app.corpus.loaded.as_ref()?;
    let ours = app.runs.get(run)?.record().corpus.as_ref() == Some(&loaded.reference);
    ours.then(|| loaded.corpus.vocab().index().clone())
}

/// Removes the queued runs of every sweep whose time budget has passed
/// since it was started here, and lists them as skipped in its table.
pub fn skip_over_budget(app: &mut App) {
    let now = app.tick;
    let over: Vec<u32> = app
        .session
        .sweeps
        .iter()
        .filter(|s| {
            let (Some(budget), Some(&at)) = (s.spec.time_budget, app.sweep_started.get(&s.number))
            else {
                return false;
            };
            now.saturating_sub(at) as f64 / TICKS_PER_SECOND as f64 >= budget
        })
        .map(|s| s.number)
        .collect();
    for number in over {
        let tag = sweep_tag(number);
        let queued: Vec<usize> = (0..app.runs.len())
            .filter(|&i| {
                let r = &app.runs[i];
                r.status == RunStatus::Queued && !r.discarded && r.record().tags.contains(&tag)
            })
            .collect();
        if queued.is_empty() {
            continue;
        }
        let names = record(app, number).map_or_else(Vec::new, |r| r.names.clone());
        let mut skipped = Vec::new();
        for &i in queued.iter().rev() {
            skipped.push(Row::of_run(app.runs[i].record(), &names).values);
            super::runs::delete(app, i);
        }
        skipped.reverse();
        if let Some(r) = app.session.sweeps.iter_mut().find(|s| s.number == number) {
            r.skipped.extend(skipped);
        }
        app.session.changed();
        app.set_status(
            Level::Info,
            format!(
                "sweep {number}: its time budget has passed; {} queued run(s) skipped",
                queued.len()
            ),
        );
    }
}

/// Run `run` of a pruned sweep reached rung `rung` with `value` of the
/// sweep's signal (lower is better): it goes on when that is among the best
/// of the sweep's earlier runs there, else it stops (tagged `pruned`, its
/// vectors kept).
pub fn checkpoint(app: &mut App, run: usize, rung: usize, value: Option<f64>) -> Vec<Effect> {
    let resume = vec![Effect::JobCommand {
        run,
        command: Command::Resume,
    }];
    let Some(number) = sweep_of(app, run) else {
        return resume;
    };
    let Some(prune) = record(app, number).and_then(|s| s.spec.prune.clone()) else {
        return resume;
    };
    let eta = prune.eta;
    let me = app.run_number(run);
    let tag = sweep_tag(number);
    let earlier: Vec<Rung> = app
        .runs
        .iter()
        .filter(|r| r.number() < me && r.record().tags.contains(&tag))
        .map(|r| {
            let at = app
                .rungs
                .get(&r.number())
                .and_then(|v| v.get(rung).copied());
            match (at, r.status.is_active() || r.status == RunStatus::Queued) {
                (Some(Rung::Pending) | None, false) => Rung::Ended,
                (Some(v), _) => v,
                (None, true) => Rung::Pending,
            }
        })
        .collect();
    let rungs = app.rungs.entry(me).or_default();
    if rungs.len() <= rung {
        rungs.resize(rung + 1, Rung::Pending);
    }
    rungs[rung] = value.map_or(Rung::NoValue, Rung::Reached);
    // Runs train one at a time here: an earlier run is never on its way.
    if decide(eta, value, &earlier) != Decision::Prune {
        return resume;
    }
    let entry = &mut app.runs[run];
    entry.recorder.run_mut().tags.push(PRUNED_TAG.to_string());
    entry.stop_requested = true;
    app.set_status(
        Level::Info,
        format!(
            "run #{me} pruned at rung {} ({}): not among the best 1/{eta} so far",
            rung + 1,
            signal_text(prune.on.as_ref(), value)
        ),
    );
    vec![Effect::JobCommand {
        run,
        command: Command::Stop,
    }]
}

/// What a rung compared, as the status line says it.
fn signal_text(on: Option<&crate::sweep::Metric>, value: Option<f64>) -> String {
    match (on, value) {
        (_, None) => "no value".into(),
        (Some(set), Some(v)) => format!("{set} Spearman {}", crate::format::value(-v)),
        (None, Some(v)) => format!("perplexity {}", crate::format::value(v)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::app::AppOptions;
    use crate::tui::update;
    use std::path::PathBuf;

    fn app() -> App {
        App::new(&AppOptions {
            corpus: PathBuf::from("none.txt"),
            session: None,
            eval_plan: crate::eval::EvalPlan {
                similarity: vec!["assets/eval/simlex999.txt".into()],
                ..Default::default()
            },
            cores: 2,
            exports: "exports".into(),
        })
    }

    #[test]
    fn a_field_set_opens_the_form_for_the_train_method_and_names_a_refusal() {
        let mut a = app();
        update::act(&mut a, Action::SelectMethod("sgns".into()));
        update::act(
            &mut a,
            Action::SetSweepField("grid".into(), "window=2,x".into()),
        );
        let form = a.sweep_form.as_ref().unwrap();
        assert_eq!(algo::methods()[form.method].name, "sgns");
        assert_eq!(a.status.level, Level::Error);
        assert!(a.status.text.contains("window"), "{}", a.status.text);
        assert!(form.form.error(0).unwrap().contains("window"));
        // Not started: the field names what to fix.
        update::act(&mut a, Action::StartSweep);
        assert!(a.status.text.contains("corpus"), "{}", a.status.text);
        assert!(a.session.sweeps.is_empty() && a.runs.is_empty());
    }

    #[test]
    fn keys_edit_the_form_and_esc_closes_it() {
        let mut a = app();
        update::act(&mut a, Action::DeclareSweep);
        assert_eq!(a.screen, Screen::HParams);
        assert!(a.sweep_form.is_some() && !a.typing());
        update::act(&mut a, Action::Activate);
        assert!(a.typing());
        update::type_text(&mut a, "dim=10,20");
        update::act(&mut a, Action::Activate);
        assert_eq!(
            a.journal.last(),
            Some(&Action::SetSweepField("grid".into(), "dim=10,20".into()))
        );
        assert_eq!(
            a.sweep_form.as_ref().unwrap().form.text("grid"),
            "dim=10,20"
        );
        update::act(&mut a, Action::Cancel);
        assert!(a.sweep_form.is_none());
    }

    /// The app with sweep 1 of `spec` over `window` and `runs` of its runs
    /// queued (SGNS at its defaults).
    fn with_sweep(spec: SweepSpec, runs: usize) -> App {
        let mut a = app();
        let m = algo::find("sgns").unwrap();
        a.session.sweeps.push(SweepRecord {
            number: 1,
            spec,
            names: vec!["window".into()],
            runs: Vec::new(),
            skipped: Vec::new(),
            counted: 0,
            seconds: 0.0,
        });
        for _ in 0..runs {
            let mut r = crate::tui::run::RunEntry::new(
                m,
                crate::schema::Params::defaults(m.schema),
                1,
                1,
                crate::tui::run::tests::corpus_ref(),
            );
            r.recorder.run_mut().tags.push(sweep_tag(1));
            r.status = RunStatus::Queued;
            a.push_run(r);
        }
        a
    }

    #[test]
    fn the_runs_left_when_the_time_budget_passes_are_skipped_and_listed() {
        let mut spec = SweepSpec::new("sgns", crate::sweep::Metric::Perplexity);
        spec.time_budget = Some(2.0);
        let mut a = with_sweep(spec, 3);
        a.runs[0].status = RunStatus::Finished;
        a.sweep_started.insert(1, 0);
        a.tick = TICKS_PER_SECOND;
        skip_over_budget(&mut a);
        assert_eq!(a.runs.len(), 3, "1 s of 2: nothing skipped");
        a.tick = 2 * TICKS_PER_SECOND;
        skip_over_budget(&mut a);
        assert_eq!(a.runs.len(), 1, "the two queued runs are gone");
        assert_eq!(a.session.sweeps[0].skipped, [["5"], ["5"]]);
        assert!(
            a.status.text.contains("2 queued run(s) skipped"),
            "{}",
            a.status.text
        );
        // A sweep without a budget keeps its queue.
        let mut a = with_sweep(SweepSpec::new("sgns", crate::sweep::Metric::Perplexity), 2);
        a.sweep_started.insert(1, 0);
        a.tick = 1000 * TICKS_PER_SECOND;
        skip_over_budget(&mut a);
        assert_eq!(a.runs.len(), 2);
    }

    #[test]
    fn a_sweep_pruned_on_a_set_scores_the_rungs_vectors_off_the_ui_thread() {
        let on = crate::sweep::Metric::Similarity("simlex999".into());
        let spec = SweepSpec {
            prune: Some(
                crate::sweep::Prune::halving(2, 2)
                    .unwrap()
                    .on(on.clone())
                    .unwrap(),
            ),
            ..SweepSpec::new("sgns", on)
        };
        let mut a = with_sweep(spec, 1);
        let corpus = Arc::new(
            crate::corpus::Corpus::open(
                concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/tests/fixtures/corpus/paragraphs.txt"
                ),
                Default::default(),
            )
            .unwrap(),
        );
        let words = Arc::new(ndarray::Array2::<f32>::zeros((corpus.vocab().len(), 4)));
        a.corpus.loaded = Some(crate::tui::model::corpus::LoadedCorpus {
            corpus,
            reference: crate::tui::run::tests::corpus_ref(),
            seconds: 0.0,
            histogram: Vec::new(),
        });
        a.runs[0].status = RunStatus::Training;
        match rung_reached(&mut a, 0, 0, Some(50.0), Some(words)).as_slice() {
            [Effect::ScoreRung {
                run: 0,
                rung: 0,
                set,
                index,
                ..
            }] => {
                assert!(set.ends_with("simlex999.txt"));
                assert_eq!(
                    index.len(),
                    a.corpus.loaded.as_ref().unwrap().corpus.vocab().len()
                );
            }
            other => panic!("{other:?}"),
        }
        // Its answer decides as a perplexity would, and the status says what it compared.
        assert_eq!(
            signal_text(
                Some(&crate::sweep::Metric::Similarity("simlex999".into())),
                Some(-0.25)
            ),
            "simlex999 Spearman 0.2500"
        );
        assert_eq!(signal_text(None, Some(120.0)), "perplexity 120.0");
    }

    #[test]
    fn a_pruned_sweep_stops_a_run_whose_perplexity_trails_the_earlier_ones() {
        let mut spec = SweepSpec::new("sgns", crate::sweep::Metric::Perplexity);
        spec.prune = Some(crate::sweep::Prune::halving(2, 2).unwrap());
        let mut a = with_sweep(spec, 3);
        let command = |e: &[Effect]| match e {
            [Effect::JobCommand { command, .. }] => command.clone(),
            other => panic!("{other:?}"),
        };
        a.runs[0].status = RunStatus::Training;
        assert_eq!(
            command(&checkpoint(&mut a, 0, 0, Some(10.0))),
            Command::Resume
        );
        a.runs[0].status = RunStatus::Finished;
        a.runs[1].status = RunStatus::Training;
        // 20 against 10: not among the best half of two.
        assert_eq!(
            command(&checkpoint(&mut a, 1, 0, Some(20.0))),
            Command::Stop
        );
        assert!(a.runs[1].record().tags.contains(&PRUNED_TAG.to_string()));
        assert!(
            a.status.text.starts_with("run #2 pruned at rung 1"),
            "{}",
            a.status.text
        );
        a.runs[1].status = RunStatus::Stopped(3);
        run_ended(&mut a, 1);
        a.runs[2].status = RunStatus::Training;
        // 5 is the best of three.
        assert_eq!(
            command(&checkpoint(&mut a, 2, 0, Some(5.0))),
            Command::Resume
        );
        assert_eq!(a.session.sweeps[0].runs, [2]);
    }
}
