//! What the workbench's end-to-end tests share: the fixture corpus and
//! evaluation sets the app starts on, and typing keys into a driver.
#![allow(dead_code)] // each test file uses its own part

use std::path::PathBuf;
use std::time::Duration;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use wordbench::eval::EvalPlan;
use wordbench::tui::{AppOptions, Driver, Msg};

/// The small fixture corpus every workbench test loads.
pub const CORPUS: &str = "tests/fixtures/corpus/lee_background.txt";
/// How long background work may take before a test gives up.
pub const LONG: Duration = Duration::from_secs(120);

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
