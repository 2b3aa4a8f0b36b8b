//! `wordbench train` and `wordbench methods`: run a method through the engine
//! with a live progress bar, write the vectors, and optionally the metrics,
//! an evaluation and a session file (autosaved while training).

use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use wordbench::cooc::{CountPhase, CountProgress};
use wordbench::corpus::CorpusConfig;
use wordbench::format;
use wordbench::outputs::{Guard, Kind};
use wordbench::schema::Params;
use wordbench::session::{self, CorpusRef, Recorder};
use wordbench::train::{Event, Job, JobConfig, Progress, TrainInput};
use wordbench::{algo, atomic};

use super::args::{MethodsArgs, TrainArgs};
use super::eval::{bundled_plan, print_report};
use super::session_out::SessionOut;

/// Lists the methods and their hyperparameters (generated from the schemas).
pub fn methods(args: MethodsArgs) -> Result<()> {
    if let Some(name) = &args.algo {
        algo::find(name)?;
    }
    let mut out = String::new();
    for m in algo::methods() {
        if args.algo.as_deref().is_some_and(|a| a != m.name) {
            continue;
        }
        writeln!(out, "{:<12} {}", m.name, m.summary)?;
        let defaults = Params::defaults(m.schema);
        for p in m.schema {
            let live = if p.live { " (live)" } else { "" };
            let (default, auto) = match p.auto {
                Some(a) => (
                    p.default_text(),
                    format!(" (auto: {}; paper: {})", a.rule, defaults.get(p.name)),
                ),
                None => (defaults.get(p.name).to_string(), String::new()),
            };
            writeln!(
                out,
                "    {:<14} {:<10} {}{auto}{live}  [{}]",
                p.name,
                default,
                p.help,
                p.range_text()
            )?;
        }
    }
    std::io::stdout().lock().write_all(out.as_bytes())?;
    Ok(())
}

/// Trains a method and writes its vectors.
pub fn train(args: TrainArgs) -> Result<()> {
    let method = algo::find(&args.algo)?;
    let mut assignments: Vec<(String, String)> = Vec::new();
    if let Some(dim) = args.dim {
        assignments.push(("dim".into(), dim.to_string()));
    }
    for s in &args.set {
        let (k, v) = s
            .split_once('=')
            .with_context(|| format!("--set {s}: expected name=value"))?;
        assignments.push((k.trim().to_string(), v.trim().to_string()));
    }
    let mut params = method.params(assignments.iter().map(|(k, v)| (k.as_str(), v.as_str())))?;
    let schedule = parse_changes(&args.change)?;
    for (step, name, value) in &schedule {
        method
            .check_change(name, value)
            .with_context(|| format!("--change {step}:{name}={value}"))?;
    }
    super::check_output_name("--out", &args.out, true)?;
    wordbench::embedding::format::check_output(&args.out, args.format.into())?;
    for (flag, path) in [
        ("--session-out", &args.session_out),
        ("--metrics-out", &args.metrics_out),
    ] {
        if let Some(p) = path {
            super::check_output_name(flag, p, false)?;
        }
    }
    check_outputs(&args)?;
    if let Some(s) = &args.session_out {
        check_session_paths(&[
            ("corpus", args.input()),
            ("--out", &args.out),
            ("--session-out", s),
        ])?;
    }
    let autosave_every = wordbench::train::parse_seconds("--autosave-secs", &args.autosave_secs)?;
    let config = args.opts.config()?;
    check_counts_input(&args, &config)?;
    let corpus = wordbench::counts::open_for_training(args.input(), config)?;
    super::corpus_warnings(&corpus);
    // Corpus-sized defaults take their value now, before the session
    // records the settings: a replay reads the concrete value.
    for resolved in params.resolve(corpus.size()) {
        if !args.quiet {
            eprintln!("{resolved}");
        }
    }
    let threads = super::threads(args.threads);
    let mut recorder = Recorder::new(method.name, &params, args.seed, threads);
    let mut session = match &args.session_out {
        Some(path) => {
            let reference = CorpusRef::describe(args.input(), *corpus.config(), path)?;
            recorder = recorder.on_corpus(reference.clone());
            Some(SessionOut::open(path, reference)?)
        }
        None => None,
    };
    let input = TrainInput {
        corpus: Arc::new(corpus),
        params,
        seed: args.seed,
        threads,
        counts: Default::default(),
    };
    let config = JobConfig {
        schedule,
        ..JobConfig::default()
    };
    let (changes, mut answered) = (config.schedule.len(), 0);
    let job = Job::spawn(method, input, config);
    let bar = progress_bar(args.quiet);
    let mut counting = CountingLines::default();
    let mut ppl = None;
    let mut line = String::new();
    let mut saved = Instant::now();
    let mut save_error = None;
    let result = job.wait(|event| {
        recorder.observe(event);
        match event {
            Event::Progress(p) => {
                ppl = p.perplexity.or(ppl);
                bar.set_length(p.total_steps);
                bar.set_position(p.step);
                line = status(p, ppl);
                bar.set_message(line.clone());
            }
            // Inside a long build or step the bar says what is under way.
            Event::Phase(phase) => bar.set_message(with_phase(&line, phase)),
            // `println` on a hidden bar (stderr not a terminal) prints nothing.
            Event::Log(line) if !args.quiet => bar.suspend(|| eprintln!("{line}")),
            Event::Counting(c) if !args.quiet => counting.show(&bar, c),
            Event::ParamApplied { name, value, step } => {
                answered += 1;
                bar.suspend(|| eprintln!("step {step}: {name} = {value}"))
            }
            Event::ParamRejected { name, reason } => {
                answered += 1;
                bar.suspend(|| eprintln!("warning: --change {name}: {reason}"))
            }
            _ => {}
        }
        if let Some(out) = &mut session {
            if saved.elapsed() >= autosave_every {
                save_error = save_error.take().or(out.save(recorder.run()).err());
                saved = Instant::now();
            }
        }
    });
    bar.finish_and_clear();
    if answered < changes {
        let steps = recorder.run().metrics.last().map_or(0, |p| p.total_steps);
        eprintln!(
            "warning: {} --change flag(s) never applied: the run has steps 0..{steps}",
            changes - answered
        );
    }
    if let Some(e) = save_error {
        eprintln!("warning: autosave failed: {e}");
    }
    let embedding = match result {
        Ok(e) => e,
        Err(e) => {
            if let Some(out) = &mut session {
                out.save(recorder.run())?;
            }
            return Err(e.into());
        }
    };
    if let Some(last) = recorder.run().metrics.last() {
        eprintln!(
            "{}: {} ({:.1}s)",
            method.name,
            status(last, ppl),
            last.elapsed
        );
    }
    embedding.save(&args.out, args.format.into())?;
    recorder.run_mut().vectors = Some(match &session {
        Some(out) => session::path_for_session(&args.out, out.path()),
        None => args.out.clone(),
    });
    eprintln!(
        "wrote {} vectors of dimension {} to {}",
        embedding.len(),
        embedding.dim(),
        args.out.display()
    );
    if args.eval {
        let plan = bundled_plan();
        let report = plan.run(&embedding)?;
        print_report(&mut std::io::stderr().lock(), &report, &plan, false)?;
        recorder.run_mut().evaluation = Some(report);
    }
    if let Some(path) = &args.metrics_out {
        write_metrics(path, &recorder.run().metrics)?;
    }
    if let Some(mut out) = session {
        let kept = session::store::keep(&embedding, &session::store::folder(out.path()))?;
        recorder.run_mut().kept = Some(session::KeptVectors {
            file: session::path_for_session(&kept.file, out.path()),
            ..kept
        });
        out.save(recorder.run())?;
        eprintln!("wrote session {}", out.path().display());
    }
    Ok(())
}

