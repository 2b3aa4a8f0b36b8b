//! The Neighbours screen's handlers: queries typed or suggested, requests
//! tagged with a fresh id, answers of which only the latest per side is kept.

use crate::embedding::{Combine, Embedding};
use crate::tui::action::{Action, Slot};
use crate::tui::app::{App, Level};
use crate::tui::model::neighbors::{
    known, parse_query, suggest, walk_fallback, Answer, Found, NeighborsFocus, Query, Ranking,
};
use crate::tui::msg::Effect;

/// Asks the picked runs what the word field says (a word or a query).
pub fn query_word(app: &mut App, word: &str) -> Vec<Effect> {
    let word = word.trim();
    if word.is_empty() {
        return Vec::new();
    }
    // A search while typing must leave the field as typed (its trailing
    // space starts the next word of `king -man +woman`).
    if app.neighbors.word.text().trim() != word {
        app.neighbors.word.set(word);
    }
    match parse_query(word) {
        Ok(q) => ask(app, q),
        Err(e) => {
            app.set_status(Level::Warn, e);
            Vec::new()
        }
    }
}

/// Switches between 3CosAdd and 3CosMul and asks again.
pub fn toggle_combine(app: &mut App) -> Vec<Effect> {
    let v = &mut app.neighbors;
    v.combine = match v.combine {
        Combine::Add => Combine::Mul,
        Combine::Mul => Combine::Add,
    };
    let text = format!(
        "several words now combine by {} (m switches)",
        v.combine.name()
    );
    app.set_status(Level::Info, text);
    refresh(app)
}

/// Switches how a single word's neighbours are ranked and asks again.
pub fn toggle_ranking(app: &mut App) -> Vec<Effect> {
    let v = &mut app.neighbors;
    v.ranking = match v.ranking {
        Ranking::Cosine => Ranking::Walk,
        Ranking::Walk => Ranking::Cosine,
    };
    let (level, text) = match v.ranking {
        Ranking::Cosine => (
            Level::Info,
            "a word's neighbours now ranked by cosine (w switches)".to_string(),
        ),
        Ranking::Walk => {
            let cosine: Vec<String> = [Slot::A, Slot::B]
                .into_iter()
                .filter_map(|s| app.picked(s))
                .filter(|(_, r)| Ranking::Walk.for_method(r.method.name) == Ranking::Cosine)
                .map(|(_, r)| format!("#{} ({})", r.number(), r.method.name))
                .collect();
            match cosine.len() {
                0 => (
                    Level::Info,
                    "a word's neighbours now ranked by the Ŝ walk (w switches)".to_string(),
                ),
                _ => (
                    Level::Warn,
                    format!(
                        "the Ŝ walk ranks dsnmf runs only: {} keep cosine (w switches)",
                        cosine.join(" and ")
                    ),
                ),
            }
        }
    };
    app.set_status(level, text);
    refresh(app)
}

/// Asks the picked runs an analogy.
pub fn query_analogy(app: &mut App, a: &str, b: &str, c: &str) -> Vec<Effect> {
    let text = format!("{a} {b} {c}");
    if app.neighbors.analogy.text() != text {
        app.neighbors.analogy.set(text);
    }
    ask(app, Query::Analogy(a.into(), b.into(), c.into()))
}

/// Neighbours per run.
pub fn set_k(app: &mut App, k: usize) -> Vec<Effect> {
    app.neighbors.k = k.clamp(1, 100);
    refresh(app)
}

/// Re-asks the last question (after a pick or a finished run).
pub fn refresh(app: &mut App) -> Vec<Effect> {
    match app.neighbors.query.clone() {
        Some(q) => ask(app, q),
        None => Vec::new(),
    }
}

