//! UBE on the Projection screen, end to end through `update` with real
//! background work: its options set in the form (by keys and by actions),
//! the sphere turned with the keys, and its CSV export holding the sphere's
//! `word,x,y,z` exactly as `wordbench project --method ube --dim 3` writes
//! them; the plot's record in the saved session keeps the options.

use common::{options, LONG};

use std::process::Command;

use crate::common;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use wordbench::project::export::read_csv;
use wordbench::session;
use wordbench::tui::run::RunStatus;
use wordbench::tui::{Action, Driver, Msg, Screen};

const VECTORS: &str = "tests/fixtures/project/vectors.txt";

fn key(d: &mut Driver, code: KeyCode, mods: KeyModifiers) {
    d.send(Msg::Key(KeyEvent::new(code, mods)));
}

fn coords(d: &Driver) -> Vec<[f64; 2]> {
    d.app.projection.layout.as_ref().unwrap().coords.clone()
}

fn close(a: &[[f64; 2]], b: &[[f64; 2]]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(p, q)| (p[0] - q[0]).abs() < 1e-9 && (p[1] - q[1]).abs() < 1e-9)
}

#[test]
fn a_ube_layout_turns_with_the_keys_and_exports_its_sphere() {
    let dir = tempfile::tempdir().unwrap();
    let mut d = Driver::start(&options());
    d.act(Action::ImportVectors(VECTORS.into(), None));
    assert!(
        d.wait_until(LONG, |a| a
            .runs
            .first()
            .is_some_and(|r| r.status != RunStatus::Importing)),
        "{}",
        d.app.status.text
    );

    // The method, then two of UBE's options: `iters` typed into its field,
    // `update` cycled with →.
    d.act(Action::GoTo(Screen::Projection));
    d.act(Action::SetProjectionOption("method".into(), "ube".into()));
    d.act(Action::SetProjectionOption("count".into(), "40".into()));
    let row = |d: &Driver, name: &str| d.app.projection.options.index(name).unwrap() + 1;
    while d.app.projection.selected != row(&d, "iters") {
        key(&mut d, KeyCode::Down, KeyModifiers::NONE);
    }
    key(&mut d, KeyCode::Enter, KeyModifiers::NONE);
    for ch in "40".chars() {
        key(&mut d, KeyCode::Char(ch), KeyModifiers::NONE);
    }
    key(&mut d, KeyCode::Enter, KeyModifiers::NONE);
    assert!(d
        .app
        .journal
        .contains(&Action::SetProjectionOption("iters".into(), "40".into())));
    d.act(Action::SetProjectionOption(
        "update".into(),
        "newton".into(),
    ));
    key(&mut d, KeyCode::Char('p'), KeyModifiers::NONE);
    assert!(
        d.wait_until(LONG, |a| a.projection.layout.is_some()
            && a.projection.pending.is_none()),
        "{}",
        d.app.status.text
    );
    let layout = d.app.projection.layout.clone().unwrap();
    assert_eq!(layout.words.len(), 40);
    assert!(
        layout.description.contains("40 sweeps") && layout.description.contains("newton"),
        "the form's options reached the run: {}",
        layout.description
    );
    assert!(!d.app.projection.kl.is_empty(), "J arrived as it ran");

    // Shift-L turns the sphere a step: the map moves; 24 steps are a full
    // turn and give the same map back (the same for Shift-K).
    let start = coords(&d);
    key(&mut d, KeyCode::Char('L'), KeyModifiers::SHIFT);
    assert!(!close(&coords(&d), &start));
    for _ in 1..24 {
        key(&mut d, KeyCode::Char('L'), KeyModifiers::SHIFT);
    }
    assert!(close(&coords(&d), &start));
    for _ in 0..24 {
        key(&mut d, KeyCode::Char('K'), KeyModifiers::SHIFT);
    }
    assert!(close(&coords(&d), &start));
    key(&mut d, KeyCode::Char('H'), KeyModifiers::SHIFT);
    let turned = coords(&d);

    // The CSV holds the sphere (word,x,y,z, unit rows) whatever the turn:
    // exactly the command line's coordinates for the same options.
    let csv = dir.path().join("ube.csv");
    d.act(Action::ExportPlot(csv.display().to_string()));
    assert!(
        d.wait_until(LONG, |a| a.projection.exported.is_some()),
        "{}",
        d.app.status.text
    );
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(text.starts_with("word,x,y,z,group\n"), "{text}");
    let (words, sphere) = read_csv(&csv).unwrap();
    assert_eq!(words, layout.words);
    assert_eq!(sphere.ncols(), 3);
    for r in sphere.rows() {
        assert!((r.dot(&r) - 1.0).abs() < 1e-9, "a unit row: {r}");
    }
    let cli = dir.path().join("cli.csv");
    let out = Command::new(env!("CARGO_BIN_EXE_wordbench"))
        .args([
            "project", VECTORS, "--method", "ube", "--dim", "3", "--top", "40",
        ])
        .args([
            "--set",
            "iters=40",
            "--set",
            "update=newton",
            "--threads",
            "1",
            "-q",
        ])
        .arg("--out")
        .arg(&cli)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (cli_words, cli_sphere) = read_csv(&cli).unwrap();
    assert_eq!(cli_words, words);
    let gap = (&cli_sphere - &sphere)
        .mapv(f64::abs)
        .fold(0.0f64, |m, &v| m.max(v));
    assert!(gap < 1e-9, "the workbench's sphere is the CLI's: gap {gap}");

    // A PNG shows the map as turned; the plot's record keeps UBE's options
    // (and not t-SNE's) in the saved session.
    let png = dir.path().join("ube.png");
    d.act(Action::ExportPlot(png.display().to_string()));
    assert!(d.wait_until(LONG, |a| a.projection.exported.as_deref()
        == Some(png.to_str().unwrap())));
    assert!(close(&coords(&d), &turned));
    let file = dir.path().join("s.ron");
    d.act(Action::SaveSession(file.display().to_string()));
    assert!(d.wait_until(LONG, |a| !a.session.unsaved(&a.runs)));
    let saved = session::load(&file).unwrap();
    let plots = &saved.runs[0].plots;
    assert_eq!(plots.len(), 2);
    let settings = &plots[0].settings;
    assert_eq!(plots[0].method, "ube");
    assert_eq!(settings["iters"], "40");
    assert_eq!(settings["update"], "newton");
    assert_eq!(settings["k_max"], "50");
    assert!(!settings.contains_key("perplexity"), "{settings:?}");
    assert!(
        !settings.contains_key("turn"),
        "a CSV holds the unturned sphere"
    );
    let turn = &plots[1].settings["turn"];
    assert_eq!(
        turn, "0.965926 0.258819 0.000000; -0.258819 0.965926 0.000000; 0.000000 0.000000 1.000000",
        "one 15° step left"
    );
}
