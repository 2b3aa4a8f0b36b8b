//! word2vec's SGNS and CBOW with negative sampling, with word2vec.c's
//! semantics (Mikolov et al. 2013; the C tool and gensim are the references).
//!
//! - negatives from the unigram^0.75 distribution ([`alias`]), a draw equal
//!   to the target skipped;
//! - subsampling of frequent words with threshold `t`, keep probability
//!   `(sqrt(f/(tT)) + 1)·tT/f`, applied to a sentence before its windows;
//! - a dynamic window: `window - b` words each side, `b` uniform in `[0, window)`;
//! - linear learning-rate decay from `lr` to `lr·min_lr` over the run
//!   ([`crate::train::plan`]), evaluated every chunk of ~10k words;
//! - σ from word2vec's 1000-cell table on `[-6, 6]` ([`sigmoid`]);
//! - SGNS only, `batch=window`: the contexts of one centre share one draw of
//!   negatives and are updated together (Ji et al. 2016, "Parallelizing
//!   Word2Vec in Shared and Distributed Memory"; Intel's pWord2Vec), see
//!   [`worker`]; the default `batch=pair` keeps word2vec.c's semantics;
//! - input vectors uniform in `(-0.5/d, 0.5/d)`, output vectors zero;
//! - parallel updates by Hogwild-style lock-free races (`schedule=hogwild`,
//!   the default, [`crate::fast::hogwild`]) or a deterministic schedule
//!   (`schedule=deterministic`: each thread trains its chunk of a round on
//!   its own replica of the round's start, the changes merged in thread
//!   order, [`crate::fast::replicas`]; it replays bit for bit and costs
//!   about a quarter more CPU time), see [`trainer`].
//!
//! The loss reported per step is the mean negative-sampling loss per example
//! (per (context, centre) pair for SGNS, per centre word for CBOW). The final
//! embedding holds the input vectors, with the output vectors as its context
//! matrix.

pub mod alias;
pub mod kernel;
pub mod sigmoid;
pub mod source;
pub mod trainer;
pub mod worker;

use crate::schema::ParamSpec;
use crate::train::{parallel, Method, TrainInput, Trainer};
use crate::Result;

pub use trainer::{Settings, Word2Vec};
pub use worker::Architecture;

/// Skip-gram with negative sampling.
pub static SGNS: Method = Method {
    name: "sgns",
    summary: "word2vec skip-gram with negative sampling (SGNS)",
    schema: SGNS_SCHEMA,
    dimension: Some("dim"),
    build: build_sgns,
};

/// Continuous bag of words with negative sampling.
pub static CBOW: Method = Method {
    name: "cbow",
    summary: "word2vec continuous bag of words (CBOW, mean of the context) with negative sampling",
    schema: CBOW_SCHEMA,
    dimension: Some("dim"),
    build: build_cbow,
};

fn build_sgns(input: &TrainInput, log: &mut dyn FnMut(String)) -> Result<Box<dyn Trainer>> {
    Ok(Box::new(Word2Vec::new(Architecture::SkipGram, input, log)?))
}

fn build_cbow(input: &TrainInput, log: &mut dyn FnMut(String)) -> Result<Box<dyn Trainer>> {
    Ok(Box::new(Word2Vec::new(Architecture::Cbow, input, log)?))
}

/// The schema entries both methods share; `lr` differs in its default.
const fn schema(lr: f64) -> [ParamSpec; 9] {
    [
        ParamSpec::int("dim", 1, 10_000, 100, "vector dimension (word2vec -size)"),
        ParamSpec::int("window", 1, 100, 5, "maximal context words on each side; each centre uses a uniform 1..window"),
        ParamSpec::int("negative", 1, 100, 5, "negative samples per example, drawn from unigram^0.75"),
        ParamSpec::float("sample", 0.0, 1.0, 1e-3, "subsampling threshold t for frequent words (0 = off)"),
        ParamSpec::int("epochs", 1, 1000, 5, "passes over the corpus (word2vec -iter)"),
        ParamSpec::float("lr", 1e-6, 1.0, lr, "initial learning rate (alpha), decays linearly; set mid-run it becomes the current rate").live(),
        ParamSpec::float("min_lr", 0.0, 1.0, 1e-4, "floor of the decayed learning rate, as a fraction of lr"),
        ParamSpec::choice("sigmoid", &["table", "exact"], "table", "sigmoid by word2vec's 1000-cell table on [-6, 6], or exact"),
        parallel::schedule("hogwild"),
    ]
}

/// How SGNS batches its updates: word2vec.c's one example per (context,
/// centre) pair, or one per window with shared negatives ([`worker`]).
const BATCH: ParamSpec = ParamSpec::choice(
    "batch",
    &["pair", "window"],
    "pair",
    "pair: each (context, centre) pair draws its own negatives (word2vec.c); window: a centre's contexts share one draw, updated as one small dense product (pWord2Vec)",
);

/// The shared entries with SGNS's `batch` before `schedule`.
const fn sgns_schema() -> [ParamSpec; 10] {
    let [dim, window, negative, sample, epochs, lr, min_lr, sigmoid, schedule] = schema(0.025);
    [
        dim, window, negative, sample, epochs, lr, min_lr, sigmoid, BATCH, schedule,
    ]
}

/// SGNS hyperparameters (word2vec defaults, lr 0.025).
pub static SGNS_SCHEMA: &[ParamSpec] = &sgns_schema();

/// CBOW hyperparameters (word2vec defaults, lr 0.05).
pub static CBOW_SCHEMA: &[ParamSpec] = &schema(0.05);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Params;

    #[test]
    fn defaults_are_word2vecs() {
        let s = Settings::from_params(&Params::defaults(SGNS_SCHEMA));
        assert_eq!((s.dim, s.window, s.negative, s.epochs), (100, 5, 5, 5));
        assert_eq!(
            (s.sample, s.lr, s.min_lr, s.table),
            (1e-3, 0.025, 1e-4, true)
        );
        assert!(!s.window_batch, "word2vec.c's pairs by default");
        let c = Settings::from_params(&Params::defaults(CBOW_SCHEMA));
        assert_eq!(c.lr, 0.05);
        assert!(!c.window_batch, "CBOW has no batch choice");
    }

    #[test]
    fn only_lr_is_live() {
        let live: Vec<&str> = SGNS_SCHEMA
            .iter()
            .filter(|p| p.live)
            .map(|p| p.name)
            .collect();
        assert_eq!(live, ["lr"]);
    }
}
