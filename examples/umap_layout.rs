//! Driver of `benches/compare/umap_compare.sh`: reads a vector file, runs
//! [`wordbench::project::umap`] on all its rows and writes the 2-D layout,
//! printing one JSON line with the stage times (users project with
//! `wordbench project VECTORS --method umap`; this keeps the timing apart
//! from word selection and plotting).
//!
//! ```text
//! cargo run --release --example umap_layout -- VECTORS OUT.csv|OUT.npy
//!     [--threads 2] [--seed 1] [--set name=value]...
//! ```
//! VECTORS is any vector file the workbench reads (word2vec text, or a
//! `.npy` with its `.vocab.txt`). OUT.csv holds `word,x,y` lines; OUT.npy
//! the `n × 2` `float32` matrix in input order. `--set` takes UMAP's
//! options (`n_neighbors`, `min_dist`, `spread`, `n_epochs`,
//! `negative_sample_rate`, `learning_rate`, `metric`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use ndarray::Array2;
use wordbench::embedding::Embedding;
use wordbench::project::umap::{umap_noted, Settings, SCHEMA};
use wordbench::schema::Params;

struct Args {
    input: PathBuf,
    output: PathBuf,
    threads: usize,
    seed: u64,
    sets: Vec<(String, String)>,
}

fn parse() -> Result<Args> {
    let (mut threads, mut seed, mut sets, mut files) = (2, 1, Vec::new(), Vec::new());
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().with_context(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--threads" => threads = value()?.parse().context("--threads")?,
            "--seed" => seed = value()?.parse().context("--seed")?,
            "--set" => {
                let v = value()?;
                let (k, x) = v.split_once('=').context("--set name=value")?;
                sets.push((k.to_string(), x.to_string()));
            }
            _ if arg.starts_with("--") => bail!("unknown flag {arg}"),
            _ => files.push(PathBuf::from(arg)),
        }
    }
    let [input, output]: [PathBuf; 2] = files
        .try_into()
        .map_err(|_| anyhow::anyhow!("usage: umap_layout VECTORS OUT.csv|OUT.npy [flags]"))?;
    Ok(Args {
        input,
        output,
        threads,
        seed,
        sets,
    })
}

/// `y` as a little-endian `float32` `.npy` file.
fn npy(y: &Array2<f32>) -> Vec<u8> {
    let mut header = format!(
        "{{'descr': '<f4', 'fortran_order': False, 'shape': ({}, {}), }}",
        y.nrows(),
        y.ncols()
    );
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    for v in y.iter() {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

fn write(path: &Path, words: &[String], y: &Array2<f32>) -> Result<()> {
    let bytes = if path.extension().is_some_and(|e| e == "npy") {
        npy(y)
    } else {
        let mut s = String::from("word,x,y\n");
        for (w, row) in words.iter().zip(y.rows()) {
            writeln!(s, "{w},{},{}", row[0], row[1])?;
        }
        s.into_bytes()
    };
    wordbench::atomic::write_bytes(path, &bytes)?;
    Ok(())
}

fn main() -> Result<()> {
    let a = parse()?;
    let start = Instant::now();
    let emb = Embedding::load(&a.input)?;
    let read = start.elapsed().as_secs_f64();
    let params = Params::parse(
        SCHEMA,
        "umap",
        a.sets.iter().map(|(k, v)| (k.as_str(), v.as_str())),
    )?;
    let settings = Settings::from_params(&params, a.seed)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(a.threads)
        .build()?;
    let mut notes = Vec::new();
    let t = Instant::now();
    let y = pool
        .install(|| {
            umap_noted(emb.vectors(), &settings, &mut |_, _| true, &mut |l| {
                notes.push(l)
            })
        })?
        .context("the run was cancelled")?;
    let run = t.elapsed().as_secs_f64();
    write(&a.output, emb.words().words(), &y)?;
    let notes: Vec<String> = notes.iter().map(|l| format!("{l:?}")).collect();
    println!(
        "{{\"n\": {}, \"read_s\": {read:.3}, \"umap_s\": {run:.3}, \"total_s\": {:.3}, \"notes\": [{}]}}",
        emb.len(),
        start.elapsed().as_secs_f64(),
        notes.join(", ")
    );
    Ok(())
}
