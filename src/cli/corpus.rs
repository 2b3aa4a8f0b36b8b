//! `wordbench corpus stats`.

use std::io::Write;

use anyhow::Result;
use serde::Serialize;
use wordbench::corpus::CorpusStats;

use super::args::{CorpusCommand, StatsArgs};

/// Runs a `corpus` subcommand.
pub fn run(cmd: CorpusCommand) -> Result<()> {
    match cmd {
        CorpusCommand::Stats(args) => stats(args),
    }
}

#[derive(Serialize)]
struct StatsJson<'a> {
    corpus: String,
    format: &'static str,
    #[serde(flatten)]
    stats: &'a CorpusStats,
    top: Vec<(&'a str, u64)>,
}

fn stats(args: StatsArgs) -> Result<()> {
    let corpus = wordbench::counts::open(&args.corpus, args.opts.config()?)?;
    super::corpus_warnings(&corpus);
    let vocab = corpus.vocab();
    let top: Vec<(&str, u64)> = (0..args.top.min(vocab.len()))
        .map(|i| (vocab.word(i as u32), vocab.counts()[i]))
        .collect();
    let stats = corpus.stats();
    let mut out = std::io::stdout().lock();
    if args.json {
        let json = StatsJson {
            corpus: args.corpus.display().to_string(),
            format: corpus.config().read.format.name(),
            stats,
            top,
        };
        serde_json::to_writer(&mut out, &json)?;
        writeln!(out)?;
        return Ok(());
    }
    writeln!(out, "corpus          {}", args.corpus.display())?;
    writeln!(
        out,
        "format          {}",
        corpus.config().read.format.name()
    )?;
    writeln!(out, "documents       {}", stats.documents)?;
    writeln!(out, "tokens          {}", stats.tokens)?;
    writeln!(out, "types           {}", stats.types)?;
    writeln!(
        out,
        "vocabulary      {} (min-count {})",
        stats.vocabulary,
        corpus.config().vocab.min_count
    )?;
    writeln!(out, "held-out tokens {}", stats.heldout_tokens)?;
    writeln!(out, "train in vocab  {}", stats.train_tokens_in_vocab)?;
    if stats.utf8_replacements > 0 {
        writeln!(
            out,
            "invalid UTF-8   {} sequences replaced",
            stats.utf8_replacements
        )?;
    }
    writeln!(out, "top words")?;
    for (w, c) in top {
        writeln!(out, "  {w:<16} {c}")?;
    }
    Ok(())
}
