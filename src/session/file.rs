//! Reading and writing session files: RON, atomic writes, located errors.

use std::path::Path;

use serde::Deserialize;

use super::{Session, VERSION};
use crate::{atomic, Error, Result};

/// Writes `session` to `path` atomically: a crash mid-save leaves the previous
/// file intact.
pub fn save(session: &Session, path: &Path) -> Result<()> {
    let text = to_string(session)?;
    atomic::write_bytes(path, text.as_bytes())
}

/// The RON text of a session. Deeply nested values (one metric point, one
/// timeline entry) stay on one line so the file reads as a table.
pub fn to_string(session: &Session) -> Result<String> {
    let pretty = ron::ser::PrettyConfig::new()
        .depth_limit(4)
        .struct_names(false);
    let mut text = ron::ser::to_string_pretty(session, pretty)
        .map_err(|e| Error::param("session", e.to_string()))?;
    text.push('\n');
    Ok(text)
}

/// Reads a session, with `file:line:column` on syntax errors and unknown
/// fields, and a clear message for a session from a newer version.
pub fn load(path: &Path) -> Result<Session> {
    crate::corpus::source::check_regular(path)?;
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    from_str(&text, path)
}

/// Parses session text; `path` names it in errors.
pub fn from_str(text: &str, path: &Path) -> Result<Session> {
    #[derive(Deserialize)]
    struct VersionOnly {
        version: u32,
    }
    if let Ok(v) = ron::from_str::<VersionOnly>(text) {
        if v.version > VERSION {
            return Err(Error::format(
                path,
                format!(
                    "session version {} is newer than this wordbench reads (up to {VERSION}); update wordbench",
                    v.version
                ),
            ));
        }
    }
    let mut session: Session = ron::from_str(text).map_err(|e| {
        let at = e.span.start;
        Error::parse(path, at.line, format!("column {}: {}", at.col, e.code))
    })?;
    for run in &mut session.runs {
        // Version 1 stored one corpus for the whole session.
        run.corpus.get_or_insert_with(|| session.corpus.clone());
    }
    session.number_runs();
    Ok(session)
}

#[cfg(test)]
pub(crate) mod tests {
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    use super::*;
    use crate::corpus::CorpusConfig;
    use crate::schema::Value;
    use crate::session::{CorpusRef, Outcome, Run, TimelineEntry, TimelineEvent};
    use crate::train::Progress;

    pub(crate) fn sample() -> Session {
        let mut params = BTreeMap::new();
        params.insert("dim".to_string(), Value::Int(50));
        params.insert("lr".to_string(), Value::Float(0.025));
        params.insert("weighting".to_string(), Value::Choice("harmonic".into()));
        params.insert("shrink".to_string(), Value::Bool(true));
        Session {
            version: VERSION,
            corpus: CorpusRef {
                path: PathBuf::from("../tests/fixtures/corpus/paragraphs.txt"),
                bytes: 120,
                hash: "0123456789abcdef".into(),
                config: CorpusConfig::default(),
            },
            datasets: vec![PathBuf::from("extra/sim.tsv")],
            studies: Vec::new(),
            projection: None,
            sweeps: Vec::new(),
            runs: vec![Run {
                number: 1,
                method: "sgns".into(),
                label: Some("baseline".into()),
                tags: vec!["tuned".into(), "w5".into()],
                params,
                seed: 7,
                threads: 1,
                corpus: Some(CorpusRef {
                    path: PathBuf::from("../tests/fixtures/corpus/other.txt"),
                    bytes: 99,
                    hash: "fedcba9876543210".into(),
                    config: CorpusConfig::default(),
                }),
                timeline: vec![
                    TimelineEntry {
                        step: 3,
                        event: TimelineEvent::Set {
                            name: "lr".into(),
                            value: Value::Float(0.01),
                        },
                    },
                    TimelineEntry {
                        step: 5,
                        event: TimelineEvent::Stop,
                    },
                ],
                metrics: (1..=5)
                    .map(|s| Progress {
                        step: s,
                        total_steps: 10,
                        loss: 1.0 / s as f64,
                        perplexity: (s == 5).then_some(12.5),
                        lr: 0.025,
                        ..Default::default()
                    })
                    .collect(),
                outcome: Outcome::Finished,
                evaluation: None,
                plots: Vec::new(),
                vectors: Some(PathBuf::from("v.txt")),
                kept: None,
                source: None,
                baseline: Some(crate::train::perplexity::Baseline {
                    words: 21_837,
                    unigram: Some(1_020.5),
                }),
            }],
        }
    }

    #[test]
    fn round_trip_is_lossless() {
        let s = sample();
        let text = to_string(&s).unwrap();
        if std::env::var_os("WB_SHOW_SESSION").is_some() {
            println!("{text}");
        }
        assert_eq!(from_str(&text, Path::new("s.ron")).unwrap(), s, "{text}");
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.ron");
        save(&s, &p).unwrap();
        assert_eq!(load(&p).unwrap(), s);
    }

