//! Exports what `wordbench train --algo psdvec` starts from, then runs our
//! solve on it and times each phase, so that a reference implementation can
//! run the same pipeline on the same counts (benches/compare/psdvec_compare.sh):
//!
//! - `x.indptr` (`u64`), `x.indices` (`u32`), `x.data` (`f64`): the directional
//!   counts as CSR, little-endian, `n × n` (row = earlier word);
//! - `counts.u64`: the word counts (unigram) of the `n` words; `words.txt`;
//! - `ours_core{k}.txt`: our vectors (word2vec text), and `ours_core{k}.json`:
//!   the wall and CPU seconds (all threads) of every BCD iteration and
//!   noncore block, and the losses.
//!
//! Usage: `cargo run --release --example psdvec_export -- CORPUS OUT_DIR
//! [--cores 5000,10000] [--dim 500] [--threads 2] [--max-vocab 0] [--mu 2]`
//! (corpus options: `wordbench train`'s defaults).

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use wordbench::algo::psdvec::input::{count_config, Statistics};
use wordbench::algo::psdvec::{PsdvecTrainer, Settings, SCHEMA};
use wordbench::cooc::count_corpus;
use wordbench::corpus::{Corpus, CorpusConfig};
use wordbench::cpu_time::process_seconds;
use wordbench::embedding::VectorFormat;
use wordbench::schema::Params;
use wordbench::train::Trainer;

struct Args {
    corpus: PathBuf,
    out: PathBuf,
    cores: Vec<usize>,
    dim: String,
    threads: usize,
    max_vocab: String,
    mu: String,
}

fn parse_args() -> Result<Args> {
    let mut positional = Vec::new();
    let mut a = Args {
        corpus: PathBuf::new(),
        out: PathBuf::new(),
        cores: vec![5000],
        dim: "500".into(),
        threads: 2,
        max_vocab: "0".into(),
        mu: "2".into(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().with_context(|| format!("{flag}: missing value"));
        match flag.as_str() {
            "--cores" => {
                a.cores = value()?
                    .split(',')
                    .map(|d| d.trim().parse().context("--cores"))
                    .collect::<Result<_>>()?
            }
            "--dim" => a.dim = value()?,
            "--threads" => a.threads = value()?.parse().context("--threads")?,
            "--max-vocab" => a.max_vocab = value()?,
            "--mu" => a.mu = value()?,
            _ if flag.starts_with("--") => bail!("unknown option {flag}"),
            _ => positional.push(PathBuf::from(flag)),
        }
    }
    let [corpus, out] = <[PathBuf; 2]>::try_from(positional)
        .map_err(|_| anyhow::anyhow!("usage: psdvec_export CORPUS OUT_DIR [options]"))?;
    a.corpus = corpus;
    a.out = out;
    Ok(a)
}

fn write_raw<T: Copy>(path: &Path, values: &[T], to_le: fn(T) -> Vec<u8>) -> Result<()> {
    let mut bytes = Vec::with_capacity(std::mem::size_of_val(values));
    for &v in values {
        bytes.extend_from_slice(&to_le(v));
    }
    wordbench::atomic::write_bytes(path, &bytes).with_context(|| path.display().to_string())
}

fn main() -> Result<()> {
    let args = parse_args()?;
    std::fs::create_dir_all(&args.out)?;
    rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads)
        .build_global()?;
    let corpus = Corpus::open(&args.corpus, CorpusConfig::default())?;
    let base = Settings::from_params(&Params::parse(
        SCHEMA,
        "psdvec",
        [
            ("max_vocab", args.max_vocab.as_str()),
            ("dim", args.dim.as_str()),
            ("mu", args.mu.as_str()),
            ("ppl_tokens", "0"),
        ],
    )?);
    let t = Instant::now();
    let x = count_corpus(&corpus, &count_config(&base))?;
    let count_seconds = t.elapsed().as_secs_f64();
    let n = x.rows();
    let indptr: Vec<u64> = x.indptr().raw_storage().iter().map(|&v| v as u64).collect();
    let indices: Vec<u32> = x.indices().iter().map(|&v| v as u32).collect();
    write_raw(&args.out.join("x.indptr"), &indptr, |v| {
        v.to_le_bytes().to_vec()
    })?;
    write_raw(&args.out.join("x.indices"), &indices, |v| {
        v.to_le_bytes().to_vec()
    })?;
    write_raw(&args.out.join("x.data"), x.data(), |v| {
        v.to_le_bytes().to_vec()
    })?;
    let counts = &corpus.vocab().counts()[..n];
    write_raw(&args.out.join("counts.u64"), counts, |v| {
        v.to_le_bytes().to_vec()
    })?;
    let words: Vec<&str> = (0..n as u32).map(|i| corpus.vocab().word(i)).collect();
    wordbench::atomic::write_bytes(&args.out.join("words.txt"), words.join("\n").as_bytes())?;
    eprintln!(
        "x: {n} x {n}, {} non-zeros, counted in {count_seconds:.1}s",
        x.nnz()
    );
    for &core in &args.cores {
        let settings = Settings { core, ..base };
        let t = Instant::now();
        let stats = Statistics::new(&x, corpus.vocab().counts(), &settings)?;
        let stats_seconds = t.elapsed().as_secs_f64();
        let mut index = corpus.vocab().index().clone();
        index.truncate(n);
        let mut trainer = PsdvecTrainer::new(settings, index, n, stats, None)?;
        let (mut seconds, mut cpu, mut losses) = (Vec::new(), Vec::new(), Vec::new());
        for step in 0..trainer.total_steps() {
            let t = Instant::now();
            let c = process_seconds();
            let report = trainer.step(step)?;
            seconds.push(t.elapsed().as_secs_f64());
            cpu.push(process_seconds() - c);
            losses.push(report.loss);
            if let Some(note) = trainer.take_note() {
                eprintln!("{note} ({:.2}s)", seconds.last().unwrap());
            }
        }
        let iterations = settings.iterations;
        let report = serde_json::json!({
            "n": n, "core": core, "dim": settings.dim, "threads": args.threads,
            "stats_seconds": stats_seconds,
            "bcd_seconds": &seconds[..iterations], "noncore_seconds": &seconds[iterations..],
            "bcd_cpu_seconds": &cpu[..iterations], "noncore_cpu_seconds": &cpu[iterations..],
            "bcd_losses": &losses[..iterations], "noncore_losses": &losses[iterations..],
        });
        let path = args.out.join(format!("ours_core{core}.json"));
        wordbench::atomic::write_bytes(&path, report.to_string().as_bytes())?;
        let embedding = Box::new(trainer).into_embedding()?;
        embedding.save(
            args.out.join(format!("ours_core{core}.txt")),
            VectorFormat::Word2VecText,
        )?;
        eprintln!(
            "core {core}: BCD {:.1}s, noncore {:.1}s",
            seconds[..iterations].iter().sum::<f64>(),
            seconds[iterations..].iter().sum::<f64>()
        );
    }
    Ok(())
}
