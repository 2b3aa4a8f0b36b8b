//! Every screen rendered on ratatui's TestBackend from a fixed state, and
//! compared with the committed snapshot (tests/it/snapshots/). States are built
//! from the fixture corpus and hand-made runs, so nothing varies between
//! machines: no timings, no absolute paths.

use std::path::PathBuf;
use std::sync::Arc;

use ndarray::Array2;
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use wordbench::algo;
use wordbench::corpus::{Corpus, CorpusConfig};
use wordbench::embedding::{Embedding, Neighbor};
use wordbench::eval::{
    AnalogyMethod, AnalogyResult, EvalPlan, Report, SectionResult, SimilarityResult,
};
use wordbench::schema::Value;
use wordbench::session::CorpusRef;
use wordbench::train::{Baseline, Event, Phase, Progress, Unit};
use wordbench::tui::app::{App, PromptKind};
use wordbench::tui::model::neighbors::Answer;
use wordbench::tui::model::projection::Layout;
use wordbench::tui::msg::{OpenedCorpus, Query};
use wordbench::tui::run::RunEntry;
use wordbench::tui::{update, Action, AppOptions, Msg, Screen};
use wordbench::words::WordIndex;

const CORPUS: &str = "tests/fixtures/corpus/lee_background.txt";

fn render(app: &App, w: u16, h: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| wordbench::tui::ui::draw(f, app)).unwrap();
    terminal.backend().to_string()
}

fn base() -> App {
    let options = AppOptions {
        corpus: PathBuf::from(CORPUS),
        session: None,
        eval_plan: EvalPlan {
            similarity: vec![
                "assets/eval/wordsim353.tsv".into(),
                "assets/eval/simlex999.txt".into(),
            ],
            analogy: Some("assets/eval/questions-words.txt".into()),
            analogy_config: Default::default(),
        },
        cores: 2,
        exports: "exports".into(),
    };
    let mut app = App::new(&options);
    let effects = wordbench::tui::startup(&mut app);
    let request = match &effects[0] {
        wordbench::tui::Effect::LoadCorpus { request, .. } => *request,
        e => panic!("{e:?}"),
    };
    let corpus = Corpus::open(CORPUS, CorpusConfig::default()).unwrap();
    let reference = CorpusRef::of(CORPUS.as_ref(), *corpus.config()).unwrap();
    update(
        &mut app,
        Msg::CorpusLoaded {
            request,
            result: Ok(OpenedCorpus {
                corpus: Arc::new(corpus),
                reference,
                seconds: 0.25,
            }),
        },
    );
    app
}

fn embedding(words: &[&str]) -> Arc<Embedding> {
    let n = words.len();
    let v = Array2::from_shape_fn((n, 4), |(i, j)| ((i * 7 + j * 3) % 11) as f32 - 5.0);
    let index = WordIndex::from_words(words.iter().map(|w| w.to_string()).collect());
    Arc::new(Embedding::new(index, v).unwrap())
}

fn progress(step: u64, total: u64) -> Progress {
    let t = step as f64;
    Progress {
        step,
        total_steps: total,
        epoch: ((step - 1) * 5 / total.max(1)) as u32,
        loss: 4.0 / (1.0 + 0.3 * t) + 2.0,
        perplexity: step
            .is_multiple_of(4)
            .then(|| 900.0 / (1.0 + 0.2 * t) + 150.0),
        model_perplexity: None,
        lr: 0.025 * (1.0 - t / total as f64),
        items_per_sec: 812_345.0,
        elapsed: 2.0 * t,
    }
}

/// Run #1: SGNS dim 50 finished with an lr change at step 12 and an evaluation;
/// run #2: GloVe training at step 9 of 30.
fn with_runs() -> App {
    let mut app = base();
    let sgns = algo::find("sgns").unwrap();
    let params = sgns.params([("dim", "50"), ("epochs", "5")]).unwrap();
    let corpus = app.corpus.loaded.as_ref().unwrap().reference.clone();
    let mut a = RunEntry::new(sgns, params, 1, 1, corpus.clone());
    for s in 1..=40 {
        if s == 12 {
            a.observe(Event::ParamApplied {
                name: "lr".into(),
                value: Value::Float(0.01),
                step: 12,
            });
        }
        a.observe(Event::Progress(progress(s, 40)));
    }
    a.observe(Event::Finished(Box::new(
        (*embedding(&["king", "queen", "prince", "man", "woman"])).clone(),
    )));
    a.recorder.run_mut().evaluation = Some(report());
    a.exported = Some("run1-sgns.txt".into());
    let glove = algo::find("glove").unwrap();
    let params = glove.params([("dim", "50")]).unwrap();
    let mut b = RunEntry::new(glove, params, 1, 1, corpus);
    for s in 1..=9 {
        b.observe(Event::Progress(progress(s, 30)));
    }
    app.push_run(a);
    app.push_run(b);
    app.picks = [Some(0), Some(1)];
    app.train.shown = Some(1);
    app.train.method = 2;
    app.status.text = "run #2 glove started (1 thread)".into();
    app
}

