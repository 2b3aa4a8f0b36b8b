//! `wordbench sense`: the senses of a word in multi-sense vectors
//! (`--algo senses`), their labels and neighbours, and with `--context` the
//! sense a sentence picks.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{anyhow, bail, Result};
use clap::Args;
use wordbench::embedding::{senses, NeighborParams};

/// `wordbench sense`
#[derive(Debug, Args)]
pub struct SenseArgs {
    /// Vectors written by `wordbench train --algo senses` (with the `VECTORS.senses` file beside).
    pub vectors: PathBuf,
    /// The word.
    #[arg(long)]
    pub word: String,
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
    let Some(table) = embedding.senses() else {
        bail!(
            "{}: no sense inventory beside the vectors ({} missing; train with --algo senses)",
            args.vectors.display(),
            senses::sidecar_path(&args.vectors).display()
        );
    };
    let word = args.word.to_lowercase();
    let list = table.of(&word);
    if list.is_empty() {
        bail!("{word} has one sense in {}", args.vectors.display());
    }
    let induction = args.context.as_deref().map(|c| table.induce(&word, c));
    let mut out = std::io::stdout().lock();
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
