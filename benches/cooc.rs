//! Co-occurrence counting and PPMI throughput on a slice of the bundled
//! text8-head corpus (tokens per second for counting, cells per second for
//! the transform). `cargo bench --bench cooc`; the side-by-side comparison
//! with numpy/scipy and GloVe is `benches/compare/cooc_compare.sh`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use wordbench::cooc::{
    count_batch, pmi, CountConfig, LogBase, Marginals, PmiConfig, Weighting, Window,
};
use wordbench::corpus::{Batch, Corpus, CorpusConfig, Split};

/// Tokens of the slice counted.
const SLICE_TOKENS: usize = 500_000;

/// The first `SLICE_TOKENS` in-vocabulary tokens of text8-head (min-count 5),
/// whole sentences only, and the vocabulary size.
fn slice() -> (Batch, usize) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/corpora/text8-head.txt.gz"
    );
    let corpus = Corpus::open(path, CorpusConfig::default()).expect("bundled corpus");
    let all = corpus.encode(Split::Train).expect("bundled corpus");
    let mut batch = Batch::default();
    for sentence in all.sentences() {
        if batch.ids.len() >= SLICE_TOKENS {
            break;
        }
        batch.ids.extend_from_slice(sentence);
        batch.bounds.push(batch.ids.len());
    }
    (batch, corpus.vocab().len())
}

fn counting(c: &mut Criterion) {
    let (batch, n) = slice();
    let mut group = c.benchmark_group("cooc_count");
    group.sample_size(10);
    group.throughput(Throughput::Elements(batch.ids.len() as u64));
    for size in [5, 10] {
        for (name, window) in [
            (
                "symmetric_harmonic",
                Window::symmetric(size, Weighting::Harmonic),
            ),
            ("left_uniform", Window::left_only(size, Weighting::Uniform)),
        ] {
            let config = CountConfig {
                window,
                max_vocab: None,
            };
            group.bench_function(format!("{name}_L{size}"), |b| {
                b.iter(|| count_batch(&batch, n, &config).expect("valid config"))
            });
        }
    }
    group.finish();

    let config = CountConfig {
        window: Window::symmetric(5, Weighting::Uniform),
        max_vocab: None,
    };
    let x = count_batch(&batch, n, &config).expect("valid config");
    let marginals = Marginals::of(&x);
    let mut group = c.benchmark_group("cooc_transform");
    group.sample_size(10);
    group.throughput(Throughput::Elements(x.nnz() as u64));
    group.bench_function("marginals", |b| b.iter(|| Marginals::of(&x)));
    group.bench_function("ppmi_cds", |b| {
        let config = PmiConfig::ppmi(LogBase::E).with_cds(0.75);
        b.iter(|| pmi(&x, &marginals, &config).expect("valid config"))
    });
    group.finish();
}

// No plots: criterion's plotting backend needs a system font this crate
// does not assume (it panics without one); the numbers are in the log.
criterion_group! {
    name = benches;
    config = Criterion::default().without_plots();
    targets = counting
}
criterion_main!(benches);