fn report() -> Report {
    Report {
        similarity: vec![
            SimilarityResult {
                dataset: "wordsim353".into(),
                spearman: 0.6123,
                pearson: 0.6011,
                pairs: 353,
                found: 340,
            },
            SimilarityResult {
                dataset: "simlex999".into(),
                spearman: 0.2987,
                pearson: 0.3102,
                pairs: 999,
                found: 960,
            },
        ],
        analogy: Some(AnalogyResult {
            dataset: "questions-words".into(),
            semantic: 0.412,
            syntactic: 0.356,
            total: 0.381,
            questions: 19544,
            answered: 12000,
            correct: 4572,
            method: AnalogyMethod::CosAdd,
            restrict: 30000,
            sections: Vec::new(),
        }),
    }
}

fn neighbors(words: &[(&str, f32)]) -> Vec<Neighbor> {
    words
        .iter()
        .enumerate()
        .map(|(i, (w, c))| Neighbor {
            word: w.to_string(),
            id: i as u32,
            score: *c,
        })
        .collect()
}

#[test]
fn corpus_screen() {
    let app = base();
    insta::assert_snapshot!(render(&app, 100, 30));
}

#[test]
fn corpus_screen_editing_the_path_at_80x24() {
    let mut app = base();
    // Enter selects the path (typing would replace it); End keeps it, and
    // Backspace then deletes one character.
    update(&mut app, Msg::Action(Action::Activate));
    for op in [
        wordbench::tui::action::EditOp::End,
        wordbench::tui::action::EditOp::Backspace,
    ] {
        update(&mut app, Msg::Action(Action::Edit(op)));
    }
    update(&mut app, Msg::Action(Action::Down));
    insta::assert_snapshot!(render(&app, 80, 24));
}

#[test]
fn train_screen_before_any_run() {
    let mut app = base();
    app.screen = Screen::Train;
    app.train.forms[0].set("dim", "0").unwrap_err();
    insta::assert_snapshot!(render(&app, 100, 30));
}

#[test]
fn train_screen_with_live_charts() {
    let mut app = with_runs();
    app.screen = Screen::Train;
    app.train.shown = Some(0);
    app.train.method = 0;
    insta::assert_snapshot!(render(&app, 110, 34));
}

/// A run's latest log line (MPNNLM's per-step note: the number of
/// prototypes and the words that grew) shows under its progress bar, so the
/// count is followed as it changes step by step.
#[test]
fn train_screen_shows_the_run_s_latest_note() {
    let mut app = with_runs();
    app.screen = Screen::Train;
    app.train.shown = Some(0);
    app.runs[0]
        .log
        .push("mpnnlm: step 1: 20000 prototypes (+0), held-out ppl 2787.0".into());
    app.runs[0].log.push(
        "mpnnlm: step 2: 20003 prototypes (+3), held-out ppl 2334.0; new: the, of, and".into(),
    );
    let screen = render(&app, 110, 34);
    assert!(
        screen.contains(
            "mpnnlm: step 2: 20003 prototypes (+3), held-out ppl 2334.0; new: the, of, and"
        ),
        "{screen}"
    );
    assert!(!screen.contains("20000 prototypes"));
}

/// Inside a long step the bar names the step's phase, the ETA counts the
/// part of the step done, and the clock moves with the ticks; before the
/// first step, the preparation's phase shows with its time.
#[test]
fn train_screen_inside_a_long_step_and_while_preparing() {
    let mut app = with_runs();
    app.screen = Screen::Train;
    // Run #2 reported step 9 of 30 at 18 s; 3 s (60 ticks) later it is
    // three quarters through step 10.
    app.runs[1].sync_clock(0);
    app.runs[1].observe(Event::Baseline(Baseline {
        words: 21_837,
        unigram: Some(1020.4),
    }));
    app.tick = 60;
    app.runs[1].observe(Event::Phase(Phase {
        name: "training chunk",
        done: 3,
        total: 4,
        unit: Unit::Count,
        step: 9,
    }));
    let screen = render(&app, 110, 34);
    // 9.75 steps in 21 s: 20.25 left take 43.6 s.
    assert!(
        screen.contains("step 9/30 · training chunk 3/4 · ETA 44s · 21s elapsed"),
        "{screen}"
    );
    // At 110 columns the line keeps its speed by dropping the uniform
    // baseline and the label's settings; a wide pane shows them.
    assert!(
        screen.contains(
            "#2 glove · training 30% · epoch 2 · loss 3.081 · ppl 496.2 (unigram 1,020) · lr 0.0175 · 812.3k items/s"
        ),
        "{screen}"
    );
    let wide = render(&app, 170, 34);
    assert!(
        wide.contains("· ppl 496.2 (uniform 21,837, unigram 1,020) · lr 0.0175 · 812.3k items/s"),
        "{wide}"
    );
    insta::assert_snapshot!(screen);
    let mpnnlm = algo::find("mpnnlm").unwrap();
    let corpus = app.runs[0].corpus().unwrap().clone();
    let mut preparing = RunEntry::new(mpnnlm, mpnnlm.params([]).unwrap(), 1, 1, corpus);
    preparing.sync_clock(0);
    preparing.observe(Event::Phase(Phase {
        name: "held-out perplexity",
        done: 450,
        total: 1000,
        unit: Unit::Percent,
        step: 0,
    }));
    app.tick = 20 * 65;
    app.push_run(preparing);
    app.train.shown = Some(2);
    let screen = render(&app, 110, 34);
    assert!(
        screen.contains("preparing: held-out perplexity 45% · ETA — · 1m05s elapsed"),
        "{screen}"
    );
    assert!(
        screen.contains(" #3 mpnnlm defaults · held-out perplexity 45%"),
        "{screen}"
    );
}