fn ask(app: &mut App, query: Query) -> Vec<Effect> {
    app.neighbors.query = Some(query.clone());
    let mut effects = Vec::new();
    for slot in [Slot::A, Slot::B] {
        let s = slot.index();
        let Some((run, entry)) = app.picked(slot) else {
            app.neighbors.answers[s] = None;
            app.neighbors.pending[s] = None;
            continue;
        };
        let method = entry.method.name;
        let Some(embedding) = entry.embedding.clone() else {
            let why = entry.no_vectors();
            app.neighbors.pending[s] = None;
            app.neighbors.answers[s] = Some(Answer {
                query: query.clone(),
                run,
                result: Err(why),
            });
            continue;
        };
        // A single word outside a fastText model's vocabulary still has a
        // vector (from its n-grams): it is searched as typed.
        let from_subwords =
            |w: &str| matches!(query, Query::Word(_)) && embedding.subword_vector(w).is_some();
        let missing = query
            .words()
            .into_iter()
            .find(|w| known(&embedding, w).is_none() && !from_subwords(w))
            .map(String::from);
        let resolved = match missing {
            None => Ok(query.map_words(|w| known(&embedding, w).unwrap_or_else(|| w.to_string()))),
            Some(w) => Err(w),
        };
        match resolved {
            Ok(q) => {
                let request = app.next_id();
                app.neighbors.pending[s] = Some(request);
                effects.push(Effect::Neighbors {
                    request,
                    slot,
                    embedding,
                    query: q,
                    combine: app.neighbors.combine,
                    ranking: app.neighbors.ranking.for_method(method),
                    k: app.neighbors.k,
                });
            }
            Err(word) => {
                app.neighbors.pending[s] = None;
                app.neighbors.answers[s] = Some(Answer {
                    query: query.clone(),
                    run,
                    result: Err(format!("'{word}' is not in run #{}'s vocabulary", run + 1)),
                });
            }
        }
    }
    if app.picks == [None, None] {
        app.set_status(
            Level::Warn,
            "no run picked: train one (2 Train) or pick one (3 Runs, a/b)",
        );
    }
    effects
}

/// A search answered; answers to superseded requests are dropped.
pub fn answered(app: &mut App, request: u64, slot: Slot, result: Result<Found, String>) {
    let s = slot.index();
    if app.neighbors.pending[s] != Some(request) {
        return;
    }
    app.neighbors.pending[s] = None;
    let (Some(query), Some(run)) = (app.neighbors.query.clone(), app.picks[s]) else {
        return;
    };
    let mut result = result;
    if let (Ok(found), Query::Word(_), Some(r)) = (&mut result, &query, app.runs.get(run)) {
        let asked = app.neighbors.ranking;
        if asked != asked.for_method(r.method.name) && found.note.is_none() {
            found.note = Some(walk_fallback(r.method.name));
        }
    }
    app.neighbors.answers[s] = Some(Answer { query, run, result });
}

fn vocabulary_source(app: &App) -> Option<std::sync::Arc<Embedding>> {
    [Slot::A, Slot::B]
        .into_iter()
        .find_map(|s| app.picked(s).and_then(|(_, r)| r.embedding.clone()))
}

/// After an edit of the word input: suggestions, and a search when the
/// text is a known word.
fn typed(app: &mut App) -> Vec<Effect> {
    let v = &app.neighbors;
    match v.focus {
        NeighborsFocus::Word => {
            let text = v.word.text().trim().to_string();
            let Some(emb) = vocabulary_source(app) else {
                return Vec::new();
            };
            app.neighbors.suggestions = suggest(&emb, &text.to_lowercase(), 8);
            if known(&emb, &text).is_some() {
                return app.user_action(Action::Query(text));
            }
            Vec::new()
        }
        NeighborsFocus::Analogy => {
            let last = v.analogy.text().split_whitespace().last().unwrap_or("");
            let last = last.to_lowercase();
            if let Some(emb) = vocabulary_source(app) {
                app.neighbors.suggestions = suggest(&emb, &last, 8);
            }
            Vec::new()
        }
    }
}

