//! `wordbench sweep`: train one method over a grid (and random draws) of
//! hyperparameters, evaluate every run, print the table ranked by a metric,
//! and write `DIR/sweep.csv` and the session `DIR/sweep.ron` (its runs'
//! vectors kept in `DIR/sweep.vectors/`), saved after every run so an
//! interrupted sweep keeps the runs it finished; at the end, the metric
//! against each swept value as `DIR/sweep-NAME.svg`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use wordbench::cooc::CountCache;
use wordbench::project::plot::ImageFormat;
use wordbench::session::guard::{self, Expect, Fingerprint};
use wordbench::session::{self, Session, SweepRecord};
use wordbench::sweep::chart::{self, Chart};
use wordbench::sweep::spec::{parse_grid, parse_range, Prune};
use wordbench::sweep::table::{self, sweep_tag, Row, PRUNED_TAG};
use wordbench::sweep::{self as sw, Metric, Outcome, Plan, Status, SweepSpec, Update};
use wordbench::{algo, atomic};

use super::eval::bundled_plan;
use super::schema_args::{CorpusFormat, CorpusOpts};
use super::values::{count, MAX_THREADS};

/// `wordbench sweep`
#[derive(Debug, Args)]
pub struct SweepArgs {
    /// Corpus file.
    pub corpus: PathBuf,
    /// Method (see `wordbench methods`).
    #[arg(long)]
    pub algo: String,
    /// Values to try, every combination with the other --grid flags:
    /// `--grid window=2,5,10` (repeatable; a corpus option works too, e.g. `min_count=3,5`).
    #[arg(long, value_name = "NAME=V1,V2,...")]
    pub grid: Vec<String>,
    /// Random draws of the --range flags for each grid point.
    #[arg(long, value_name = "N", value_parser = count(1, 10_000))]
    pub random: Option<usize>,
    /// A range to draw from: `--range lr=0.005..0.1:log` (repeatable; `:log` draws log-uniformly).
    #[arg(long, value_name = "NAME=LO..HI[:log]")]
    pub range: Vec<String>,
    /// A value every run shares: `--set dim=50` (repeatable).
    #[arg(long, value_name = "NAME=VALUE")]
    pub set: Vec<String>,
    /// What ranks the runs: perplexity, loss, ws353, simlex, analogy, or a --similarity file's name.
    #[arg(long, default_value = "simlex")]
    pub metric: String,
    /// Stop unpromising runs early by successive halving: only the best
    /// 1/ETA of the runs so far go past each rung (1/ETA² and 1/ETA of the run).
    #[arg(long, value_name = "ETA", value_parser = clap::value_parser!(u32).range(2..=10))]
    pub prune: Option<u32>,
    /// What --prune compares at a rung: `perplexity` (held-out) or a
    /// similarity set (`simlex`, `ws353`, a --similarity file's name) scored on the vectors there.
    #[arg(long, value_name = "SIGNAL", default_value = "perplexity")]
    pub prune_on: String,
    /// At most this many runs (the first ones of the grid).
    #[arg(long, value_name = "N", value_parser = count(1, 10_000))]
    pub max_runs: Option<usize>,
    /// Start no run after this long (`90s`, `30m`, `2h`); the runs left are listed as skipped.
    #[arg(long, value_name = "TIME")]
    pub time_budget: Option<String>,
    /// Seed of every run (and of the random draws).
    #[arg(long, default_value_t = wordbench::train::DEFAULT_SEED)]
    pub seed: u64,
    /// Worker threads of each run (default 1, so runs replay bit for bit and two train at once on 2 cores).
    #[arg(long, default_value_t = 1, value_parser = count(1, MAX_THREADS))]
    pub threads: usize,
    /// Runs trained at once (default: the cores divided by --threads).
    #[arg(long, value_parser = count(1, 64))]
    pub parallel: Option<usize>,
    /// Another similarity set to evaluate every run on (`word1 word2 score`), repeatable.
    #[arg(long)]
    pub similarity: Vec<PathBuf>,
    /// Folder for sweep.csv, sweep.ron and sweep.vectors/ (created if missing; an existing sweep there is never replaced).
    #[arg(long)]
    pub out: PathBuf,
    /// Corpus format (`--corpus-format`), reading and vocabulary options.
    #[command(flatten)]
    pub opts: CorpusOpts<CorpusFormat>,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Runs the sweep.
pub fn run(args: SweepArgs) -> Result<()> {
    let method = algo::find(&args.algo)?;
    let spec = spec(&args, method)?;
    let trials = sw::expand(&spec, method)?;
    let mut eval = bundled_plan();
    eval.similarity.extend(args.similarity.iter().cloned());
    check_metric(&spec.metric, &eval.similarity)?;
    if let Some(signal) = spec.prune.as_ref().and_then(|p| p.on.as_ref()) {
        check_metric(signal, &eval.similarity).map_err(|e| anyhow::anyhow!("--prune-on: {e}"))?;
    }
    let names: Vec<String> = spec.swept_names().map(String::from).collect();
    let (csv_path, session_path) = outputs(&args.out, &args.corpus, &names)?;
    let corpus_options = args.opts.params()?;
    let reference = session::CorpusRef::describe(
        &args.corpus,
        wordbench::corpus::CorpusConfig::from_params(&corpus_options),
        &session_path,
    )?;
    let mut out = Out {
        session: Session::new(reference),
        path: session_path.clone(),
        seen: None,
    };
    let number = out.session.next_sweep();
    let mut record = SweepRecord {
        number,
        spec: spec.clone(),
        names: names.clone(),
        runs: Vec::new(),
        skipped: Vec::new(),
        counted: 0,
        seconds: 0.0,
    };
    let plan = Plan {
        spec: spec.clone(),
        method,
        trials,
        corpus: args.corpus.clone(),
        corpus_options,
        session_file: session_path.clone(),
        eval,
    };
    eprintln!(
        "sweep: {} runs of {} ({} at once, {} thread(s) each), ranked by {}{}",
        plan.trials.len(),
        method.name,
        spec.parallel,
        spec.threads,
        spec.metric,
        spec.prune.as_ref().map_or(String::new(), |p| format!(
            ", pruned by successive halving (eta {}) on {}",
            p.eta,
            p.on.as_ref()
                .map_or("perplexity".to_string(), Metric::to_string)
        ))
    );
    let bar = bar(args.quiet, plan.trials.len());
    let mut failure: Option<anyhow::Error> = None;
    let summary = sw::run(
        &plan,
        Arc::new(CountCache::default()),
        |update| match update {
            Update::Started(i) => bar.set_message(format!("#{} {}", i + 1, plan.trials[i].label())),
            Update::Progress(..) => {}
            Update::Ended(outcome) => {
                bar.inc(1);
                bar.suspend(|| eprintln!("{}", ended_line(&outcome, &spec.metric)));
                if failure.is_none() {
                    failure = keep(&mut out, &mut record, *outcome).err();
                }
            }
        },
    )?;
    bar.finish_and_clear();
    if let Some(e) = failure {
        return Err(e);
    }
    record.counted = summary.counted;
    record.seconds = summary.seconds;
    out.save_with(&record)?;
    let rows: Vec<Row> = wordbench::sweep::table::rows(&record, &out.session);
    print!("{}", table::text(&names, &rows, &spec.metric));
    atomic::write_bytes(&csv_path, table::csv(&names, &rows).as_bytes())?;
    for (axis, name) in names.iter().enumerate() {
        let chart = Chart {
            rows: &rows,
            name,
            axis,
            log: spec.ranges.iter().any(|r| &r.name == name && r.log),
            metric: &spec.metric,
            title: format!("{} by {name}: sweep of {}", spec.metric, method.name),
        };
        let path = chart_path(&args.out, name);
        if let Err(e) = chart::save(&path, &chart, ImageFormat::Svg) {
            eprintln!("warning: {e}");
        }
    }
    eprintln!(
        "{:.1}s, {} corpus read(s), {} co-occurrence count(s), {} transform(s), \
         {} factorisation(s); wrote {} and {}",
        summary.seconds,
        summary.corpora,
        summary.counted,
        summary.transformed,
        summary.factored,
        csv_path.display(),
        session_path.display()
    );
    Ok(())
}

/// The declaration the flags describe, checked against the method's schema.
fn spec(args: &SweepArgs, method: &'static wordbench::train::Method) -> Result<SweepSpec> {
    if args.grid.is_empty() && args.range.is_empty() {
        bail!(
            "a sweep needs at least one --grid NAME=V1,V2 or --range NAME=LO..HI with --random N"
        );
    }
    let mut fixed = std::collections::BTreeMap::new();
    for s in &args.set {
        let (k, v) = s
            .split_once('=')
            .with_context(|| format!("--set {s}: expected name=value"))?;
        let spec = sw::spec::target(method, k.trim())?;
        if spec.is_corpus() {
            bail!("--set {s}: a corpus option; give it as its flag (e.g. --min-count)");
        }
        spec.spec().parse(v)?;
        fixed.insert(k.trim().to_string(), v.trim().to_string());
    }
    let grid = args
        .grid
        .iter()
        .map(|g| parse_grid(method, g).map_err(|e| anyhow::anyhow!("--grid {g}: {e}")))
        .collect::<Result<Vec<_>>>()?;
    let ranges = args
        .range
        .iter()
        .map(|r| parse_range(method, r).map_err(|e| anyhow::anyhow!("--range {r}: {e}")))
        .collect::<Result<Vec<_>>>()?;
    let time_budget = args
        .time_budget
        .as_deref()
        .map(|t| wordbench::train::parse_seconds("--time-budget", t))
        .transpose()?
        .map(|d: Duration| d.as_secs_f64());
    let cores = wordbench::train::cpus();
    let threads = super::threads(Some(args.threads));
    Ok(SweepSpec {
        method: method.name.to_string(),
        fixed,
        grid,
        ranges,
        samples: args.random.unwrap_or(0),
        metric: Metric::parse(&args.metric)?,
        prune: args
            .prune
            .map(|eta| Prune::halving(eta, 2)?.on(Metric::parse(&args.prune_on)?))
            .transpose()?,
        max_runs: args.max_runs,
        time_budget,
        seed: args.seed,
        threads,
        parallel: args.parallel.unwrap_or((cores / threads).max(1)),
    })
}

/// A similarity metric must name a set the runs are evaluated on.
fn check_metric(metric: &Metric, sets: &[PathBuf]) -> Result<()> {
    if let Metric::Similarity(name) = metric {
        let stems: Vec<String> = sets
            .iter()
            .filter_map(|p| p.file_stem())
            .map(|s| s.to_string_lossy().into_owned())
            .collect();
        if !stems.contains(name) {
            bail!(
                "--metric {name}: not a similarity set of this sweep (have: {}; add one with --similarity FILE)",
                stems.join(", ")
            );
        }
    }
    Ok(())
}

/// `DIR/sweep-NAME.svg`: the metric against swept value `name`.
fn chart_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("sweep-{}.svg", name.replace('.', "-")))
}

