//! Exports what `wordbench train --algo glove` trains on, in Stanford GloVe's
//! file formats, so that the reference tools can be run on the very same data
//! (benches/compare/glove_compare.sh):
//!
//! - `vocab.txt`: `word count` per line in id order (`vocab_count`'s format);
//! - `train.txt`: the training split (held-out pieces removed, out-of-vocabulary
//!   words dropped), one sentence or 10,000-token piece per line: `cooccur`
//!   never counts across a line break, as wordbench never counts across a piece;
//! - `cooc.bin`: wordbench's co-occurrence matrix as `cooccur`'s records
//!   (`i32` word, `i32` context, both 1-based, `f64` count), row-major.
//!
//! Usage: `cargo run --release --example glove_export_cooc -- CORPUS OUT_DIR
//! [--window 10] [--min-count 5] [--heldout 0.05]` (the corpus options are
//! those of `wordbench train` with its defaults).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use wordbench::algo::glove::Settings;
use wordbench::cooc::count_corpus;
use wordbench::corpus::{Corpus, CorpusConfig, Split};
use wordbench::schema::Params;

struct Args {
    corpus: PathBuf,
    out: PathBuf,
    window: usize,
    min_count: u64,
    heldout: f64,
}

fn parse_args() -> Result<Args> {
    let mut positional = Vec::new();
    let (mut window, mut min_count, mut heldout) = (10, 5, 0.05);
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = || it.next().with_context(|| format!("{a}: missing value"));
        match a.as_str() {
            "--window" => window = value()?.parse().context("--window")?,
            "--min-count" => min_count = value()?.parse().context("--min-count")?,
            "--heldout" => heldout = value()?.parse().context("--heldout")?,
            _ if a.starts_with("--") => bail!("unknown option {a}"),
            _ => positional.push(PathBuf::from(a)),
        }
    }
    let [corpus, out] = <[PathBuf; 2]>::try_from(positional).map_err(|_| {
        anyhow::anyhow!(
            "usage: glove_export_cooc CORPUS OUT_DIR [--window N] [--min-count N] [--heldout F]"
        )
    })?;
    Ok(Args {
        corpus,
        out,
        window,
        min_count,
        heldout,
    })
}

fn create(path: &Path) -> Result<BufWriter<File>> {
    Ok(BufWriter::new(File::create(path).with_context(|| {
        format!("{}: cannot create", path.display())
    })?))
}

fn main() -> Result<()> {
    let args = parse_args()?;
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("{}: cannot create", args.out.display()))?;
    let mut config = CorpusConfig::default();
    config.vocab.min_count = args.min_count;
    config.read.heldout.fraction = args.heldout;
    let corpus = Corpus::open(&args.corpus, config)?;
    let vocab = corpus.vocab();

    let mut out = create(&args.out.join("vocab.txt"))?;
    for (id, count) in vocab.counts().iter().enumerate() {
        writeln!(out, "{} {count}", vocab.word(id as u32))?;
    }
    out.flush()?;

    let train = corpus.encode(Split::Train)?;
    let mut out = create(&args.out.join("train.txt"))?;
    for sentence in train.sentences() {
        let words: Vec<&str> = sentence.iter().map(|&id| vocab.word(id)).collect();
        writeln!(out, "{}", words.join(" "))?;
    }
    out.flush()?;

    let window = args.window.to_string();
    let params = Params::parse(
        wordbench::algo::glove::SCHEMA,
        "glove",
        [("window", window.as_str())],
    )?;
    let t = Instant::now();
    let counts = count_corpus(&corpus, &Settings::from_params(&params).count_config())?;
    let seconds = t.elapsed().as_secs_f64();
    let mut out = create(&args.out.join("cooc.bin"))?;
    for (x, (i, j)) in counts.iter() {
        out.write_all(&(i as i32 + 1).to_le_bytes())?;
        out.write_all(&(j as i32 + 1).to_le_bytes())?;
        out.write_all(&x.to_le_bytes())?;
    }
    out.flush()?;
    println!(
        "words {} train_tokens {} sentences {} nnz {} count_seconds {seconds:.3}",
        vocab.len(),
        train.ids.len(),
        train.sentences_len(),
        counts.nnz()
    );
    Ok(())
}