/// A method without a learning rate shows none (not `lr 0.0000`), and a
/// large perplexity reads with thousands separators.
#[test]
fn train_screen_of_a_method_without_a_learning_rate() {
    let mut app = with_runs();
    app.screen = Screen::Train;
    let dsnmf = algo::find("dsnmf").unwrap();
    let corpus = app.runs[0].corpus().unwrap().clone();
    let mut run = RunEntry::new(dsnmf, dsnmf.params([]).unwrap(), 1, 1, corpus);
    for s in 1..=4 {
        let mut p = progress(s, 1000);
        p.lr = 0.0;
        p.model_perplexity = Some(15_002_000.0);
        run.observe(Event::Progress(p));
    }
    app.push_run(run);
    app.train.shown = Some(2);
    let screen = render(&app, 120, 34);
    let status = screen
        .lines()
        .find(|l| l.contains("#3 dsnmf"))
        .expect("status line");
    assert!(
        status.contains("· calibrated ppl 650.0 · model ppl 15,002,000 · 812.3k items/s"),
        "{status}"
    );
    assert!(!status.contains("lr "), "{status}");
}

#[test]
fn train_screen_log_scale_at_80x24() {
    let mut app = with_runs();
    app.screen = Screen::Train;
    app.train.log_scale = true;
    let screen = render(&app, 80, 24);
    // The run line keeps its speed whole: the epoch goes first.
    assert!(screen.contains("· lr 0.0175 · 812.3k items/s"), "{screen}");
    insta::assert_snapshot!(screen);
}

/// The method list scrolls to the chosen method (ube is below the fold at
/// 80x24), and only the focused pane marks its selection with `▸`.
#[test]
fn train_screen_at_80x24_scrolls_the_method_list_to_the_chosen_method() {
    let mut app = base();
    app.screen = Screen::Train;
    update(&mut app, Msg::Action(Action::FocusNext));
    update(&mut app, Msg::Action(Action::SelectMethod("ube".into())));
    let screen = render(&app, 80, 24);
    assert!(screen.contains("▸ ube"), "{screen}");
    assert_eq!(screen.matches('▸').count(), 1, "{screen}");
    insta::assert_snapshot!(screen);
}

/// A run started while another trains waits in a list under the progress
/// bar; the screen keeps showing the run that trains.
#[test]
fn train_screen_lists_the_queued_runs_under_the_training_one() {
    let mut app = with_runs();
    app.screen = Screen::Train;
    let sgns = algo::find("sgns").unwrap();
    let corpus = app.runs[0].corpus().unwrap().clone();
    let mut queued = RunEntry::new(sgns, sgns.params([("dim", "8")]).unwrap(), 1, 1, corpus);
    queued.status = wordbench::tui::run::RunStatus::Queued;
    app.push_run(queued);
    let screen = render(&app, 100, 30);
    assert!(screen.contains(" queued: #3 sgns dim=8 "), "{screen}");
    assert!(screen.contains(" #2 glove dim=50 · training"), "{screen}");
    insta::assert_snapshot!(screen);
}

#[test]
fn train_screen_overlaying_the_runs_against_epochs() {
    let mut app = with_runs();
    app.screen = Screen::Train;
    app.train.shown = Some(0);
    update(&mut app, Msg::Action(Action::ToggleOverlay));
    update(&mut app, Msg::Action(Action::CycleXAxis));
    assert!(
        app.status.text.contains("2 listed run"),
        "{}",
        app.status.text
    );
    insta::assert_snapshot!(render(&app, 110, 34));
}

