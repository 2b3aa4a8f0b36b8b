//! wordbench's evaluation against numbers gensim 4.4.0 and scipy 1.17.1
//! computed once on the fixture in tests/fixtures/eval/ (174 words x 16 dims,
//! cut from gensim Word2Vec vectors trained on text8-head).
//!
//! Fixture and numbers made by:
//!   benches/compare/eval_compare.sh          # trains target/compare-eval/w2v.txt
//!   benches/compare/.venv/bin/python benches/compare/make_eval_fixture.py
//! which prints gensim's `evaluate_word_pairs` / `evaluate_word_analogies`
//! (restrict_vocab 150 and 100000) results, scipy's `spearmanr` / `pearsonr`
//! on float64 cosines, gensim's chosen word per analogy question (its own
//! `most_similar` path) and a numpy 3CosMul (Levy & Goldberg, eps 0.001).

use std::path::Path;

use crate::common;
use ndarray::array;
use wordbench::embedding::{format, Embedding, VectorFormat};
use wordbench::eval::analogy::solve::solve;
use wordbench::eval::lookup::WordLookup;
use wordbench::eval::{
    evaluate_analogy, evaluate_similarity, AnalogyConfig, AnalogyDataset, AnalogyMethod,
    SimilarityConfig, SimilarityDataset,
};
use wordbench::words::WordIndex;

/// This file's fixtures, under `tests/fixtures/`.
const FIXTURES: &str = "eval";

fn vectors() -> Embedding {
    Embedding::load(common::fixture(FIXTURES, "vectors.txt")).unwrap()
}

#[test]
fn gensim_written_binary_and_glove_files_read_identically() {
    let text = vectors();
    assert_eq!((text.len(), text.dim()), (174, 16));
    for (name, want) in [
        ("vectors.bin", VectorFormat::Word2VecBinary),
        ("vectors.glove", VectorFormat::GloveText),
        ("vectors.txt", VectorFormat::Word2VecText),
    ] {
        let (e, report) = format::read(&common::fixture(FIXTURES, name), None).unwrap();
        assert_eq!(report.format, want, "{name} detected");
        assert_eq!(report.utf8_replacements, 0);
        assert_eq!(e.words(), text.words(), "{name}");
        assert_eq!(
            e.vectors().mapv(f32::to_bits),
            text.vectors().mapv(f32::to_bits),
            "{name}"
        );
    }
    assert_eq!(text.words().word(0), "the");
    assert_eq!(text.words().word(173), "Bigger");
}

#[test]
fn similarity_matches_gensim_and_scipy() {
    let data = SimilarityDataset::read(common::fixture(FIXTURES, "similarity.tsv")).unwrap();
    let r = evaluate_similarity(&vectors(), &data, SimilarityConfig::default());
    assert_eq!(r.dataset, "similarity");
    // gensim: oov 9.0909% of 44 pairs -> 40 found.
    assert_eq!((r.pairs, r.found), (44, 40));
    // scipy on float64 cosines (our cosines are f64 too).
    assert!(
        (r.spearman - 0.2814112901218052).abs() < 1e-12,
        "{}",
        r.spearman
    );
    assert!(
        (r.pearson - 0.5133983480088034).abs() < 1e-12,
        "{}",
        r.pearson
    );
    // gensim's evaluate_word_pairs (float32 cosines): agreement to 1e-6.
    assert!((r.spearman - 0.2814112901218052).abs() < 1e-6);
    assert!((r.pearson - 0.5133983748332097).abs() < 1e-6);
}

#[test]
fn spearman_with_tied_scores_and_tied_cosines_by_hand() {
    // cos(a,b) = 1, cos(a,c) = 0, cos(b,c) = 0 (a tie), cos(a,d) = 0.6.
    let words = WordIndex::from_words(["a", "b", "c", "d"].map(String::from).to_vec());
    let e = Embedding::new(
        words,
        array![[1.0, 0.0], [2.0, 0.0], [0.0, 1.0], [0.6, 0.8]],
    )
    .unwrap();
    // Human scores 3, 1, 2, 2 (a tie). Ranks: human [4, 1, 2.5, 2.5], model [4, 1.5, 1.5, 3].
    // Centred: [1.5, -1.5, 0, 0] and [1.5, -1, -1, 0.5]; products sum 3.75, squares 4.5 and 4.5
    // -> rho = 3.75 / 4.5 = 0.8333 (scipy.stats.spearmanr([3,1,2,2],[1,0,0,0.6]) = 0.8333333333333335).
    let data = SimilarityDataset::from_reader(
        "a b 3\na c 1\nb c 2\na d 2\n".as_bytes(),
        Path::new("ties.txt"),
    )
    .unwrap();
    let r = evaluate_similarity(&e, &data, SimilarityConfig::default());
    assert!((r.spearman - 3.75 / 4.5).abs() < 1e-12, "{}", r.spearman);
}

