//! `wordbench replay`: re-run a session's runs headless, each on its own
//! corpus with its recorded settings, changes and stop, and compare every
//! metric curve and the ending with the recording. `--check` turns a
//! difference into a non-zero exit; `--out DIR` keeps the replayed vectors.

use std::io::Write;
use std::path::Path;

use anyhow::{bail, Context, Result};
use wordbench::embedding::VectorFormat;
use wordbench::session::{self, replay, ReplayReport, Session};
use wordbench::train::Event;

use super::args::ReplayArgs;

/// Replays one run or all, printing a table of differences.
pub fn run(args: ReplayArgs) -> Result<()> {
    let session = session::load(&args.session)?;
    let indices = selected(&session, args.run, &args.session)?;
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("{}: cannot create the folder", dir.display()))?;
    }
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "replaying {} of {} run(s) of {} and comparing them with the recording{}",
        indices.len(),
        session.runs.len(),
        args.session.display(),
        if args.check {
            " (--check: a difference fails)"
        } else {
            " (differences are reported; --check makes them fail)"
        }
    )?;
    let mut failed = Vec::new();
    for index in indices {
        let run = &session.runs[index];
        if let Some(source) = &run.source {
            writeln!(
                out,
                "run {}: imported vectors {}: nothing to replay",
                index + 1,
                source.path.display()
            )?;
            continue;
        }
        let corpus = run.corpus.as_ref().unwrap_or(&session.corpus);
        writeln!(
            out,
            "run {}: {} on {} (seed {}, {} thread{}, {})",
            index + 1,
            run.method,
            corpus.path.display(),
            run.seed,
            run.threads,
            if run.threads == 1 { "" } else { "s" },
            run.end()
        )?;
        let report = replay(&session, &args.session, index, |e| {
            if let Event::Log(l) = e {
                eprintln!("  {l}");
            }
        })?;
        for w in &report.warnings {
            writeln!(out, "  warning: {w}")?;
        }
        print_table(&mut out, &report)?;
        if let (Some(dir), Some(e)) = (&args.out, &report.embedding) {
            let path = dir.join(format!("run{}-{}.txt", index + 1, run.method));
            e.save(&path, VectorFormat::Word2VecText)?;
            writeln!(out, "  vectors written to {}", path.display())?;
        }
        if !report.passed() {
            failed.push(index + 1);
        }
    }
    if args.check && !failed.is_empty() {
        bail!("replay --check: run(s) {failed:?} differ from the recording");
    }
    Ok(())
}

/// The 0-based indices of the runs to replay (`--run` counts from 1).
fn selected(session: &Session, run: Option<u64>, file: &Path) -> Result<Vec<usize>> {
    let n = session.runs.len();
    match run {
        None if n == 0 => bail!("{}: the session has no runs", file.display()),
        None => Ok((0..n).collect()),
        Some(k) if (k as usize) <= n => Ok(vec![k as usize - 1]),
        Some(k) => bail!("--run {k}: {} has runs 1 to {n}", file.display()),
    }
}

fn print_table(out: &mut impl Write, report: &ReplayReport) -> Result<()> {
    let j = &report.judgement;
    let tol = if j.tolerance == 0.0 {
        "bit for bit".to_string()
    } else {
        format!("relative {}", j.tolerance)
    };
    writeln!(
        out,
        "  {:<11} {:>7} {:>12} {:>12} {:>10}  ({tol})",
        "metric", "points", "max |diff|", "max rel", "mismatch"
    )?;
    for c in &j.curves {
        let first = c
            .first_mismatch
            .map_or(String::new(), |s| format!(" first at step {s}"));
        writeln!(
            out,
            "  {:<11} {:>7} {:>12.3e} {:>12.3e} {:>10}{first}",
            c.metric, c.points, c.max_abs, c.max_rel, c.mismatches
        )?;
    }
    if j.ended_alike() {
        writeln!(
            out,
            "  ended alike: {} ({} steps)",
            j.replayed_end, j.recorded_steps
        )?;
    } else {
        writeln!(
            out,
            "  ended differently: recorded {} after {} steps, replay {} after {}",
            j.recorded_end, j.recorded_steps, j.replayed_end, j.replayed_steps
        )?;
    }
    let verdict = j.verdict();
    let word = if verdict.passed() {
        "match"
    } else {
        "DIFFERENT"
    };
    writeln!(out, "  {word}: {verdict}")?;
    Ok(())
}
