//! `wordbench eval` and `wordbench neighbors`.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use serde::Serialize;
use wordbench::embedding::{Embedding, NeighborParams};
use wordbench::eval::{
    evaluate_analogy, evaluate_similarity, AnalogyConfig, AnalogyDataset, AnalogyMethod,
    AnalogyResult, SimilarityConfig, SimilarityDataset, SimilarityResult,
};

use super::args::{AnalogyMethodArg, EvalArgs, NeighborsArgs};
use super::assets;

#[derive(Serialize)]
struct Report {
    similarity: Vec<SimilarityResult>,
    analogy: Option<AnalogyResult>,
}

/// Evaluates a vectors file on similarity and analogy sets.
pub fn eval(args: EvalArgs) -> Result<()> {
    let embedding = Embedding::load(&args.vectors)?;
    let bundled = args.similarity.is_empty() && args.analogy.is_none();
    let similarity_files: Vec<PathBuf> = if bundled {
        assets::SIMILARITY.iter().map(|p| assets::path(p)).collect()
    } else {
        args.similarity.clone()
    };
    let analogy_file = if bundled {
        Some(assets::path(assets::ANALOGY))
    } else {
        args.analogy.clone()
    };
    let mut similarity = Vec::new();
    for file in &similarity_files {
        let dataset = SimilarityDataset::read(file)?;
        similarity.push(evaluate_similarity(
            &embedding,
            &dataset,
            SimilarityConfig::default(),
        ));
    }
    let analogy = match &analogy_file {
        Some(file) => {
            let dataset = AnalogyDataset::read(file)?;
            let config = AnalogyConfig {
                method: match args.method {
                    AnalogyMethodArg::Add => AnalogyMethod::CosAdd,
                    AnalogyMethodArg::Mul => AnalogyMethod::CosMul,
                },
                restrict: args.restrict,
            };
            Some(evaluate_analogy(&embedding, &dataset, config))
        }
        None => None,
    };
    let report = Report {
        similarity,
        analogy,
    };
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
        if args.sections {
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
    for word in &args.words {
        let params = NeighborParams {
            k: args.k,
            limit: None,
        };
        match embedding
            .neighbors(&word.to_lowercase(), params)
            .or_else(|_| embedding.neighbors(word, params))
        {
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