    #[test]
    fn evaluation_results_round_trip_including_nan() {
        let mut s = sample();
        let text = r#"(similarity: [(dataset: "ws", spearman: 0.5, pearson: NaN, pairs: 3, found: 2)], analogy: None)"#;
        s.runs[0].evaluation = Some(ron::from_str(text).unwrap());
        let text = to_string(&s).unwrap();
        let back = from_str(&text, Path::new("s.ron")).unwrap();
        assert_eq!(to_string(&back).unwrap(), text);
        assert!(back.runs[0].evaluation.as_ref().unwrap().similarity[0]
            .pearson
            .is_nan());
    }

    #[test]
    fn syntax_errors_and_unknown_fields_are_located() {
        let text = to_string(&sample()).unwrap();
        let broken = text.replacen("seed: 7", "seed: seven", 1);
        let line = broken.lines().position(|l| l.contains("seven")).unwrap() + 1;
        let err = from_str(&broken, Path::new("s.ron"))
            .unwrap_err()
            .to_string();
        assert!(err.starts_with(&format!("s.ron:{line}: column ")), "{err}");
        let unknown = text.replacen("seed: 7", "sed: 7", 1);
        let err = from_str(&unknown, Path::new("s.ron"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("sed"), "{err}");
    }

    #[test]
    fn newer_versions_are_refused_clearly() {
        let text = to_string(&sample())
            .unwrap()
            .replacen("version: 5", "version: 9", 1);
        let err = from_str(&text, Path::new("s.ron")).unwrap_err().to_string();
        assert_eq!(err, "s.ron: session version 9 is newer than this wordbench reads (up to 5); update wordbench");
    }

    #[test]
    fn runs_keep_their_numbers_and_files_without_them_are_numbered_in_order() {
        let mut s = sample();
        let run = s.runs[0].clone();
        s.runs = [7, 0, 7, 2]
            .map(|n| Run {
                number: n,
                ..run.clone()
            })
            .to_vec();
        let back = from_str(&to_string(&s).unwrap(), Path::new("s.ron")).unwrap();
        let numbers: Vec<u32> = back.runs.iter().map(|r| r.number).collect();
        assert_eq!(
            numbers,
            [7, 8, 9, 2],
            "a duplicate or missing number takes the next free one"
        );
        assert_eq!(back.run_index(2), Some(3));
        assert_eq!(back.run_index(3), None);

        let old = to_string(&s)
            .unwrap()
            .replace("number: 7,", "")
            .replace("number: 2,", "")
            .replace("number: 0,", "");
        let back = from_str(&old, Path::new("s.ron")).unwrap();
        let numbers: Vec<u32> = back.runs.iter().map(|r| r.number).collect();
        assert_eq!(
            numbers,
            [1, 2, 3, 4],
            "a file from before run numbers reads as numbered by place"
        );

        let mut grown = back;
        grown.runs.remove(1);
        assert_eq!(grown.push_run(run), 5, "a number is never given twice");
    }

    #[test]
    fn version_1_runs_take_the_session_corpus() {
        let mut s = sample();
        s.version = 1;
        s.datasets.clear();
        s.runs[0].corpus = None;
        let text = to_string(&s).unwrap();
        assert!(!text.contains("datasets"), "{text}");
        let back = from_str(&text, Path::new("s.ron")).unwrap();
        assert_eq!(back.runs[0].corpus.as_ref(), Some(&s.corpus));
    }

    #[test]
    fn anchor_and_resolve_move_paths_between_the_session_folder_and_the_working_directory() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        std::fs::create_dir_all(&data).unwrap();
        std::fs::create_dir_all(dir.path().join("sessions")).unwrap();
        for f in ["c.txt", "v.txt", "sim.tsv"] {
            std::fs::write(data.join(f), "x").unwrap();
        }
        let file = dir.path().join("sessions/s.ron");
        let mut s = sample();
        s.corpus.path = data.join("c.txt");
        s.datasets = vec![data.join("sim.tsv")];
        s.runs[0].corpus.as_mut().unwrap().path = data.join("c.txt");
        s.runs[0].vectors = Some(data.join("v.txt"));
        let anchored = s.clone().anchor(&file);
        assert_eq!(anchored.corpus.path, PathBuf::from("../data/c.txt"));
        assert_eq!(anchored.datasets, vec![PathBuf::from("../data/sim.tsv")]);
        assert_eq!(
            anchored.runs[0].vectors,
            Some(PathBuf::from("../data/v.txt"))
        );
        let back = anchored.resolve(&file);
        let canon = |p: &Path| p.canonicalize().unwrap();
        assert_eq!(canon(&back.corpus.path), canon(&s.corpus.path));
        assert_eq!(
            canon(back.runs[0].vectors.as_ref().unwrap()),
            canon(&data.join("v.txt"))
        );
        assert_eq!(canon(&back.datasets[0]), canon(&data.join("sim.tsv")));
    }
}
