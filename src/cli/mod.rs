//! Command-line interface: argument definitions and one module per command.

mod args;
mod assets;
mod corpus;
mod demo;
mod eval;
mod replay;
mod train;

use anyhow::Result;
use clap::Parser;

pub use args::{Cli, Command};

/// Parses the command line and runs the chosen command.
pub fn run() -> Result<()> {
    let cli = Cli::parse();
    // No subcommand: the demo with its defaults.
    let command = match cli.command {
        Some(c) => c,
        None => Cli::parse_from(["wordbench", "demo"])
            .command
            .expect("demo parses"),
    };
    match command {
        Command::Demo(args) => demo::run(args),
        Command::Corpus(cmd) => corpus::run(cmd),
        Command::Train(args) => train::train(args),
        Command::Methods(args) => train::methods(args),
        Command::Eval(args) => eval::eval(args),
        Command::Neighbors(args) => eval::neighbors(args),
        Command::Replay(args) => replay::run(args),
    }
}

/// True when the error is a closed stdout (`wordbench ... | head`), which is not a failure.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
