//! Locating the bundled data (`assets/`): next to the working directory when
//! run from a checkout, else where the crate was built.

use std::path::PathBuf;

/// The bundled default corpus.
pub const DEFAULT_CORPUS: &str = "corpora/text8-head.txt.gz";
/// The bundled similarity sets.
pub const SIMILARITY: &[&str] = &["eval/wordsim353.tsv", "eval/simlex999.txt"];
/// The bundled analogy set.
pub const ANALOGY: &str = "eval/questions-words.txt";
/// The bundled labelled sentences (the Classify screen's default).
pub const LABELLED: &str = "labeled/rt-polarity.fasttext.txt.gz";

/// The path of a bundled file.
pub fn path(relative: &str) -> PathBuf {
    let local = PathBuf::from("assets").join(relative);
    if local.exists() {
        return local;
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("assets")
        .join(relative)
}
