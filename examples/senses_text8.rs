//! The README's numbers for `--algo senses` on a corpus (text8-head):
//!
//! 1. the run with the defaults (WordNet sense counts, ≤ 3 senses, words
//!    seen ≥ 100 times), its split time per 1,000 ambiguous words, and each
//!    sense's label and neighbours for the Table 5.1 words;
//! 2. pseudo-words: each pair of words is merged into one token, the
//!    merged token split into 2 senses (§5.2.2 on the merged corpus's PPMI),
//!    and every occurrence's ±10-token context induces a sense (eq. 5.2,
//!    full sparse sense vectors); a sense stands for the original word it
//!    is picked for most often; accuracy beside the majority baseline;
//! 3. SCWS (Huang et al. 2012): AvgSimC and MaxSimC Spearman of the sense
//!    vectors beside single-vector PPMI-SVD (`--algo svd`, same counts and
//!    dimension) and the senses run's own word rows.
//!
//! ```text
//! cargo run --release --example senses_text8 -- CORPUS SCWS [--threads 2] [--out DIR]
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use rustc_hash::FxHashMap;
use wordbench::algo::senses::nndsvd::SplitSolver;
use wordbench::algo::senses::split::split_word;
use wordbench::algo::senses::{self, Settings, SENSES};
use wordbench::algo::spectral::SVD;
use wordbench::corpus::{Corpus, CorpusConfig};
use wordbench::embedding::{Embedding, NeighborParams, VectorFormat};
use wordbench::eval::scws::{evaluate_scws, read_scws};
use wordbench::linalg::Csr;
use wordbench::train::{Event, Job, JobConfig, Method, TrainInput};

const TABLE_5_1: &[&str] = &["program", "square", "interest", "bank", "plant"];
const PAIRS: &[(&str, &str)] = &[
    ("army", "software"),
    ("church", "computer"),
    ("river", "music"),
    ("album", "election"),
    ("species", "team"),
    ("energy", "novel"),
];

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 {
        bail!("usage: senses_text8 CORPUS SCWS [--threads 2] [--out DIR]");
    }
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let threads: usize = flag("--threads").map_or(Ok(2), |t| t.parse())?;
    let out =
        PathBuf::from(flag("--out").unwrap_or_else(|| std::env::temp_dir().display().to_string()));
    let corpus_path = PathBuf::from(&args[0]);
    let corpus = Arc::new(Corpus::open(&corpus_path, CorpusConfig::default())?);

    // 1. The default run.
    let (senses, logs, secs) = train(&SENSES, &corpus, &[], threads)?;
    for l in &logs {
        println!("log: {l}");
    }
    println!(
        "senses run: {secs:.1}s in all, {} rows x {}",
        senses.len(),
        senses.dim()
    );
    senses.save(out.join("senses.txt"), VectorFormat::Word2VecText)?;
    let table = senses.senses().context("no sense table")?;
    println!("\n## Table 5.1 words\n");
    for w in TABLE_5_1 {
        for s in table.of(w) {
            let nn = sense_neighbours(&senses, &s.name, w, 8)?;
            println!(
                "| `{}` | {:.2} | {} | {} |",
                s.name,
                s.mass,
                s.label(6),
                nn.join(", ")
            );
        }
    }

    // 2. Pseudo-words.
    println!("\n## Pseudo-words\n");
    pseudo_words(&corpus_path, threads)?;

    // 3. SCWS.
    let (svd, _, svd_secs) = train(&SVD, &corpus, &[("max_vocab", "30000")], threads)?;
    println!("\n## SCWS (PPMI-SVD baseline trained in {svd_secs:.1}s)\n");
    scws(Path::new(&args[1]), &senses, &svd)?;
    Ok(())
}

fn train(
    method: &'static Method,
    corpus: &Arc<Corpus>,
    sets: &[(&str, &str)],
    threads: usize,
) -> Result<(Embedding, Vec<String>, f64)> {
    let input = TrainInput {
        corpus: corpus.clone(),
        params: method.params(sets.iter().copied())?,
        seed: 1,
        threads,
        counts: Default::default(),
    };
    let t = Instant::now();
    let mut logs = Vec::new();
    let emb = Job::spawn(method, input, JobConfig::default()).wait(|e| {
        if let Event::Log(l) = e {
            logs.push(l.clone())
        }
    })?;
    Ok((emb, logs, t.elapsed().as_secs_f64()))
}

fn sense_neighbours(e: &Embedding, name: &str, word: &str, k: usize) -> Result<Vec<String>> {
    Ok(e.neighbors(name, NeighborParams::k(k + 4))?
        .into_iter()
        .map(|n| n.word)
        .filter(|w| w != word && !w.starts_with(&format!("{word}#")))
        .take(k)
        .collect())
}

