//! The kernels issue #35 is about, each on a small fixed input, one thread:
//! word2vec (SGNS `batch=window` and CBOW, one epoch), MPNNLM (one epoch),
//! NN-descent and the exact kNN, a whole t-SNE, and the block Lanczos
//! eigensolver. `cargo bench --bench engine` (a few minutes); one group:
//! `cargo bench --bench engine -- tsne`. Rayon's pool is held to one thread,
//! so the figures are per core and steady on a shared machine.
//!
//! These track our own speed from build to build. The ratios against the
//! peers (gensim, openTSNE, scipy) are measured whole-process by the scripts
//! under `benches/compare/`, on the full-size inputs README's table names.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ndarray::Array2;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use wordbench::cooc::{count_batch, pmi, CountConfig, LogBase, Marginals, PmiConfig};
use wordbench::cooc::{Weighting, Window};
use wordbench::corpus::{Corpus, CorpusConfig, Split};
use wordbench::geometry::knn::{descent, knn, Descent};
use wordbench::geometry::random::gaussian;
use wordbench::linalg::{Csr, EigenConfig, Lanczos, SymmetricCsr, Which};
use wordbench::project::tsne::{Tsne, TsneConfig};
use wordbench::train::{Job, JobConfig, TrainInput};
use wordbench::words::WordIndex;

/// The first `tokens` tokens of the bundled text8-head, written once as
/// lines of 10,000 tokens (the corpus reader's default unit) under cargo's
/// temporary directory for benchmarks (inside `target/`, ours alone).
fn corpus_slice(tokens: usize) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("text8-{tokens}.txt"));
    if path.exists() {
        return path;
    }
    let gz = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/corpora/text8-head.txt.gz"
    );
    let file = std::fs::File::open(gz).expect("bundled corpus");
    let reader = BufReader::new(flate2::read::GzDecoder::new(file));
    let mut words = Vec::with_capacity(tokens);
    for line in reader.lines() {
        let line = line.expect("bundled corpus is UTF-8");
        words.extend(line.split_whitespace().map(str::to_owned));
        if words.len() >= tokens {
            break;
        }
    }
    words.truncate(tokens);
    let part = path.with_extension(format!("part{}", std::process::id()));
    let mut out = std::io::BufWriter::new(std::fs::File::create(&part).expect("temp file"));
    for line in words.chunks(10_000) {
        writeln!(out, "{}", line.join(" ")).expect("temp file");
    }
    out.into_inner().expect("temp file").sync_all().ok();
    std::fs::rename(&part, &path).expect("temp file");
    path
}

/// Opens `path` as the benchmarks' corpus: min-count 5, no held-out split.
fn open(path: &PathBuf) -> Arc<Corpus> {
    let mut config = CorpusConfig::default();
    config.read.heldout.fraction = 0.0;
    config.vocab.min_count = 5;
    Arc::new(Corpus::open(path, config).expect("corpus slice"))
}

/// Trains `algo` on `corpus` with one thread and `sets`, to the end.
fn train(corpus: &Arc<Corpus>, algo: &str, sets: &[(&str, &str)]) {
    let method = wordbench::algo::find(algo).expect("method");
    let input = TrainInput {
        corpus: corpus.clone(),
        params: method.params(sets.to_vec()).expect("params"),
        seed: 1,
        threads: 1,
        counts: Default::default(),
    };
    Job::spawn(method, input, JobConfig::default())
        .wait(|_| {})
        .expect("training");
}

/// Holds rayon's global pool to one thread (the first call wins; later
/// ones find the pool built).
fn one_thread() {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build_global()
        .ok();
}

/// A benchmark's name, the method it trains and its settings.
type Run<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)]);

