//! `wordbench eval` and `wordbench neighbors`.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use wordbench::algo::dsnmf::walk;
use wordbench::embedding::NeighborParams;
use wordbench::eval::{AnalogyConfig, AnalogyMethod, EvalPlan, Report};

use wordbench::assets;

use super::values::{count, MAX_LISTED, MAX_WORDS};

/// `wordbench eval`
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// Vectors file (word2vec text or binary, GloVe text with or without a
    /// header, fastText .vec or .bin, .npy; .gz/.bz2/.xz ok).
    pub vectors: PathBuf,
    /// Read only the first N words of the file (like gensim's `limit`).
    #[arg(long, value_name = "N", value_parser = count(1, MAX_WORDS))]
    pub limit: Option<usize>,
    /// Similarity dataset (`word1 word2 score`); repeatable. Default: the bundled WordSim-353 and SimLex-999.
    #[arg(long)]
    pub similarity: Vec<PathBuf>,
    /// Analogy dataset (Google format). Default: the bundled questions-words.txt.
    #[arg(long)]
    pub analogy: Option<PathBuf>,
    /// Analogy candidates: the N most frequent words (first N rows).
    #[arg(long, default_value_t = 30_000, value_parser = count(1, MAX_WORDS))]
    pub restrict: usize,
    /// Analogy objective.
    #[arg(long, value_enum, default_value = "add")]
    pub method: AnalogyMethodArg,
    /// Also print per-section analogy accuracy.
    #[arg(long)]
    pub sections: bool,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Analogy objectives on the command line.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum AnalogyMethodArg {
    /// 3CosAdd.
    Add,
    /// 3CosMul.
    Mul,
}

/// `wordbench neighbors`
#[derive(Debug, Args)]
pub struct NeighborsArgs {
    /// Vectors file (any format wordbench reads). With a fastText .bin model,
    /// a word outside the vocabulary gets its vector from subword n-grams.
    pub vectors: PathBuf,
    /// Query words.
    #[arg(required = true)]
    pub words: Vec<String>,
    /// Read only the first N words of the file (like gensim's `limit`).
    #[arg(long, value_name = "N", value_parser = count(1, MAX_WORDS))]
    pub limit: Option<usize>,
    /// Neighbours per word.
    #[arg(short, default_value_t = 10, value_parser = count(1, MAX_LISTED))]
    pub k: usize,
    /// Ranking: cosine, or `walk` for dsnmf vectors (the learned similarity
    /// S_hat_ij = sum_k W_ik W_jk / s_k, a word -> topic -> word walk).
    #[arg(long, value_enum, default_value = "cosine")]
    pub by: NeighborRanking,
}

/// How `wordbench neighbors` ranks words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum NeighborRanking {
    /// Cosine of the vectors.
    Cosine,
    /// Probability of a word -> topic -> word walk (dsnmf vectors).
    Walk,
}

/// `wordbench topics`
#[derive(Debug, Args)]
pub struct TopicsArgs {
    /// Vectors file written by `wordbench train --algo dsnmf`.
    pub vectors: PathBuf,
    /// Words per topic.
    #[arg(short, default_value_t = 10, value_parser = count(1, MAX_LISTED))]
    pub k: usize,
}

/// The bundled WordSim-353, SimLex-999 and Google analogy sets.
pub fn bundled_plan() -> EvalPlan {
    EvalPlan {
        similarity: assets::SIMILARITY.iter().map(|p| assets::path(p)).collect(),
        analogy: Some(assets::path(assets::ANALOGY)),
        analogy_config: AnalogyConfig::default(),
    }
}

/// Evaluates a vectors file on similarity and analogy sets.
pub fn eval(args: EvalArgs) -> Result<()> {
    let embedding = super::vectors::load(&args.vectors, args.limit)?;
    let mut plan = if args.similarity.is_empty() && args.analogy.is_none() {
        bundled_plan()
    } else {
        EvalPlan {
            similarity: args.similarity.clone(),
            analogy: args.analogy.clone(),
            analogy_config: AnalogyConfig::default(),
        }
    };
    plan.analogy_config = AnalogyConfig {
        method: match args.method {
            AnalogyMethodArg::Add => AnalogyMethod::CosAdd,
            AnalogyMethodArg::Mul => AnalogyMethod::CosMul,
        },
        restrict: args.restrict,
    };
    let report = plan.run(&embedding)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer(&mut out, &report)?;
        writeln!(out)?;
    } else {
        writeln!(
            out,
            "{} vectors of dimension {}",
            embedding.len(),
            embedding.dim()
        )?;
        print_report(&mut out, &report, &plan, args.sections)?;
    }
    let scored = report.similarity.iter().any(|s| s.found > 0)
        || report.analogy.as_ref().is_some_and(|a| a.answered > 0);
    if !scored {
        bail!(
            "nothing evaluated: no pair or question of the evaluation sets is in the vocabulary of {}",
            args.vectors.display()
        );
    }
    Ok(())
}