#[test]
fn train_screen_draws_a_replay_over_its_recording() {
    let mut app = with_runs();
    app.screen = Screen::Train;
    let first = &app.runs[0];
    let mut replay = RunEntry::new(
        first.method,
        first.params.clone(),
        1,
        1,
        first.corpus().unwrap().clone(),
    );
    for s in 1..=20 {
        let mut p = progress(s, 40);
        p.loss += 0.3;
        replay.observe(Event::Progress(p));
    }
    replay.replay_of = Some(0);
    app.push_run(replay);
    app.train.shown = Some(2);
    insta::assert_snapshot!(render(&app, 110, 34));
}

#[test]
fn runs_screen_filtered_by_a_tag() {
    let mut app = with_runs();
    app.screen = Screen::Runs;
    update(
        &mut app,
        Msg::Action(Action::TagRun(1, "slow, glove-x".into())),
    );
    update(&mut app, Msg::Action(Action::FilterRuns("SLOW".into())));
    assert_eq!(app.runs_view.listed(&app.runs), [1]);
    assert_eq!(
        app.runs_view.selected, 1,
        "the selection moves to a listed run"
    );
    insta::assert_snapshot!(render(&app, 110, 24));
}

#[test]
fn runs_screen() {
    let mut app = with_runs();
    app.screen = Screen::Runs;
    insta::assert_snapshot!(render(&app, 110, 24));
}

/// At 80x24 the table leaves out the columns that do not fit (the
/// details keep them) instead of cutting run numbers and values: run #10
/// and a perplexity of 33698.4 show whole, a named run shows its name.
#[test]
fn runs_screen_at_80x24_keeps_numbers_whole() {
    let mut app = with_runs();
    app.screen = Screen::Runs;
    let finished = app.runs[0].clone();
    for _ in 0..8 {
        app.push_run(finished.clone());
    }
    app.runs[9].perplexity = Some(33698.4);
    update(
        &mut app,
        Msg::Action(Action::RenameRun(9, "big-window".into())),
    );
    app.runs_view.selected = 9;
    let screen = render(&app, 80, 24);
    assert!(screen.contains(" 10 "), "{screen}");
    assert!(screen.contains("33698.4"), "{screen}");
    assert!(screen.contains("big-window"), "{screen}");
    insta::assert_snapshot!(screen);
}

#[test]
fn runs_screen_export_prompt() {
    let mut app = with_runs();
    app.screen = Screen::Runs;
    app.prompt(
        PromptKind::ExportRun(0),
        "Export run #1 vectors",
        "run1-sgns.txt".into(),
        "format by extension: .txt word2vec text, .bin word2vec binary, .glove GloVe",
    );
    insta::assert_snapshot!(render(&app, 100, 24));
}

#[test]
fn neighbours_screen_comparing_two_runs() {
    let mut app = with_runs();
    app.screen = Screen::Neighbors;
    app.neighbors.word.set("king");
    app.neighbors.query = Some(Query::Word("king".into()));
    app.neighbors.answers = [
        Some(Answer {
            query: Query::Word("king".into()),
            run: 0,
            result: Ok(neighbors(&[
                ("queen", 0.81),
                ("prince", 0.77),
                ("throne", 0.71),
                ("monarch", 0.69),
                ("emperor", 0.64),
            ])
            .into()),
        }),
        Some(Answer {
            query: Query::Word("king".into()),
            run: 1,
            result: Ok(neighbors(&[
                ("prince", 0.74),
                ("kings", 0.70),
                ("queen", 0.66),
                ("duke", 0.61),
                ("lord", 0.58),
            ])
            .into()),
        }),
    ];
    insta::assert_snapshot!(render(&app, 100, 24));
}

/// `w` with a dsnmf run as A and a GloVe run as B: A's neighbours by the
/// walk, probabilities with four significant digits and bars relative to
/// the first; B keeps cosine and says why.
#[test]
fn neighbours_screen_ranked_by_the_walk_of_a_dsnmf_run() {
    use wordbench::tui::model::neighbors::{walk_fallback, Found, Ranking};
    let mut app = with_runs();
    app.screen = Screen::Neighbors;
    let dsnmf = algo::find("dsnmf").unwrap();
    let params = dsnmf.params([("dim", "20")]).unwrap();
    let corpus = app.runs[0].corpus().unwrap().clone();
    app.runs[0] = RunEntry::new(dsnmf, params, 1, 1, corpus);
    app.runs[0].set_number(1);
    app.neighbors.ranking = Ranking::Walk;
    let word = Query::Word("king".into());
    app.neighbors.query = Some(word.clone());
    app.neighbors.answers = [
        Some(Answer {
            query: word.clone(),
            run: 0,
            result: Ok(
                neighbors(&[("queen", 0.00412), ("prince", 0.00391), ("throne", 0.00207)]).into(),
            ),
        }),
        Some(Answer {
            query: word,
            run: 1,
            result: Ok(Found {
                note: Some(walk_fallback("glove")),
                ..neighbors(&[("queen", 0.74), ("crown", 0.66)]).into()
            }),
        }),
    ];
    let screen = render(&app, 100, 24);
    assert!(screen.contains("0.00412"), "{screen}");
    insta::assert_snapshot!(screen);
}

