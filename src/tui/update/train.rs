//! The Train screen's handlers: choosing a method, editing its form,
//! starting, pausing, stopping and replaying runs, live hyperparameter
//! changes, and the engine's events as they arrive.

use crate::algo;
use crate::schema::{Params, AUTO};
use crate::session;
use crate::train::{Command, Event, JobConfig, Method, TrainInput};
use crate::tui::action::{Action, Screen, Slot};
use crate::tui::app::{App, Level};
use crate::tui::model::train::{TrainFocus, PERPLEXITY_BUDGET};
use crate::tui::msg::Effect;
use crate::tui::run::{RunEntry, RunStatus};

/// Chooses the method by name.
pub fn select_method(app: &mut App, name: &str) -> Vec<Effect> {
    match algo::methods().iter().position(|m| m.name == name) {
        Some(i) => app.train.method = i,
        None => {
            let e = algo::find(name).map(|_| ()).unwrap_err();
            app.set_status(Level::Error, e.to_string());
        }
    }
    Vec::new()
}

/// Sets a field of the chosen method's form; a live hyperparameter of a run
/// of this method that is training goes to the run too.
pub fn set_param(app: &mut App, name: &str, text: &str) -> Vec<Effect> {
    let method = app.train.method();
    let i = app.train.method;
    let result = app.train.forms[i].set(name, text);
    let value = match result {
        Ok(v) => v,
        Err(e) => {
            app.set_status(Level::Error, e);
            return Vec::new();
        }
    };
    let Some(run) = app.active_run() else {
        return Vec::new();
    };
    if app.runs[run].method.name != method.name {
        return Vec::new();
    }
    let live = method.schema.iter().any(|s| s.name == name && s.live);
    if !live {
        app.set_status(
            Level::Info,
            format!("{name} = {value} applies to the next run (not changeable mid-run)"),
        );
        return Vec::new();
    }
    // `auto` mid-run: the corpus-sized value for the loaded corpus.
    let spec = method.schema.iter().find(|s| s.name == name);
    let sized = spec
        .filter(|s| s.is_auto_text(text))
        .zip(app.corpus.loaded.as_ref())
        .and_then(|(s, l)| s.auto_value(l.corpus.size()));
    let text = sized.map_or(text.trim().to_string(), |v| v.to_string());
    let value = if text == AUTO {
        value.to_string()
    } else {
        text.clone()
    };
    app.set_status(
        Level::Info,
        format!("{name} = {value} sent to run #{}", app.run_number(run)),
    );
    vec![Effect::JobCommand {
        run,
        command: Command::Set(name.to_string(), text),
    }]
}

/// Starts a run of the chosen method with the form's values.
pub fn start(app: &mut App) -> Vec<Effect> {
    let method = app.train.method();
    let form = app.train.form();
    let assignments = match form.assignments() {
        Ok(a) => a,
        Err(e) => {
            app.set_status(Level::Error, e);
            return Vec::new();
        }
    };
    let n = method.schema.len();
    let params = method.params(assignments[..n].iter().copied());
    // The run options, typed by the form's own specs (the form checked them).
    let run = form
        .int("seed")
        .and_then(|seed| Ok((seed as u64, form.int("threads")? as usize)));
    match (params, run) {
        (Ok(params), Ok((seed, threads))) => {
            launch(app, method, params, seed, threads, JobConfig::default())
        }
        (Err(e), _) => {
            app.set_status(Level::Error, e.to_string());
            Vec::new()
        }
        (_, Err(e)) => {
            app.set_status(Level::Error, e);
            Vec::new()
        }
    }
}