/// Prints an evaluation report (of `plan`) as a few aligned lines; a set
/// none of whose pairs or questions could be scored says so instead of NaN.
pub fn print_report(
    out: &mut impl Write,
    report: &Report,
    plan: &EvalPlan,
    sections: bool,
) -> Result<()> {
    for (s, file) in report.similarity.iter().zip(&plan.similarity) {
        if s.found == 0 {
            writeln!(
                out,
                "{:<20} no pairs of {} are in the vocabulary (0/{})",
                s.dataset,
                file.display(),
                s.pairs
            )?;
            continue;
        }
        writeln!(
            out,
            "{:<20} spearman {}  pearson {}  pairs {}/{}",
            s.dataset,
            number(s.spearman, 4),
            number(s.pearson, 4),
            s.found,
            s.pairs
        )?;
    }
    if let (Some(a), Some(file)) = (&report.analogy, &plan.analogy) {
        if a.answered == 0 {
            writeln!(
                out,
                "{:<20} no questions of {} are in the vocabulary (top {}; 0/{})",
                a.dataset,
                file.display(),
                a.restrict,
                a.questions
            )?;
            return Ok(());
        }
        writeln!(
            out,
            "{:<20} {} (top {}): total {}  semantic {}  syntactic {}  answered {}/{}",
            a.dataset,
            a.method.name(),
            a.restrict,
            percent(a.total),
            percent(a.semantic),
            percent(a.syntactic),
            a.answered,
            a.questions
        )?;
        if sections {
            for s in &a.sections {
                writeln!(
                    out,
                    "  {:<28} {:>7}  {}/{}",
                    s.section,
                    percent(s.accuracy),
                    s.answered,
                    s.questions
                )?;
            }
        }
    }
    Ok(())
}

/// `v` with `decimals` decimals, or `n/a` when it could not be computed (NaN:
/// fewer than two pairs, or no question of that kind).
fn number(v: f64, decimals: usize) -> String {
    if v.is_finite() {
        format!("{v:.decimals$}")
    } else {
        "n/a".into()
    }
}

/// A share as a percentage with two decimals, or `n/a`.
fn percent(v: f64) -> String {
    if v.is_finite() {
        format!("{:.2}%", 100.0 * v)
    } else {
        "n/a".into()
    }
}

/// Prints the nearest neighbours of each word.
pub fn neighbors(args: NeighborsArgs) -> Result<()> {
    let embedding = super::vectors::load(&args.vectors, args.limit)?;
    if args.by == NeighborRanking::Walk {
        walk::check_simplex(&embedding).context("--by walk (use --by cosine)")?;
    }
    let mut out = std::io::stdout().lock();
    let params = NeighborParams {
        k: args.k,
        limit: None,
    };
    let mut missing = 0;
    for word in &args.words {
        let mut heading = word.clone();
        let found: wordbench::Result<Vec<(String, f64)>> = match args.by {
            NeighborRanking::Cosine => embedding
                .neighbors(word, params)
                .or_else(|_| embedding.neighbors(&word.to_lowercase(), params))
                .or_else(|e| match embedding.subword_vector(word) {
                    Some(v) => {
                        heading = format!("{word} (from subwords)");
                        embedding.neighbors_of_vector(v.view(), params, &[])
                    }
                    None => Err(e),
                })
                .map(|l| l.into_iter().map(|n| (n.word, n.score as f64)).collect()),
            NeighborRanking::Walk => {
                match embedding
                    .id(word)
                    .or_else(|| embedding.id(&word.to_lowercase()))
                {
                    Some(id) => walk::walk_neighbors(&embedding, id, args.k).map(|l| {
                        l.into_iter()
                            .map(|(j, p)| (embedding.words().word(j).to_string(), p))
                            .collect()
                    }),
                    None => Err(wordbench::Error::param(
                        "word",
                        format!("{word} is not in the vocabulary"),
                    )),
                }
            }
        };
        match found {
            Ok(list) => {
                writeln!(out, "{heading}")?;
                for (w, score) in list {
                    match args.by {
                        NeighborRanking::Cosine => writeln!(out, "  {w:<20} {score:.4}")?,
                        NeighborRanking::Walk => writeln!(out, "  {w:<20} {score:.3e}")?,
                    }
                }
            }
            Err(e) => {
                eprintln!("wordbench: {}: {e}", wordbench::quote::text(word));
                missing += 1;
            }
        }
    }
    // Like `eval` with nothing scored: a word without neighbours is a failure.
    if missing > 0 {
        bail!(
            "{missing} of {} word(s) have no neighbours (not in the vocabulary)",
            args.words.len()
        );
    }
    Ok(())
}

/// Prints each topic's most probable words (dsnmf vectors).
pub fn topics(args: TopicsArgs) -> Result<()> {
    let embedding = super::vectors::load(&args.vectors, None)?;
    let mut out = std::io::stdout().lock();
    for (t, words) in walk::topics(&embedding, args.k)?.iter().enumerate() {
        let list: Vec<&str> = words
            .iter()
            .map(|&(j, _)| embedding.words().word(j))
            .collect();
        writeln!(out, "topic {t:>3}: {}", list.join(" "))?;
    }
    Ok(())
}
