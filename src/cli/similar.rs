//! `wordbench similar` and `wordbench doesnt-match`: gensim's word queries
//! from the command line (`most_similar(positive, negative)`, its 3CosMul
//! variant, and `doesnt_match`), with the answers gensim gives.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{bail, Result};
use clap::Args;
use wordbench::embedding::{queries, Combine, NeighborParams};

/// `wordbench similar`
#[derive(Debug, Args)]
pub struct SimilarArgs {
    /// Vectors file (any format wordbench reads), or `SESSION.ron#N`.
    pub vectors: PathBuf,
    /// Query terms: a word (or `+word`) adds, `-word` subtracts; `king -man
    /// +woman` is the analogy man : king :: woman : ?. Terms may also come
    /// as one quoted argument. Options go before the terms.
    #[arg(required = true, allow_hyphen_values = true, num_args = 1..)]
    pub terms: Vec<String>,
    /// More words to subtract (gensim's `negative=`).
    #[arg(long, value_name = "WORD")]
    pub negative: Vec<String>,
    /// Combine multiplicatively (3CosMul, gensim's `most_similar_cosmul`)
    /// instead of adding unit vectors (3CosAdd).
    #[arg(long)]
    pub cosmul: bool,
    /// How many words to list.
    #[arg(short, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub k: u32,
    /// Consider only the first N words of the file (gensim's `restrict_vocab`).
    #[arg(long, value_name = "N", value_parser = super::values::count(1, super::values::MAX_WORDS))]
    pub limit: Option<usize>,
}

/// `wordbench doesnt-match`
#[derive(Debug, Args)]
pub struct DoesntMatchArgs {
    /// Vectors file (any format wordbench reads), or `SESSION.ron#N`.
    pub vectors: PathBuf,
    /// Two or more words; the one least like the others is printed first.
    #[arg(required = true, num_args = 2..)]
    pub words: Vec<String>,
}

/// Runs `wordbench similar`.
pub fn similar(args: SimilarArgs) -> Result<()> {
    let (positive, mut negative) = queries::signed_terms(&args.terms.join(" "));
    negative.append(&mut args.negative.clone());
    if positive.is_empty() {
        bail!("a query needs a word to add: `king -man +woman`");
    }
    let embedding = super::vectors::load(&args.vectors, None)?;
    let combine = if args.cosmul {
        Combine::Mul
    } else {
        Combine::Add
    };
    let params = NeighborParams {
        k: args.k as usize,
        limit: args.limit,
    };
    let pos: Vec<&str> = positive.iter().map(String::as_str).collect();
    let neg: Vec<&str> = negative.iter().map(String::as_str).collect();
    let list = embedding.most_similar(&pos, &neg, combine, params)?;
    let mut out = std::io::stdout().lock();
    let minus: String = neg.iter().map(|w| format!(" -{w}")).collect();
    writeln!(out, "{}{minus} ({})", pos.join(" +"), combine.name())?;
    for n in list {
        writeln!(out, "  {:<20} {:.4}", n.word, n.score)?;
    }
    Ok(())
}

/// Runs `wordbench doesnt-match`.
pub fn doesnt_match(args: DoesntMatchArgs) -> Result<()> {
    let embedding = super::vectors::load(&args.vectors, None)?;
    let words: Vec<&str> = args.words.iter().map(String::as_str).collect();
    let ranked = embedding.doesnt_match(&words)?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "least like the others first (cosine to their mean):")?;
    for n in ranked {
        writeln!(out, "  {:<20} {:.4}", n.word, n.score)?;
    }
    Ok(())
}
