//! `wordbench replay`: re-run a session's runs headless and, with `--check`,
//! compare every metric curve with the recorded one.

use std::io::Write;

use anyhow::{bail, Result};
use wordbench::session::{self, replay, ReplayReport};
use wordbench::train::Event;

use super::args::ReplayArgs;

/// Replays one run or all, printing a table of differences.
pub fn run(args: ReplayArgs) -> Result<()> {
    let session = session::load(&args.session)?;
    let runs: Vec<usize> = match args.run {
        Some(n) => vec![n],
        None => (0..session.runs.len()).collect(),
    };
    let mut failed = Vec::new();
    let mut out = std::io::stdout().lock();
    for index in runs {
        let run = session.runs.get(index);
        let name = run.map_or("?", |r| r.method.as_str());
        writeln!(
            out,
            "run {index}: {name} (seed {}, {} threads)",
            run.map_or(0, |r| r.seed),
            run.map_or(0, |r| r.threads)
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
        if args.check && !report.passed() {
            failed.push(index);
        }
    }
    if !failed.is_empty() {
        bail!("replay --check: run(s) {failed:?} differ from the recording");
    }
    Ok(())
}

fn print_table(out: &mut impl Write, report: &ReplayReport) -> Result<()> {
    let tol = if report.tolerance == 0.0 {
        "bit for bit".to_string()
    } else {
        format!("relative {}", report.tolerance)
    };
    writeln!(
        out,
        "  {:<11} {:>7} {:>12} {:>12} {:>10}  ({tol})",
        "metric", "points", "max |diff|", "max rel", "mismatch"
    )?;
    for c in &report.curves {
        let first = c
            .first_mismatch
            .map_or(String::new(), |s| format!(" first at step {s}"));
        writeln!(
            out,
            "  {:<11} {:>7} {:>12.3e} {:>12.3e} {:>10}{first}",
            c.metric, c.points, c.max_abs, c.max_rel, c.mismatches
        )?;
    }
    writeln!(
        out,
        "  {}",
        if report.passed() {
            "match"
        } else {
            "DIFFERENT"
        }
    )?;
    Ok(())
}
