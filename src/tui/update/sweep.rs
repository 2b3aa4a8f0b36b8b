//! Sweeps declared and started in the workbench: the form's handlers, the
//! runs it queues on the workbench's engine (ordinary runs, named by what
//! they set and tagged with the sweep), and what happens as each ends: it
//! is evaluated and joins its sweep's table on the HParams screen. With a
//! prune setting, each run stops at a rung unless its held-out perplexity
//! there is among the best of the sweep's runs before it
//! ([`crate::sweep::prune::decide`], the rule `wordbench sweep` uses; runs
//! train one at a time here, so a decision never waits).

use crate::algo;
use crate::session::SweepRecord;
use crate::sweep::prune::{decide, Decision, Rung};
use crate::sweep::table::{sweep_tag, PRUNED_TAG};
use crate::sweep::{SweepSpec, Trial};
use crate::train::{Command, JobConfig};
use crate::tui::action::{Action, Screen};
use crate::tui::app::{App, Level};
use crate::tui::model::sweep_form::{Shared, SweepForm};
use crate::tui::msg::Effect;
use crate::tui::run::RunStatus;

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

/// Run `run` of a pruned sweep reached rung `rung`: it goes on when its
/// perplexity is among the best of the sweep's earlier runs there, else it
/// stops (tagged `pruned`, its vectors kept).
pub fn checkpoint(app: &mut App, run: usize, rung: usize, perplexity: Option<f64>) -> Vec<Effect> {
    let resume = vec![Effect::JobCommand {
        run,
        command: Command::Resume,
    }];
    let Some(number) = sweep_of(app, run) else {
        return resume;
    };
    let Some(eta) = app
        .session
        .sweeps
        .iter()
        .find(|s| s.number == number)
        .and_then(|s| s.spec.prune.as_ref())
        .map(|p| p.eta)
    else {
        return resume;
    };
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
    rungs[rung] = perplexity.map_or(Rung::NoValue, Rung::Reached);
    // Runs train one at a time here: an earlier run is never on its way.
    if decide(eta, perplexity, &earlier) != Decision::Prune {
        return resume;
    }
    let entry = &mut app.runs[run];
    entry.recorder.run_mut().tags.push(PRUNED_TAG.to_string());
    entry.stop_requested = true;
    app.set_status(
        Level::Info,
        format!(
            "run #{me} pruned at rung {} (perplexity {}): not among the best 1/{eta} so far",
            rung + 1,
            perplexity.map_or("none".into(), crate::format::value)
        ),
    );
    vec![Effect::JobCommand {
        run,
        command: Command::Stop,
    }]
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

    #[test]
    fn a_pruned_sweep_stops_a_run_whose_perplexity_trails_the_earlier_ones() {
        let mut a = app();
        let m = algo::find("sgns").unwrap();
        let mut spec = SweepSpec::new("sgns", crate::sweep::Metric::Perplexity);
        spec.prune = Some(crate::sweep::Prune::halving(2, 2).unwrap());
        a.session.sweeps.push(SweepRecord {
            number: 1,
            spec,
            names: vec!["window".into()],
            runs: Vec::new(),
            skipped: Vec::new(),
            counted: 0,
            seconds: 0.0,
        });
        for _ in 0..3 {
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
