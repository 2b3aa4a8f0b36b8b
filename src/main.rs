//! The `wordbench` binary: a thin layer over the library. Errors become one
//! line on stderr and a non-zero exit code.

mod cli;

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set by the signal handler: an error the interruption caused (a worker
/// refused a new spill file) is not reported, the exit is the handler's.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

fn main() -> ExitCode {
    // SIGINT, SIGTERM, SIGHUP: remove the temporary files being written,
    // give the terminal back if the workbench had it, and exit as killed.
    let _ = ctrlc::set_handler(|| {
        INTERRUPTED.store(true, Ordering::SeqCst);
        wordbench::atomic::remove_live_temp_files();
        wordbench::cooc::spill::remove_live_spill_dirs();
        if wordbench::tui::event_loop::holds_terminal() {
            wordbench::tui::event_loop::give_back_terminal();
        }
        std::process::exit(130);
    });
    match cli::run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if cli::is_broken_pipe(&e) {
                return ExitCode::SUCCESS;
            }
            if INTERRUPTED.load(Ordering::SeqCst) {
                return ExitCode::from(130);
            }
            // What an error quotes of an input cannot act on the terminal.
            eprintln!("wordbench: {}", wordbench::quote::text(&format!("{e:#}")));
            ExitCode::FAILURE
        }
    }
}