/// Re-runs run `index` with its recorded settings, changes and stop, on
/// the corpus it trained on: the one loaded when it is that corpus, else
/// its own file, read for the replay alone (the Corpus screen keeps its
/// corpus). Its verdict comes when it ends.
pub fn replay(app: &mut App, index: usize) -> Vec<Effect> {
    let Some(run) = app.runs.get(index) else {
        return Vec::new();
    };
    if let Some(problem) = &run.problem {
        app.set_status(Level::Error, problem.clone());
        return Vec::new();
    }
    let record = run.record();
    let config = session::replay::job_config(record);
    let (method, params, seed, threads) =
        (run.method, run.params.clone(), record.seed, record.threads);
    let loaded = app.corpus.loaded.as_ref().map(|l| &l.reference);
    let own = match (run.corpus(), loaded) {
        (Some(want), Some(have)) if !want.same_data(have) => Some(want.clone()),
        (Some(want), None) => Some(want.clone()),
        _ => None,
    };
    let Some(want) = own else {
        let before = app.runs.len();
        let effects = launch(app, method, params, seed, threads, config);
        if let Some(replay) = app.runs.get_mut(before) {
            replay.replay_of = Some(index);
        }
        return effects;
    };
    if !want.path.is_file() {
        app.set_status(
            Level::Error,
            format!(
                "run #{} trained on {}, which is not there: put the file back (or load a copy on 1 Corpus) to replay it",
                app.run_number(index),
                want.path.display()
            ),
        );
        return Vec::new();
    }
    let run = add_run(app, method, params, seed, threads, want.clone());
    let request = app.next_id();
    let entry = &mut app.runs[run];
    entry.replay_of = Some(index);
    entry.status = RunStatus::Queued;
    entry.corpus_pending = Some((request, config));
    app.set_status(
        Level::Info,
        format!(
            "run #{} replays run #{} on its own corpus {}: reading it…",
            app.run_number(run),
            app.run_number(index),
            want.path.display()
        ),
    );
    vec![Effect::LoadCorpus {
        request,
        path: want.path.clone(),
        config: want.config,
        // A replay waits for its corpus; it is not cancelled.
        stop: Default::default(),
    }]
}

/// The run waiting for the corpus of load `request`, if one is.
pub fn waiting_for_corpus(app: &App, request: u64) -> Option<usize> {
    app.runs.iter().position(|r| {
        r.corpus_pending
            .as_ref()
            .is_some_and(|(id, _)| *id == request)
    })
}

/// A replay's own corpus was read: it starts (or waits its turn), or
/// fails when the corpus cannot be read.
pub fn replay_corpus(
    app: &mut App,
    run: usize,
    result: Result<crate::tui::msg::OpenedCorpus, String>,
) -> Vec<Effect> {
    let entry = &mut app.runs[run];
    let Some((_, config)) = entry.corpus_pending.take() else {
        return Vec::new();
    };
    let opened = match result {
        Ok(opened) => opened,
        Err(e) => {
            entry.status = RunStatus::Failed(e.clone());
            app.set_status(Level::Error, format!("run #{}: {e}", app.run_number(run)));
            return Vec::new();
        }
    };
    let record = entry.record();
    let changed = record
        .corpus
        .as_ref()
        .filter(|want| !want.same_data(&opened.reference))
        .map(|want| {
            format!(
                "; its corpus {} changed since it was recorded (now {} bytes, hash {}; recorded {} bytes, hash {}): the replay may differ",
                want.path.display(),
                opened.reference.bytes,
                opened.reference.hash,
                want.bytes,
                want.hash
            )
        });
    let input = TrainInput {
        corpus: opened.corpus,
        params: entry.params.clone(),
        seed: record.seed,
        threads: record.threads,
        counts: app.counts.clone(),
    };
    let mut effects = Vec::new();
    entry.queued = Some(Box::new((input, config)));
    if app.active_run().is_none() {
        effects = start_queued(app);
    } else {
        app.set_status(
            Level::Info,
            format!(
                "run #{} has read its corpus: it starts when the run training now ends",
                app.run_number(run)
            ),
        );
    }
    if let Some(note) = changed {
        let text = format!("{}{note}", app.status.text);
        app.set_status(Level::Warn, text);
    }
    effects
}

