//! `wordbench tui` (and `wordbench` with no subcommand in a terminal): the
//! interactive workbench on the bundled (or a given) corpus.

use std::io::IsTerminal;

use anyhow::{bail, Result};
use wordbench::outputs::{Guard, Kind};
use wordbench::tui::{self, AppOptions};

use super::args::TuiArgs;
use super::eval::bundled_plan;
use wordbench::assets;

/// Whether stdin and stdout are a terminal the workbench can take over.
pub fn has_terminal() -> bool {
    std::io::stdout().is_terminal() && std::io::stdin().is_terminal()
}

/// `--key-trace` is appended to: never one of the workbench's inputs, and
/// only a key trace when it exists (docs/writes.md).
fn check_trace(args: &TuiArgs) -> Result<()> {
    let Some(trace) = &args.key_trace else {
        return Ok(());
    };
    let mut guard = Guard::new();
    if let Some(c) = &args.corpus {
        guard.input("the corpus", c);
    }
    if let Some(file) = &args.session {
        guard.input("the session file", file);
    }
    for v in &args.vectors {
        guard.vectors_input("vectors to open", v);
    }
    guard.output("--key-trace", trace, Kind::KeyTrace)?;
    Ok(())
}

/// Opens the workbench.
pub fn run(args: TuiArgs) -> Result<()> {
    check_trace(&args)?;
    if !has_terminal() {
        bail!("the workbench needs a terminal (stdin and stdout); `wordbench demo` runs headless");
    }
    if args.session.is_some() && !args.vectors.is_empty() {
        // Opening a session replaces the runs on screen, imported ones included.
        bail!("--vectors with --session: open the session, then add vectors with `i` on 3 Runs");
    }
    let options = AppOptions {
        corpus: args
            .corpus
            .unwrap_or_else(|| assets::path(assets::DEFAULT_CORPUS)),
        session: args.session,
        eval_plan: bundled_plan(),
        cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        exports: "exports".into(),
    };
    let trace = args
        .key_trace
        .or_else(|| std::env::var_os("WORDBENCH_KEY_TRACE").map(Into::into));
    let imports = args
        .vectors
        .iter()
        .map(|p| tui::Action::ImportVectors(p.display().to_string(), args.limit))
        .collect();
    tui::run_with(options, trace, imports)?;
    Ok(())
}
