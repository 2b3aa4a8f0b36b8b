//! `wordbench demo` (also what `wordbench` runs without a subcommand until the
//! TUI lands): corpus statistics and neighbours from a PPMI explicit representation.

use std::io::Write;
use std::time::Instant;

use anyhow::Result;
use wordbench::cooc::{
    count_corpus, pmi, CountConfig, LogBase, Marginals, PmiConfig, Summary, Weighting, Window,
};
use wordbench::explicit::word_neighbors;

use super::args::DemoArgs;
use wordbench::assets;

/// Words shown when none are given.
const DEFAULT_WORDS: &[&str] = &["king", "france", "computer", "river", "three", "music"];

/// Runs the demo.
pub fn run(args: DemoArgs) -> Result<()> {
    let path = args
        .corpus
        .clone()
        .unwrap_or_else(|| assets::path(assets::DEFAULT_CORPUS));
    let mut out = std::io::stdout().lock();
    let t = Instant::now();
    let corpus = wordbench::counts::open_for_training(&path, args.opts.config()?)?;
    super::corpus_warnings(&corpus);
    let s = corpus.stats();
    writeln!(
        out,
        "corpus      {} ({})",
        path.display(),
        corpus.config().read.format.name()
    )?;
    writeln!(
        out,
        "tokens      {}   documents {}   types {}   vocabulary {}   held-out tokens {}   ({:.2}s)",
        s.tokens,
        s.documents,
        s.types,
        s.vocabulary,
        s.heldout_tokens,
        t.elapsed().as_secs_f64()
    )?;
    let t = Instant::now();
    let config = CountConfig {
        window: Window::symmetric(args.window, Weighting::Uniform),
        max_vocab: Some(args.matrix_words),
    };
    let x = count_corpus(&corpus, &config)?;
    let ppmi = pmi(&x, &Marginals::of(&x), &PmiConfig::ppmi(LogBase::E))?;
    let summary = Summary::of(&ppmi);
    writeln!(
        out,
        "PPMI        {} x {}, {} non-zeros, window {} ({:.2}s)",
        ppmi.rows(),
        ppmi.cols(),
        summary.nnz,
        args.window,
        t.elapsed().as_secs_f64()
    )?;
    let words: Vec<String> = if args.words.is_empty() {
        DEFAULT_WORDS.iter().map(|w| w.to_string()).collect()
    } else {
        args.words.clone()
    };
    for word in &words {
        match word_neighbors(&ppmi, corpus.vocab().index(), word, args.k) {
            Some(list) => {
                let shown: Vec<String> = list.iter().map(|(w, c)| format!("{w} {c:.2}")).collect();
                writeln!(out, "{word:<12}{}", shown.join(", "))?;
            }
            None => writeln!(out, "{word:<12}(not in the vocabulary)")?,
        }
    }
    writeln!(out, "\nNext: `wordbench train {} --algo sgns --out vectors.txt`, then `wordbench eval vectors.txt`.", path.display())?;
    Ok(())
}