#[test]
fn neighbours_screen_at_80x24_keeps_its_key_line_whole() {
    let mut app = with_runs();
    app.screen = Screen::Neighbors;
    let text = render(&app, 80, 24);
    assert!(
        text.contains("k 10 (+/-) · 3CosAdd (m) · cosine (w)"),
        "{text}"
    );
}

#[test]
fn neighbours_screen_with_a_word_s_senses_and_a_sentence() {
    use wordbench::tui::model::neighbors::{Found, SenseNeighbors};
    let mut app = with_runs();
    app.screen = Screen::Neighbors;
    app.picks = [Some(0), Some(1)];
    let sense = |name: &str, mass: f32, label: &str, near: &[(&str, f32)]| SenseNeighbors {
        name: name.into(),
        label: label.into(),
        mass,
        neighbors: neighbors(near),
    };
    let word = Query::Word("bank".into());
    let in_context = Query::InContext {
        word: "bank".into(),
        context: "they fished from the river bank".into(),
    };
    app.neighbors.query = Some(word.clone());
    app.neighbors.answers = [
        Some(Answer {
            query: word,
            run: 0,
            result: Ok(Found {
                neighbors: neighbors(&[("banks", 0.71), ("bank#1", 0.69), ("lender", 0.52)]),
                senses: vec![
                    sense(
                        "bank#1",
                        0.62,
                        "loan, money, deposit",
                        &[("lender", 0.66), ("loans", 0.61)],
                    ),
                    sense(
                        "bank#2",
                        0.38,
                        "river, shore, water",
                        &[("shore", 0.58), ("riverbank", 0.55)],
                    ),
                ],
                note: None,
            }),
        }),
        Some(Answer {
            query: in_context,
            run: 1,
            result: Ok(Found {
                neighbors: neighbors(&[("shore", 0.58), ("riverbank", 0.55)]),
                senses: Vec::new(),
                note: Some(
                    "bank#2 (river, shore, water) picked: cosines 0.01 / 0.42 over 1 matched context word(s)"
                        .into(),
                ),
            }),
        }),
    ];
    insta::assert_snapshot!(render(&app, 110, 30));
}

#[test]
fn evaluate_screen() {
    let mut app = with_runs();
    app.screen = Screen::Evaluate;
    app.runs[1].evaluating = true;
    insta::assert_snapshot!(render(&app, 110, 24));
}

#[test]
fn evaluate_screen_comparing_a_and_b_by_section() {
    let mut app = with_runs();
    app.screen = Screen::Evaluate;
    let mut b = report();
    b.similarity[0].spearman = 0.5012;
    b.similarity[1].spearman = 0.3310;
    if let Some(a) = b.analogy.as_mut() {
        a.total = 0.255;
    }
    app.runs[1].recorder.run_mut().evaluation = Some(b);
    if let Some(a) = app.runs[0].recorder.run_mut().evaluation.as_mut() {
        a.analogy.as_mut().unwrap().sections = [
            "capital-common-countries",
            "currency",
            "gram1-adjective-to-adverb",
        ]
        .iter()
        .zip([0.52, 0.08, 0.11])
        .map(|(name, accuracy)| SectionResult {
            section: name.to_string(),
            syntactic: name.starts_with("gram"),
            questions: 100,
            answered: 90,
            correct: (90.0 * accuracy) as usize,
            accuracy,
        })
        .collect();
    }
    insta::assert_snapshot!(render(&app, 110, 24));
}

/// Runs A and B on shared axes: B's points (marked ′) in the second
/// colour, the words that moved most listed under the options.
#[test]
fn projection_screen_with_two_runs_on_shared_axes() {
    let mut app = with_runs();
    app.screen = Screen::Projection;
    let base = ["king", "queen", "paris", "rome"];
    let words: Vec<String> = base
        .iter()
        .map(|w| w.to_string())
        .chain(base.iter().map(|w| format!("{w}\u{2032}")))
        .collect();
    let coords = vec![
        [1.0, 1.0],
        [1.2, 0.8],
        [-1.0, -1.0],
        [-1.3, -0.8],
        [1.05, 0.95],
        [-1.1, -0.7],
        [-0.95, -1.05],
        [-1.25, -0.85],
    ];
    let names: Vec<String> = (0..8)
        .map(|i| if i < 4 { "A #1 sgns" } else { "B #2 svd" }.to_string())
        .collect();
    app.projection.layout = Some(Layout {
        labels: 4,
        description: "PCA".into(),
        groups: Some(wordbench::project::select::Groups::from_names(&names)),
        source: "#1 sgns and #2 svd on shared axes".into(),
        pair: Some(wordbench::tui::model::projection::PairLayout {
            b_run: 1,
            a_points: 4,
            shared: 173,
            mean_cosine: 0.62,
            moved: vec![
                ("queen".into(), -0.12),
                ("rome".into(), 0.31),
                ("paris".into(), 0.58),
            ],
        }),
        ..Layout::new(0, "pca", words, coords)
    });
    insta::assert_snapshot!(render(&app, 100, 30));
}

