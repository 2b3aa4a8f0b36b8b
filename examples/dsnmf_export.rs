//! Exports what `wordbench train --algo dsnmf` starts from, then runs our
//! Algorithm 1 on it and times it, so that a reference implementation can run
//! the same iterations from the same start (benches/compare/dsnmf_compare.sh):
//!
//! - `S.indptr` (`u64`), `S.indices` (`u32`), `S.data` (`f64`): the input
//!   similarity as CSR, little-endian, `n × n`;
//! - `W0_r{r}.f32`: the initial `W` for `r` topics (`n × r`, row-major `f32`);
//! - `ours_r{r}.json`: per iteration (0 = the start) `D(S ‖ Ŝ)` of the relaxed
//!   iterate and of its rows projected onto the simplex, and the wall and CPU
//!   seconds (all threads) of every iteration (update + evaluation), with
//!   `threads` rayon threads.
//!
//! Usage: `cargo run --release --example dsnmf_export -- CORPUS OUT_DIR
//! [--dims 50,100,200] [--iterations 20] [--threads 2] [--seed 1]
//! [--max-vocab 20000] [--window 8]` (corpus options: `wordbench train`'s defaults).

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use wordbench::algo::dsnmf::{input, Model, Settings, SCHEMA};
use wordbench::corpus::{Corpus, CorpusConfig};
use wordbench::cpu_time::process_seconds;
use wordbench::linalg::Csr;
use wordbench::schema::Params;

struct Args {
    corpus: PathBuf,
    out: PathBuf,
    dims: Vec<usize>,
    iterations: usize,
    threads: usize,
    seed: u64,
    max_vocab: String,
    window: String,
}

fn parse_args() -> Result<Args> {
    let mut positional = Vec::new();
    let mut a = Args {
        corpus: PathBuf::new(),
        out: PathBuf::new(),
        dims: vec![50, 100, 200],
        iterations: 20,
        threads: 2,
        seed: 1,
        max_vocab: "20000".into(),
        window: "8".into(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().with_context(|| format!("{flag}: missing value"));
        match flag.as_str() {
            "--dims" => {
                a.dims = value()?
                    .split(',')
                    .map(|d| d.trim().parse().context("--dims"))
                    .collect::<Result<_>>()?
            }
            "--iterations" => a.iterations = value()?.parse().context("--iterations")?,
            "--threads" => a.threads = value()?.parse().context("--threads")?,
            "--seed" => a.seed = value()?.parse().context("--seed")?,
            "--max-vocab" => a.max_vocab = value()?,
            "--window" => a.window = value()?,
            _ if flag.starts_with("--") => bail!("unknown option {flag}"),
            _ => positional.push(PathBuf::from(flag)),
        }
    }
    let [corpus, out] = <[PathBuf; 2]>::try_from(positional)
        .map_err(|_| anyhow::anyhow!("usage: dsnmf_export CORPUS OUT_DIR [options]"))?;
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
    let params = Params::parse(
        SCHEMA,
        "dsnmf",
        [
            ("max_vocab", args.max_vocab.as_str()),
            ("window", args.window.as_str()),
        ],
    )?;
    let settings = Settings::from_params(&params);
    let s = input::similarity(&corpus, &settings)?;
    let n = s.rows();
    let s = Csr::from_sprs(&s)?;
    let indptr: Vec<u64> = s.indptr().iter().map(|&x| x as u64).collect();
    write_raw(&args.out.join("S.indptr"), &indptr, |x| {
        x.to_le_bytes().to_vec()
    })?;
    write_raw(&args.out.join("S.indices"), s.indices(), |x| {
        x.to_le_bytes().to_vec()
    })?;
    write_raw(&args.out.join("S.data"), s.data(), |x| {
        x.to_le_bytes().to_vec()
    })?;
    eprintln!("S: {n} x {n}, {} non-zeros", s.nnz());
    for &r in &args.dims {
        let mut model = Model::init(n, r, args.seed);
        write_raw(
            &args.out.join(format!("W0_r{r}.f32")),
            model.values(),
            |x| x.to_le_bytes().to_vec(),
        )?;
        let mut e = model.evaluate(&s);
        let (mut relaxed, mut feasible, mut seconds, mut cpu) =
            (vec![e.divergence], vec![e.feasible], Vec::new(), Vec::new());
        for _ in 0..args.iterations {
            let t = Instant::now();
            let c = process_seconds();
            model.update(&e);
            e = model.evaluate(&s);
            seconds.push(t.elapsed().as_secs_f64());
            cpu.push(process_seconds() - c);
            relaxed.push(e.divergence);
            feasible.push(e.feasible);
        }
        let report = serde_json::json!({
            "n": n, "r": r, "nnz": s.nnz(), "threads": args.threads,
            "relaxed": relaxed, "feasible": feasible, "seconds": seconds,
            "cpu_seconds": cpu,
        });
        let path = args.out.join(format!("ours_r{r}.json"));
        wordbench::atomic::write_bytes(&path, report.to_string().as_bytes())?;
        eprintln!(
            "r = {r}: median {:.3} s ({:.3} CPU s) per iteration, D {:.6e} -> {:.6e}",
            median(&seconds),
            median(&cpu),
            feasible[0],
            feasible[feasible.len() - 1]
        );
    }
    Ok(())
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted.get(sorted.len() / 2).copied().unwrap_or(0.0)
}