/// Once a replay has ended: its verdict against the run it replays
/// ([`session::replay::judge`], as `wordbench replay` judges), kept on the
/// replay and said on the status line.
fn judge_replay(app: &mut App, run: usize) {
    let r = &app.runs[run];
    let Some(original) = r.replay_of.and_then(|k| app.runs.get(k).map(|o| (k, o))) else {
        return;
    };
    if r.status.is_active() || r.verdict.is_some() {
        return;
    }
    let (k, original) = original;
    // No evaluation is re-run here: a racing run is judged by its curves'
    // final values (the CLI adds the scores).
    let verdict = session::replay::judge(original.record(), r.record(), Vec::new()).verdict();
    let level = if verdict.passed() {
        Level::Info
    } else {
        Level::Warn
    };
    let text = format!(
        "replay #{} of run #{}: {verdict}",
        app.run_number(run),
        app.run_number(k)
    );
    app.runs[run].verdict = Some(verdict);
    app.set_status(level, text);
}

/// `o`: the charts draw every listed run (the Runs filter applies), or the
/// shown run alone.
pub fn toggle_overlay(app: &mut App) -> Vec<Effect> {
    app.train.overlay = !app.train.overlay;
    let text = if app.train.overlay {
        let n = app.runs_view.listed(&app.runs).len();
        let filter = app.runs_view.filter_text();
        let which = if filter.is_empty() {
            String::new()
        } else {
            format!(" matching '{filter}' (f on 3 Runs changes it)")
        };
        format!("charts overlay the {n} listed run(s){which}")
    } else {
        "charts show one run".to_string()
    };
    app.set_status(Level::Info, text);
    Vec::new()
}

/// Starts a run of `method` on the loaded corpus, or queues it behind the
/// run training now (the sweep form queues its runs through it too).
pub(super) fn launch(
    app: &mut App,
    method: &'static Method,
    mut params: Params,
    seed: u64,
    threads: usize,
    mut config: JobConfig,
) -> Vec<Effect> {
    config.perplexity_budget = PERPLEXITY_BUDGET;
    let Some(loaded) = &app.corpus.loaded else {
        let why = if app.corpus.loading.is_some() {
            "the corpus is still loading: a moment"
        } else {
            "load a corpus first (1 Corpus)"
        };
        app.set_status(Level::Warn, why);
        return Vec::new();
    };
    let (corpus, reference) = (loaded.corpus.clone(), loaded.reference.clone());
    // Corpus-sized defaults take their value for this corpus now, so the
    // run's record (and a session) keeps the concrete value.
    let auto: String = params
        .resolve(corpus.size())
        .iter()
        .map(|r| format!(" · {} = {} (auto)", r.name, r.value))
        .collect();
    // A run training, or one queued already: this one waits its turn (a
    // replay still reading its corpus takes its turn once it is read).
    let busy = app.active_run().or_else(|| {
        app.runs
            .iter()
            .position(|r| r.status == RunStatus::Queued && r.queued.is_some())
    });
    let run = add_run(app, method, params.clone(), seed, threads, reference);
    let slot = if app.picks[Slot::A.index()] == Some(run) {
        Slot::A
    } else {
        Slot::B
    };
    let input = TrainInput {
        corpus,
        params,
        seed,
        threads,
        counts: app.counts.clone(),
    };
    if let Some(busy) = busy {
        let entry = &mut app.runs[run];
        entry.status = RunStatus::Queued;
        entry.queued = Some(Box::new((input, config)));
        app.set_status(
            Level::Info,
            format!(
                "run #{} {} queued as {slot}: it starts when run #{} ends (D on 3 Runs removes it){auto}",
                app.run_number(run),
                method.name,
                busy + 1
            ),
        );
        return Vec::new();
    }
    app.session.changed();
    let tick = app.tick;
    app.runs[run].sync_clock(tick);
    app.set_status(
        Level::Info,
        format!(
            "run #{} {} started ({} thread{}) as {slot}{auto}",
            app.run_number(run),
            method.name,
            threads,
            if threads == 1 { "" } else { "s" }
        ),
    );
    vec![Effect::StartJob {
        run,
        method,
        input,
        config,
    }]
}