/// `DIR/sweep.csv` and `DIR/sweep.ron`, with DIR made; refused when DIR
/// already holds a sweep (or one of its files), or is a file, or is the corpus.
fn outputs(dir: &Path, corpus: &Path, names: &[String]) -> Result<(PathBuf, PathBuf)> {
    if dir.exists() && !dir.is_dir() {
        bail!(
            "--out {}: is a file; give a folder",
            wordbench::quote::path(dir)
        );
    }
    let (csv, ron) = (dir.join("sweep.csv"), dir.join("sweep.ron"));
    let charts = names.iter().map(|n| chart_path(dir, n));
    let all = [csv.clone(), ron.clone(), session::store::folder(&ron)];
    for p in all.into_iter().chain(charts) {
        if p.exists() {
            bail!(
                "--out {}: already holds a sweep ({}); choose another folder",
                wordbench::quote::path(dir),
                wordbench::quote::path(&p)
            );
        }
    }
    if same_file(corpus, &csv) || same_file(corpus, &ron) {
        bail!(
            "--out {}: would write over the corpus",
            wordbench::quote::path(dir)
        );
    }
    std::fs::create_dir_all(dir)
        .with_context(|| format!("--out {}: cannot create the folder", dir.display()))?;
    Ok((csv, ron))
}