/// Merges every pair into one token, splits each merged token in 2 senses
/// and induces the sense of each occurrence from its ±10-token context.
fn pseudo_words(corpus_path: &Path, threads: usize) -> Result<()> {
    let text = std::fs::read_to_string(corpus_path)?;
    let original: Vec<&str> = text.split_whitespace().collect();
    let merge: FxHashMap<&str, String> = PAIRS
        .iter()
        .flat_map(|&(a, b)| [(a, format!("{a}_{b}")), (b, format!("{a}_{b}"))])
        .collect();
    let merged: Vec<&str> = original
        .iter()
        .map(|t| merge.get(t).map_or(*t, |m| m.as_str()))
        .collect();
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("merged.txt");
    std::fs::write(&path, merged.join(" "))?;
    let corpus = Corpus::open(&path, CorpusConfig::default())?;
    let settings = Settings::from_params(&SENSES.params([])?);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    let x = wordbench::cooc::count_corpus(&corpus, &settings.count_config())?;
    let p = Csr::from_sprs(&senses::ppmi(&x)?)?;
    let vocab = corpus.vocab();
    let n = p.shape().0;
    println!("| pair | occurrences | split (ms) | accuracy | majority baseline |");
    println!("|---|---:|---:|---:|---:|");
    let (mut right, mut total) = (0usize, 0usize);
    for &(a, b) in PAIRS {
        let token = format!("{a}_{b}");
        let id = vocab.id(&token).context("pseudo-word not in vocabulary")?;
        let t = Instant::now();
        let split = pool
            .install(|| split_word(&p, id, 2, SplitSolver::default(), 1))?
            .context("no split")?;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        // Sparse sense vectors over vocabulary ids.
        let senses: Vec<FxHashMap<u32, f64>> = split
            .senses
            .iter()
            .map(|s| {
                split
                    .columns
                    .iter()
                    .copied()
                    .zip(s.values.iter().copied())
                    .collect()
            })
            .collect();
        let norms: Vec<f64> = senses
            .iter()
            .map(|s| s.values().map(|v| v * v).sum::<f64>().sqrt())
            .collect();
        // (picked sense, true word) per occurrence.
        let mut votes: BTreeMap<(usize, bool), usize> = BTreeMap::new();
        for (i, _) in merged.iter().enumerate().filter(|(_, t)| **t == token) {
            let lo = i.saturating_sub(10);
            let hi = (i + 11).min(merged.len());
            let mut q: FxHashMap<u32, f64> = FxHashMap::default();
            for (j, t) in merged[lo..hi].iter().enumerate() {
                if lo + j == i || *t == token {
                    continue;
                }
                if let Some(c) = vocab.id(t).filter(|&c| (c as usize) < n) {
                    *q.entry(c).or_default() += 1.0;
                }
            }
            let qn = q.values().map(|v| v * v).sum::<f64>().sqrt();
            let best = (0..senses.len())
                .map(|j| {
                    let dot: f64 = q
                        .iter()
                        .map(|(c, v)| v * senses[j].get(c).unwrap_or(&0.0))
                        .sum();
                    (j, dot / (norms[j] * qn).max(1e-300))
                })
                .fold((0, f64::MIN), |b, x| if x.1 > b.1 { x } else { b })
                .0;
            *votes.entry((best, original[i] == a)).or_default() += 1;
        }
        // Each sense stands for the word it is picked for most often.
        let count = |j: usize, is_a: bool| *votes.get(&(j, is_a)).unwrap_or(&0);
        let correct: usize = (0..senses.len())
            .map(|j| count(j, true).max(count(j, false)))
            .sum();
        let occ: usize = votes.values().sum();
        let n_a: usize = (0..senses.len()).map(|j| count(j, true)).sum();
        let majority = n_a.max(occ - n_a) as f64 / occ as f64;
        println!(
            "| {a} / {b} | {occ} | {ms:.0} | {:.3} | {majority:.3} |",
            correct as f64 / occ as f64
        );
        right += correct;
        total += occ;
    }
    println!("| all | {total} | | {:.3} | |", right as f64 / total as f64);
    Ok(())
}

/// SCWS through the library's scorer (`wordbench::eval::scws`, also
/// `wordbench sense --scws`): the senses run and the PPMI-SVD baseline, each
/// over the pairs whose words it has.
fn scws(path: &Path, senses: &Embedding, svd: &Embedding) -> Result<()> {
    let pairs = read_scws(path)?;
    let (s, base) = (evaluate_scws(senses, &pairs), evaluate_scws(svd, &pairs));
    println!(
        "{} of {} pairs have both words in the senses run ({} with a word that has senses), {} in the baseline\n",
        s.found, s.pairs, s.with_senses, base.found
    );
    println!("| vectors | Spearman ρ |");
    println!("|---|---:|");
    println!(
        "| PPMI-SVD (`--algo svd`, one vector per word) | {:.3} |",
        base.global_sim
    );
    println!("| senses: word rows (GlobalSim) | {:.3} |", s.global_sim);
    println!("| senses: AvgSimC | {:.3} |", s.avg_sim_c);
    println!("| senses: MaxSimC | {:.3} |", s.max_sim_c);
    Ok(())
}
