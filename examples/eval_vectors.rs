//! Evaluates a vector file on similarity and analogy sets and prints one JSON
//! object, `{"similarity": [...], "analogy": {...}}` (the CLI's `eval --json`
//! shape). Used by `benches/compare/eval_compare.sh` to check against gensim.
//!
//! ```text
//! cargo run --release --example eval_vectors -- VECTORS [--similarity FILE]...
//!     [--analogy FILE] [--restrict N] [--method 3cosadd|3cosmul]
//!     [--save-text OUT] [--save-binary OUT] [--save-glove OUT]
//! ```
//! The `--save-*` options write the loaded vectors back out (format checks).
//! Timings go to stderr.

use std::time::Instant;

use anyhow::{bail, Context, Result};
use wordbench::embedding::{Embedding, VectorFormat};
use wordbench::eval::{
    evaluate_analogy, evaluate_similarity, AnalogyConfig, AnalogyDataset, AnalogyMethod,
    SimilarityConfig, SimilarityDataset,
};

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let mut vectors = None;
    let mut similarity = Vec::new();
    let mut analogy = None;
    let mut config = AnalogyConfig::default();
    let mut saves = Vec::new();
    while let Some(arg) = args.next() {
        let mut value = || args.next().with_context(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--similarity" => similarity.push(value()?),
            "--analogy" => analogy = Some(value()?),
            "--save-text" => saves.push((value()?, VectorFormat::Word2VecText)),
            "--save-binary" => saves.push((value()?, VectorFormat::Word2VecBinary)),
            "--save-glove" => saves.push((value()?, VectorFormat::GloveText)),
            "--restrict" => config.restrict = value()?.parse().context("--restrict")?,
            "--method" => {
                config.method = match value()?.as_str() {
                    "3cosadd" => AnalogyMethod::CosAdd,
                    "3cosmul" => AnalogyMethod::CosMul,
                    m => bail!("unknown method {m}"),
                }
            }
            _ if vectors.is_none() && !arg.starts_with("--") => vectors = Some(arg),
            _ => bail!("unexpected argument {arg}"),
        }
    }
    let vectors =
        vectors.context("usage: eval_vectors VECTORS [--similarity FILE]... [--analogy FILE]")?;
    let t = Instant::now();
    let embedding = Embedding::load(&vectors)?;
    eprintln!(
        "loaded {} x {} in {:.3}s",
        embedding.len(),
        embedding.dim(),
        t.elapsed().as_secs_f64()
    );
    for (path, format) in &saves {
        embedding.save(path, *format)?;
    }
    let mut sims = Vec::new();
    for path in &similarity {
        let dataset = SimilarityDataset::read(path)?;
        sims.push(evaluate_similarity(
            &embedding,
            &dataset,
            SimilarityConfig::default(),
        ));
    }
    let analogy = match analogy {
        Some(path) => {
            let dataset = AnalogyDataset::read(&path)?;
            let t = Instant::now();
            let result = evaluate_analogy(&embedding, &dataset, config);
            eprintln!(
                "analogy {}: {} questions, {} answered, {:.3}s",
                config.method.name(),
                result.questions,
                result.answered,
                t.elapsed().as_secs_f64()
            );
            Some(result)
        }
        None => None,
    };
    let out = serde_json::json!({ "similarity": sims, "analogy": analogy });
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(())
}
