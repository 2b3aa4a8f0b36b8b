//! Time of the per-word NNDSVD split (`--algo senses`, Soleimani §5.2.2)
//! on a corpus, and how far the memberships move with the solver's
//! tolerance and block size: a sample of the ambiguous words (every
//! `--every`-th) is split with each setting on one thread; memberships are
//! compared with a tight reference (tol 1e-8).
//!
//! ```text
//! cargo run --release --example senses_split_speed -- CORPUS [--every 25]
//! ```

use std::time::Instant;

use anyhow::{bail, Result};
use wordbench::algo::senses::nndsvd::SplitSolver;
use wordbench::algo::senses::split::{split_word, WordSplit};
use wordbench::algo::senses::{self, Settings, SENSES};
use wordbench::corpus::{Corpus, CorpusConfig};
use wordbench::linalg::Csr;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() {
        bail!("usage: senses_split_speed CORPUS [--every 25]");
    }
    let every: usize = args
        .iter()
        .position(|a| a == "--every")
        .and_then(|i| args.get(i + 1))
        .map_or(Ok(25), |v| v.parse())?;
    let corpus = Corpus::open(&args[0], CorpusConfig::default())?;
    let settings = Settings::from_params(&SENSES.params([])?);
    let x = wordbench::cooc::count_corpus(&corpus, &settings.count_config())?;
    let p = Csr::from_sprs(&senses::ppmi(&x)?)?;
    let n = p.shape().0;
    let vocab = corpus.vocab();
    let words: Vec<&str> = (0..n as u32).map(|i| vocab.word(i)).collect();
    let k = settings.rule.senses(&words, &vocab.counts()[..n])?;
    let sample: Vec<(u32, usize)> = k
        .iter()
        .enumerate()
        .filter(|(_, &k)| k >= 2)
        .map(|(w, &k)| (w as u32, k))
        .step_by(every)
        .collect();
    println!("{} sampled ambiguous words", sample.len());
    let run = |solver: SplitSolver| -> Result<(f64, Vec<Option<WordSplit>>)> {
        let t = Instant::now();
        let out = sample
            .iter()
            .map(|&(w, k)| split_word(&p, w, k, solver, w as u64))
            .collect::<wordbench::Result<Vec<_>>>()?;
        Ok((t.elapsed().as_secs_f64(), out))
    };
    let reference = SplitSolver {
        tol: 1e-8,
        ..SplitSolver::default()
    };
    let (ref_secs, ref_out) = run(reference)?;
    println!("reference tol 1e-8 block 4: {ref_secs:.2}s");
    for &block in &[4usize, 8] {
        for &tol in &[1e-4, 1e-3, 1e-2] {
            let solver = SplitSolver {
                tol,
                block,
                ..SplitSolver::default()
            };
            let (secs, out) = run(solver)?;
            let mut worst: f64 = 0.0;
            for (a, b) in out.iter().zip(&ref_out) {
                if let (Some(a), Some(b)) = (a, b) {
                    for (x, y) in a.memberships.iter().zip(b.memberships.iter()) {
                        worst = worst.max((x - y).abs());
                    }
                }
            }
            println!(
                "tol {tol:e} block {block}: {secs:.2}s ({:.0} ms/word), largest membership change {worst:.2e}",
                secs * 1e3 / sample.len() as f64
            );
        }
    }
    Ok(())
}