/// Navigation on the Neighbours screen.
pub fn navigate(app: &mut App, action: Action) -> Vec<Effect> {
    let v = &mut app.neighbors;
    if v.editing {
        let input = match v.focus {
            NeighborsFocus::Word => &mut v.word,
            NeighborsFocus::Analogy => &mut v.analogy,
        };
        match action {
            Action::Edit(op) => {
                if input.apply(&op) {
                    return typed(app);
                }
            }
            Action::Complete => {
                if let Some(first) = v.suggestions.first().cloned() {
                    match v.focus {
                        NeighborsFocus::Word => v.word.set(first),
                        NeighborsFocus::Analogy => {
                            let mut words: Vec<&str> =
                                v.analogy.text().split_whitespace().collect();
                            words.pop();
                            words.push(&first);
                            let text = format!("{} ", words.join(" "));
                            v.analogy.set(text);
                        }
                    }
                    return typed(app);
                }
            }
            Action::Cancel => {
                v.editing = false;
                v.suggestions.clear();
            }
            Action::Activate => {
                v.editing = false;
                v.suggestions.clear();
                return submit(app);
            }
            _ => {}
        }
        return Vec::new();
    }
    match action {
        Action::Activate => {
            v.editing = true;
            match v.focus {
                NeighborsFocus::Word => v.word.select_all(),
                NeighborsFocus::Analogy => v.analogy.select_all(),
            }
        }
        Action::FocusNext | Action::FocusPrev => {
            v.focus = match v.focus {
                NeighborsFocus::Word => NeighborsFocus::Analogy,
                NeighborsFocus::Analogy => NeighborsFocus::Word,
            };
        }
        Action::ToggleCombine => return toggle_combine(app),
        Action::ToggleRanking => return toggle_ranking(app),
        Action::MoreNeighbors => {
            let k = v.k + 5;
            return app.user_action(Action::SetK(k));
        }
        Action::FewerNeighbors => {
            let k = v.k.saturating_sub(5).max(5);
            return app.user_action(Action::SetK(k));
        }
        _ => {}
    }
    Vec::new()
}

