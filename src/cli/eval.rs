//! `wordbench eval` and `wordbench neighbors`.

use std::io::Write;

use anyhow::Result;
use wordbench::embedding::{Embedding, NeighborParams};
use wordbench::eval::{AnalogyConfig, AnalogyMethod, EvalPlan, Report};

use super::args::{AnalogyMethodArg, EvalArgs, NeighborsArgs};
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
    let mut out = std::io::stdout().lock();
    let params = NeighborParams {
        k: args.k,
        limit: None,
    };
    for word in &args.words {
        let found = embedding
            .neighbors(word, params)
            .or_else(|_| embedding.neighbors(&word.to_lowercase(), params));
        match found {
            Ok(list) => {
                writeln!(out, "{word}")?;
                for n in list {
                    writeln!(out, "  {:<20} {:.4}", n.word, n.cosine)?;
                }
            }
            Err(e) => writeln!(out, "{word}: {e}")?,
        }
    }
    Ok(())
}