/// Per-section (correct, answered) in file order, then the chosen word for each answered question.
struct Reference {
    restrict: usize,
    method: AnalogyMethod,
    sections: [(usize, usize); 4],
    predictions: &'static [&'static str],
}

const REFERENCES: [Reference; 4] = [
    Reference {
        restrict: 150,
        method: AnalogyMethod::CosAdd,
        sections: [(0, 5), (2, 4), (1, 6), (0, 0)],
        predictions: &[
            "rabbi",
            "finland",
            "rabbi",
            "thailand",
            "thailand",
            "mother",
            "sister",
            "mother",
            "she",
            "flying",
            "decreased",
            "cold",
            "cool",
            "easier",
            "cool",
        ],
    },
    Reference {
        restrict: 150,
        method: AnalogyMethod::CosMul,
        sections: [(0, 5), (2, 4), (1, 6), (0, 0)],
        predictions: &[
            "rabbi", "thailand", "rabbi", "thailand", "thailand", "mother", "sister", "mother",
            "she", "flying", "cool", "cold", "cold", "easier", "cold",
        ],
    },
    Reference {
        restrict: 100_000,
        method: AnalogyMethod::CosAdd,
        sections: [(0, 10), (2, 8), (1, 8), (0, 8)],
        predictions: &[
            "rabbi",
            "rabbi",
            "thailand",
            "finland",
            "thailand",
            "granddaughter",
            "thailand",
            "thailand",
            "thailand",
            "thailand",
            "mother",
            "sister",
            "butter",
            "mother",
            "sister",
            "grandfather",
            "deep",
            "she",
            "flying",
            "cool",
            "decreased",
            "cool",
            "cold",
            "cool",
            "easier",
            "cool",
            "bigger",
            "generating",
            "deeper",
            "going",
            "deeper",
            "groom",
            "enhancing",
            "falling",
        ],
    },
    Reference {
        restrict: 100_000,
        method: AnalogyMethod::CosMul,
        sections: [(0, 10), (2, 8), (1, 8), (0, 8)],
        predictions: &[
            "rabbi",
            "rabbi",
            "thailand",
            "thailand",
            "thailand",
            "rabbi",
            "thailand",
            "thailand",
            "thailand",
            "thailand",
            "mother",
            "sister",
            "butter",
            "mother",
            "mother",
            "father",
            "deep",
            "she",
            "flying",
            "cool",
            "cool",
            "cool",
            "cold",
            "cold",
            "easier",
            "cold",
            "fed",
            "generating",
            "deeper",
            "going",
            "deeper",
            "groom",
            "enhancing",
            "falling",
        ],
    },
];

#[test]
fn analogy_counts_match_gensim_and_numpy() {
    let e = vectors();
    let data = AnalogyDataset::read(common::fixture(FIXTURES, "analogy.txt")).unwrap();
    for reference in &REFERENCES {
        let config = AnalogyConfig {
            method: reference.method,
            restrict: reference.restrict,
        };
        let r = evaluate_analogy(&e, &data, config);
        let label = format!("{:?} restrict {}", reference.method, reference.restrict);
        let got: Vec<(usize, usize)> = r.sections.iter().map(|s| (s.correct, s.answered)).collect();
        assert_eq!(got, reference.sections, "{label}");
        assert_eq!(r.questions, 35, "{label}");
        let answered: usize = reference.sections.iter().map(|s| s.1).sum();
        let correct: usize = reference.sections.iter().map(|s| s.0).sum();
        assert_eq!((r.answered, r.correct), (answered, correct), "{label}");
        assert!((r.total - correct as f64 / answered as f64).abs() < 1e-15);
        let (sem_c, sem_a) = (
            reference.sections[0].0 + reference.sections[1].0,
            reference.sections[0].1 + reference.sections[1].1,
        );
        assert!(
            (r.semantic - sem_c as f64 / sem_a as f64).abs() < 1e-15,
            "{label}"
        );
    }
}

#[test]
fn analogy_answers_match_gensim_word_for_word() {
    let e = vectors();
    let data = AnalogyDataset::read(common::fixture(FIXTURES, "analogy.txt")).unwrap();
    for reference in &REFERENCES {
        let lookup = WordLookup::new(e.words(), Some(reference.restrict));
        let questions: Vec<[u32; 3]> = data
            .sections
            .iter()
            .flat_map(|s| &s.questions)
            .filter_map(|q| {
                let ids: Option<Vec<u32>> = q.iter().map(|w| lookup.id(w)).collect();
                ids.map(|ids| [ids[0], ids[1], ids[2]])
            })
            .collect();
        let answers: Vec<&str> = solve(&e, &lookup, &questions, reference.method)
            .into_iter()
            .map(|id| e.words().word(id.unwrap()))
            .collect();
        assert_eq!(
            answers, reference.predictions,
            "{:?} restrict {}",
            reference.method, reference.restrict
        );
    }
}
