//! Session files end to end: record with `train --session-out`, replay with
//! `--check`, hand edits, corrupted files, and a kill during autosave.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common;
use wordbench::schema::Value;
use wordbench::session::{self, replay, Outcome};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn record(dir: &Path, algo: &str, extra: &[&str]) -> PathBuf {
    record_on(dir, algo, "1", extra)
}

/// Records a run of `algo` on `threads` threads.
fn record_on(dir: &Path, algo: &str, threads: &str, extra: &[&str]) -> PathBuf {
    let corpus = root().join("tests/fixtures/corpus/lee_background.txt");
    let s = dir.join(format!("{algo}.ron"));
    let v = dir.join(format!("{algo}.txt"));
    let mut args = vec![
        "train",
        corpus.to_str().unwrap(),
        "--algo",
        algo,
        "--dim",
        "16",
        "--threads",
        threads,
        "-q",
        "--out",
        v.to_str().unwrap(),
        "--session-out",
        s.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let out = common::wordbench(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    s
}

#[test]
fn recorded_single_thread_run_replays_bit_for_bit() {
    let dir = tempfile::tempdir().unwrap();
    let s = record(dir.path(), "sgns", &["--set", "epochs=2"]);
    let loaded = session::load(&s).unwrap();
    assert_eq!(loaded.runs.len(), 1);
    let run = &loaded.runs[0];
    assert_eq!(run.outcome, Outcome::Finished);
    assert_eq!(run.params["dim"], Value::Int(16));
    assert!(run.metrics.len() >= 2);
    let out = common::wordbench(&["replay", s.to_str().unwrap(), "--check"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("bit for bit") && stdout.contains("match"),
        "{stdout}"
    );
}

#[test]
fn two_thread_deterministic_runs_replay_bit_for_bit() {
    let dir = tempfile::tempdir().unwrap();
    let sgns = ["--set", "epochs=2", "--set", "schedule=deterministic"];
    let glove = ["--set", "epochs=3", "--set", "schedule=deterministic"];
    let mpnnlm = [
        "--set",
        "schedule=deterministic",
        "--set",
        "hidden=16",
        "--set",
        "sample=100",
        "--set",
        "step_tokens=20000",
        "--set",
        "max_ppl=1e9",
        "--set",
        "min_selections=50",
    ];
    for (algo, extra) in [("sgns", &sgns[..]), ("glove", &glove), ("mpnnlm", &mpnnlm)] {
        let s = record_on(dir.path(), algo, "2", extra);
        assert_eq!(session::load(&s).unwrap().runs[0].threads, 2);
        let out = common::wordbench(&["replay", s.to_str().unwrap(), "--check"]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{algo}: {stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            stdout.contains("match: identical to the recording (bit for bit)"),
            "{algo}: {stdout}"
        );
        assert!(!stdout.contains("cannot replay bit for bit"), "{stdout}");
    }
}

#[test]
fn a_racing_run_is_judged_by_its_final_values() {
    // The tolerances are measured on text8-head. On this small fixture a
    // 3-epoch Hogwild run races far more (its final loss was seen 33% apart
    // from its replay), so the verdict itself is not asserted here, only
    // that the run is judged by its final values and that the judgement,
    // the table and the exit status agree.
    let dir = tempfile::tempdir().unwrap();
    let s = record_on(
        dir.path(),
        "sgns",
        "2",
        &["--set", "epochs=3", "--set", "schedule=hogwild", "--eval"],
    );
    let loaded = session::load(&s).unwrap();
    assert!(loaded.runs[0].evaluation.is_some());
    assert!(!loaded.runs[0].bit_for_bit());
    let report = replay(&loaded, &s, 0, |_| {}).unwrap();
    let j = &report.judgement;
    assert!(!j.exact);
    let metrics: Vec<&str> = j.finals.iter().map(|f| f.metric.as_str()).collect();
    assert_eq!(
        metrics,
        [
            "loss",
            "perplexity",
            "wordsim353",
            "simlex999",
            "questions-words"
        ]
    );
    assert_eq!(
        report.passed(),
        j.ended_alike() && (j.curves_identical() || j.finals.iter().all(|f| f.within())),
        "{:?}",
        j.finals
    );
    let out = common::wordbench(&["replay", s.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("judged by its final values"), "{stdout}");
    assert!(stdout.contains("final value"), "{stdout}");
    // A final value far outside its tolerance fails the check.
    let mut edited = loaded.clone();
    let last = edited.runs[0].metrics.last_mut().unwrap();
    last.loss *= 10.0;
    session::save(&edited, &s).unwrap();
    let out = common::wordbench(&["replay", s.to_str().unwrap(), "--check"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{stdout}");
    assert!(stdout.contains("DIFFERENT: final loss"), "{stdout}");
}

#[test]
fn hand_edited_learning_rate_is_used_by_the_replay() {
    let dir = tempfile::tempdir().unwrap();
    let s = record(dir.path(), "sgns", &["--set", "epochs=1"]);
    let text = std::fs::read_to_string(&s).unwrap();
    assert!(text.contains("\"lr\": 0.025"), "{text}");
    std::fs::write(&s, text.replace("\"lr\": 0.025", "\"lr\": 0.04")).unwrap();
    let edited = session::load(&s).unwrap();
    let report = replay(&edited, &s, 0, |_| {}).unwrap();
    assert_eq!(report.replayed.metrics[0].lr, 0.04);
    assert!(
        !report.passed(),
        "the curves must differ from the recording"
    );
    let out = common::wordbench(&["replay", s.to_str().unwrap(), "--check"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("DIFFERENT"));
}

#[test]
fn corrupted_and_missing_inputs_give_located_errors() {
    let dir = tempfile::tempdir().unwrap();
    let s = record(dir.path(), "sgns", &["--set", "epochs=1"]);
    let text = std::fs::read_to_string(&s).unwrap();
    let bad = dir.path().join("bad.ron");
    std::fs::write(&bad, text.replacen("threads: 1", "threads: one", 1)).unwrap();
    let line = text.lines().position(|l| l.contains("threads: 1")).unwrap() + 1;
    let out = common::wordbench(&["replay", bad.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains(&format!("bad.ron:{line}: column")), "{err}");
    // A session whose corpus is gone says so.
    let moved = dir.path().join("elsewhere");
    std::fs::create_dir(&moved).unwrap();
    let loaded = session::load(&s).unwrap();
    let mut lost = loaded.clone();
    lost.corpus.path = PathBuf::from("no/such/corpus.txt");
    for run in &mut lost.runs {
        run.corpus.as_mut().unwrap().path = PathBuf::from("no/such/corpus.txt");
    }
    session::save(&lost, &moved.join("lost.ron")).unwrap();
    let out = common::wordbench(&["replay", moved.join("lost.ron").to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("corpus no/such/corpus.txt not found"), "{err}");
}

#[test]
fn killing_during_autosave_leaves_a_loadable_session() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = root().join("assets/corpora/text8-head.txt.gz");
    let s = dir.path().join("live.ron");
    let mut child = Command::new(env!("CARGO_BIN_EXE_wordbench"))
        .args([
            "train",
            corpus.to_str().unwrap(),
            "--algo",
            "sgns",
            "--dim",
            "20",
            "--threads",
            "1",
            "-q",
        ])
        .args(["--set", "epochs=20", "--autosave-secs", "0"])
        .arg("--out")
        .arg(dir.path().join("v.txt"))
        .arg("--session-out")
        .arg(&s)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let mut kills = 0;
    while start.elapsed() < Duration::from_secs(120) {
        if s.exists() {
            let loaded = session::load(&s).unwrap();
            if loaded.runs.first().is_some_and(|r| r.metrics.len() >= 3) {
                // Autosaving after every progress message: a kill now lands mid-save more often than not.
                std::thread::sleep(Duration::from_millis(37));
                child.kill().unwrap();
                kills += 1;
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.wait();
    assert_eq!(kills, 1, "the training never autosaved");
    let loaded = session::load(&s).expect("the last good session survives a kill");
    assert_eq!(loaded.runs[0].outcome, Outcome::Running);
    assert!(loaded.runs[0].metrics.len() >= 3);
}

#[test]
fn runs_are_numbered_from_one_and_out_keeps_the_replayed_vectors() {
    let dir = tempfile::tempdir().unwrap();
    let s = record(dir.path(), "sgns", &["--set", "epochs=1"]);
    let file = s.to_str().unwrap();
    let out = common::wordbench(&["replay", file, "--run", "0"]);
    assert!(!out.status.success());
    let out = common::wordbench(&["replay", file, "--run", "2"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("--run 2:") && err.contains("has runs 1"),
        "{err}"
    );
    let kept = dir.path().join("replayed");
    let out = common::wordbench(&[
        "replay",
        file,
        "--run",
        "1",
        "--out",
        kept.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.starts_with("replaying 1 of 1 run(s) of ")
            && stdout.contains("--check makes them fail"),
        "{stdout}"
    );
    assert!(stdout.contains("run 1: sgns on "), "{stdout}");
    let replayed = wordbench::embedding::Embedding::load(kept.join("run1-sgns.txt")).unwrap();
    let original = wordbench::embedding::Embedding::load(dir.path().join("sgns.txt")).unwrap();
    assert_eq!(replayed.len(), original.len());
    assert_eq!(
        replayed.vectors(),
        original.vectors(),
        "one thread: the same vectors"
    );
}

#[test]
fn an_interrupted_run_replays_up_to_its_last_recorded_step() {
    let dir = tempfile::tempdir().unwrap();
    let s = record(dir.path(), "glove", &["--set", "epochs=6"]);
    let mut cut = session::load(&s).unwrap();
    let run = &mut cut.runs[0];
    assert!(run.metrics.len() >= 6, "{}", run.metrics.len());
    // As an autosave taken at step 3 of a run the program never finished.
    run.metrics.truncate(3);
    run.outcome = Outcome::Running;
    run.evaluation = None;
    session::save(&cut, &s).unwrap();
    let out = common::wordbench(&["replay", s.to_str().unwrap(), "--check"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("ended alike: interrupted after step 3"),
        "{stdout}"
    );
    // A recorded ending the replay cannot meet is a difference.
    let mut wrong = session::load(&s).unwrap();
    wrong.runs[0].outcome = Outcome::Finished;
    session::save(&wrong, &s).unwrap();
    let out = common::wordbench(&["replay", s.to_str().unwrap(), "--check"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success());
    assert!(stdout.contains("ended differently"), "{stdout}");
}

#[test]
fn a_refused_value_names_the_file_and_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let s = record(dir.path(), "sgns", &["--set", "epochs=1"]);
    let text = std::fs::read_to_string(&s).unwrap();
    std::fs::write(&s, text.replace("\"dim\": 16", "\"dim\": -3")).unwrap();
    let out = common::wordbench(&["replay", s.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("sgns.ron: run 1 (sgns): invalid value for dim"),
        "{err}"
    );
    // The workbench reads the same values through the same path.
    let loaded = session::load(&s).unwrap();
    let settings = loaded.runs[0].settings(&s).unwrap();
    assert_eq!(
        settings.refused().unwrap().to_string(),
        err.trim().trim_start_matches("wordbench: ")
    );
}

/// A recorded mid-run change this build would refuse (not a finite value,
/// an unknown or not-live name) is not skipped: the replay refuses the run,
/// naming the session file, the run and the timeline entry, like a refused
/// `--change` flag.
#[test]
fn an_invalid_recorded_change_is_refused_not_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(root().join("sessions/sgns.ron")).unwrap();
    let good = "(step: 3, event: Set(name: \"lr\", value: 0.01)),";
    assert!(text.contains(good));
    let s = dir.path().join("s.ron");
    for (entry, why) in [
        ("Set(name: \"lr\", value: NaN)", "invalid value for lr"),
        ("Set(name: \"lr\", value: 1e300)", "invalid value for lr"),
        (
            "Set(name: \"nope\", value: 1)",
            "sgns has no such hyperparameter",
        ),
        (
            "Set(name: \"dim\", value: 8)",
            "cannot change during a sgns run",
        ),
    ] {
        let bad = format!("(step: 3, event: {entry}),");
        std::fs::write(&s, text.replace(good, &bad)).unwrap();
        let loaded = session::load(&s).unwrap();
        let settings = loaded.runs[0].settings(&s).unwrap();
        let refused = settings.refused().expect(entry).to_string();
        assert!(
            refused.starts_with(&format!(
                "{}: run 1 (sgns): timeline entry 1 (step 3): ",
                s.display()
            )) && refused.contains(why),
            "{entry}: {refused}"
        );
        let out = common::wordbench(&["replay", s.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(why), "{entry}: {err}");
    }
}

#[test]
fn train_session_out_keeps_the_vectors_and_file_hash_n_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let s = record(dir.path(), "sgns", &["--set", "epochs=1"]);
    let saved = session::load(&s).unwrap();
    let kept = saved.runs[0].kept.as_ref().expect("kept vectors");
    assert!(kept.file.starts_with("sgns.vectors"), "{:?}", kept.file);
    // The exported file and the kept one hold the same vectors.
    let exported = wordbench::embedding::Embedding::load(dir.path().join("sgns.txt")).unwrap();
    let spec = format!("{}#1", s.display());
    let out = common::wordbench(&["eval", &spec, "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let from_session = wordbench::session::store::run_vectors(&s, 1).unwrap();
    assert_eq!(from_session.words().len(), exported.words().len());
    let close = from_session
        .vectors()
        .iter()
        .zip(exported.vectors().iter())
        .all(|(a, b)| (a - b).abs() <= 1e-6 * a.abs().max(1.0));
    assert!(close, "the text export rounds; the kept file is exact");
    let out = common::wordbench(&["neighbors", &format!("{}#2", s.display()), "the"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the session has runs 1"), "{err}");
}

/// A corpus-sized default (PSDVec's `core`: half the vocabulary, at most
/// 25,000) is recorded as the value it took on the run's corpus, and the
/// replay uses that value.
#[test]
fn a_corpus_sized_default_is_recorded_as_its_value_and_replays() {
    let dir = tempfile::tempdir().unwrap();
    let s = record(
        dir.path(),
        "psdvec",
        &["--set", "block_words=500", "--set", "ppl_tokens=100"],
    );
    let loaded = session::load(&s).unwrap();
    let corpus = root().join("tests/fixtures/corpus/lee_background.txt");
    let vocab = wordbench::corpus::Corpus::open_for_training(&corpus, loaded.corpus.config)
        .unwrap()
        .vocab()
        .len();
    assert!(vocab > 100 && vocab < 50_000, "{vocab}");
    let core = (vocab as f64 / 2.0).round() as i64;
    assert_eq!(loaded.runs[0].params["core"], Value::Int(core));
    let out = common::wordbench(&["replay", s.to_str().unwrap(), "--check"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("bit for bit"),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!stdout.contains("not in the session"), "{stdout}");
}

/// `wordbench sweep` over the fixture corpus into `dir`, with `extra` flags.
fn sweep(dir: &Path, extra: &[&str]) -> Output {
    let corpus = root().join("tests/fixtures/corpus/lee_background.txt");
    let mut args = vec![
        "sweep",
        corpus.to_str().unwrap(),
        "--algo",
        "sgns",
        "--set",
        "dim=16",
        "--set",
        "epochs=3",
        "-q",
        "--out",
        dir.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    common::wordbench(&args)
}

#[test]
fn a_sweep_writes_its_table_and_a_session_whose_runs_replay_bit_for_bit() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("sw");
    let grid = [
        "--grid",
        "window=2,5",
        "--grid",
        "negative=2,5",
        "--metric",
        "ws353",
    ];
    let out = sweep(&dir, &grid);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.lines().nth(1).unwrap().starts_with('*'),
        "best marked first:\n{table}"
    );
    let csv = std::fs::read_to_string(dir.join("sweep.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert!(lines[0]
        .starts_with("run,status,window,negative,loss,perplexity,wordsim353,simlex999,analogy"));
    assert_eq!(&lines[1][..17], "1,finished,2,2,2.", "{csv}");
    assert_eq!(lines.len(), 5, "{csv}");
    for name in ["window", "negative"] {
        let svg = std::fs::read_to_string(dir.join(format!("sweep-{name}.svg"))).unwrap();
        assert!(
            svg.contains(&format!("wordsim353 by {name}")) && svg.contains("#4"),
            "{name}"
        );
    }
    let s = session::load(&dir.join("sweep.ron")).unwrap();
    assert_eq!(s.sweeps.len(), 1);
    assert_eq!(s.sweeps[0].runs, [1, 2, 3, 4]);
    for (run, (w, n)) in s.runs.iter().zip([(2, 2), (2, 5), (5, 2), (5, 5)]) {
        assert_eq!(run.params["window"], Value::Int(w));
        assert_eq!(run.params["negative"], Value::Int(n));
        assert_eq!(run.tags, ["sweep-1"]);
        assert_eq!(
            run.label.as_deref(),
            Some(format!("window={w} negative={n}").as_str())
        );
        assert!(run.kept.is_some() && run.evaluation.is_some());
    }
    // The table read back from the session is the one printed.
    let rows =
        wordbench::sweep::table::rows(&s.sweeps[0], &s.clone().resolve(&dir.join("sweep.ron")));
    assert_eq!(wordbench::sweep::table::csv(&s.sweeps[0].names, &rows), csv);
    let replayed =
        common::wordbench(&["replay", dir.join("sweep.ron").to_str().unwrap(), "--check"]);
    let text = String::from_utf8_lossy(&replayed.stdout);
    assert!(replayed.status.success(), "{text}");
    assert_eq!(
        text.matches("identical to the recording (bit for bit)")
            .count(),
        4,
        "{text}"
    );
    // A second sweep into the same folder is refused; nothing there changes.
    let again = sweep(&dir, &grid);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("already holds a sweep"));
    assert_eq!(std::fs::read_to_string(dir.join("sweep.csv")).unwrap(), csv);
}

#[test]
fn pruning_stops_the_same_runs_at_the_same_steps_one_or_two_at_a_time() {
    let tmp = tempfile::tempdir().unwrap();
    let flags = |p: &'static str| {
        [
            "--grid",
            "window=1,3,6",
            "--grid",
            "lr=0.01,0.05",
            "--prune",
            "3",
            "--metric",
            "perplexity",
            "--parallel",
            p,
        ]
    };
    let mut tables = Vec::new();
    for p in ["1", "2"] {
        let dir = tmp.path().join(p);
        let out = sweep(&dir, &flags(p));
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let s = session::load(&dir.join("sweep.ron")).unwrap();
        let pruned = pruned_runs(&s);
        assert!(!pruned.is_empty(), "six runs at eta 3 prune some");
        assert!(
            pruned.iter().all(|(_, step)| *step == Some(1)),
            "{pruned:?}"
        );
        tables.push(std::fs::read_to_string(dir.join("sweep.csv")).unwrap());
    }
    let drop_time = |t: &str| -> Vec<String> {
        t.lines()
            .map(|l| l.rsplit_once(',').unwrap().0.to_string())
            .collect()
    };
    assert_eq!(drop_time(&tables[0]), drop_time(&tables[1]));
}

#[test]
fn runs_that_differ_only_in_trainer_settings_share_one_count() {
    use std::sync::Arc;
    use wordbench::cooc::CountCache;
    use wordbench::sweep::{self, spec, Update};
    let tmp = tempfile::tempdir().unwrap();
    let method = wordbench::algo::find("svd").unwrap();
    let plan = svd_plan(
        &["power=0,0.5,1", "cds=0.75,1"],
        &[("dim", "8")],
        tmp.path(),
    );
    let mut ended = 0;
    let summary = sweep::run(&plan, Arc::new(CountCache::default()), |u| {
        if let Update::Ended(o) = u {
            assert_eq!(o.status, sweep::Status::Finished, "{:?}", o.status);
            ended += 1;
        }
    })
    .unwrap();
    assert_eq!(ended, 6);
    assert_eq!(
        (summary.counted, summary.corpora, summary.factored),
        (1, 1, 2),
        "six runs, one count, an SVD per cds (power only weights its vectors)"
    );
    // A corpus option swept reads the corpus again per value (and counts again).
    let mut plan = plan;
    plan.spec.grid = vec![spec::parse_grid(method, "min_count=2,3").unwrap()];
    plan.trials = sweep::expand(&plan.spec, method).unwrap();
    let summary = sweep::run(&plan, Arc::new(CountCache::default()), |_| {}).unwrap();
    assert_eq!((summary.counted, summary.corpora), (2, 2));
}

/// The runs a sweep's session tags `pruned`, by number, with the step each stopped at.
fn pruned_runs(s: &wordbench::session::Session) -> Vec<(u32, Option<u64>)> {
    s.runs
        .iter()
        .filter(|r| r.tags.iter().any(|t| t == "pruned"))
        .map(|r| (r.number, r.stop_step()))
        .collect()
}

/// An SVD sweep over the `grids` on the Lee fixture, two runs at once, with
/// `fixed` settings, saving into `session`.
fn svd_plan(grids: &[&str], fixed: &[(&str, &str)], session: &Path) -> wordbench::sweep::Plan {
    use wordbench::corpus::options::OPTIONS;
    use wordbench::schema::Params;
    use wordbench::sweep::{self, spec, Metric, Plan, SweepSpec};
    let method = wordbench::algo::find("svd").unwrap();
    let spec = SweepSpec {
        fixed: fixed
            .iter()
            .map(|&(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        grid: grids
            .iter()
            .map(|g| spec::parse_grid(method, g).unwrap())
            .collect(),
        parallel: 2,
        ..SweepSpec::new("svd", Metric::Loss)
    };
    Plan {
        trials: sweep::expand(&spec, method).unwrap(),
        spec,
        method,
        corpus: root().join("tests/fixtures/corpus/lee_background.txt"),
        corpus_options: Params::defaults(OPTIONS),
        session_file: session.join("s.ron"),
        eval: Default::default(),
    }
}

/// Runs [`svd_plan`] over one grid axis: the summary and the runs in trial
/// order.
fn svd_sweep(
    grid: &str,
    fixed: &[(&str, &str)],
    session: &Path,
) -> (wordbench::sweep::Summary, Vec<wordbench::sweep::Outcome>) {
    use std::sync::Arc;
    use wordbench::cooc::CountCache;
    use wordbench::sweep::{self, Update};
    let plan = svd_plan(&[grid], fixed, session);
    let mut ended = Vec::new();
    let summary = sweep::run(&plan, Arc::new(CountCache::default()), |u| {
        if let Update::Ended(o) = u {
            ended.push(*o);
        }
    })
    .unwrap();
    ended.sort_by_key(|o| o.index);
    (summary, ended)
}

fn losses(o: &wordbench::sweep::Outcome) -> Vec<f64> {
    let run = o.run.as_ref().unwrap();
    run.metrics.iter().map(|p| p.loss).collect()
}

fn vectors(o: &wordbench::sweep::Outcome) -> ndarray::Array2<f32> {
    o.embedding.as_ref().unwrap().vectors().to_owned()
}

#[test]
fn a_power_sweep_factorises_once_and_each_run_equals_its_own_training() {
    let tmp = tempfile::tempdir().unwrap();
    let dim = [("dim", "8")];
    let (summary, shared) = svd_sweep("power=0,0.5,1", &dim, tmp.path());
    assert_eq!(
        (summary.counted, summary.transformed, summary.factored),
        (1, 1, 1),
        "three runs, one SVD"
    );
    for (o, power) in shared.iter().zip(["0", "0.5", "1"]) {
        let (alone, own) = svd_sweep(&format!("power={power}"), &dim, tmp.path());
        assert_eq!(alone.factored, 1);
        assert_eq!(
            vectors(o),
            vectors(&own[0]),
            "power {power}: the same vectors"
        );
        assert_eq!(losses(o), losses(&own[0]), "power {power}: the same curve");
    }
    // The weighting differs: U, then U Sigma^0.5.
    assert_ne!(vectors(&shared[0]), vectors(&shared[1]));
}

#[test]
fn a_dim_sweep_transforms_once_and_each_run_equals_its_own_training() {
    let tmp = tempfile::tempdir().unwrap();
    let (summary, shared) = svd_sweep("dim=4,8,12", &[], tmp.path());
    assert_eq!(
        (summary.counted, summary.transformed, summary.factored),
        (1, 1, 3),
        "three runs, one PPMI matrix, three solves"
    );
    for (o, dim) in shared.iter().zip([4, 8, 12]) {
        let (alone, own) = svd_sweep(&format!("dim={dim}"), &[], tmp.path());
        assert_eq!(alone.transformed, 1);
        assert_eq!(vectors(o).ncols(), dim);
        assert_eq!(vectors(o), vectors(&own[0]), "dim {dim}: the same vectors");
        assert_eq!(losses(o), losses(&own[0]), "dim {dim}: the same curve");
    }
    // Another transform is another matrix.
    let (summary, _) = svd_sweep("cds=0.75,1", &[("dim", "8")], tmp.path());
    assert_eq!((summary.transformed, summary.factored), (2, 2));
}

#[test]
fn pruning_on_a_similarity_set_scores_the_vectors_at_each_rung() {
    let tmp = tempfile::tempdir().unwrap();
    let set = root().join("tests/fixtures/eval/similarity.tsv");
    let set = set.to_str().unwrap();
    let flags = |on: &'static str| {
        vec![
            "--grid",
            "window=1,3,6",
            "--grid",
            "lr=0.01,0.05",
            "--prune",
            "3",
            "--prune-on",
            on,
            "--similarity",
            set,
            "--metric",
            "similarity",
        ]
    };
    let refused = sweep(&tmp.path().join("bad"), &flags("rw"));
    assert!(!refused.status.success());
    let e = String::from_utf8_lossy(&refused.stderr);
    assert!(e.contains("--prune-on") && e.contains("rw"), "{e}");
    let dir = tmp.path().join("ok");
    let out = sweep(&dir, &flags("similarity"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("on similarity"), "{err}");
    let s = session::load(&dir.join("sweep.ron")).unwrap();
    let prune = s.sweeps[0].spec.prune.as_ref().unwrap();
    assert_eq!(
        prune.on,
        Some(wordbench::sweep::Metric::Similarity("similarity".into()))
    );
    let pruned = pruned_runs(&s);
    assert!(!pruned.is_empty(), "six runs at eta 3 prune some");
    assert!(
        pruned.iter().all(|(_, step)| *step == Some(1)),
        "{pruned:?}"
    );
}
