//! The example sessions in `sessions/` (one per method, recorded by
//! `sessions/record.sh` on the fixture corpus with one thread) replay bit for
//! bit: the same check as `wordbench replay FILE --check`, run by CI.

use std::path::{Path, PathBuf};

use wordbench::algo;
use wordbench::session::{self, replay, Run, TimelineEvent};

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

/// The start of the note a replay of `run` gives for each parameter that
/// the session does not name and whose schema declares an absent value.
fn absent_notes(run: &Run) -> Vec<String> {
    let method = algo::find(&run.method).unwrap();
    method
        .schema
        .iter()
        .filter(|spec| spec.absent.is_some() && !run.params.contains_key(spec.name))
        .map(|spec| {
            format!(
                "{} not in the session: {} used (",
                spec.name,
                spec.when_absent()
            )
        })
        .collect()
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
            // Only the notes of parameters the session predates, which
            // replay as the value the run behaved as (`ParamSpec::absent`).
            let unexpected: Vec<&String> = report
                .warnings
                .iter()
                .filter(|w| !absent_notes(run).iter().any(|n| w.starts_with(n)))
                .collect();
            assert!(unexpected.is_empty(), "{unexpected:?}");
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

/// `sessions/cbow.ron` was recorded before CBOW had `batch`: it names no
/// `batch`, reads as `batch=example` (word2vec.c's order, what it trained
/// with), replays bit for bit, and the replay says which value it used and
/// why. With the key set to `window` the same run trains other vectors.
#[test]
fn a_cbow_session_without_batch_replays_as_word2vec_c() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("sessions/cbow.ron");
    let s = session::load(&file).unwrap();
    let run = &s.runs[0];
    assert_eq!(run.method, "cbow");
    assert!(
        !run.params.contains_key("batch"),
        "recorded before the option"
    );
    let settings = run.settings(&file).unwrap();
    assert_eq!(settings.missing, ["batch"]);
    assert_eq!(settings.params.choice("batch"), "example");
    let report = replay(&s, &file, 0, |_| {}).unwrap();
    assert!(
        report.judgement.exact && report.passed(),
        "{:?}",
        report.judgement
    );
    assert_eq!(
        report.warnings,
        [
            "batch not in the session: example used (the session predates CBOW's batch option: \
          it trained as batch=example)"
        ]
    );
    assert_eq!(report.replayed.params["batch"].to_string(), "example");
    let mut windowed = s.clone();
    windowed.runs[0].params.insert(
        "batch".into(),
        wordbench::schema::Value::Choice("window".into()),
    );
    let other = replay(&windowed, &file, 0, |_| {}).unwrap();
    assert!(other.warnings.is_empty(), "{:?}", other.warnings);
    assert!(!other.passed(), "batch=window is another run");
}
