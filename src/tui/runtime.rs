//! Carries out [`Effect`]s on background threads and sends the answers back
//! as [`Msg`]s on one channel, which the event loop (or a test) waits on.
//!
//! Training jobs keep their own event channel (bounded, `try_send` for
//! progress, so the trainer never waits for the interface); a forwarding
//! thread moves their events onto the message channel. A worker that panics
//! becomes a message instead of a dead interface.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use crossbeam_channel::{bounded, Receiver, Sender};

use super::msg::{
    Effect, Found, LoadedSession, Msg, OpenedCorpus, Query, Ranking, SaveFailure, SessionLoadError,
};
use super::project_worker::{self, ensure_parent};
use crate::classify::study::{Outcome, Study};
use crate::corpus::CorpusConfig;
use crate::embedding::{Combine, Embedding, NeighborParams};
use crate::session::guard::{Expect, Fingerprint};
use crate::session::{self, corpus_ref::CorpusCheck, CorpusRef, KeptVectors, Session};
use crate::tui::model::cancel::CancelFlag;
use crate::tui::model::neighbors::SenseNeighbors;

/// Hashes the corpus file for the session record.
fn reference(path: &Path, config: CorpusConfig) -> Result<CorpusRef, String> {
    CorpusRef::of(path, config).map_err(|e| e.to_string())
}
use crate::train::Job;

/// Messages waiting for the interface before workers block.
const CAPACITY: usize = 1024;

/// The effect runner.
pub struct Runtime {
    tx: Sender<Msg>,
    rx: Receiver<Msg>,
    jobs: HashMap<usize, Job>,
}

impl Default for Runtime {
    fn default() -> Self {
        Runtime::new()
    }
}

impl Runtime {
    /// A runtime with no job.
    pub fn new() -> Self {
        let (tx, rx) = bounded(CAPACITY);
        Runtime {
            tx,
            rx,
            jobs: HashMap::new(),
        }
    }

    /// Where the answers arrive.
    pub fn receiver(&self) -> &Receiver<Msg> {
        &self.rx
    }

    /// Runs effects; returns true when one of them asks to quit.
    pub fn execute_all(&mut self, effects: Vec<Effect>) -> bool {
        let mut quit = false;
        for e in effects {
            quit |= self.execute(e);
        }
        quit
    }