/// `--counts FILE` must be a counts file, and a counts file keeps the
/// vocabulary it was counted with: the corpus options that shape a
/// vocabulary from text (reading, case, punctuation, numbers, min-count,
/// max-vocab, held-out share) are refused with one rather than ignored.
fn check_counts_input(args: &TrainArgs, config: &CorpusConfig) -> Result<()> {
    let input = args.input();
    let is_counts = wordbench::counts::is_counts_file(input);
    if args.counts.is_some() && !is_counts {
        wordbench::corpus::source::check_regular(input)?;
        bail!(
            "--counts {}: not a counts file (make one with `wordbench counts CORPUS --out FILE`, \
             or give a corpus without --counts)",
            wordbench::quote::path(input)
        );
    }
    if !is_counts {
        return Ok(());
    }
    // The library refuses them too; here they are named as flags.
    let ignored: Vec<String> = config
        .text_options_set()
        .into_iter()
        .map(|name| match name {
            "format" => "--corpus-format".to_string(),
            other => format!("--{}", other.replace('_', "-")),
        })
        .collect();
    if !ignored.is_empty() {
        bail!(
            "{}: a counts file keeps the vocabulary it was counted with, so {} cannot apply; \
             give them to `wordbench counts` instead, or leave them out",
            wordbench::quote::path(input),
            ignored.join(", ")
        );
    }
    Ok(())
}

/// A session file records its paths as text: a name that is not UTF-8
/// could not be saved, which the first autosave would find only after
/// training started.
fn check_session_paths(paths: &[(&str, &Path)]) -> Result<()> {
    for (what, path) in paths {
        if path.to_str().is_none() {
            bail!(
                "{what} {}: the name is not UTF-8, and a session file records paths as text; \
                 rename it or leave out --session-out",
                wordbench::quote::path(path)
            );
        }
    }
    Ok(())
}

/// Counting progress as lines on stderr: the first report, every phase
/// change (merging, done) and otherwise at most one line every 2 seconds.
#[derive(Default)]
struct CountingLines {
    last: Option<(Instant, CountPhase)>,
}

impl CountingLines {
    fn show(&mut self, bar: &ProgressBar, c: &CountProgress) {
        let due = match self.last {
            None => true,
            Some((at, phase)) => phase != c.phase || at.elapsed() >= Duration::from_secs(2),
        };
        if due {
            self.last = Some((Instant::now(), c.phase));
            bar.suspend(|| eprintln!("{}", c.describe()));
        }
    }
}

