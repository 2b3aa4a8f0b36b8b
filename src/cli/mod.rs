//! Command-line interface: argument definitions and one module per command.

mod args;
mod classify;
mod cluster;
mod corpus;
mod counts;
mod demo;
mod eval;
mod project;
mod replay;
mod schema_args;
mod sense;
mod session_out;
mod similar;
mod sweep;
mod train;
mod tui;
mod values;
mod vectors;

use anyhow::Result;
use clap::Parser;

pub use args::{Cli, Command};

/// Parses the command line and runs the chosen command.
pub fn run() -> Result<()> {
    let cli = Cli::parse();
    // No subcommand: the workbench in a terminal; elsewhere (CI, pipes) the demo.
    let command = match cli.command {
        Some(c) => c,
        None if tui::has_terminal() => Command::Tui(args::TuiArgs {
            session: cli.session,
            ..Default::default()
        }),
        None => {
            eprintln!(
                "wordbench: not a terminal, running the demo (`wordbench tui` opens the workbench)"
            );
            Cli::parse_from(["wordbench", "demo"])
                .command
                .expect("demo parses")
        }
    };
    match command {
        Command::Tui(args) => tui::run(args),
        Command::Demo(args) => demo::run(args),
        Command::Corpus(cmd) => corpus::run(cmd),
        Command::Train(args) => train::train(args),
        Command::Methods(args) => train::methods(args),
        Command::Sweep(args) => sweep::run(args),
        Command::Eval(args) => eval::eval(args),
        Command::Neighbors(args) => eval::neighbors(args),
        Command::Topics(args) => eval::topics(args),
        Command::Similar(args) => similar::similar(args),
        Command::DoesntMatch(args) => similar::doesnt_match(args),
        Command::Sense(args) => sense::run(args),
        Command::Counts(args) => counts::run(args),
        Command::Replay(args) => replay::run(args),
        Command::Project(args) => project::run(args),
        Command::Classify(args) => classify::run(args),
        Command::Cluster(args) => cluster::run(args),
        Command::Convert(args) => vectors::convert(args),
        Command::Align(args) => vectors::align(args),
    }
}

/// True when the error is a closed stdout (`wordbench ... | head`), which is not a failure.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Prints what opening a corpus noticed, as warnings on stderr.
fn corpus_warnings(corpus: &wordbench::corpus::Corpus) {
    for w in corpus.warnings() {
        eprintln!("warning: {}", wordbench::quote::text(w));
    }
}

/// Checks, before the work, that an output path names a file a writer can
/// produce: not a folder (`out/`, `.`), and, unless `compressed_ok`, not a
/// compressed name (`.gz`, `.bz2`, `.xz`) that would get plain bytes.
fn check_output_name(flag: &str, path: &std::path::Path, compressed_ok: bool) -> Result<()> {
    let text = path.as_os_str().as_encoded_bytes();
    let names_folder =
        text.ends_with(b"/") || text.ends_with(b"/.") || text == b"." || path.file_name().is_none();
    if names_folder {
        anyhow::bail!(
            "{flag} {}: names a folder; give a file name",
            wordbench::quote::path(path)
        );
    }
    let compression = wordbench::corpus::source::Compression::of_name(path);
    if !compressed_ok && compression != wordbench::corpus::source::Compression::None {
        anyhow::bail!(
            "{flag} {}: this file is written uncompressed; drop the .{} suffix",
            wordbench::quote::path(path),
            path.extension().unwrap_or_default().to_string_lossy()
        );
    }
    Ok(())
}

/// The worker threads for `--threads` (default: every CPU), capped at the
/// CPUs available with a warning on stderr when more were asked for.
fn threads(asked: Option<usize>) -> usize {
    let (threads, warning) =
        wordbench::train::cap_threads(asked.unwrap_or_else(wordbench::train::cpus), "--threads");
    if let Some(w) = warning {
        eprintln!("warning: {}", wordbench::quote::text(&w));
    }
    threads
}