    /// Runs one effect; returns true when it asks to quit.
    pub fn execute(&mut self, effect: Effect) -> bool {
        match effect {
            Effect::LoadCorpus {
                request,
                path,
                config,
                stop,
            } => self.spawn("corpus", move || Msg::CorpusLoaded {
                request,
                result: open_corpus(&path, config, &stop),
            }),
            Effect::StartJob {
                run,
                method,
                input,
                config,
            } => {
                let job = Job::spawn(method, input, config);
                let events = job.events().clone();
                let tx = self.tx.clone();
                let forward = move || {
                    for event in events.iter() {
                        if tx.send(Msg::Job { run, event }).is_err() {
                            return;
                        }
                    }
                    let _ = tx.send(Msg::JobEnded { run });
                };
                if let Err(e) = std::thread::Builder::new()
                    .name(format!("events-{run}"))
                    .spawn(forward)
                {
                    let _ = self.tx.send(Msg::WorkerPanicked(e.to_string()));
                }
                self.jobs.insert(run, job);
            }
            Effect::JobCommand { run, command } => {
                if let Some(job) = self.jobs.get(&run) {
                    job.send(command);
                }
            }
            Effect::Neighbors {
                request,
                slot,
                embedding,
                query,
                combine,
                ranking,
                k,
            } => self.spawn("neighbors", move || Msg::Neighbors {
                request,
                slot,
                result: search(&embedding, &query, combine, ranking, k),
            }),
            Effect::Evaluate {
                run,
                embedding,
                plan,
            } => self.spawn("evaluate", move || Msg::Evaluated {
                run,
                result: plan.run(&embedding).map_err(|e| e.to_string()),
            }),
            Effect::ScoreRung {
                run,
                rung,
                words,
                index,
                set,
            } => self.spawn("evaluate", move || Msg::RungScored {
                run,
                rung,
                value: crate::sweep::run::early_score(&index, &words, &set),
            }),
            Effect::ExportVectors {
                run,
                embedding,
                path,
                format,
            } => self.spawn("export", move || Msg::Exported {
                run,
                result: ensure_parent(&path)
                    .and_then(|()| embedding.save(&path, format))
                    .map_err(|e| e.to_string()),
                path,
            }),
            Effect::ExportChart {
                chart,
                path,
                format,
            } => self.spawn("export", move || Msg::ChartExported {
                result: ensure_parent(&path)
                    .and_then(|()| crate::sweep::chart::save(&path, &chart.chart(), format))
                    .map_err(|e| e.to_string()),
                path,
            }),
            Effect::SaveSession {
                path,
                session,
                keep,
                autosave,
                expect,
            } => self.spawn("session-save", move || {
                let (result, kept) = save_session(*session, &path, &expect, keep);
                Msg::SessionSaved {
                    result,
                    kept,
                    path,
                    autosave,
                }
            }),
            Effect::LoadSession { path } => {
                self.spawn("session-load", move || Msg::SessionLoaded {
                    result: Box::new(load_session(&path)),
                    path,
                })
            }
            Effect::Classify {
                request,
                study,
                threads,
            } => self.spawn("classify", move || Msg::Classified {
                request,
                result: classify(&study, threads),
            }),
            Effect::LoadKept { run, kept } => {
                self.spawn("kept-vectors", move || Msg::VectorsLoaded {
                    run,
                    result: session::store::read(&kept)
                        .map(Arc::new)
                        .map_err(|e| e.to_string()),
                })
            }
            Effect::LoadVectors { run, path } => {
                self.spawn("vectors", move || Msg::VectorsLoaded {
                    run,
                    result: Embedding::load(&path)
                        .map(Arc::new)
                        .map_err(|e| e.to_string()),
                })
            }
            Effect::ImportVectors {
                run,
                path,
                limit,
                recorded,
                progress,
            } => self.spawn("import", move || Msg::VectorsImported {
                run,
                result: import_vectors(&path, limit, recorded.as_ref(), &progress)
                    .map_err(|e| e.to_string()),
                progress,
            }),
            Effect::Projection(job) => {
                let tx = self.tx.clone();
                self.spawn("projection", move || {
                    Msg::Projection(project_worker::run(*job, &|r| {
                        let _ = tx.try_send(Msg::Projection(r));
                    }))
                })
            }
            Effect::Quit => {
                self.shutdown();
                return true;
            }
        }
        false
    }

    /// Stops every job (each keeps running until its next step boundary).
    pub fn shutdown(&mut self) {
        self.jobs.clear();
    }