/// Adds a run about to start on `corpus` to the session: selected on
/// Runs and picked (the first run is A; each later one becomes B, so the
/// Neighbours and Evaluate screens compare the newest run with the first
/// at once); shown on Train unless another run trains there.
fn add_run(
    app: &mut App,
    method: &'static Method,
    params: Params,
    seed: u64,
    threads: usize,
    corpus: crate::session::CorpusRef,
) -> usize {
    let idle = app.active_run().is_none();
    let run = app.push_run(RunEntry::new(method, params, seed, threads, corpus));
    if idle {
        app.train.shown = Some(run);
    }
    app.runs_view.selected = run;
    let slot = match app.picks[Slot::A.index()] {
        None => Slot::A,
        Some(_) => Slot::B,
    };
    app.picks[slot.index()] = Some(run);
    run
}

/// Starts the first queued run, if nothing trains.
fn start_queued(app: &mut App) -> Vec<Effect> {
    if app.active_run().is_some() {
        return Vec::new();
    }
    super::sweep::skip_over_budget(app);
    let Some(run) = app
        .runs
        .iter()
        .position(|r| r.status == RunStatus::Queued && !r.discarded && r.queued.is_some())
    else {
        return Vec::new();
    };
    let entry = &mut app.runs[run];
    let Some(pending) = entry.queued.take() else {
        return Vec::new();
    };
    let (input, config) = *pending;
    entry.status = RunStatus::Starting;
    entry.sync_clock(app.tick);
    let method = entry.method;
    app.train.shown = Some(run);
    app.session.changed();
    let text = match app.runs[run].replay_of {
        Some(k) => format!(
            "run #{} {} started: it replays run #{} on its own corpus",
            app.run_number(run),
            method.name,
            app.run_number(k)
        ),
        None => format!(
            "queued run #{} {} started",
            app.run_number(run),
            method.name
        ),
    };
    app.set_status(Level::Info, text);
    vec![Effect::StartJob {
        run,
        method,
        input,
        config,
    }]
}

/// Pause, resume or stop the running job.
pub fn command(app: &mut App, action: &Action) -> Vec<Effect> {
    let Some(run) = app.active_run() else {
        app.set_status(Level::Warn, "no run is training");
        return Vec::new();
    };
    let command = match action {
        Action::Pause => Command::Pause,
        Action::Resume => Command::Resume,
        _ => Command::Stop,
    };
    if command == Command::Stop {
        // The engine stops between steps, and a step can take a while: say
        // at once what will happen.
        let r = &mut app.runs[run];
        r.stop_requested = true;
        let note = r.stop_note();
        app.set_status(Level::Info, note);
    }
    vec![Effect::JobCommand { run, command }]
}

/// `p`: pause or resume.
pub fn toggle_pause(app: &mut App) -> Vec<Effect> {
    match app.active_run().map(|i| &app.runs[i].status) {
        Some(RunStatus::Paused) => app.user_action(Action::Resume),
        Some(_) => app.user_action(Action::Pause),
        None => command(app, &Action::Pause),
    }
}

