//! `wordbench train` and `wordbench methods`: run a method through the engine
//! with a live progress bar, write the vectors and (optionally) the metrics.

use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use wordbench::algo;
use wordbench::corpus::Corpus;
use wordbench::train::{Event, Job, JobConfig, Progress, TrainInput};

use super::args::{MethodsArgs, TrainArgs};
use wordbench::atomic;

/// Lists the methods and their hyperparameters (generated from the schemas).
pub fn methods(args: MethodsArgs) -> Result<()> {
    let mut out = String::new();
    for m in algo::methods() {
        if args.algo.as_deref().is_some_and(|a| a != m.name) {
            continue;
        }
        writeln!(out, "{:<12} {}", m.name, m.summary)?;
        for p in m.schema {
            let live = if p.live { " (live)" } else { "" };
            let default = wordbench::train::Params::defaults(m.schema)
                .get(p.name)
                .to_string();
            writeln!(
                out,
                "    {:<14} {:<10} {}{live}  [{}]",
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
    let params = method.params(assignments.iter().map(|(k, v)| (k.as_str(), v.as_str())))?;
    let corpus = Corpus::open(&args.corpus, args.opts.config(args.corpus_format))?;
    if let Some(dim) = params
        .schema()
        .iter()
        .find(|p| p.name == "dim")
        .map(|_| params.usize("dim"))
    {
        if dim > corpus.vocab().len() {
            anyhow::bail!(
                "invalid value for dim: {dim} is larger than the vocabulary ({} words)",
                corpus.vocab().len()
            );
        }
    }
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let input = TrainInput {
        corpus: Arc::new(corpus),
        params,
        seed: args.seed,
        threads,
    };
    let job = Job::spawn(method, input, JobConfig::default());
    let bar = progress_bar(args.quiet);
    let mut history: Vec<Progress> = Vec::new();
    let mut ppl = None;
    let result = job.wait(|event| match event {
        Event::Progress(p) => {
            ppl = p.perplexity.or(ppl);
            bar.set_length(p.total_steps);
            bar.set_position(p.step);
            bar.set_message(status(p, ppl));
            history.push(*p);
        }
        Event::Log(line) => bar.println(line),
        _ => {}
    });
    bar.finish_and_clear();
    let embedding = result?;
    if let Some(last) = history.last() {
        eprintln!(
            "{}: {} ({:.1}s)",
            method.name,
            status(last, ppl),
            last.elapsed
        );
    }
    embedding.save(&args.out, args.format.into())?;
    eprintln!(
        "wrote {} vectors of dimension {} to {}",
        embedding.len(),
        embedding.dim(),
        args.out.display()
    );
    if let Some(path) = &args.metrics_out {
        write_metrics(path, &history)?;
    }
    Ok(())
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

/// One status line; `ppl` is the latest perplexity measured (not every step measures it).
fn status(p: &Progress, ppl: Option<f64>) -> String {
    let ppl = ppl.map_or("-".to_string(), |x| format!("{x:.1}"));
    format!(
        "epoch {} loss {:.4} ppl {ppl} lr {:.5} {:.0} items/s",
        p.epoch + 1,
        p.loss,
        p.lr,
        p.items_per_sec
    )
}

/// Writes the metric history as CSV (atomically).
fn write_metrics(path: &Path, history: &[Progress]) -> Result<()> {
    let mut csv = String::from("step,total_steps,epoch,loss,perplexity,lr,items_per_sec,elapsed\n");
    for p in history {
        let ppl = p.perplexity.map_or(String::new(), |x| x.to_string());
        writeln!(
            csv,
            "{},{},{},{},{},{},{},{}",
            p.step, p.total_steps, p.epoch, p.loss, ppl, p.lr, p.items_per_sec, p.elapsed
        )?;
    }
    atomic::write_bytes(path, csv.as_bytes())?;
    Ok(())
}