/// One epoch of each `(name, algo, settings)` on the first `tokens`
/// tokens, as the group `group`, in tokens per second.
fn training(c: &mut Criterion, group: &str, tokens: usize, runs: &[Run<'_>]) {
    one_thread();
    let corpus = open(&corpus_slice(tokens));
    let mut group = c.benchmark_group(group);
    group.sample_size(10);
    group.throughput(Throughput::Elements(corpus.stats().tokens));
    for &(name, algo, sets) in runs {
        let sets: Vec<(&str, &str)> = [("epochs", "1")].iter().chain(sets).copied().collect();
        group.bench_function(name, |b| b.iter(|| train(&corpus, algo, &sets)));
    }
    group.finish();
}

fn word2vec(c: &mut Criterion) {
    training(
        c,
        "word2vec",
        300_000,
        &[
            ("sgns_window", "sgns", &[("batch", "window")]),
            ("cbow_example", "cbow", &[("batch", "example")]),
        ],
    );
}

fn mpnnlm(c: &mut Criterion) {
    training(c, "mpnnlm", 30_000, &[("epoch", "mpnnlm", &[])]);
}

/// `n` points in 50 dimensions from 10 seeded Gaussian clusters.
fn mixture(n: usize) -> Array2<f32> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let dim = 50;
    let centres: Vec<f64> = (0..10 * dim).map(|_| 4.0 * gaussian(&mut rng)).collect();
    Array2::from_shape_fn((n, dim), |(i, j)| {
        (centres[(i % 10) * dim + j] + gaussian(&mut rng)) as f32
    })
}

fn neighbours(c: &mut Criterion) {
    one_thread();
    let x = mixture(20_000);
    let mut group = c.benchmark_group("knn");
    group.sample_size(10);
    group.throughput(Throughput::Elements(x.nrows() as u64));
    group.bench_function("descent_20k_k30", |b| {
        b.iter(|| descent(x.view(), 30, &Descent::default()))
    });
    group.bench_function("exact_20k_k30", |b| b.iter(|| knn(x.view(), 30)));
    group.finish();
}

fn tsne(c: &mut Criterion) {
    one_thread();
    let n = 5_000;
    let x = mixture(n);
    let words = WordIndex::from_words((0..n).map(|i| format!("p{i}")).collect());
    let config = TsneConfig::default();
    let mut group = c.benchmark_group("tsne");
    group.sample_size(10);
    group.throughput(Throughput::Elements(n as u64));
    group.bench_function("fft_5k_750_iterations", |b| {
        b.iter(|| {
            let mut t =
                Tsne::prepare(words.clone(), x.view(), &config, &mut |_| {}).expect("t-SNE");
            t.run().expect("t-SNE")
        })
    });
    group.finish();
}

fn eigen(c: &mut Criterion) {
    one_thread();
    let corpus = open(&corpus_slice(300_000));
    let batch = corpus.encode(Split::Train).expect("corpus slice");
    let config = CountConfig {
        window: Window::symmetric(5, Weighting::Uniform),
        max_vocab: None,
    };
    let x = count_batch(&batch, corpus.vocab().len(), &config).expect("counts");
    let m = pmi(&x, &Marginals::of(&x), &PmiConfig::ppmi(LogBase::E)).expect("ppmi");
    let a = Csr::from_sprs(&m).expect("csr");
    let mut group = c.benchmark_group("eigen");
    group.sample_size(10);
    group.bench_function(format!("top50_ppmi_n{}", a.shape().0), |b| {
        b.iter(|| {
            let op = SymmetricCsr::new(a.clone()).expect("symmetric");
            let solver = Lanczos::new(&op, EigenConfig::new(50, Which::LargestAlgebraic));
            solver.expect("solver").solve(|_| {})
        })
    });
    group.finish();
}

// No plots: criterion's plotting backend needs a system font this crate
// does not assume (it panics without one); the numbers are in the log.
criterion_group! {
    name = benches;
    config = Criterion::default().without_plots();
    targets = word2vec, mpnnlm, neighbours, tsne, eigen
}
criterion_main!(benches);