/// An engine event of run `run`.
pub fn job_event(app: &mut App, run: usize, event: Event) -> Vec<Effect> {
    let Some(entry) = app.runs.get_mut(run).filter(|r| !r.discarded) else {
        return Vec::new();
    };
    let label = format!("run #{} {}", entry.number(), entry.method.name);
    let status = match &event {
        Event::ParamApplied { name, value, step } => Some((
            Level::Info,
            format!("{label}: {name} = {value} from step {step}"),
        )),
        Event::ParamRejected { name, reason } => {
            Some((Level::Error, format!("{label}: {name} refused: {reason}")))
        }
        Event::Paused { step } => Some((Level::Info, format!("{label} paused at step {step}"))),
        Event::Resumed { step } => Some((Level::Info, format!("{label} resumed at step {step}"))),
        Event::Failed { message, .. } => Some((Level::Error, format!("{label} failed: {message}"))),
        Event::Cut { step, units } => Some((
            Level::Info,
            format!(
                "{label} stopped inside step {}, after {units} units of its work (a replay cuts it there too)",
                step + 1
            ),
        )),
        _ => None,
    };
    let recorded = !matches!(
        event,
        Event::Log(_)
            | Event::Counting(_)
            | Event::Phase(_)
            | Event::Baseline(_)
            | Event::ParamRejected { .. }
    );
    let sync = matches!(event, Event::Progress(_) | Event::Resumed { .. });
    let checkpoint = match &event {
        Event::Checkpoint {
            index,
            perplexity,
            words,
            ..
        } => Some((*index, *perplexity, words.clone())),
        _ => None,
    };
    let ended = matches!(event, Event::Finished(_) | Event::Failed { .. });
    let finished = entry.observe(event);
    if sync {
        entry.sync_clock(app.tick);
    }
    if recorded {
        app.session.changed();
    }
    if let Some((level, text)) = status {
        app.set_status(level, text);
    }
    if finished.is_some() {
        let r = &app.runs[run];
        let ppl = r
            .perplexity
            .map_or(String::new(), |p| format!(", perplexity {p:.1}"));
        let loss = r.last().map_or(f64::NAN, |p| p.loss);
        app.set_status(
            Level::Info,
            format!(
                "{label} {}: loss {loss:.4}{ppl}. 4 Neighbours to explore, 3 Runs to compare",
                r.status_text()
            ),
        );
        app.follow_up(Action::RefreshNeighbors);
        app.follow_up(Action::Autosave);
    }
    let mut effects = Vec::new();
    if let Some((rung, perplexity, words)) = checkpoint {
        effects = super::sweep::rung_reached(app, run, rung, perplexity, words);
    }
    if ended {
        app.follow_up(Action::SweepRunEnded(run));
    }
    judge_replay(app, run);
    effects
}

/// The job thread of `run` is gone; a run that never said how it ended failed.
pub fn job_ended(app: &mut App, run: usize) -> Vec<Effect> {
    let mut effects = Vec::new();
    if let Some(entry) = app.runs.get_mut(run).filter(|r| !r.discarded) {
        if entry.status.is_active() {
            let message = "the training thread ended without a result".to_string();
            entry.observe(Event::Failed {
                message: message.clone(),
                last: None,
            });
            app.set_status(
                Level::Error,
                format!("run #{}: {message}", app.run_number(run)),
            );
            app.follow_up(Action::Autosave);
            app.follow_up(Action::SweepRunEnded(run));
            judge_replay(app, run);
        }
    }
    if !app.quit {
        effects.extend(start_queued(app));
    }
    effects
}

/// Navigation on the Train screen.
pub fn navigate(app: &mut App, action: Action) -> Vec<Effect> {
    let v = &mut app.train;
    if v.typing() {
        return match v.forms[v.method].typed(&action) {
            Some((name, text)) => app.user_action(Action::SetParam(name, text)),
            None => Vec::new(),
        };
    }
    match (v.focus, &action) {
        (_, Action::FocusNext | Action::FocusPrev) => {
            v.focus = match v.focus {
                TrainFocus::Methods => TrainFocus::Form,
                TrainFocus::Form => TrainFocus::Methods,
            };
        }
        (TrainFocus::Methods, Action::Up | Action::Down) => {
            let delta: isize = if action == Action::Up { -1 } else { 1 };
            let n = algo::methods().len() as isize;
            let i = (v.method as isize + delta).clamp(0, n - 1) as usize;
            return app.user_action(Action::SelectMethod(algo::methods()[i].name.into()));
        }
        (TrainFocus::Methods, Action::Activate | Action::Right) => v.focus = TrainFocus::Form,
        (TrainFocus::Form, Action::Up) => v.forms[v.method].select(-1),
        (TrainFocus::Form, Action::Down) => v.forms[v.method].select(1),
        (TrainFocus::Form, Action::Activate | Action::Left | Action::Right) => {
            let form = &mut v.forms[v.method];
            if let Some((name, text)) = form.pressed(form.selected, &action) {
                return app.user_action(Action::SetParam(name, text));
            }
        }
        (TrainFocus::Form, Action::ResetField) => {
            let form = &mut v.forms[v.method];
            let i = form.selected;
            form.reset(i);
        }
        _ => {}
    }
    Vec::new()
}