fn progress_bar(quiet: bool) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(1);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} steps  {msg}  eta {eta}")
            .expect("valid template"),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// The last step's status line followed by the phase under way:
/// `epoch 1 loss 5.1 ppl - · training chunks 3/10`.
fn with_phase(line: &str, phase: &wordbench::train::Phase) -> String {
    match line {
        "" => phase.describe(),
        _ => format!("{line} · {}", phase.describe()),
    }
}

/// One status line; `ppl` is the latest perplexity measured (not every step measures it).
/// Beside a method's own (model) perplexity the engine's is named "calibrated": the two
/// measure different things (a fitted softmax over the vectors, the model's own
/// distribution) and can differ tenfold.
fn status(p: &Progress, ppl: Option<f64>) -> String {
    let mut line = format!("epoch {} loss {}", p.epoch + 1, format::value(p.loss));
    let label = match p.model_perplexity {
        Some(_) => "calibrated ppl",
        None => "ppl",
    };
    line += &format!(" {label} {}", ppl.map_or("-".into(), format::value));
    if let Some(m) = p.model_perplexity {
        line += &format!(" model ppl {}", format::value(m));
    }
    // Closed-form methods have no learning rate and count no words.
    if p.lr != 0.0 {
        line += &format!(" lr {}", format::value(p.lr));
    }
    if p.items_per_sec > 0.0 {
        line += &format!(" {} items/s", format::si(p.items_per_sec));
    }
    line
}

/// Writes the metric history as CSV (atomically).
fn write_metrics(path: &Path, history: &[Progress]) -> Result<()> {
    let mut csv = String::from(
        "step,total_steps,epoch,loss,perplexity,lr,items_per_sec,elapsed,model_perplexity\n",
    );
    let opt = |x: Option<f64>| x.map_or(String::new(), |x| x.to_string());
    for p in history {
        writeln!(
            csv,
            "{},{},{},{},{},{},{},{},{}",
            p.step,
            p.total_steps,
            p.epoch,
            p.loss,
            opt(p.perplexity),
            p.lr,
            p.items_per_sec,
            p.elapsed,
            opt(p.model_perplexity)
        )?;
    }
    atomic::write_bytes(path, csv.as_bytes())?;
    Ok(())
}

/// Before any training: every output can be written (its directory exists
/// and accepts files, it is not a directory or a device), none is the
/// corpus (also through a companion file), no two outputs are the same
/// file (each would overwrite the other), and a file already there is of
/// the output's kind: vectors, a session (the run is appended to it), a
/// metrics CSV.
fn check_outputs(args: &TrainArgs) -> Result<()> {
    let mut guard = Guard::new();
    guard.input("the training corpus", args.input());
    guard.output("--out", &args.out, Kind::Vectors(args.format.into()))?;
    if let Some(p) = &args.session_out {
        guard.output("--session-out", p, Kind::Session)?;
    }
    if let Some(p) = &args.metrics_out {
        guard.output("--metrics-out", p, Kind::Csv("step,"))?;
    }
    Ok(())
}

/// `--change STEP:NAME=VALUE` flags as the job's schedule. The value itself is
/// checked by the method when the step comes (a rejected change is reported
/// then and the run goes on, as in the workbench).
fn parse_changes(flags: &[String]) -> Result<Vec<(u64, String, String)>> {
    flags
        .iter()
        .map(|flag| {
            let parsed = flag.split_once(':').and_then(|(step, rest)| {
                let (name, value) = rest.split_once('=')?;
                Some((step.trim().parse().ok()?, name.trim(), value.trim()))
            });
            match parsed {
                Some((step, name, value)) if !name.is_empty() => {
                    Ok((step, name.to_string(), value.to_string()))
                }
                _ => bail!("--change {flag}: expected STEP:NAME=VALUE, e.g. 40:lr=0.01"),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{parse_changes, with_phase};
    use wordbench::train::{Phase, Unit};

    #[test]
    fn the_bar_names_the_phase_under_way_after_the_last_status() {
        let phase = Phase {
            name: "training chunks",
            done: 3,
            total: 10,
            unit: Unit::Count,
            step: 1,
        };
        assert_eq!(with_phase("", &phase), "training chunks 3/10");
        assert_eq!(
            with_phase("epoch 1 loss 5.1", &phase),
            "epoch 1 loss 5.1 · training chunks 3/10"
        );
    }

    #[test]
    fn changes_parse_and_bad_ones_name_the_flag() {
        let ok = parse_changes(&["40:lr=0.01".into(), " 3 : epochs = 2".into()]).unwrap();
        assert_eq!(
            ok,
            vec![
                (40, "lr".to_string(), "0.01".to_string()),
                (3, "epochs".to_string(), "2".to_string())
            ]
        );
        for bad in ["lr=0.01", "x:lr=1", "4:=1", "4:lr"] {
            let e = parse_changes(&[bad.into()]).unwrap_err().to_string();
            assert!(e.starts_with(&format!("--change {bad}:")), "{e}");
        }
    }
}
