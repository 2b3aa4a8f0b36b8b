//! What the end-to-end tests share: running the binary, finding fixtures,
//! the fixture corpus and evaluation sets the workbench starts on, and typing
//! keys into a driver.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use wordbench::eval::EvalPlan;
use wordbench::tui::{AppOptions, Driver, Msg};

/// The small fixture corpus every workbench test loads.
pub const CORPUS: &str = "tests/fixtures/corpus/lee_background.txt";
/// How long background work may take before a test gives up: a ceiling
/// for a hung job, not a speed check (a wait ends as soon as its condition
/// holds). 120 s was once reached on a 2-core machine at load 8.
pub const LONG: Duration = Duration::from_secs(300);

/// The app on the fixture corpus and evaluation sets, 2 cores.
pub fn options() -> AppOptions {
    AppOptions {
        corpus: PathBuf::from(CORPUS),
        session: None,
        eval_plan: EvalPlan {
            similarity: vec!["tests/fixtures/eval/similarity.tsv".into()],
            analogy: Some("tests/fixtures/eval/analogy.txt".into()),
            analogy_config: Default::default(),
        },
        cores: 2,
        exports: "exports".into(),
    }
}

/// Presses one key.
pub fn key(d: &mut Driver, code: KeyCode) {
    d.send(Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

/// Types `text`, a key per character.
pub fn keys(d: &mut Driver, text: &str) {
    for ch in text.chars() {
        key(d, KeyCode::Char(ch));
    }
}

/// Runs the `wordbench` binary with `args` (stdin closed, so a command that
/// would wait for a terminal fails instead of hanging).
pub fn wordbench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wordbench"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run wordbench")
}

/// [`wordbench`], as (success, stdout, stderr) text.
pub fn wordbench_text(args: &[&str]) -> (bool, String, String) {
    let out = wordbench(args);
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `tests/fixtures/DIR/NAME` in this checkout.
pub fn fixture(dir: &str, name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(dir)
        .join(name)
}
