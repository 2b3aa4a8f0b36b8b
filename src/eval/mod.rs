//! Intrinsic evaluation: word similarity and word analogy benchmarks.
//!
//! Both follow gensim's conventions (`evaluate_word_pairs`,
//! `evaluate_word_analogies`) so numbers can be checked against it
//! (`benches/compare/eval_compare.sh`): dataset words are matched
//! case-insensitively ([`lookup`]), pairs and questions with unknown words are
//! skipped and reported as coverage, and accuracy is correct / answered.
//! The result types serialise to the JSON the CLI prints.

pub mod analogy;
pub mod clustering;
pub mod lookup;
pub mod report;
pub mod scws;
pub mod similarity;

use std::path::Path;

use serde::Deserializer;

pub use analogy::{
    evaluate_analogy, AnalogyConfig, AnalogyDataset, AnalogyMethod, AnalogyResult, SectionResult,
};
pub use report::{EvalPlan, Report};
pub use similarity::{
    evaluate_similarity, SimilarityConfig, SimilarityDataset, SimilarityResult, WordPair,
};

/// A dataset's name: its file stem, after dropping a `.gz`/`.bz2` suffix
/// (`wordsim353` for `wordsim353.tsv.gz`).
pub fn dataset_name(path: &Path) -> String {
    let mut p = path.to_path_buf();
    if p.extension().is_some_and(|e| e == "gz" || e == "bz2") {
        p.set_extension("");
    }
    p.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Reads `null` (what serde_json writes for NaN) back as NaN.
pub(crate) fn f64_or_nan<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    /// Accepts a number (RON writes NaN as `NaN`), `null`/`None`, or `Some(x)`.
    struct NumberOrNone;

    impl<'de> serde::de::Visitor<'de> for NumberOrNone {
        type Value = f64;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a number or null")
        }
        fn visit_f64<E>(self, v: f64) -> Result<f64, E> {
            Ok(v)
        }
        fn visit_i64<E>(self, v: i64) -> Result<f64, E> {
            Ok(v as f64)
        }
        fn visit_u64<E>(self, v: u64) -> Result<f64, E> {
            Ok(v as f64)
        }
        fn visit_none<E>(self) -> Result<f64, E> {
            Ok(f64::NAN)
        }
        fn visit_unit<E>(self) -> Result<f64, E> {
            Ok(f64::NAN)
        }
        fn visit_some<D2: Deserializer<'de>>(self, d: D2) -> Result<f64, D2::Error> {
            d.deserialize_any(self)
        }
    }
    d.deserialize_any(NumberOrNone)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_file_stems() {
        assert_eq!(dataset_name(Path::new("a/wordsim353.tsv")), "wordsim353");
        assert_eq!(dataset_name(Path::new("a/simlex999.txt.gz")), "simlex999");
        assert_eq!(
            dataset_name(Path::new("questions-words.txt")),
            "questions-words"
        );
    }
}
