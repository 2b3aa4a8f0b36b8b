//! The `wordbench` binary: a thin layer over the library. Errors become one
//! line on stderr and a non-zero exit code.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    match cli::run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if cli::is_broken_pipe(&e) {
                return ExitCode::SUCCESS;
            }
            eprintln!("wordbench: {e:#}");
            ExitCode::FAILURE
        }
    }
}