#[test]
fn evaluate_screen_at_80x24() {
    let mut app = with_runs();
    app.screen = Screen::Evaluate;
    insta::assert_snapshot!(render(&app, 80, 24));
}

#[test]
fn projection_screen_with_a_3d_cloud_turned_by_the_keys() {
    use wordbench::project::layout::cloud_picture;
    let mut app = with_runs();
    app.screen = Screen::Projection;
    let words: Vec<String> = ["king", "queen", "man", "woman", "paris", "rome"]
        .map(String::from)
        .to_vec();
    // Two groups apart along the third axis only: seen down that axis they
    // overlap; a quarter turn sets them side by side.
    let cloud = vec![
        [1.0, 1.0, 3.0],
        [1.2, 0.8, 3.2],
        [0.8, 1.3, 2.9],
        [1.1, 1.2, 3.1],
        [1.0, 1.1, -3.0],
        [0.9, 1.0, -3.2],
    ];
    let flat = cloud_picture(&cloud, &wordbench::geometry::ube::sphere::IDENTITY);
    app.projection.layout = Some(Layout {
        labels: 6,
        description: "t-SNE in 3-D".into(),
        source: "#1 sgns dim=50, 50-d vectors".into(),
        cloud: Some(cloud),
        ..Layout::new(0, "tsne", words, flat)
    });
    for _ in 0..6 {
        update(&mut app, Msg::Action(Action::Turn(1, 0)));
    }
    insta::assert_snapshot!(render(&app, 100, 30));
}

#[test]
fn projection_screen_with_a_layout() {
    let mut app = with_runs();
    app.screen = Screen::Projection;
    let words: Vec<String> = [
        "king", "queen", "man", "woman", "paris", "france", "rome", "italy",
    ]
    .map(String::from)
    .to_vec();
    let coords = vec![
        [1.0, 1.0],
        [1.2, 0.8],
        [0.8, 1.3],
        [1.1, 1.2],
        [-1.0, -1.0],
        [-1.3, -0.8],
        [-0.9, -1.4],
        [-1.2, -1.2],
    ];
    app.projection.layout = Some(Layout {
        labels: 4,
        description: "PCA".into(),
        groups: Some(wordbench::project::select::Groups::from_names(
            &[
                "royal", "royal", "people", "people", "place", "place", "place", "place",
            ]
            .map(String::from),
        )),
        source: "#1 sgns dim=50, 50-d vectors".into(),
        ..Layout::new(0, "pca", words, coords)
    });
    insta::assert_snapshot!(render(&app, 100, 30));
    // Finding a word selects it: highlighted, its nearest words listed.
    update(&mut app, Msg::Action(Action::SelectPoint("rome".into())));
    assert_eq!(app.projection.picked, Some(6));
    insta::assert_snapshot!(
        "projection_screen_with_a_selected_word",
        render(&app, 100, 30)
    );
}

#[test]
fn projection_screen_with_a_sphere() {
    let mut app = with_runs();
    app.screen = Screen::Projection;
    update(
        &mut app,
        Msg::Action(Action::SetProjectionOption("method".into(), "ube".into())),
    );
    let words: Vec<String> = [
        "king", "queen", "man", "woman", "paris", "france", "rome", "italy",
    ]
    .map(String::from)
    .to_vec();
    let unit = |v: [f64; 3]| {
        let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        [v[0] / n, v[1] / n, v[2] / n]
    };
    let sphere: Vec<[f64; 3]> = [
        [1.0, 0.1, 0.2],
        [1.0, 0.2, 0.1],
        [0.9, 0.3, 0.3],
        [1.0, 0.3, 0.2],
        [-0.2, 1.0, -0.3],
        [-0.3, 1.0, -0.2],
        [-0.1, 0.9, -0.4],
        [-0.2, 1.0, -0.5],
    ]
    .map(unit)
    .to_vec();
    let rows = Array2::from_shape_fn((8, 3), |(i, d)| sphere[i][d]);
    let map = wordbench::project::ube::picture(&rows);
    app.projection.layout = Some(Layout {
        labels: 8,
        description: "UBE (3-d sphere)".into(),
        source: "#1 sgns dim=50, 50-d vectors".into(),
        sphere: Some(sphere),
        ..Layout::new(
            0,
            "ube",
            words,
            map.rows().into_iter().map(|r| [r[0], r[1]]).collect(),
        )
    });
    // UBE's options in the form, `iters` selected; the sphere turned a step.
    while app.projection.selected != app.projection.options.index("iters").unwrap() + 1 {
        update(&mut app, Msg::Action(Action::Down));
    }
    update(&mut app, Msg::Action(Action::Turn(1, 0)));
    insta::assert_snapshot!(render(&app, 100, 30));
}