    fn spawn(&self, name: &str, work: impl FnOnce() -> Msg + Send + 'static) {
        let tx = self.tx.clone();
        let spawned = std::thread::Builder::new()
            .name(format!("tui-{name}"))
            .spawn(move || {
                let msg = catch_unwind(AssertUnwindSafe(work))
                    .unwrap_or_else(|p| Msg::WorkerPanicked(panic_message(&p)));
                let _ = tx.send(msg);
            });
        if let Err(e) = spawned {
            let _ = self.tx.send(Msg::WorkerPanicked(e.to_string()));
        }
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// The text of a panic payload.
pub fn panic_message(payload: &Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a worker panicked".into())
}

fn open_corpus(
    path: &Path,
    config: CorpusConfig,
    stop: &CancelFlag,
) -> Result<OpenedCorpus, String> {
    let t = Instant::now();
    let corpus = crate::counts::open_for_training_until(path, config, stop.flag())
        .map_err(|e| e.to_string())?;
    Ok(OpenedCorpus {
        reference: reference(path, *corpus.config())?,
        corpus: Arc::new(corpus),
        seconds: t.elapsed().as_secs_f64(),
    })
}

fn strs(words: &[String]) -> Vec<&str> {
    words.iter().map(String::as_str).collect()
}

fn search(
    embedding: &Embedding,
    query: &Query,
    combine: Combine,
    ranking: Ranking,
    k: usize,
) -> Result<Found, String> {
    let params = NeighborParams::k(k);
    match query {
        Query::Word(w) if ranking == Ranking::Walk => walk_neighbors(embedding, w, k),
        Query::Word(w) if embedding.id(w).is_none() => {
            let Some(v) = embedding.subword_vector(w) else {
                return Err(crate::Error::UnknownWord(w.clone()).to_string());
            };
            return Ok(Found {
                neighbors: embedding
                    .neighbors_of_vector(v.view(), params, &[])
                    .map_err(|e| e.to_string())?,
                senses: Vec::new(),
                note: Some(format!(
                    "'{w}' (from subwords): not in the vocabulary; its vector is the mean of its fastText n-gram vectors"
                )),
            });
        }
        Query::Word(w) => {
            let mut found: Found = embedding
                .neighbors(w, params)
                .map_err(|e| e.to_string())?
                .into();
            found.senses = sense_neighbors(embedding, w, params)?;
            return Ok(found);
        }
        Query::InContext { word, context } => return in_context(embedding, word, context, params),
        Query::Analogy(a, b, c) => embedding.most_similar(&[b, c], &[a], combine, params),
        Query::Similar { positive, negative } => {
            embedding.most_similar(&strs(positive), &strs(negative), combine, params)
        }
        Query::OddOneOut(words) => embedding.doesnt_match(&strs(words)),
    }
    .map(Found::from)
    .map_err(|e| e.to_string())
}

/// Each sense of `word` with its neighbours, when the vectors have senses.
fn sense_neighbors(
    embedding: &Embedding,
    word: &str,
    params: NeighborParams,
) -> Result<Vec<SenseNeighbors>, String> {
    let Some(table) = embedding.senses() else {
        return Ok(Vec::new());
    };
    table
        .of(word)
        .into_iter()
        .map(|s| {
            Ok(SenseNeighbors {
                name: s.name.clone(),
                label: s.label(SENSE_LABEL_WORDS),
                mass: s.mass,
                neighbors: embedding
                    .neighbors(&s.name, params)
                    .map_err(|e| e.to_string())?,
            })
        })
        .collect()
}

/// Context words that label a sense on the screen.
const SENSE_LABEL_WORDS: usize = 5;

/// The sense of `word` that `context` picks (Soleimani's induction), and its
/// neighbours.
fn in_context(
    embedding: &Embedding,
    word: &str,
    context: &str,
    params: NeighborParams,
) -> Result<Found, String> {
    let no_senses = || format!("'{word}' has no senses in this run (train one with --algo senses)");
    let table = embedding.senses().ok_or_else(no_senses)?;
    let induction = table.induce(word, context).ok_or_else(no_senses)?;
    let senses = table.of(word);
    let cut = if table.is_whole() {
        ""
    } else {
        " (this inventory keeps only each sense's strongest context words: train again for the whole sense vectors)"
    };
    let Some(best) = induction.best else {
        return Err(format!(
            "no sense of '{word}' picked: no word of the context supports one (every score is 0){cut}"
        ));
    };
    let picked = senses[best];
    let scores: Vec<String> = induction.scores.iter().map(|s| format!("{s:.2}")).collect();
    let why = format!(
        "cosines {} over {} matched context word(s){cut}",
        scores.join(" / "),
        induction.matched
    );
    let neighbors = embedding
        .neighbors(&picked.name, params)
        .map_err(|e| e.to_string())?;
    Ok(Found {
        neighbors,
        senses: Vec::new(),
        note: Some(format!(
            "{} ({}) picked: {why}",
            picked.name,
            picked.label(SENSE_LABEL_WORDS)
        )),
    })
}

/// A word's neighbours by a dsnmf model's Ŝ walk, scored by their walk
/// probability; vectors that are not rows of such a model say so.
fn walk_neighbors(
    embedding: &Embedding,
    word: &str,
    k: usize,
) -> crate::Result<Vec<crate::embedding::Neighbor>> {
    let id = embedding
        .id(word)
        .ok_or_else(|| crate::Error::param("word", format!("'{word}' is not in the vocabulary")))?;
    let ranked = crate::algo::dsnmf::walk::walk_neighbors(embedding, id, k)?;
    Ok(ranked
        .into_iter()
        .map(|(j, p)| crate::embedding::Neighbor {
            word: embedding.words().word(j).to_string(),
            id: j,
            score: p as f32,
        })
        .collect())
}

fn load_session(path: &Path) -> Result<LoadedSession, SessionLoadError> {
    if !path.exists() {
        return Err(SessionLoadError::Missing);
    }
    let fingerprint = Fingerprint::of(path).ok().flatten();
    let session = session::load(path)
        .map_err(|e| SessionLoadError::Invalid(e.to_string()))?
        .resolve(path);
    let mut warnings = Vec::new();
    let corpus = &session.corpus;
    // A directory or a device is said to be one, not "not found".
    let located = match crate::corpus::source::check_regular(&corpus.path) {
        Ok(()) => Ok(corpus.path.clone()),
        Err(e) if corpus.path.exists() => Err(format!("{}: corpus {e}", path.display())),
        Err(_) => Err(format!(
            "{}: corpus {} not found",
            path.display(),
            corpus.path.display()
        )),
    };
    if let Ok(p) = &located {
        if let Ok(CorpusCheck::Changed { recorded, actual }) = corpus.check(p) {
            warnings.push(format!(
                "corpus {} changed since the session was saved (now {actual}; recorded {recorded})",
                p.display()
            ));
        }
    }
    Ok(LoadedSession {
        session,
        corpus: located,
        warnings,
        fingerprint,
    })
}

/// Runs a study on its own rayon pool of `threads`.
fn classify(study: &Study, threads: usize) -> Result<Box<Outcome>, String> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .map_err(|e| e.to_string())?;
    pool.install(|| study.run())
        .map(Box::new)
        .map_err(|e| e.to_string())
}

/// Reads pre-trained vectors and describes their file; with a recorded
/// description, a changed file is noted.
pub fn import_vectors(
    path: &Path,
    limit: Option<usize>,
    recorded: Option<&session::VectorSource>,
    progress: &crate::embedding::LoadProgress,
) -> crate::Result<super::msg::Imported> {
    let (embedding, report) = crate::embedding::format::read_observed(
        path,
        crate::embedding::format::ReadOptions {
            format: None,
            limit,
        },
        progress,
    )?;
    let source = session::VectorSource::of(path, report.format, limit)?;
    let mut notes = report.notes();
    notes.extend(recorded.and_then(|r| source.changed_from(r)));
    Ok(super::msg::Imported {
        embedding: Arc::new(embedding),
        source,
        notes,
    })
}

/// Vectors a save kept, each with the kept file's record.
type KeptList = Vec<(Arc<Embedding>, KeptVectors)>;

/// Saves `session` to `path` with the vectors of the runs in `keep` kept
/// beside it, unless the file is not what the workbench expects (changed on
/// disk, or there when it should not be); answers how, and which vectors
/// went into which kept file.
fn save_session(
    session: Session,
    path: &Path,
    expect: &Expect,
    keep: Vec<(usize, Arc<Embedding>)>,
) -> (Result<Fingerprint, SaveFailure>, KeptList) {
    let refs: Vec<(usize, &Embedding)> = keep.iter().map(|(i, e)| (*i, e.as_ref())).collect();
    match session::store::save_keeping(session, path, expect, &refs) {
        Ok(Ok((written, made))) => {
            let kept = keep
                .iter()
                .zip(made)
                .map(|((_, e), (_, kept))| (Arc::clone(e), kept))
                .collect();
            (Ok(written), kept)
        }
        Ok(Err(blocked)) => (Err(SaveFailure::Blocked(blocked)), Vec::new()),
        Err(e) => (Err(SaveFailure::Failed(e.to_string())), Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::words::WordIndex;
    use ndarray::array;

    fn embedding(rows: ndarray::Array2<f32>) -> Embedding {
        let words = ["a", "b", "c", "d"].map(String::from).to_vec();
        Embedding::new(WordIndex::from_words(words), rows).unwrap()
    }

    /// The walk scores `Ŝ_aj = Σ_k W_ak W_jk / s_k` with `s` the column sums,
    /// here (2.0, 1.5).
    #[test]
    fn the_walk_ranks_a_word_s_neighbours_by_its_probability() {
        let e = embedding(array![[0.9f32, 0.1], [0.8, 0.2], [0.3, 0.7], [0.0, 0.5]]);
        let q = Query::Word("a".into());
        let got = search(&e, &q, Combine::Add, Ranking::Walk, 3)
            .unwrap()
            .neighbors;
        let s = [2.0f64, 1.5];
        let want = |j: usize| {
            let (a, r) = (
                [0.9f64, 0.1],
                [[0.9f64, 0.1], [0.8, 0.2], [0.3, 0.7], [0.0, 0.5]][j],
            );
            a[0] * r[0] / s[0] + a[1] * r[1] / s[1]
        };
        let words: Vec<&str> = got.iter().map(|n| n.word.as_str()).collect();
        assert_eq!(words, ["b", "c", "d"]);
        for n in &got {
            assert!((n.score as f64 - want(n.id as usize)).abs() < 1e-6, "{n:?}");
        }
        let cosine = search(&e, &q, Combine::Add, Ranking::Cosine, 3).unwrap();
        assert_ne!(
            cosine.neighbors[0].score, got[0].score,
            "cosine is another ranking"
        );
        assert!(cosine.senses.is_empty(), "no senses in these vectors");
    }

    /// `bank` with a money sense and a river sense.
    fn two_senses() -> Embedding {
        use crate::embedding::{Sense, SenseTable};
        let words = [
            "bank", "bank#1", "bank#2", "money", "loan", "river", "water",
        ];
        let rows = array![
            [1.0f32, 1.0],
            [1.0, 0.05],
            [0.05, 1.0],
            [0.9, 0.0],
            [0.8, 0.1],
            [0.0, 0.9],
            [0.1, 0.8]
        ];
        let sense = |name: &str, mass: f32, contexts: [(&str, f32); 2]| Sense {
            name: name.into(),
            word: "bank".into(),
            mass,
            contexts: contexts.map(|(w, x)| (w.to_string(), x)).to_vec(),
        };
        let table = SenseTable::new(vec![
            sense("bank#1", 0.6, [("money", 1.0), ("loan", 0.8)]),
            sense("bank#2", 0.4, [("river", 1.0), ("water", 0.7)]),
        ]);
        let index = WordIndex::from_words(words.map(String::from).to_vec());
        Embedding::new(index, rows).unwrap().with_senses(table)
    }

    #[test]
    fn a_word_with_senses_lists_each_sense_s_neighbours() {
        let e = two_senses();
        let found = search(
            &e,
            &Query::Word("bank".into()),
            Combine::Add,
            Ranking::Cosine,
            2,
        )
        .unwrap();
        let names: Vec<&str> = found.senses.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["bank#1", "bank#2"]);
        assert_eq!(found.senses[0].label, "money, loan");
        let near = |i: usize| -> Vec<&str> {
            found.senses[i]
                .neighbors
                .iter()
                .map(|n| n.word.as_str())
                .collect()
        };
        assert_eq!(near(0), ["money", "loan"]);
        assert_eq!(near(1), ["river", "water"]);
    }

    #[test]
    fn a_sentence_picks_the_sense_and_its_neighbours() {
        let e = two_senses();
        let ask = |context: &str| {
            let q = Query::InContext {
                word: "bank".into(),
                context: context.into(),
            };
            search(&e, &q, Combine::Add, Ranking::Cosine, 2)
        };
        let river = ask("they fished from the river bank in the water").unwrap();
        assert!(river
            .note
            .as_deref()
            .unwrap()
            .starts_with("bank#2 (river, water) picked"));
        assert_eq!(river.neighbors[0].word, "river");
        let money = ask("the bank gave her a loan").unwrap();
        assert!(
            money.note.as_deref().unwrap().starts_with("bank#1"),
            "{money:?}"
        );
        // Nothing in the context supports a sense: none is picked (no guess).
        let none = ask("nothing in common").unwrap_err();
        assert!(none.contains("no sense of 'bank' picked"), "{none}");
        let q = Query::InContext {
            word: "money".into(),
            context: "x".into(),
        };
        let err = search(&e, &q, Combine::Add, Ranking::Cosine, 2).unwrap_err();
        assert!(err.contains("no senses"), "{err}");
    }

    #[test]
    fn a_word_outside_a_fasttext_vocabulary_is_searched_by_its_subwords() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/pretrained/fasttext.bin");
        let e = Embedding::load(path).unwrap();
        let q = Query::Word("governmentalism".into());
        let found = search(&e, &q, Combine::Add, Ranking::Cosine, 3).unwrap();
        assert!(found.note.unwrap().contains("(from subwords)"));
        let v = e.subword_vector("governmentalism").unwrap();
        let want = e
            .neighbors_of_vector(v.view(), NeighborParams::k(3), &[])
            .unwrap();
        assert_eq!(found.neighbors, want);
        let plain = embedding(array![[1.0f32, 0.0], [0.0, 1.0], [1.0, 1.0], [1.0, -1.0]]);
        let err = search(&plain, &q, Combine::Add, Ranking::Cosine, 3).unwrap_err();
        assert!(err.contains("governmentalism"), "{err}");
    }

    #[test]
    fn the_walk_refuses_vectors_that_are_not_a_dsnmf_model() {
        let e = embedding(array![[0.9f32, -0.1], [0.8, 0.2], [0.3, 0.7], [0.0, 0.5]]);
        let err = search(&e, &Query::Word("a".into()), Combine::Add, Ranking::Walk, 3).unwrap_err();
        assert!(err.contains("non-negative"), "{err}");
    }
}
