//! `wordbench classify`: naive Bayes and MNB-FM learning curves on labelled
//! text, with word marginals from the test set, every document, or a corpus.

use std::path::{Path, PathBuf};

use std::time::Instant;

use anyhow::{bail, Result};
use clap::Args;
use serde::Serialize;
use wordbench::classify::dataset::{Document, Part, Reader};
use wordbench::classify::marginals::Marginals;
use wordbench::classify::options::{Settings, OPTIONS, OWNER};
use wordbench::classify::protocol::{
    self, largest_labels, Data, MarginalSource, Point, Protocol, Spread, Tasks,
};
use wordbench::train::ParamSpec;

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
    #[arg(
        long,
        value_name = "N,N,...",
        value_delimiter = ',',
        default_value = "10,100,1000"
    )]
    pub labelled: Vec<usize>,
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
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Runs `wordbench classify`.
pub fn run(args: ClassifyArgs) -> Result<()> {
    let settings = Settings::from_params(args.opts.params()?);
    let threads = super::threads(args.threads);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    pool.install(|| classify(&args, &settings))
}

fn classify(args: &ClassifyArgs, settings: &Settings) -> Result<()> {
    let mut sizes = args.labelled.clone();
    sizes.sort_unstable();
    sizes.dedup();
    if sizes.first() == Some(&0) {
        bail!("invalid value for labelled: 0 (expected sizes of at least 1)");
    }
    let mut reader = Reader::new(settings.stop_words);
    let split = |p: &Path| args.test.as_deref() == Some(p);
    let train_part = if split(&args.train) {
        Part::Train
    } else {
        Part::All
    };
    let mut train = reader.read(&args.train, train_part)?;
    let mut test = match &args.test {
        Some(t) => Some(reader.read(
            t,
            if t == &args.train {
                Part::Test
            } else {
                Part::All
            },
        )?),
        None => None,
    };
    let within = match &args.within {
        Some(name) => {
            let Some(id) = reader.labels.get(name) else {
                bail!("invalid value for within: no document is labelled `{name}`");
            };
            train.retain(|d| d.has(id));
            if let Some(t) = &mut test {
                t.retain(|d| d.has(id));
            }
            Some(id)
        }
        None => None,
    };
    let start = Instant::now();
    let marginals = match args.marginals.as_str() {
        "test" => MarginalSource::Test,
        "all" => MarginalSource::All,
        path => MarginalSource::Corpus(Marginals::from_corpus(Path::new(path), &mut reader)?),
    };
    let corpus = match &marginals {
        MarginalSource::Corpus(m) => Some(CorpusPass {
            documents: m.documents(),
            tokens: m.tokens() as u64,
            seconds: start.elapsed().as_secs_f64(),
        }),
        _ => None,
    };
    let task_labels = task_labels(args, settings, &reader, &train, within)?;
    let tasks = if settings.multiclass {
        Tasks::Multiclass(task_labels.clone())
    } else {
        Tasks::OneVsRest(task_labels.clone())
    };
    let protocol = Protocol {
        labelled: sizes,
        resamples: settings.resamples,
        seed: settings.seed,
        methods: settings.methods.clone(),
        tasks,
        marginals,
    };
    let data = Data {
        train: &train,
        test: test.as_deref(),
        n_words: reader.lexicon.len(),
    };
    let cells = protocol::run(data, &protocol, &reader.labels, |_| {})?;
    let points = protocol::curve(&cells, &protocol);
    let names: Vec<&str> = task_labels.iter().map(|&l| reader.labels.name(l)).collect();
    if args.json {
        let out = serde_json::json!({
            "train": args.train,
            "test": args.test,
            "train_documents": train.len(),
            "test_documents": test.as_ref().map(Vec::len),
            "marginals": args.marginals,
            "marginal_corpus": corpus,
            "multiclass": settings.multiclass,
            "tasks": names,
            "resamples": settings.resamples,
            "seed": settings.seed,
            "points": points,
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        let table = Table {
            args,
            settings,
            train: &train,
            test: test.as_deref(),
            corpus,
        };
        table.print(&names, &points);
    }
    Ok(())
}

/// The labels the tasks are about: the ones asked for, else the largest.
fn task_labels(
    args: &ClassifyArgs,
    settings: &Settings,
    reader: &Reader,
    train: &[Document],
    within: Option<u32>,
) -> Result<Vec<u32>> {
    if !args.labels.is_empty() {
        return args
            .labels
            .iter()
            .map(|name| match reader.labels.get(name) {
                Some(id) => Ok(id),
                None => bail!(
                    "invalid value for label: no document is labelled `{name}` (labels: {})",
                    reader.labels.names().join(", ")
                ),
            })
            .collect();
    }
    let mut ids = largest_labels(train, &reader.labels);
    ids.retain(|&l| Some(l) != within);
    ids.truncate(settings.top);
    if settings.multiclass && ids.len() < 2 {
        bail!("invalid value for top: a multi-class task needs at least 2 labels");
    }
    Ok(ids)
}

/// The one streaming pass over a marginal corpus.
#[derive(Debug, Clone, Copy, Serialize)]
struct CorpusPass {
    documents: u64,
    tokens: u64,
    seconds: f64,
}

/// What the text report describes besides the curve.
struct Table<'a> {
    args: &'a ClassifyArgs,
    settings: &'a Settings,
    train: &'a [Document],
    test: Option<&'a [Document]>,
    corpus: Option<CorpusPass>,
}

impl Table<'_> {
    fn print(&self, names: &[&str], points: &[Point]) {
        let args = self.args;
        println!(
            "train: {} ({} documents)",
            args.train.display(),
            self.train.len()
        );
        match (self.test, &args.test) {
            (Some(t), Some(p)) => println!("test: {} ({} documents)", p.display(), t.len()),
            _ => println!("test: the training documents not drawn as labelled"),
        }
        match self.corpus {
            Some(c) => println!(
                "marginals: {} ({} documents, {} tokens, counted in {:.2} s)",
                args.marginals, c.documents, c.tokens, c.seconds
            ),
            None => println!("marginals: {} documents", args.marginals),
        }
        print_curve(self.settings, names, points);
    }
}

fn print_curve(settings: &Settings, names: &[&str], points: &[Point]) {
    let kind = if settings.multiclass {
        "multi-class over"
    } else {
        "one-vs-rest for"
    };
    println!("tasks: {kind} {} ({})", names.join(", "), names.len());
    println!(
        "{} seeded draws per size (seed {}); mean ± std over draws, each averaged over tasks",
        settings.resamples, settings.seed
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
    for p in points {
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
}

fn cell(s: Option<Spread>) -> String {
    s.map_or_else(
        || "-".to_string(),
        |s| format!("{:.3} ± {:.3}", s.mean, s.std),
    )
}
