//! Trains SGNS or CBOW through the library (no CLI) and reports the training
//! speed; used by `benches/compare/word2vec_compare.sh`.
//!
//! ```text
//! cargo run --release --example train_word2vec -- CORPUS ALGO SEED THREADS OUT [name=value]...
//! ```
//!
//! The corpus is opened with min-count 5 and no held-out split (gensim trains
//! on the whole file). Prints one JSON line: raw corpus tokens, epochs, training
//! seconds (vocabulary building excluded; encoding the corpus to ids included),
//! raw words per second (`tokens × epochs / seconds`) and the CPU seconds of
//! the training call alone (`train_cpu`: every thread, the same span as the
//! seconds), the work gensim's timed `train()` does.

use std::sync::Arc;
use std::time::Instant;

use wordbench::corpus::{Corpus, CorpusConfig};
use wordbench::embedding::VectorFormat;
use wordbench::train::{Event, Job, JobConfig, TrainInput};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 5 {
        anyhow::bail!("usage: train_word2vec CORPUS ALGO SEED THREADS OUT [name=value]...");
    }
    let (path, algo, out) = (&args[0], &args[1], &args[4]);
    let seed: u64 = args[2].parse()?;
    let threads: usize = args[3].parse()?;
    let method = wordbench::algo::find(algo)?;
    let sets: Vec<(&str, &str)> = args[5..]
        .iter()
        .map(|a| {
            a.split_once('=')
                .ok_or_else(|| anyhow::anyhow!("{a}: expected name=value"))
        })
        .collect::<anyhow::Result<_>>()?;
    let params = method.params(sets)?;
    let epochs = params.usize("epochs");

    let mut config = CorpusConfig::default();
    config.read.heldout.fraction = 0.0;
    config.vocab.min_count = 5;
    let corpus = Corpus::open(path, config)?;
    let tokens = corpus.stats().tokens;
    let vocab = corpus.vocab().len();

    let input = TrainInput {
        corpus: Arc::new(corpus),
        params,
        seed,
        threads,
        counts: Default::default(),
    };
    let cpu0 = wordbench::cpu_time::process_seconds();
    let start = Instant::now();
    let job = Job::spawn(method, input, JobConfig::default());
    let mut last_loss = f64::NAN;
    let embedding = job.wait(|e| match e {
        Event::Progress(p) => last_loss = p.loss,
        Event::Log(line) => eprintln!("{line}"),
        _ => {}
    })?;
    let seconds = start.elapsed().as_secs_f64();
    let train_cpu = wordbench::cpu_time::process_seconds() - cpu0;
    embedding.save(out, VectorFormat::Word2VecText)?;
    println!(
        "{{\"algo\": \"{algo}\", \"seed\": {seed}, \"threads\": {threads}, \"tokens\": {tokens}, \"vocab\": {vocab}, \
         \"epochs\": {epochs}, \"seconds\": {seconds:.3}, \"train_cpu\": {train_cpu:.2}, \"words_per_sec\": {:.0}, \"final_loss\": {last_loss:.4}}}",
        tokens as f64 * epochs as f64 / seconds
    );
    Ok(())
}