fn submit(app: &mut App) -> Vec<Effect> {
    let v = &app.neighbors;
    match v.focus {
        NeighborsFocus::Word => {
            let w = v.word.text().trim().to_string();
            app.user_action(Action::Query(w))
        }
        NeighborsFocus::Analogy => {
            let words: Vec<String> = v
                .analogy
                .text()
                .split_whitespace()
                .map(String::from)
                .collect();
            match <[String; 3]>::try_from(words) {
                Ok([a, b, c]) => app.user_action(Action::Analogy(a, b, c)),
                Err(_) => {
                    app.set_status(
                        Level::Warn,
                        "an analogy is three words: a b c asks a : b :: c : ? (man king woman)",
                    );
                    Vec::new()
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use ndarray::array;

    use super::*;
    use crate::tui::action::EditOp;
    use crate::tui::app::AppOptions;
    use crate::tui::run::RunEntry;
    use crate::tui::update::{act, drain};
    use crate::words::WordIndex;

    fn app_with_run() -> App {
        let mut app = App::new(&AppOptions {
            corpus: "x".into(),
            session: None,
            eval_plan: Default::default(),
            cores: 2,
            exports: "exports".into(),
        });
        let m = crate::algo::find("sgns").unwrap();
        let mut r = RunEntry::new(
            m,
            crate::schema::Params::defaults(m.schema),
            1,
            1,
            crate::tui::run::tests::corpus_ref(),
        );
        let words = WordIndex::from_words(
            ["king", "queen", "kingdom", "man", "woman"]
                .map(String::from)
                .to_vec(),
        );
        let v = array![
            [1.0f32, 0.0],
            [0.9, 0.1],
            [0.8, 0.3],
            [0.0, 1.0],
            [0.1, 0.9]
        ];
        r.embedding = Some(Arc::new(Embedding::new(words, v).unwrap()));
        app.push_run(r);
        app.picks[0] = Some(0);
        app
    }

    #[test]
    fn typing_suggests_and_searches_only_known_words() {
        let mut app = app_with_run();
        app.screen = crate::tui::Screen::Neighbors;
        act(&mut app, Action::Activate);
        let mut effects = Vec::new();
        for ch in "kin".chars() {
            effects = act(&mut app, Action::Edit(EditOp::Insert(ch)));
        }
        assert!(effects.is_empty(), "'kin' is not a word");
        assert_eq!(app.neighbors.suggestions, vec!["king", "kingdom"]);
        let effects = act(&mut app, Action::Edit(EditOp::Insert('g')));
        assert_eq!(effects.len(), 1);
        assert_eq!(app.journal.last(), Some(&Action::Query("king".into())));
    }

    #[test]
    fn typing_a_query_keeps_its_spaces_while_known_words_search() {
        let mut app = app_with_run();
        app.screen = crate::tui::Screen::Neighbors;
        act(&mut app, Action::Activate);
        for ch in "king -man +woman".chars() {
            act(&mut app, Action::Edit(EditOp::Insert(ch)));
            assert!(
                "king -man +woman".starts_with(app.neighbors.word.text()),
                "the field reads '{}'",
                app.neighbors.word.text()
            );
        }
        assert_eq!(app.neighbors.word.text(), "king -man +woman");
        assert_eq!(
            app.journal.last(),
            Some(&Action::Query("king".into())),
            "'king' searched as typed"
        );
        let effects = act(&mut app, Action::Activate);
        assert_eq!(effects.len(), 1);
        assert_eq!(
            app.neighbors.query,
            Some(Query::Similar {
                positive: vec!["king".into(), "woman".into()],
                negative: vec!["man".into()]
            })
        );
    }

    #[test]
    fn only_the_latest_answer_is_kept() {
        let mut app = app_with_run();
        let first = query_word(&mut app, "king");
        let second = query_word(&mut app, "queen");
        let id = |e: &Effect| match e {
            Effect::Neighbors { request, .. } => *request,
            _ => panic!(),
        };
        let (old, new) = (id(&first[0]), id(&second[0]));
        answered(&mut app, old, Slot::A, Ok(Found::default()));
        assert!(app.neighbors.answers[0].is_none(), "stale answer dropped");
        answered(&mut app, new, Slot::A, Err("x".into()));
        let a = app.neighbors.answers[0].as_ref().unwrap();
        assert_eq!(a.query, Query::Word("queen".into()));
    }

    #[test]
    fn unknown_words_and_bad_analogies_explain_themselves() {
        let mut app = app_with_run();
        assert!(query_word(&mut app, "KING").len() == 1, "case folded");
        assert!(query_word(&mut app, "zebra").is_empty());
        let a = app.neighbors.answers[0].as_ref().unwrap();
        assert_eq!(
            a.result,
            Err("'zebra' is not in run #1's vocabulary".to_string())
        );
        app.neighbors.focus = NeighborsFocus::Analogy;
        app.neighbors.analogy.set("man king");
        assert!(submit(&mut app).is_empty());
        assert!(app.status.text.starts_with("an analogy is three words"));
        app.neighbors.analogy.set("man king woman");
        let queued = submit(&mut app);
        assert!(
            queued.is_empty(),
            "the analogy is queued as the user's action"
        );
        assert_eq!(drain(&mut app).len(), 1);
    }

    #[test]
    fn a_fasttext_run_searches_a_word_outside_its_vocabulary() {
        let mut app = app_with_run();
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/pretrained/fasttext.bin");
        app.runs[0].embedding = Some(Arc::new(Embedding::load(path).unwrap()));
        let effects = query_word(&mut app, "governmentalism");
        match &effects[..] {
            [Effect::Neighbors { query, .. }] => {
                assert_eq!(query, &Query::Word("governmentalism".into()))
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_word_field_reads_gensim_queries() {
        let q = |t: &str| parse_query(t);
        assert_eq!(q(" king "), Ok(Query::Word("king".into())));
        let similar = |p: &[&str], n: &[&str]| {
            Ok(Query::Similar {
                positive: p.iter().map(|w| w.to_string()).collect(),
                negative: n.iter().map(|w| w.to_string()).collect(),
            })
        };
        assert_eq!(q("king -man +woman"), similar(&["king", "woman"], &["man"]));
        assert_eq!(
            q("king - man + woman"),
            similar(&["king", "woman"], &["man"])
        );
        assert_eq!(
            q("-man"),
            Err("a query needs a positive word: king -man +woman".into())
        );
        assert_eq!(
            q("? breakfast cereal dinner"),
            Ok(Query::OddOneOut(vec![
                "breakfast".into(),
                "cereal".into(),
                "dinner".into()
            ]))
        );
        assert!(q("? lunch").is_err());
        assert_eq!(
            q(" bank | the river bank "),
            Ok(Query::InContext {
                word: "bank".into(),
                context: "the river bank".into()
            })
        );
        assert!(q("bank |").is_err());
        assert!(q("river bank | x").is_err(), "one word before |");
    }

    #[test]
    fn queries_reach_the_runs_with_the_chosen_combination() {
        let mut app = app_with_run();
        let effects = query_word(&mut app, "KING -man +Woman");
        let [Effect::Neighbors { query, combine, .. }] = &effects[..] else {
            panic!("{effects:?}")
        };
        assert_eq!(
            query,
            &Query::Similar {
                positive: vec!["king".into(), "woman".into()],
                negative: vec!["man".into()]
            },
            "words spelled as the run knows them"
        );
        assert_eq!(*combine, Combine::Add);
        app.screen = crate::tui::action::Screen::Neighbors;
        let effects = act(&mut app, Action::ToggleCombine);
        let [Effect::Neighbors { combine, .. }] = &effects[..] else {
            panic!("{effects:?}")
        };
        assert_eq!(*combine, Combine::Mul, "the question is asked again");
        assert!(query_word(&mut app, "? king zebra").is_empty());
        assert_eq!(
            app.neighbors.answers[0].as_ref().unwrap().result,
            Err("'zebra' is not in run #1's vocabulary".to_string())
        );
    }

    #[test]
    fn a_word_s_neighbours_can_be_ranked_by_the_walk() {
        let mut app = app_with_run();
        app.runs[0].method = crate::algo::find("dsnmf").unwrap();
        app.screen = crate::tui::action::Screen::Neighbors;
        let effects = query_word(&mut app, "king");
        let [Effect::Neighbors { ranking, .. }] = &effects[..] else {
            panic!("{effects:?}")
        };
        assert_eq!(*ranking, Ranking::Cosine);
        let effects = act(&mut app, Action::ToggleRanking);
        let [Effect::Neighbors { ranking, query, .. }] = &effects[..] else {
            panic!("{effects:?}")
        };
        assert_eq!(*ranking, Ranking::Walk, "the question is asked again");
        assert_eq!(query, &Query::Word("king".into()));
        act(&mut app, Action::ToggleRanking);
        assert_eq!(app.neighbors.ranking, Ranking::Cosine);
    }

    #[test]
    fn a_run_that_is_not_dsnmf_keeps_cosine_under_the_walk_and_says_so() {
        let mut app = app_with_run();
        app.screen = crate::tui::action::Screen::Neighbors;
        query_word(&mut app, "king");
        let effects = act(&mut app, Action::ToggleRanking);
        let [Effect::Neighbors {
            ranking, request, ..
        }] = &effects[..]
        else {
            panic!("{effects:?}")
        };
        assert_eq!(*ranking, Ranking::Cosine, "an sgns run has no walk");
        assert_eq!(app.status.level, Level::Warn);
        assert_eq!(
            app.status.text,
            "the Ŝ walk ranks dsnmf runs only: #1 (sgns) keep cosine (w switches)"
        );
        answered(&mut app, *request, Slot::A, Ok(Found::default()));
        let found = app.neighbors.answers[0].as_ref().unwrap().result.clone();
        assert_eq!(
            found.unwrap().note.as_deref(),
            Some("cosine: the Ŝ walk ranks dsnmf runs only (this is sgns)")
        );
        // A dsnmf run is ranked by its walk.
        app.runs[0].method = crate::algo::find("dsnmf").unwrap();
        let effects = query_word(&mut app, "king");
        let [Effect::Neighbors { ranking, .. }] = &effects[..] else {
            panic!("{effects:?}")
        };
        assert_eq!(*ranking, Ranking::Walk);
    }
}
