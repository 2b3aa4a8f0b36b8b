//! Word analogy benchmarks ("a is to b as c is to ?", Mikolov et al.'s Google set).
//!
//! Protocol (gensim's `evaluate_word_analogies` with `restrict_vocab`, and
//! Levy & Goldberg for 3CosMul):
//! - only the first `restrict` rows (default 30,000: the most frequent words in
//!   a frequency-sorted file) exist for the benchmark; a question with any of
//!   its four words outside them is not answered (coverage loss, reported as
//!   `questions - answered`);
//! - candidates are those rows minus the three question words;
//! - 3CosAdd: argmax cos(x, b) - cos(x, a) + cos(x, c); 3CosMul: argmax
//!   cos'(x, b) cos'(x, c) / (cos'(x, a) + 0.001) with cos' = (cos + 1) / 2;
//! - **accuracy = correct / answered** (gensim's convention), per section, over
//!   semantic sections (names not starting with `gram`), syntactic sections and
//!   in total. NaN (`null` in JSON) when nothing was answered. Multiply by
//!   `answered / questions` for accuracy over all questions.

mod dataset;
pub mod solve;

use serde::{Deserialize, Serialize};

pub use dataset::{AnalogyDataset, AnalogySection};

use super::f64_or_nan;
use super::lookup::WordLookup;
use crate::embedding::Embedding;

/// How an analogy is solved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum AnalogyMethod {
    /// Vector offset: argmax cos(x, b - a + c).
    #[default]
    #[serde(rename = "3cosadd")]
    CosAdd,
    /// Multiplicative combination (Levy & Goldberg 2014).
    #[serde(rename = "3cosmul")]
    CosMul,
}

impl AnalogyMethod {
    /// The name used in results and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            AnalogyMethod::CosAdd => "3cosadd",
            AnalogyMethod::CosMul => "3cosmul",
        }
    }
}

/// Options of an analogy evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnalogyConfig {
    /// 3CosAdd or 3CosMul.
    pub method: AnalogyMethod,
    /// Only the first `restrict` rows take part (questions and candidates).
    pub restrict: usize,
}

impl Default for AnalogyConfig {
    fn default() -> Self {
        AnalogyConfig {
            method: AnalogyMethod::CosAdd,
            restrict: 30_000,
        }
    }
}

/// Counts and accuracy of one section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SectionResult {
    /// Section name.
    pub section: String,
    /// True for `gram*` sections.
    pub syntactic: bool,
    /// Questions in the section.
    pub questions: usize,
    /// Questions whose four words are all within the restricted vocabulary.
    pub answered: usize,
    /// Answered questions whose best candidate is the expected word.
    pub correct: usize,
    /// correct / answered.
    #[serde(deserialize_with = "f64_or_nan")]
    pub accuracy: f64,
}

/// Scores of one embedding on one analogy dataset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnalogyResult {
    /// Dataset name (file stem).
    pub dataset: String,
    /// Accuracy (correct / answered) over semantic sections.
    #[serde(deserialize_with = "f64_or_nan")]
    pub semantic: f64,
    /// Accuracy (correct / answered) over syntactic (`gram*`) sections.
    #[serde(deserialize_with = "f64_or_nan")]
    pub syntactic: f64,
    /// Accuracy (correct / answered) over all sections.
    #[serde(deserialize_with = "f64_or_nan")]
    pub total: f64,
    /// Questions in the dataset.
    pub questions: usize,
    /// Questions answered (all four words within the restricted vocabulary).
    pub answered: usize,
    /// Questions answered correctly.
    pub correct: usize,
    /// The method used.
    pub method: AnalogyMethod,
    /// The vocabulary restriction in force (rows actually searched).
    pub restrict: usize,
    /// Per-section detail, in file order.
    pub sections: Vec<SectionResult>,
}

/// Answers every question of `dataset` and scores the answers.
pub fn evaluate_analogy(
    embedding: &Embedding,
    dataset: &AnalogyDataset,
    config: AnalogyConfig,
) -> AnalogyResult {
    let lookup = WordLookup::new(embedding.words(), Some(config.restrict));
    // Answerable questions as row ids, with their section.
    let mut asked: Vec<[u32; 3]> = Vec::new();
    let mut expected: Vec<(u32, usize)> = Vec::new();
    for (s, section) in dataset.sections.iter().enumerate() {
        for q in &section.questions {
            let ids: Option<Vec<u32>> = q.iter().map(|w| lookup.id(w)).collect();
            if let Some(ids) = ids {
                asked.push([ids[0], ids[1], ids[2]]);
                expected.push((ids[3], s));
            }
        }
    }
    let predicted = solve::solve(embedding, &lookup, &asked, config.method);
    let mut correct = vec![0usize; dataset.sections.len()];
    let mut answered = vec![0usize; dataset.sections.len()];
    for (&(want, s), got) in expected.iter().zip(predicted) {
        answered[s] += 1;
        if got.is_some_and(|id| lookup.class(id) == want) {
            correct[s] += 1;
        }
    }
    let sections: Vec<SectionResult> = dataset
        .sections
        .iter()
        .enumerate()
        .map(|(s, sec)| SectionResult {
            section: sec.name.clone(),
            syntactic: sec.is_syntactic(),
            questions: sec.questions.len(),
            answered: answered[s],
            correct: correct[s],
            accuracy: ratio(correct[s], answered[s]),
        })
        .collect();
    let sum = |pick: &dyn Fn(&SectionResult) -> bool| {
        sections
            .iter()
            .filter(|s| pick(s))
            .fold((0, 0), |(c, a), s| (c + s.correct, a + s.answered))
    };
    let (sem_c, sem_a) = sum(&|s| !s.syntactic);
    let (syn_c, syn_a) = sum(&|s| s.syntactic);
    AnalogyResult {
        dataset: dataset.name.clone(),
        semantic: ratio(sem_c, sem_a),
        syntactic: ratio(syn_c, syn_a),
        total: ratio(sem_c + syn_c, sem_a + syn_a),
        questions: dataset.questions(),
        answered: sem_a + syn_a,
        correct: sem_c + syn_c,
        method: config.method,
        restrict: lookup.limit(),
        sections,
    }
}

