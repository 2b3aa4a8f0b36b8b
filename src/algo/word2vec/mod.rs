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
//! - SGNS, `batch=window`: the contexts of one centre share one draw of
//!   negatives and are updated together (Ji et al. 2016, "Parallelizing
//!   Word2Vec in Shared and Distributed Memory"; Intel's pWord2Vec), see
//!   [`worker`]. It is the default: at gensim's quality it takes about half
//!   the CPU of `batch=pair`, which keeps word2vec.c's semantics;
//! - CBOW, `batch=example` (the default, word2vec.c's order, which is also
//!   what CBOW sessions written before the option meant:
//!   [`crate::schema::ParamSpec::absent`]) or `batch=window`: a centre's
//!   targets drawn one centre ahead and all scored before any is stepped,
//!   cheaper under load and about 8% dearer on an idle machine;
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
pub mod params;
pub mod sigmoid;
pub mod source;
pub mod trainer;
pub mod worker;

use crate::train::{Method, TrainInput, Trainer};
use crate::Result;

pub use params::{Settings, CBOW_SCHEMA, SGNS_SCHEMA};
pub use trainer::Word2Vec;
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
