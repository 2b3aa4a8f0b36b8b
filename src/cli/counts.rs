//! `wordbench counts`: count a corpus once into a counts file, or import
//! counts made by Stanford GloVe or a Spark job.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Result};
use clap::{Args, ValueEnum};
use wordbench::cooc::{CountConfig, CountPhase, Weighting, Window, WindowKind};
use wordbench::corpus::Corpus;
use wordbench::counts::{self, import, CountsMeta};
use wordbench::outputs::{Guard, Kind};

use super::schema_args::{CorpusFormat, CorpusOpts};

/// Distance weighting of the window.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum WeightingArg {
    /// Every pair in the window adds 1.
    Uniform,
    /// A pair at distance d adds 1/d (GloVe's cooccur).
    Harmonic,
}

/// `wordbench counts`
#[derive(Debug, Args)]
pub struct CountsArgs {
    /// Corpus file to count (not with --from-glove or --from-parts).
    #[arg(required_unless_present_any = ["from_glove", "from_parts"])]
    pub corpus: Option<PathBuf>,
    /// The counts file to write.
    #[arg(long)]
    pub out: PathBuf,
    /// Window size L (default 10 when counting; recorded as given for imports).
    #[arg(long, value_parser = super::values::count(1, 10_000))]
    pub window: Option<usize>,
    /// Distance weighting.
    #[arg(long, value_enum, default_value = "uniform")]
    pub weighting: WeightingArg,
    /// Count only the words before each word (default: both sides).
    #[arg(long)]
    pub left_only: bool,
    /// Import Stanford GloVe `cooccur` output (needs --vocab, GloVe's vocab_count file).
    #[arg(
        long,
        value_name = "COOCCUR_BIN",
        conflicts_with = "corpus",
        requires = "vocab"
    )]
    pub from_glove: Option<PathBuf>,
    /// Import a directory of (word, context, count) part files (Parquet, or TSV/CSV with .gz ok), as a Spark job writes.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["corpus", "from_glove"])]
    pub from_parts: Option<PathBuf>,
    /// `word count` vocabulary file for an import (with --from-parts: else words are counted by their row sums).
    #[arg(long, value_name = "FILE")]
    pub vocab: Option<PathBuf>,
    /// Corpus format (`--corpus-format`), reading, vocabulary and memory options.
    #[command(flatten)]
    pub opts: CorpusOpts<CorpusFormat>,
    /// No progress on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

impl CountsArgs {
    fn window(&self, size: usize) -> Window {
        Window {
            size,
            kind: if self.left_only {
                WindowKind::LeftOnly
            } else {
                WindowKind::Symmetric
            },
            weighting: match self.weighting {
                WeightingArg::Uniform => Weighting::Uniform,
                WeightingArg::Harmonic => Weighting::Harmonic,
            },
        }
    }
}

/// Before any work: `--out` is none of the inputs (the corpus, the GloVe
/// files) and not inside the `--from-parts` folder (the next import would
/// read it as a part), and an existing file there is a counts file.
fn check_output(args: &CountsArgs) -> Result<()> {
    let mut guard = Guard::new();
    if let Some(c) = &args.corpus {
        guard.input("the corpus", c);
    }
    if let Some(bin) = &args.from_glove {
        guard.input("the --from-glove file", bin);
    }
    if let Some(v) = &args.vocab {
        guard.input("the --vocab file", v);
    }
    if let Some(dir) = &args.from_parts {
        guard.folder_input("--from-parts", dir);
    }
    guard.output("--out", &args.out, Kind::Counts)?;
    Ok(())
}

/// Runs `wordbench counts`.
pub fn run(args: CountsArgs) -> Result<()> {
    super::check_output_name("--out", &args.out, false)?;
    check_output(&args)?;
    let started = Instant::now();
    let imported = match (&args.from_glove, &args.from_parts) {
        (Some(bin), _) => Some(import::glove(
            bin,
            args.vocab.as_ref().expect("clap requires --vocab"),
        )?),
        (None, Some(dir)) => Some(import::parts(dir, args.vocab.as_deref())?),
        (None, None) => None,
    };
    if let Some(mut c) = imported {
        c.meta = CountsMeta {
            window: args.window.map(|size| args.window(size)),
            tokens: 0,
        };
        if let Some(w) = c.meta.window {
            w.validate()?;
        }
        counts::write(&args.out, &c.vocab, &c.matrix, c.meta)?;
        if !args.quiet {
            eprintln!(
                "imported {} words, {} cells into {} in {:.1}s",
                c.vocab.len(),
                c.matrix.nnz(),
                args.out.display(),
                started.elapsed().as_secs_f64()
            );
        }
        return Ok(());
    }
    let path = args.corpus.as_ref().expect("clap requires a corpus");
    if counts::is_counts_file(path) {
        bail!("{}: is already a counts file", path.display());
    }
    let config = CountConfig {
        window: args.window(args.window.unwrap_or(10)),
        max_vocab: None,
    };
    config.window.validate()?;
    let corpus = Corpus::open(path, args.opts.config()?)?;
    super::corpus_warnings(&corpus);
    let read = started.elapsed().as_secs_f64();
    let quiet = args.quiet;
    let mut last: Option<Instant> = None;
    // The first report, merging, and at most a line every 2 seconds between.
    let report = counts::count_to_file(&corpus, &config, &args.out, |p| {
        let due = last.is_none_or(|t| t.elapsed().as_secs_f64() >= 2.0);
        if !quiet && (due || p.phase == CountPhase::Merging) {
            last = Some(Instant::now());
            eprintln!("{}", p.describe());
        }
    })?;
    if !quiet {
        let secs = started.elapsed().as_secs_f64();
        eprintln!(
            "counted {} tokens of {} words in {:.1}s (vocabulary pass {:.1}s, {:.0} tokens/s), {} runs spilled; wrote {}",
            report.tokens,
            report.words,
            secs,
            read,
            report.tokens as f64 / (secs - read).max(1e-9),
            report.spilled_runs,
            args.out.display()
        );
    }
    Ok(())
}