fn ratio(n: usize, d: usize) -> f64 {
    if d == 0 {
        f64::NAN
    } else {
        n as f64 / d as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::words::WordIndex;
    use ndarray::array;
    use std::path::Path;

    /// man/woman/king/queen on axes (gender, royalty, person), a distractor, and
    /// "Queen", a case variant of "queen" nearer to woman - man + king.
    fn toy() -> Embedding {
        let words = ["man", "woman", "king", "queen", "apple", "Queen"];
        Embedding::new(
            WordIndex::from_words(words.map(String::from).to_vec()),
            array![
                [1.0, 0.0, 1.0],
                [-1.0, 0.0, 1.0],
                [1.0, 1.0, 1.0],
                [-1.0, 1.0, 1.0],
                [0.1, 0.2, -1.0],
                [-1.4, 1.0, 1.0]
            ],
        )
        .unwrap()
    }

    fn dataset(text: &str) -> AnalogyDataset {
        AnalogyDataset::from_reader(text.as_bytes(), Path::new("toy.txt")).unwrap()
    }

    #[test]
    fn both_methods_answer_the_toy_analogy() {
        let d = dataset(": royal\nman king woman queen\nking man queen woman\n: gram-x\nman woman king queen\nman king woman pear\n");
        for method in [AnalogyMethod::CosAdd, AnalogyMethod::CosMul] {
            let r = evaluate_analogy(
                &toy(),
                &d,
                AnalogyConfig {
                    method,
                    restrict: 30_000,
                },
            );
            assert_eq!(
                (r.questions, r.answered, r.correct),
                (4, 3, 3),
                "{method:?}"
            );
            assert_eq!((r.semantic, r.syntactic, r.total), (1.0, 1.0, 1.0));
            assert_eq!(r.sections[1].questions, 2);
            assert_eq!(r.sections[1].answered, 1, "'pear' is unknown");
            assert_eq!(r.restrict, 6);
        }
    }

    #[test]
    fn restriction_removes_questions_and_candidates() {
        let d = dataset(": royal\nman king woman queen\n: other\nman woman man woman\n");
        // Only the first 3 rows: 'queen' is out, so the first question is not answered.
        let r = evaluate_analogy(
            &toy(),
            &d,
            AnalogyConfig {
                restrict: 3,
                ..Default::default()
            },
        );
        assert_eq!((r.answered, r.correct), (1, 0));
        assert_eq!(r.total, 0.0);
        assert!(r.syntactic.is_nan());
        let json = serde_json::to_value(&r).unwrap();
        assert!(json["syntactic"].is_null());
        assert_eq!(json["method"], "3cosadd");
    }

    #[test]
    fn case_variants_are_excluded_and_count_as_the_word() {
        // Row 5 "Queen" is a case variant of row 3 "queen" and lies closest to
        // woman - man + king: the raw answer is row 5, and it counts as "queen".
        let e = toy();
        let lookup = WordLookup::new(e.words(), None);
        let got = solve::solve(&e, &lookup, &[[0, 1, 2]], AnalogyMethod::CosAdd);
        assert_eq!(got, vec![Some(5)]);
        let r = evaluate_analogy(
            &e,
            &dataset(": s\nman woman king queen\n"),
            AnalogyConfig::default(),
        );
        assert_eq!(r.correct, 1);
        // With "queen" among the question words, "Queen" is excluded too
        // (queen - king + king = queen would otherwise pick it).
        let got = solve::solve(&e, &lookup, &[[2, 3, 2]], AnalogyMethod::CosAdd);
        assert!(got[0].is_some_and(|id| id != 3 && id != 5), "{got:?}");
    }

    #[test]
    fn json_has_the_cli_fields() {
        let d = dataset(": s\nman king woman queen\n");
        let v =
            serde_json::to_value(evaluate_analogy(&toy(), &d, AnalogyConfig::default())).unwrap();
        for key in [
            "dataset",
            "semantic",
            "syntactic",
            "total",
            "questions",
            "answered",
        ] {
            assert!(v.get(key).is_some(), "{key}");
        }
        let back: AnalogyResult = serde_json::from_value(v).unwrap();
        assert!(back.syntactic.is_nan());
    }
}