#[test]
fn help_overlay_on_the_train_screen() {
    let mut app = base();
    app.screen = Screen::Train;
    update(&mut app, Msg::Action(Action::ToggleHelp));
    insta::assert_snapshot!(render(&app, 100, 50));
}

/// At 80x24 every help entry is whole: long ones wrap under their text
/// instead of being cut mid-word.
#[test]
fn help_overlay_at_80x24_wraps_long_entries() {
    let mut app = base();
    app.screen = Screen::Train;
    update(&mut app, Msg::Action(Action::ToggleHelp));
    let screen = render(&app, 80, 24);
    for whole in [
        "x axis: steps / epochs / seconds",
        "overlay the listed runs' curves",
        "quit (asks if a run trains)",
    ] {
        assert!(screen.contains(whole), "{whole}: {screen}");
    }
    insta::assert_snapshot!(screen);
}

#[test]
fn quit_question_while_training() {
    let mut app = with_runs();
    app.screen = Screen::Train;
    update(&mut app, Msg::Action(Action::Quit));
    assert!(!app.quit);
    insta::assert_snapshot!(render(&app, 100, 30));
}

#[test]
fn tiny_terminals_get_a_note_instead_of_a_broken_layout() {
    let app = with_runs();
    let text = render(&app, 30, 8);
    assert!(text.contains("wordbench needs at least"), "{text}");
    for (w, h) in [(40, 12), (80, 24), (200, 60)] {
        for screen in Screen::ALL {
            let mut app = with_runs();
            app.screen = screen;
            render(&app, w, h);
        }
    }
}

fn classified() -> App {
    let mut app = base();
    app.screen = Screen::Classify;
    let v = &mut app.classify;
    v.set("train", "tests/fixtures/classify/polarity-train.txt")
        .unwrap();
    v.set("test", "tests/fixtures/classify/polarity-test.txt")
        .unwrap();
    v.set("labelled", "10,30,100").unwrap();
    v.set("resamples", "3").unwrap();
    let study = v.study().unwrap();
    v.outcome = Some(study.run().unwrap());
    v.study = Some(study);
    app
}

#[test]
fn classify_screen_with_a_learning_curve() {
    insta::assert_snapshot!(render(&classified(), 120, 40));
}

#[test]
fn classify_screen_at_80x24() {
    insta::assert_snapshot!(render(&classified(), 80, 24));
}

/// A sweep of SGNS over window × negative: six runs with hand-made curves
/// and scores, run #5 pruned at step 10 of 40.
fn with_sweep() -> App {
    use wordbench::session::SweepRecord;
    use wordbench::sweep::spec::{parse_grid, Metric};
    use wordbench::sweep::SweepSpec;
    let mut app = base();
    let sgns = algo::find("sgns").unwrap();
    let corpus = app.corpus.loaded.as_ref().unwrap().reference.clone();
    let mut numbers = Vec::new();
    for (k, (window, negative)) in [(2, 2), (2, 5), (5, 2), (5, 5), (10, 2), (10, 5)]
        .into_iter()
        .enumerate()
    {
        let (w, n) = (window.to_string(), negative.to_string());
        let params = sgns
            .params([
                ("dim", "50"),
                ("window", w.as_str()),
                ("negative", n.as_str()),
            ])
            .unwrap();
        let mut run = RunEntry::new(sgns, params, 1, 1, corpus.clone());
        let steps = if k == 4 { 10 } else { 40 };
        for s in 1..=steps {
            let mut p = progress(s, 40);
            p.loss += 0.05 * k as f64;
            p.perplexity = (s % 10 == 0).then(|| 800.0 - 20.0 * (window + negative) as f64);
            run.observe(Event::Progress(p));
        }
        if k == 4 {
            run.observe(Event::Stopped { step: 10 });
        }
        run.observe(Event::Finished(Box::new(
            (*embedding(&["king", "queen", "man", "woman"])).clone(),
        )));
        let mut r = report();
        r.similarity[0].spearman = 0.40 + 0.01 * window as f64 - 0.004 * negative as f64;
        r.similarity[1].spearman = 0.20 + 0.006 * negative as f64 - 0.003 * window as f64;
        run.recorder.run_mut().evaluation = Some(r);
        run.recorder.run_mut().label = Some(format!("window={window} negative={negative}"));
        run.recorder.run_mut().tags = if k == 4 {
            vec!["sweep-1".into(), "pruned".into()]
        } else {
            vec!["sweep-1".into()]
        };
        app.push_run(run);
        numbers.push(k as u32 + 1);
    }
    let spec = SweepSpec {
        fixed: [("dim".to_string(), "50".to_string())].into(),
        grid: vec![
            parse_grid(sgns, "window=2,5,10").unwrap(),
            parse_grid(sgns, "negative=2,5").unwrap(),
        ],
        parallel: 2,
        ..SweepSpec::new("sgns", Metric::Similarity("simlex999".into()))
    };
    app.session.sweeps.push(SweepRecord {
        number: 1,
        spec,
        names: vec!["window".into(), "negative".into()],
        runs: numbers,
        skipped: Vec::new(),
        counted: 0,
        seconds: 61.0,
    });
    app.picks = [Some(1), None];
    wordbench::tui::act(&mut app, Action::GoTo(Screen::HParams));
    app
}