/// Shows run `run`'s charts on the Train screen.
pub fn show(app: &mut App, run: usize) -> Vec<Effect> {
    if run < app.runs.len() {
        app.train.shown = Some(run);
        if let Some(i) = algo::methods()
            .iter()
            .position(|m| m.name == app.runs[run].method.name)
        {
            app.train.method = i;
        }
        app.follow_up(Action::GoTo(Screen::Train));
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::app::AppOptions;
    use crate::tui::msg::Msg;
    use crate::tui::update;
    use std::path::PathBuf;

    fn app() -> App {
        App::new(&AppOptions {
            corpus: PathBuf::from("none.txt"),
            session: None,
            eval_plan: Default::default(),
            cores: 4,
            exports: "exports".into(),
        })
    }

    #[test]
    fn forms_come_from_the_schemas_with_seed_and_threads() {
        let a = app();
        for (m, form) in algo::methods().iter().zip(&a.train.forms) {
            assert_eq!(form.len(), m.schema.len() + 2, "{}", m.name);
            assert_eq!(form.specs()[m.schema.len()].name, "seed");
        }
        assert_eq!(
            a.train.form().text("threads"),
            "4",
            "every core, as the CLI"
        );
        assert_eq!(
            a.train.form().text("seed"),
            crate::train::DEFAULT_SEED.to_string()
        );
    }

    #[test]
    fn training_needs_a_corpus_and_valid_fields() {
        let mut a = app();
        assert!(start(&mut a).is_empty());
        assert!(a.status.text.contains("load a corpus"));
        set_param(&mut a, "dim", "0");
        assert_eq!(a.status.level, Level::Error);
        assert!(start(&mut a).is_empty());
        assert!(
            a.status.text.starts_with("fix dim first"),
            "{}",
            a.status.text
        );
    }

    #[test]
    fn stop_says_at_once_after_which_step_the_run_ends() {
        let mut a = app();
        let m = algo::find("sgns").unwrap();
        let mut r = RunEntry::new(
            m,
            Params::defaults(m.schema),
            1,
            1,
            crate::tui::run::tests::corpus_ref(),
        );
        r.observe(Event::Progress(crate::train::Progress {
            step: 3,
            total_steps: 10,
            ..Default::default()
        }));
        a.push_run(r);
        let effects = command(&mut a, &Action::StopTraining);
        assert!(matches!(
            effects[..],
            [Effect::JobCommand {
                run: 0,
                command: Command::Stop
            }]
        ));
        assert_eq!(
            a.status.text,
            "run #1 sgns stopping after step 4 (the step under way ends first; its vectors are kept)"
        );
        assert_eq!(a.runs[0].status_text(), "stopping");
        a.runs[0].observe(Event::Paused { step: 3 });
        command(&mut a, &Action::StopTraining);
        assert_eq!(
            a.status.text,
            "run #1 sgns stopping at step 3 (it was paused)"
        );
    }

    #[test]
    fn a_replay_reads_its_own_corpus_then_starts() {
        let lee = "tests/fixtures/corpus/lee_background.txt";
        let mut a = app();
        let m = algo::find("sgns").unwrap();
        let config = crate::corpus::CorpusConfig::default();
        let reference = crate::session::CorpusRef::of(lee.as_ref(), config).unwrap();
        let mut original = RunEntry::new(m, Params::defaults(m.schema), 1, 1, reference.clone());
        original.status = RunStatus::Finished;
        a.push_run(original);
        // No corpus is loaded: the run's own is read for the replay.
        let effects = update::update(&mut a, Msg::Action(Action::ReplayRun(0)));
        let [Effect::LoadCorpus { request, path, .. }] = &effects[..] else {
            panic!("{effects:?}")
        };
        assert_eq!(path, &PathBuf::from(lee));
        assert_eq!(a.runs[1].status_text(), "reading corpus");
        assert_eq!(waiting_for_corpus(&a, *request), Some(1));
        assert!(a.corpus.loaded.is_none(), "the Corpus screen is left alone");
        let opened = crate::tui::msg::OpenedCorpus {
            corpus: std::sync::Arc::new(crate::corpus::Corpus::open(lee, config).unwrap()),
            reference,
            seconds: 0.1,
        };
        let effects = update::update(
            &mut a,
            Msg::CorpusLoaded {
                request: *request,
                result: Ok(opened),
            },
        );
        let [Effect::StartJob { run: 1, input, .. }] = &effects[..] else {
            panic!("{effects:?}")
        };
        assert_eq!(input.corpus.path(), std::path::Path::new(lee));
        assert_eq!(a.runs[1].status, RunStatus::Starting);
        assert_eq!(
            a.status.text,
            "run #2 sgns started: it replays run #1 on its own corpus"
        );
        assert!(a.corpus.loaded.is_none());

        // A corpus that cannot be read fails the replay, saying why.
        a.runs[1].status = RunStatus::Finished;
        let effects = update::update(&mut a, Msg::Action(Action::ReplayRun(0)));
        let [Effect::LoadCorpus { request, .. }] = &effects[..] else {
            panic!("{effects:?}")
        };
        update::update(
            &mut a,
            Msg::CorpusLoaded {
                request: *request,
                result: Err("c.txt: unreadable".into()),
            },
        );
        assert_eq!(
            a.runs[2].status,
            RunStatus::Failed("c.txt: unreadable".into())
        );
        assert_eq!(a.status.text, "run #3: c.txt: unreadable");
    }

    #[test]
    fn a_replay_that_ends_otherwise_says_where_it_differs() {
        let mut a = app();
        let m = algo::find("sgns").unwrap();
        let corpus = crate::tui::run::tests::corpus_ref();
        let progress = |step, loss| {
            Event::Progress(crate::train::Progress {
                step,
                total_steps: 3,
                loss,
                lr: 0.1,
                ..Default::default()
            })
        };
        let vectors = || {
            let words = crate::words::WordIndex::from_words(vec!["a".into()]);
            Box::new(
                crate::embedding::Embedding::new(words, ndarray::Array2::zeros((1, 2))).unwrap(),
            )
        };
        let mut original = RunEntry::new(m, Params::defaults(m.schema), 1, 1, corpus.clone());
        for (step, loss) in [(1, 3.0), (2, 2.0), (3, 1.0)] {
            original.observe(progress(step, loss));
        }
        original.observe(Event::Finished(vectors()));
        a.push_run(original);
        let mut replay = RunEntry::new(m, Params::defaults(m.schema), 1, 1, corpus);
        replay.replay_of = Some(0);
        a.push_run(replay);
        for (step, loss) in [(1, 3.0), (2, 2.5), (3, 1.0)] {
            job_event(&mut a, 1, progress(step, loss));
        }
        assert_eq!(a.runs[1].verdict, None, "judged once it ends");
        job_event(&mut a, 1, Event::Finished(vectors()));
        let verdict = a.runs[1].verdict.clone().unwrap();
        assert!(!verdict.passed());
        assert_eq!(a.status.level, Level::Warn);
        assert_eq!(
            a.status.text,
            "replay #2 of run #1: different: loss differs from step 2 (1 of 3 points; largest relative difference 2.00e-1)"
        );
    }

    #[test]
    fn method_list_keys_select_methods_by_name() {
        let mut a = app();
        a.screen = Screen::Train;
        navigate(&mut a, Action::FocusNext);
        assert_eq!(a.train.focus, TrainFocus::Methods);
        update(&mut a, Msg::Action(Action::Down));
        assert_eq!(a.train.method().name, algo::methods()[1].name);
        assert_eq!(
            a.journal.last(),
            Some(&Action::SelectMethod(algo::methods()[1].name.into()))
        );
        select_method(&mut a, "nope");
        assert!(a.status.text.contains("expected one of"));
    }
}
