//! `wordbench classify`: naive Bayes and MNB-FM learning curves on labelled
//! text, with word marginals from the test set, every document, or a corpus.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use wordbench::classify::options::{Settings, OPTIONS, OWNER};
use wordbench::classify::protocol::Spread;
use wordbench::classify::study::{parse_sizes, MarginalChoice, Outcome, Study};
use wordbench::schema::ParamSpec;

use super::schema_args::{Schema, SchemaOpts};

/// The classification options' schema, as flags.
#[derive(Debug, Clone)]
pub struct ClassifySchema;

impl Schema for ClassifySchema {
    const OWNER: &'static str = OWNER;
    const OPTIONS: &'static [ParamSpec] = OPTIONS;
}

/// `wordbench classify`
#[derive(Debug, Args)]
pub struct ClassifyArgs {
    /// Training documents: fastText lines (`__label__X text`, several labels
    /// allowed) or `split<TAB>id<TAB>labels<TAB>text` (its `train` rows); .gz/.bz2 ok.
    #[arg(long, value_name = "FILE")]
    pub train: PathBuf,
    /// Test documents (of a split file, its `test` rows). Without it, the
    /// training documents not drawn as labelled are the test set.
    #[arg(long, value_name = "FILE")]
    pub test: Option<PathBuf>,
    /// Unlabelled text for MNB-FM's word marginals: `test` (the test
    /// documents, the paper's protocol), `all` (every document read), or a
    /// corpus file of any format the workbench reads.
    #[arg(long, value_name = "SOURCE", default_value = "test")]
    pub marginals: String,
    /// Labelled set sizes (smaller sets are prefixes of the larger ones).
    #[arg(long, value_name = "N,N,...", default_value = "10,100,1000")]
    pub labelled: String,
    /// Tasks for these labels instead of the `--top` largest (repeatable).
    #[arg(long = "label", value_name = "LABEL")]
    pub labels: Vec<String>,
    /// Keep only the documents carrying this label (one Amazon domain, say).
    #[arg(long, value_name = "LABEL")]
    pub within: Option<String>,
    /// Classification options.
    #[command(flatten)]
    pub opts: SchemaOpts<ClassifySchema>,
    /// Worker threads (default: all cores).
    #[arg(long, value_parser = super::values::count(0, super::values::MAX_THREADS))]
    pub threads: Option<usize>,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Also list the N words whose probability in the first task's class
    /// moved most from MNB to MNB-FM (the JSON always has 20).
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = super::values::count(0, super::values::MAX_LISTED))]
    pub moved: usize,
}

/// Runs `wordbench classify`.
pub fn run(args: ClassifyArgs) -> Result<()> {
    let settings = Settings::from_params(args.opts.params()?);
    let threads = super::threads(args.threads);
    let study = Study {
        train: args.train.clone(),
        test: args.test.clone(),
        marginals: MarginalChoice::parse(&args.marginals),
        labelled: parse_sizes(&args.labelled)?,
        labels: args.labels.clone(),
        within: args.within.clone(),
        settings,
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    let outcome = pool.install(|| study.run())?;
    if args.json {
        let out = serde_json::json!({
            "train": study.train,
            "test": study.test,
            "marginals": args.marginals,
            "multiclass": study.settings.multiclass,
            "resamples": study.settings.resamples,
            "seed": study.settings.seed,
            "train_documents": outcome.train_documents,
            "test_documents": outcome.test_documents,
            "marginal_corpus": outcome.marginal_corpus,
            "tasks": outcome.tasks,
            "points": outcome.points,
            "moved": outcome.moved,
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        print_report(&study, &args.marginals, &outcome, args.moved);
    }
    Ok(())
}

fn print_report(study: &Study, marginals: &str, outcome: &Outcome, moved: usize) {
    println!(
        "train: {} ({} documents)",
        study.train.display(),
        outcome.train_documents
    );
    match (&study.test, outcome.test_documents) {
        (Some(p), Some(n)) => println!("test: {} ({n} documents)", p.display()),
        _ => println!("test: the training documents not drawn as labelled"),
    }
    match outcome.marginal_corpus {
        Some(c) => println!(
            "marginals: {marginals} ({} documents, {} tokens, counted in {:.2} s)",
            c.documents, c.tokens, c.seconds
        ),
        None => println!("marginals: {marginals} documents"),
    }
    let s = &study.settings;
    let kind = if s.multiclass {
        "multi-class over"
    } else {
        "one-vs-rest for"
    };
    let tasks = &outcome.tasks;
    println!("tasks: {kind} {} ({})", tasks.join(", "), tasks.len());
    println!(
        "{} seeded draws per size (seed {}); mean ± std over draws, each averaged over tasks",
        s.resamples, s.seed
    );
    println!();
    println!(
        "{:>9}  {:<7}{:>16}{:>16}{:>16}{:>16}{:>11}{:>10}",
        "labelled",
        "method",
        "accuracy",
        "F1 (minority)",
        "macro-F1",
        "R-precision",
        "fallbacks",
        "fit ms"
    );
    for p in &outcome.points {
        println!(
            "{:>9}  {:<7}{:>16}{:>16}{:>16}{:>16}{:>11.0}{:>10.1}",
            p.labelled,
            p.method.name(),
            cell(Some(p.accuracy)),
            cell(p.f1),
            cell(Some(p.macro_f1)),
            cell(p.r_precision),
            p.fallbacks,
            p.fit_seconds * 1e3,
        );
    }
    if moved > 0 && !outcome.moved.is_empty() {
        println!();
        println!(
            "words whose P(word | {}) moved most from MNB to MNB-FM (largest labelled set, first draw):",
            tasks[0]
        );
        for m in outcome.moved.iter().take(moved) {
            println!("  {:<20} {:>10.3e} -> {:>10.3e}", m.word, m.mnb, m.mnb_fm);
        }
    }
}

fn cell(s: Option<Spread>) -> String {
    s.map_or_else(
        || "-".to_string(),
        |s| format!("{:.3} ± {:.3}", s.mean, s.std),
    )
}
