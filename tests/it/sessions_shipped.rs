//! The example sessions in `sessions/` (one per method, recorded by
//! `sessions/record.sh` on the fixture corpus with one thread) replay bit for
//! bit: the same check as `wordbench replay FILE --check`, run by CI.

use std::path::{Path, PathBuf};

use wordbench::algo;
use wordbench::session::{self, replay, TimelineEvent};

fn shipped() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("sessions");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("sessions/ exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ron"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_method_ships_an_example_session() {
    let methods: Vec<String> = shipped()
        .iter()
        .flat_map(|f| session::load(f).unwrap().runs)
        .map(|r| r.method)
        .collect();
    for m in algo::methods() {
        assert!(
            methods.iter().any(|n| n == m.name),
            "no session in sessions/ uses {} (run sessions/record.sh)",
            m.name
        );
    }
    // At least one example carries a mid-run change, so replaying schedules is exercised.
    let changes = shipped()
        .iter()
        .flat_map(|f| session::load(f).unwrap().runs)
        .flat_map(|r| r.timeline)
        .filter(|t| matches!(t.event, TimelineEvent::Set { .. }))
        .count();
    assert!(changes > 0);
}

#[test]
fn shipped_sessions_replay_bit_for_bit() {
    let mut failures = Vec::new();
    for file in shipped() {
        let s = session::load(&file).unwrap();
        assert!(s.corpus.path.is_relative(), "{}", file.display());
        for (index, run) in s.runs.iter().enumerate() {
            assert_eq!(
                run.threads,
                1,
                "{}: examples are single-thread",
                file.display()
            );
            let report = replay(&s, &file, index, |_| {}).unwrap();
            assert!(report.judgement.exact);
            assert!(report.warnings.is_empty(), "{:?}", report.warnings);
            if !report.passed() {
                failures.push(format!(
                    "{} run {index}: {:?}",
                    file.display(),
                    report.judgement.curves
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "re-record with sessions/record.sh if the change was intended:\n{}",
        failures.join("\n")
    );
}
