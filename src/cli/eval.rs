//! `wordbench eval` and `wordbench neighbors`.

use std::io::Write;

use anyhow::Result;
use wordbench::algo::dsnmf::walk;
use wordbench::embedding::{Embedding, NeighborParams};
use wordbench::eval::{AnalogyConfig, AnalogyMethod, EvalPlan, Report};

use super::args::{AnalogyMethodArg, EvalArgs, NeighborRanking, NeighborsArgs, TopicsArgs};
use super::assets;

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
    let embedding = Embedding::load(&args.vectors)?;
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
        return Ok(());
    }
    writeln!(
        out,
        "{} vectors of dimension {}",
        embedding.len(),
        embedding.dim()
    )?;
    print_report(&mut out, &report, args.sections)
}

/// Prints an evaluation report as a few aligned lines.
pub fn print_report(out: &mut impl Write, report: &Report, sections: bool) -> Result<()> {
    for s in &report.similarity {
        writeln!(
            out,
            "{:<20} spearman {:.4}  pearson {:.4}  pairs {}/{}",
            s.dataset, s.spearman, s.pearson, s.found, s.pairs
        )?;
    }
    if let Some(a) = &report.analogy {
        writeln!(
            out,
            "{:<20} {} (top {}): total {:.2}%  semantic {:.2}%  syntactic {:.2}%  answered {}/{}",
            a.dataset,
            a.method.name(),
            a.restrict,
            100.0 * a.total,
            100.0 * a.semantic,
            100.0 * a.syntactic,
            a.answered,
            a.questions
        )?;
        if sections {
            for s in &a.sections {
                writeln!(
                    out,
                    "  {:<28} {:6.2}%  {}/{}",
                    s.section,
                    100.0 * s.accuracy,
                    s.answered,
                    s.questions
                )?;
            }
        }
    }
    Ok(())
}

/// Prints the nearest neighbours of each word.
pub fn neighbors(args: NeighborsArgs) -> Result<()> {
    let embedding = Embedding::load(&args.vectors)?;
    if args.by == NeighborRanking::Walk {
        walk::check_simplex(&embedding)?;
    }
    let mut out = std::io::stdout().lock();
    let params = NeighborParams {
        k: args.k,
        limit: None,
    };
    for word in &args.words {
        let found: wordbench::Result<Vec<(String, f64)>> = match args.by {
            NeighborRanking::Cosine => embedding
                .neighbors(word, params)
                .or_else(|_| embedding.neighbors(&word.to_lowercase(), params))
                .map(|l| l.into_iter().map(|n| (n.word, n.cosine as f64)).collect()),
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
                writeln!(out, "{word}")?;
                for (w, score) in list {
                    match args.by {
                        NeighborRanking::Cosine => writeln!(out, "  {w:<20} {score:.4}")?,
                        NeighborRanking::Walk => writeln!(out, "  {w:<20} {score:.3e}")?,
                    }
                }
            }
            Err(e) => writeln!(out, "{word}: {e}")?,
        }
    }
    Ok(())
}

/// Prints each topic's most probable words (dsnmf vectors).
pub fn topics(args: TopicsArgs) -> Result<()> {
    let embedding = Embedding::load(&args.vectors)?;
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