#[test]
fn hparams_chart_exports_as_an_image_and_asks_before_replacing_a_file() {
    use wordbench::tui::app::Modal;
    use wordbench::tui::msg::Effect;
    let mut app = with_sweep();
    let dir = tempfile::tempdir().unwrap();
    app.exports = dir.path().join("exports");
    wordbench::tui::act(&mut app, Action::ExportChartPrompt);
    let Some(Modal::Prompt { input, .. }) = &app.modal else {
        panic!("no prompt: {}", app.status.text)
    };
    assert!(
        input.text().ends_with("sweep1-simlex999-by-window.svg"),
        "{}",
        input.text()
    );
    app.modal = None;
    // `x`: the chart shows the metric against the next swept name.
    wordbench::tui::act(&mut app, Action::CycleXAxis);
    let path = dir.path().join("chart.svg");
    let effects = wordbench::tui::act(&mut app, Action::ExportChart(path.display().to_string()));
    let [Effect::ExportChart {
        chart,
        path: to,
        format,
    }] = effects.as_slice()
    else {
        panic!("{effects:?}: {}", app.status.text)
    };
    assert_eq!((chart.name.as_str(), to), ("negative", &path));
    wordbench::sweep::chart::save(to, &chart.chart(), *format).unwrap();
    let svg = std::fs::read_to_string(&path).unwrap();
    assert!(
        svg.contains("simlex999 by negative: sweep 1 of sgns"),
        "{svg}"
    );
    // The file is there now: a second export asks first.
    let again = wordbench::tui::act(&mut app, Action::ExportChart(path.display().to_string()));
    assert!(again.is_empty());
    assert!(
        matches!(app.modal, Some(Modal::Confirm { .. })),
        "{}",
        app.status.text
    );
    // Not an image: refused by name.
    app.modal = None;
    let e = wordbench::tui::act(&mut app, Action::ExportChart("chart.csv".into()));
    assert!(e.is_empty() && app.status.text.contains("expected a .png or .svg"));
}

#[test]
fn hparams_screen_ranks_a_sweep_and_charts_a_metric_against_a_hyperparameter() {
    let mut app = with_sweep();
    wordbench::tui::act(&mut app, Action::Down);
    insta::assert_snapshot!(render(&app, 120, 40));
}

#[test]
fn hparams_screen_at_80x24_sorted_by_window() {
    let mut app = with_sweep();
    // Right from the ranking column (simlex999): analogy, then window
    // (columns wrap).
    for _ in 0..2 {
        wordbench::tui::act(&mut app, Action::Right);
    }
    wordbench::tui::act(&mut app, Action::CycleMetric);
    insta::assert_snapshot!(render(&app, 80, 24));
}

#[test]
fn hparams_screen_without_a_sweep_says_how_to_make_one() {
    let mut app = base();
    wordbench::tui::act(&mut app, Action::GoTo(Screen::HParams));
    insta::assert_snapshot!(render(&app, 80, 24));
}

#[test]
fn sweep_form_declares_the_runs_of_the_train_method() {
    let mut app = base();
    wordbench::tui::act(&mut app, Action::SelectMethod("sgns".into()));
    wordbench::tui::act(&mut app, Action::SetParam("dim".into(), "50".into()));
    wordbench::tui::act(&mut app, Action::SetParam("threads".into(), "1".into()));
    wordbench::tui::act(&mut app, Action::DeclareSweep);
    for (k, v) in [
        ("grid", "window=2,5,10; negative=2,5"),
        ("random", "2"),
        ("range", "lr=0.005..0.1:log"),
        ("prune", "3"),
    ] {
        wordbench::tui::act(&mut app, Action::SetSweepField(k.into(), v.into()));
    }
    wordbench::tui::act(&mut app, Action::Down);
    insta::assert_snapshot!(render(&app, 120, 40));
}

#[test]
fn sweep_form_at_80x24_refuses_a_range_naming_the_parameter() {
    let mut app = base();
    wordbench::tui::act(&mut app, Action::SelectMethod("sgns".into()));
    wordbench::tui::act(&mut app, Action::DeclareSweep);
    wordbench::tui::act(
        &mut app,
        Action::SetSweepField("grid".into(), "window=2,5".into()),
    );
    wordbench::tui::act(
        &mut app,
        Action::SetSweepField("range".into(), "lr=0.1..0.01".into()),
    );
    insta::assert_snapshot!(render(&app, 80, 24));
}
