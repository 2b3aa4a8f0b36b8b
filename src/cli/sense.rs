//! `wordbench sense`: the senses of a word in multi-sense vectors
//! (`--algo senses`), their labels and neighbours, and with `--context` the
//! sense a sentence picks; with `--scws` the SCWS scores (AvgSimC, MaxSimC)
//! of the vectors.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{anyhow, bail, Result};
use clap::Args;
use wordbench::embedding::{senses, Embedding, NeighborParams, SenseTable};
use wordbench::eval::scws;

/// `wordbench sense`
#[derive(Debug, Args)]
pub struct SenseArgs {
    /// Vectors written by `wordbench train --algo senses` (with the `VECTORS.senses` file beside).
    pub vectors: PathBuf,
    /// The word.
    #[arg(long, required_unless_present = "scws")]
    pub word: Option<String>,
    /// Score the vectors on an SCWS file (contextual word similarity): Spearman ρ of AvgSimC, MaxSimC and GlobalSim.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["word", "context"])]
    pub scws: Option<PathBuf>,
    /// With --scws: print the scores as JSON.
    #[arg(long, requires = "scws")]
    pub json: bool,
    /// A sentence with the word: prints every sense's score and picks one.
    #[arg(long)]
    pub context: Option<String>,
    /// Neighbours (and label words) per sense.
    #[arg(short, default_value_t = 8, value_parser = super::values::count(1, super::values::MAX_LISTED))]
    pub k: usize,
}

/// Runs `wordbench sense`.
pub fn run(args: SenseArgs) -> Result<()> {
    let embedding = super::vectors::load(&args.vectors, None)?;
    if let Some(file) = &args.scws {
        // Vectors without senses score too (one row per word: the three
        // scores are then equal), as a baseline.
        return score_scws(&embedding, file, args.json);
    }
    let Some(table) = embedding.senses() else {
        bail!(
            "{}: no sense inventory beside the vectors ({} missing; train with --algo senses)",
            args.vectors.display(),
            senses::sidecar_path(&args.vectors).display()
        );
    };
    let word = args.word.as_deref().unwrap_or_default().to_lowercase();
    let list = table.of(&word);
    if list.is_empty() {
        bail!("{word} has one sense in {}", args.vectors.display());
    }
    let induction = args.context.as_deref().map(|c| table.induce(&word, c));
    let mut out = std::io::stdout().lock();
    if induction.is_some() {
        cut_note(&mut out, table)?;
    }
    for (j, s) in list.iter().enumerate() {
        let neighbours = embedding
            .neighbors(&s.name, NeighborParams::k(args.k + list.len()))
            .map_err(|e| anyhow!("{}: {e}", args.vectors.display()))?;
        let names: Vec<&str> = neighbours
            .iter()
            .map(|n| n.word.as_str())
            .filter(|w| *w != word && !w.starts_with(&format!("{word}#")))
            .take(args.k)
            .collect();
        let score = match &induction {
            Some(Some(r)) => format!(
                "  score {:.4}{}",
                r.scores[j],
                if r.best == Some(j) { "  <- picked" } else { "" }
            ),
            _ => String::new(),
        };
        writeln!(out, "{} (mass {:.3}){score}", s.name, s.mass)?;
        writeln!(out, "  label:      {}", s.label(args.k))?;
        writeln!(out, "  neighbours: {}", names.join(", "))?;
    }
    if let Some(Some(r)) = &induction {
        match r.best {
            Some(best) => writeln!(out, "sense: {}", list[best].name)?,
            None => writeln!(
                out,
                "no sense picked: no word of the context supports one (every score is 0)"
            )?,
        }
    }
    Ok(())
}

/// A line saying that induction runs on a cut of the sense vectors (a
/// sidecar written with `label_contexts` > 0, or by a wordbench that kept
/// only the 100 strongest contexts): nothing when the vectors are whole.
fn cut_note(out: &mut impl Write, table: &SenseTable) -> Result<()> {
    if !table.is_whole() {
        writeln!(
            out,
            "note: this sense inventory keeps only the strongest context words of each sense, so a sentence whose words were cut scores 0; train again (label_contexts=0, the default) for induction on the whole sense vectors"
        )?;
    }
    Ok(())
}

/// `wordbench sense VECTORS --scws FILE`.
fn score_scws(embedding: &Embedding, file: &std::path::Path, json: bool) -> Result<()> {
    let pairs = scws::read_scws(file)?;
    let r = scws::evaluate_scws(embedding, &pairs);
    if r.found == 0 {
        bail!(
            "{}: no pair of the {} has both words in the vocabulary",
            file.display(),
            r.pairs
        );
    }
    let mut out = std::io::stdout().lock();
    if json {
        serde_json::to_writer(&mut out, &r)?;
        writeln!(out)?;
        return Ok(());
    }
    if let Some(table) = embedding.senses() {
        cut_note(&mut out, table)?;
    }
    writeln!(
        out,
        "SCWS: {} of {} pairs have both words ({} with a word that has senses)",
        r.found, r.pairs, r.with_senses
    )?;
    writeln!(out, "AvgSimC    {:.4}", r.avg_sim_c)?;
    writeln!(out, "MaxSimC    {:.4}", r.max_sim_c)?;
    writeln!(out, "GlobalSim  {:.4}", r.global_sim)?;
    Ok(())
}
