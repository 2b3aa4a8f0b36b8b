//! Time per sweep of `kubwe` and `kubwe-fast` as the vocabulary grows.
//!
//! ```text
//! cargo run --release --example kubwe_scaling -- CORPUS THREADS SWEEPS VOCAB... [-- name=value...]
//! ```
//!
//! For each vocabulary size `V` the corpus is opened with min-count 1 and the
//! `V` most frequent words, `A` is built once (window 5 unless set), and each
//! variant runs `SWEEPS` sweeps from the same seed after one warm-up sweep
//! (the fast variant's first tree build and loss sample included in both).
//! Prints one JSON line per (variant, V): seconds per sweep (median of the
//! timed sweeps), and for the fast variant the share of tree building and of
//! the sampled loss, mean distances computed per search, the search's recall
//! (checked on 32 words per sweep against brute force: last sweep and mean)
//! and the `k` used. `KUBWE_SCALING_ONLY=kubwe-fast` (or `kubwe`) runs one
//! variant.

use std::time::Instant;

use wordbench::algo::kubwe::{Affinity, KubweTrainer, Settings, KUBWE, KUBWE_FAST};
use wordbench::corpus::{Corpus, CorpusConfig};
use wordbench::train::Trainer;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let split = args.iter().position(|a| a == "--").unwrap_or(args.len());
    let (pos, sets) = (&args[..split], &args[(split + 1).min(args.len())..]);
    if pos.len() < 4 {
        anyhow::bail!("usage: kubwe_scaling CORPUS THREADS SWEEPS VOCAB... [-- name=value...]");
    }
    let (path, threads, sweeps) = (&pos[0], pos[1].parse::<usize>()?, pos[2].parse::<u64>()?);
    let sizes: Vec<usize> = pos[3..]
        .iter()
        .map(|s| s.parse())
        .collect::<Result<_, _>>()?;
    let sets: Vec<(&str, &str)> = sets
        .iter()
        .map(|a| {
            a.split_once('=')
                .ok_or_else(|| anyhow::anyhow!("{a}: expected name=value"))
        })
        .collect::<anyhow::Result<_>>()?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    pool.install(|| -> anyhow::Result<()> {
        for &v in &sizes {
            let mut config = CorpusConfig::default();
            config.read.heldout.fraction = 0.0;
            config.vocab.min_count = 1;
            config.vocab.max_size = Some(v);
            let corpus = Corpus::open(path, config)?;
            let only = std::env::var("KUBWE_SCALING_ONLY").ok();
            for method in [&KUBWE_FAST, &KUBWE] {
                if only.as_deref().is_some_and(|o| o != method.name) {
                    continue;
                }
                let mut params: Vec<(&str, &str)> = vec![("window", "5")];
                params.extend(sets.iter().filter(|(k, _)| method.schema.iter().any(|s| s.name == *k)));
                let settings = Settings::from_params(&method.params(params)?);
                let (a, _) = Affinity::from_corpus(&corpus, &settings.affinity)?;
                let nnz = a.nnz();
                let mut t = KubweTrainer::new(settings, corpus.vocab().index().clone(), a, 1)?;
                let per = t.steps_per_sweep();
                let mut times = Vec::new();
                for s in 0..=sweeps {
                    let start = Instant::now();
                    for k in 0..per {
                        t.step(s * per + k)?;
                    }
                    if s > 0 {
                        times.push(start.elapsed().as_secs_f64());
                    }
                }
                times.sort_by(f64::total_cmp);
                let median = times[times.len() / 2];
                let st = t.fast_stats();
                let n = corpus.vocab().len();
                let sweeps_done = (sweeps + 1) as f64;
                println!(
                    "{{\"algo\": \"{}\", \"vocab\": {n}, \"nnz\": {nnz}, \"threads\": {threads}, \"sec_per_sweep\": {median:.3}, \
                     \"build_share\": {:.3}, \"loss_share\": {:.3}, \"visited_per_search\": {:.0}, \"recall_last\": {:.4}, \"recall_mean\": {:.4}, \"k\": {}}}",
                    method.name,
                    st.build_seconds / sweeps_done / median,
                    st.loss_seconds / sweeps_done / median,
                    st.visited as f64 / st.searches.max(1) as f64,
                    st.recall,
                    st.recall_sum / st.recall_sweeps.max(1) as f64,
                    match settings.repulsion {
                        wordbench::algo::kubwe::Repulsion::Nearest { k, .. } => {
                            wordbench::algo::kubwe::trainer::resolve_k(k, n).to_string()
                        }
                        _ => "null".into(),
                    }
                );
            }
        }
        Ok(())
    })
}
