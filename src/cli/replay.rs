//! `wordbench replay`: re-run a session's runs headless, each on its own
//! corpus with its recorded settings, changes and stop, and compare every
//! metric curve and the ending with the recording: bit for bit where the run
//! must be, by its final values where it races (see
//! `wordbench::session::replay`). `--check` turns a difference into a
//! non-zero exit; `--out DIR` keeps the replayed vectors.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use wordbench::embedding::VectorFormat;
use wordbench::outputs::{Guard, Kind};
use wordbench::session::{self, replay, resolve_path, ReplayReport, Session, Verdict};
use wordbench::train::Event;

use super::args::ReplayArgs;

/// Replays one run or all, printing a table of differences.
pub fn run(args: ReplayArgs) -> Result<()> {
    let session = session::load(&args.session)?;
    let indices = selected(&session, args.run, &args.session)?;
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("{}: cannot create the folder", dir.display()))?;
        check_outputs(&session, &args.session, &indices, dir)?;
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
                run.number,
                source.path.display()
            )?;
            continue;
        }
        let corpus = run.corpus.as_ref().unwrap_or(&session.corpus);
        writeln!(
            out,
            "run {}: {} on {} (seed {}, {} thread{}, {})",
            run.number,
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
            let path = vectors_path(dir, run);
            e.save(&path, VectorFormat::Word2VecText)?;
            writeln!(out, "  vectors written to {}", path.display())?;
        }
        if !report.passed() {
            failed.push(run.number);
        }
    }
    if args.check && !failed.is_empty() {
        bail!("replay --check: run(s) {failed:?} differ from the recording");
    }
    Ok(())
}

/// `DIR/run<N>-<method>.txt`: where run `#N` is written.
fn vectors_path(dir: &Path, run: &session::Run) -> PathBuf {
    dir.join(format!("run{}-{}.txt", run.number, run.method))
}

/// Before replaying: no vectors file lands on the session file or a file
/// the session names (a corpus, imported or recorded vectors), and one
/// already there is vectors.
fn check_outputs(session: &Session, file: &Path, indices: &[usize], dir: &Path) -> Result<()> {
    let mut guard = Guard::new();
    guard.input("the session file", file).input(
        "a corpus of the session",
        &resolve_path(&session.corpus.path, file),
    );
    for run in &session.runs {
        if let Some(c) = &run.corpus {
            guard.input("a corpus of the session", &resolve_path(&c.path, file));
        }
        if let Some(v) = &run.vectors {
            guard.vectors_input(
                format!("the vectors the session records for run {}", run.number),
                &resolve_path(v, file),
            );
        }
        if let Some(source) = &run.source {
            guard.vectors_input(
                "vectors the session imports",
                &resolve_path(&source.path, file),
            );
        }
    }
    for &index in indices {
        let run = &session.runs[index];
        if run.source.is_none() {
            let path = vectors_path(dir, run);
            guard.output("--out", &path, Kind::Vectors(VectorFormat::Word2VecText))?;
        }
    }
    Ok(())
}

/// The places (from 0) of the runs to replay (`--run N` names run `#N`).
fn selected(session: &Session, run: Option<u32>, file: &Path) -> Result<Vec<usize>> {
    let n = session.runs.len();
    match run {
        None if n == 0 => bail!("{}: the session has no runs", file.display()),
        None => Ok((0..n).collect()),
        Some(k) => match session.run_index(k) {
            Some(index) => Ok(vec![index]),
            None if n == 0 => bail!("--run {k}: {} has no runs", file.display()),
            None => bail!(
                "--run {k}: {} has runs {}",
                file.display(),
                session.run_numbers()
            ),
        },
    }
}

fn print_table(out: &mut impl Write, report: &ReplayReport) -> Result<()> {
    let j = &report.judgement;
    if !j.exact {
        writeln!(
            out,
            "  this run races (Hogwild on {} threads) and cannot replay bit for bit: it is judged by its final values",
            report.replayed.threads
        )?;
    }
    writeln!(
        out,
        "  {:<11} {:>7} {:>12} {:>12} {:>10}  (every point, bit for bit)",
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
    if !j.finals.is_empty() {
        writeln!(
            out,
            "  {:<17} {:>12} {:>12} {:>10} {:>10}",
            "final value", "recorded", "replayed", "diff", "tolerance"
        )?;
        for f in &j.finals {
            let (diff, tol) = if f.relative {
                (
                    format!("{:.2}%", 100.0 * f.difference()),
                    format!("{:.1}%", 100.0 * f.tolerance),
                )
            } else {
                (format!("{:.4}", f.difference()), format!("{}", f.tolerance))
            };
            writeln!(
                out,
                "  {:<17} {:>12.6} {:>12.6} {:>10} {:>10}{}",
                f.metric,
                f.recorded,
                f.replayed,
                diff,
                tol,
                if f.within() { "" } else { "  outside" }
            )?;
        }
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
    match j.verdict() {
        Verdict::Different(at) => writeln!(out, "  DIFFERENT: {at}")?,
        verdict => writeln!(out, "  match: {verdict}")?,
    }
    Ok(())
}