fn same_file(a: &Path, b: &Path) -> bool {
    matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
}

/// The session being written, and what we last wrote there.
struct Out {
    session: Session,
    path: PathBuf,
    seen: Option<Fingerprint>,
}

impl Out {
    /// Saves the session with `record` as its sweep; never over a file
    /// someone else wrote meanwhile.
    fn save_with(&mut self, record: &SweepRecord) -> Result<()> {
        let mut session = self.session.clone();
        session.sweeps = vec![record.clone()];
        let expect = self.seen.clone().map_or(Expect::Nothing, Expect::Same);
        match guard::save(&session, &self.path, &expect)? {
            Ok(written) => {
                self.seen = Some(written);
                Ok(())
            }
            Err(_) => bail!(
                "{}: was written by someone else during the sweep; the sweep's runs are not saved there",
                self.path.display()
            ),
        }
    }
}

/// Adds an ended run to the session (vectors kept beside it) and saves.
fn keep(out: &mut Out, record: &mut SweepRecord, outcome: Outcome) -> Result<()> {
    let Some(mut run) = outcome.run else {
        record.skipped.push(
            outcome
                .trial
                .values
                .iter()
                .map(|(_, v)| v.clone())
                .collect(),
        );
        return out.save_with(record);
    };
    run.tags.push(sweep_tag(record.number));
    if matches!(outcome.status, Status::Pruned { .. }) {
        run.tags.push(PRUNED_TAG.to_string());
    }
    if let Some(embedding) = &outcome.embedding {
        let kept = session::store::keep(embedding, &session::store::folder(&out.path))?;
        run.kept = Some(session::KeptVectors {
            file: session::path_for_session(&kept.file, &out.path),
            ..kept
        });
    }
    // In a new session a run's number is its place in the sweep, whichever
    // run ends first.
    run.number = outcome.index as u32 + 1;
    record.runs.push(run.number);
    record.runs.sort_unstable();
    out.session.runs.push(run);
    out.session.runs.sort_by_key(|r| r.number);
    out.save_with(record)
}

/// `#3 window=5 negative=10: finished, simlex999 0.231 (12.3s)`.
fn ended_line(outcome: &Outcome, metric: &Metric) -> String {
    let what = match &outcome.status {
        Status::Pruned { step } => format!("pruned at step {step}"),
        Status::Failed(m) => format!("failed: {m}"),
        s => s.word().to_string(),
    };
    let value = outcome.value(metric).map_or(String::new(), |v| {
        format!(", {metric} {}", wordbench::format::value(v))
    });
    format!(
        "#{} {}: {what}{value} ({:.1}s)",
        outcome.index + 1,
        outcome.trial.label(),
        outcome.seconds
    )
}

fn bar(quiet: bool, runs: usize) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(runs as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} runs  {msg}  eta {eta}")
            .expect("valid template"),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}
