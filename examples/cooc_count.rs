//! Times wordbench's co-occurrence counter on a corpus and prints one JSON
//! line: tokens, nnz, seconds and tokens/s of the count, plus the values of
//! the word pairs asked for with `--cell a:b` (so another counter can be
//! checked against it). Used by `benches/compare/cooc_compare.sh`.
//!
//! ```text
//! cargo run --release --example cooc_count -- CORPUS [--window 10] [--weighting harmonic]
//!     [--kind symmetric] [--min-count 5] [--max-vocab N] [--heldout 0] [--max-unit-tokens N]
//!     [--repeat 3] [--dense-cells N] [--buffer-events N] [--cell the:of]...
//! ```
//!
//! With `COOC_PHASES=1` in the environment it also prints, per repetition,
//! the CPU time of the counting and of the final merge into CSR.

use std::path::PathBuf;
use std::time::Instant;

use clap::Parser;
use wordbench::cooc::{CountConfig, Counter, Tuning, Window};
use wordbench::corpus::{Corpus, CorpusConfig, Split};
use wordbench::cpu_time::process_seconds;

#[derive(Parser)]
struct Args {
    /// Corpus file.
    corpus: PathBuf,
    /// Window size L.
    #[arg(long, default_value_t = 10)]
    window: usize,
    /// uniform or harmonic.
    #[arg(long, default_value = "harmonic")]
    weighting: String,
    /// symmetric or left.
    #[arg(long, default_value = "symmetric")]
    kind: String,
    /// Vocabulary min-count.
    #[arg(long, default_value_t = 5)]
    min_count: u64,
    /// Count only the N most frequent words.
    #[arg(long)]
    max_vocab: Option<usize>,
    /// Held-out fraction.
    #[arg(long, default_value_t = 0.0)]
    heldout: f64,
    /// Longest unit (windows never cross unit ends).
    #[arg(long, default_value_t = 10_000)]
    max_unit_tokens: usize,
    /// Timed repetitions of the count (the fastest is reported).
    #[arg(long, default_value_t = 3)]
    repeat: usize,
    /// Dense-block cells per thread (default: the library's).
    #[arg(long)]
    dense_cells: Option<usize>,
    /// Sparse events buffered per thread (default: the library's).
    #[arg(long)]
    buffer_events: Option<usize>,
    /// Word pairs `a:b` whose value to print.
    #[arg(long = "cell")]
    cells: Vec<String>,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let mut config = CorpusConfig::default();
    config.vocab.min_count = args.min_count;
    config.read.heldout.fraction = args.heldout;
    config.read.heldout.max_unit_tokens = args.max_unit_tokens;
    let t0 = Instant::now();
    let corpus = Corpus::open(&args.corpus, config)?;
    let encoded = corpus.encode(Split::Train)?;
    let read_s = t0.elapsed().as_secs_f64();
    let count = CountConfig {
        window: Window {
            size: args.window,
            kind: args.kind.parse()?,
            weighting: args.weighting.parse()?,
        },
        max_vocab: args.max_vocab,
    };
    let defaults = Tuning::default();
    let tuning = Tuning {
        dense_cells: args.dense_cells.unwrap_or(defaults.dense_cells),
        buffer_events: args.buffer_events.unwrap_or(defaults.buffer_events),
    };
    let mut best = f64::INFINITY;
    let mut best_cpu = f64::INFINITY;
    let mut result = None;
    let mut tokens = 0;
    for _ in 0..args.repeat.max(1) {
        let t = Instant::now();
        let cpu = process_seconds();
        let mut counter = Counter::with_tuning(corpus.vocab().len(), &count, tuning)?;
        let c0 = process_seconds();
        counter.add(&encoded);
        tokens = counter.tokens();
        let c1 = process_seconds();
        let m = counter.finish();
        if std::env::var_os("COOC_PHASES").is_some() {
            eprintln!(
                "cpu: add {:.3} s, finish {:.3} s",
                c1 - c0,
                process_seconds() - c1
            );
        }
        best = best.min(t.elapsed().as_secs_f64());
        best_cpu = best_cpu.min(process_seconds() - cpu);
        result = Some(m);
    }
    let m = result.expect("at least one repetition");
    let vocab = corpus.vocab();
    let mut cells = Vec::new();
    for cell in &args.cells {
        let (a, b) = cell
            .split_once(':')
            .ok_or_else(|| anyhow::anyhow!("--cell {cell}: expected word:word"))?;
        let v = match (vocab.id(a), vocab.id(b)) {
            (Some(i), Some(j)) if (i as usize) < m.rows() && (j as usize) < m.cols() => {
                m.get(i as usize, j as usize).copied().unwrap_or(0.0)
            }
            _ => 0.0,
        };
        cells.push(serde_json::json!([a, b, v]));
    }
    let total: f64 = m.data().iter().sum();
    let out = serde_json::json!({
        "counter": "wordbench",
        "threads": rayon::current_num_threads(),
        "vocabulary": m.rows(),
        "tokens": tokens,
        "nnz": m.nnz(),
        "total": total,
        "read_seconds": read_s,
        "count_seconds": best,
        "count_cpu_seconds": best_cpu,
        "tokens_per_second": tokens as f64 / best,
        "cells": cells,
    });
    println!("{out}");
    Ok(())
}
