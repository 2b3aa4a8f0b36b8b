//! `wordbench project`: words laid out by any projection of the registry
//! ([`wordbench::project::registry`]: t-SNE, PCA, Isomap, LLE, Laplacian
//! eigenmaps, UBE), written as a PNG or SVG scatter plot or as CSV
//! coordinates. This file handles the arguments and the output; the layout
//! runs through the library's pipeline ([`wordbench::project::pipeline`])
//! with a progress bar (steps and the method's loss, or a graph method's
//! phase).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::builder::{PossibleValue, PossibleValuesParser};
use clap::{Args, ValueEnum};

use super::values::{count, MAX_THREADS, MAX_WORDS};
use indicatif::{ProgressBar, ProgressStyle};
use wordbench::geometry::manifold::Phase;
use wordbench::outputs::{Guard, Kind};
use wordbench::project::export::write_csv;
use wordbench::project::manifold as graph;
use wordbench::project::options;
use wordbench::project::pipeline::{Chosen, Projected};
use wordbench::project::plot::{self, ImageFormat, Plot};
use wordbench::project::registry::{self, Loss, Progress, Projection, Tick, PROJECTIONS};
use wordbench::project::select::{select, Groups, Selection};
use wordbench::project::tsne;
use wordbench::project::ube;
use wordbench::schema::Params;

/// `wordbench project`
#[derive(Debug, Args)]
pub struct ProjectArgs {
    /// Vectors file (word2vec text or binary, GloVe text; .gz ok).
    pub vectors: PathBuf,
    /// Projection method.
    #[arg(long, default_value = options::METHOD_DEFAULT, value_parser = methods())]
    pub method: String,
    /// t-SNE perplexity (shorthand for `--set perplexity=P`).
    #[arg(long, allow_hyphen_values = true)]
    pub perplexity: Option<String>,
    /// The N most frequent words (default 500); with --around, the number of neighbours (default 100).
    #[arg(long, conflicts_with = "words", value_parser = count(1, MAX_WORDS))]
    pub top: Option<usize>,
    /// Words from a file, `word [group]` per line (groups colour the plot).
    #[arg(long, conflicts_with = "around")]
    pub words: Option<PathBuf>,
    /// A word and its nearest neighbours.
    #[arg(long)]
    pub around: Option<String>,
    /// Geometry: cosine (unit-length vectors) or plain Euclidean.
    #[arg(long, value_enum, default_value = "cosine")]
    pub metric: MetricArg,
    /// Colour by K k-means clusters of the vectors (0: one colour); word-list groups win.
    #[arg(long, default_value_t = 8, value_parser = count(0, 10_000))]
    pub clusters: usize,
    /// Neighbours per point for isomap, lle and laplacian (shorthand for `--set k=K`).
    #[arg(long, value_parser = count(1, 100_000))]
    pub neighbours: Option<usize>,
    /// A t-SNE or graph-method option, `--set name=value` (repeatable; see `--help-tsne`, `--help-graph`).
    #[arg(long, value_name = "NAME=VALUE")]
    pub set: Vec<String>,
    /// List the t-SNE hyperparameters and exit.
    #[arg(long)]
    pub help_tsne: bool,
    /// List the options of isomap, lle and laplacian and exit.
    #[arg(long)]
    pub help_graph: bool,
    /// List the options of ube and exit.
    #[arg(long)]
    pub help_ube: bool,
    /// Seed of every random choice.
    #[arg(long, default_value_t = options::SEED_DEFAULT)]
    pub seed: u64,
    /// Worker threads (default: all cores).
    #[arg(long, value_parser = count(0, MAX_THREADS))]
    pub threads: Option<usize>,
    /// Output file: .png, .svg (scatter plot) or .csv (coordinates).
    #[arg(long, required_unless_present_any = ["help_tsne", "help_graph", "help_ube"])]
    pub out: Option<PathBuf>,
    /// Output dimensions, 2 or 3: PCA, t-SNE and UMAP write a 3-D layout to
    /// CSV (a plot is laid out in 2-D); UBE's sphere (default 3; plots show
    /// its equal-area map).
    #[arg(long, visible_alias = "dim", value_parser = count(1, 1000))]
    pub dims: Option<usize>,
    /// Image size in pixels, WIDTHxHEIGHT.
    #[arg(long, default_value = "1600x1200")]
    pub size: String,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

/// The projection methods of the registry, with their help, as `--method` values.
fn methods() -> PossibleValuesParser {
    PossibleValuesParser::new(
        PROJECTIONS
            .iter()
            .map(|p| PossibleValue::new(p.name).help(p.help)),
    )
}

/// Geometries on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MetricArg {
    /// Unit-length vectors (cosine neighbourhoods), as for word vectors.
    Cosine,
    /// The vectors as they are.
    Euclidean,
}

/// Where the result goes.
enum Output {
    Image(ImageFormat),
    Csv,
}

/// Runs the command.
pub fn run(args: ProjectArgs) -> Result<()> {
    if args.help_tsne {
        print!("{}", schema_help("t-SNE hyperparameters", tsne::SCHEMA));
        return Ok(());
    }
    if args.help_graph {
        print!(
            "{}",
            schema_help("isomap, lle and laplacian options", graph::SCHEMA)
        );
        return Ok(());
    }
    if args.help_ube {
        print!("{}", schema_help("ube options", ube::SCHEMA));
        return Ok(());
    }
    let out = args.out.clone().context("--out is required")?;
    let output = output_kind(&out)?;
    let mut guard = Guard::new();
    guard.vectors_input("the vectors file being projected", &args.vectors);
    if let Some(words) = &args.words {
        guard.input("the --words file", words);
    }
    let kind = match &output {
        Output::Csv => Kind::Csv("word,"),
        Output::Image(_) => Kind::Image,
    };
    guard.output("--out", &out, kind)?;
    let projection = registry::find(&args.method)?;
    let asked_dims = args.dims.unwrap_or(projection.default_dims);
    if !(2..=3).contains(&asked_dims) {
        bail!("invalid value for --dims: {asked_dims} (expected 2 or 3)");
    }
    if asked_dims > projection.max_dims {
        let spatial: Vec<&str> = PROJECTIONS
            .iter()
            .filter(|p| p.max_dims >= asked_dims)
            .map(|p| p.name)
            .collect();
        bail!(
            "invalid value for --dims: {asked_dims} needs --method {} ({} lays out in 2-D)",
            spatial.join(" or "),
            projection.name
        );
    }
    let size = parse_size(&args.size)?;
    let threads = super::threads(args.threads);
    let params = method_params(&args, projection)?;
    let embedding = super::vectors::load(&args.vectors, None)?;
    let how = selection(&args);
    let selected = select(&embedding, &how)?;
    if !selected.missing.is_empty() {
        let shown: Vec<&str> = selected
            .missing
            .iter()
            .take(5)
            .map(String::as_str)
            .collect();
        eprintln!(
            "{} listed words are not in the vectors (e.g. {})",
            selected.missing.len(),
            shown.join(", ")
        );
    }
    let chosen = Chosen::new(&embedding, selected, args.metric == MetricArg::Cosine);
    let groups = match &chosen.selected.groups {
        Some(names) => Some(Groups::from_names(names)),
        None if args.clusters > 0 => Some(Groups::from_kmeans(
            &chosen.vectors,
            args.clusters,
            args.seed,
        )),
        None => None,
    };
    // A plot shows the first two dimensions, or a layout that is 3-D by
    // default (a sphere) through its map.
    let dims = match output {
        Output::Image(_) if projection.default_dims <= 2 => 2,
        _ => asked_dims,
    };
    let mut bar = Bar::new(args.quiet, projection.loss);
    let start = Instant::now();
    let projected =
        pool(threads)?.install(|| chosen.lay_out(projection, &params, dims, args.seed, &mut bar));
    bar.bar.finish_and_clear();
    let Projected { selected, laid, .. } = projected?;
    let n = selected.len();
    if !args.quiet {
        // A graph method's description already holds its residual.
        let loss = match projection
            .loss
            .filter(|_| bar.last.is_finite() && !bar.phased)
        {
            Some(l) => format!(", {} {:.6}", l.short, bar.last),
            None => String::new(),
        };
        eprintln!(
            "{}: {n} points{loss}, {:.1}s",
            laid.description,
            start.elapsed().as_secs_f64()
        );
    }
    match output {
        Output::Csv => write_csv(&out, &selected.words, laid.coords.view(), groups.as_ref())?,
        Output::Image(format) => {
            let mut subtitle = format!(
                "{} of {} ({}-d vectors, {} geometry)",
                selected.describe(&how),
                file_name(&args.vectors),
                embedding.dim(),
                match args.metric {
                    MetricArg::Cosine => "cosine",
                    MetricArg::Euclidean => "Euclidean",
                }
            );
            if let Some(g) = groups.as_ref().filter(|g| !g.named) {
                write!(subtitle, "; colours: k-means, {} clusters", g.names.len())?;
            }
            let coords = laid.flat();
            let mut p = Plot::new(&selected.words, coords.view());
            p.groups = groups.as_ref();
            p.title = laid.description;
            p.subtitle = subtitle;
            p.axes = laid.axes;
            p.size = size;
            plot::save(&out, &p, format)?;
        }
    }
    eprintln!("wrote {n} points to {}", out.display());
    Ok(())
}

fn output_kind(out: &Path) -> Result<Output> {
    if let Some(f) = ImageFormat::from_path(out) {
        return Ok(Output::Image(f));
    }
    match out
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
    {
        Some(e) if e == "csv" => Ok(Output::Csv),
        _ => bail!(
            "invalid value for --out: {} (expected a .png, .svg or .csv file)",
            out.display()
        ),
    }
}

fn parse_size(text: &str) -> Result<(u32, u32)> {
    let bad = || {
        anyhow::anyhow!(
            "invalid value for --size: '{text}' (expected WIDTHxHEIGHT, each 200..=10000)"
        )
    };
    let (w, h) = text.split_once(['x', 'X']).ok_or_else(bad)?;
    let (w, h): (u32, u32) = (
        w.trim().parse().map_err(|_| bad())?,
        h.trim().parse().map_err(|_| bad())?,
    );
    if !(200..=10_000).contains(&w) || !(200..=10_000).contains(&h) {
        return Err(bad());
    }
    Ok((w, h))
}

fn selection(args: &ProjectArgs) -> Selection {
    if let Some(word) = &args.around {
        Selection::Around {
            word: word.clone(),
            count: args.top.unwrap_or(100),
        }
    } else if let Some(path) = &args.words {
        Selection::List(path.clone())
    } else {
        Selection::Top(args.top.unwrap_or(options::COUNT_DEFAULT))
    }
}

/// `--set` assignments (after the shorthand ones given first).
fn assignments(
    args: &ProjectArgs,
    mut out: Vec<(String, String)>,
) -> Result<Vec<(String, String)>> {
    for s in &args.set {
        let (k, v) = s
            .split_once('=')
            .with_context(|| format!("--set {s}: expected name=value"))?;
        out.push((k.trim().to_string(), v.trim().to_string()));
    }
    Ok(out)
}

/// Validated options of `projection` from the shorthands (`--perplexity`,
/// `--neighbours`: `k`, `k_max` or `n_neighbors`, whichever it has) and `--set`.
fn method_params(args: &ProjectArgs, projection: &Projection) -> Result<Params> {
    let name = projection.name;
    let has = |option: &str| projection.schema.iter().any(|s| s.name == option);
    let neighbours = ["k", "k_max", "n_neighbors"].into_iter().find(|o| has(o));
    let mut first = Vec::new();
    if let Some(k) = args.neighbours {
        match neighbours {
            Some(option) => first.push((option.to_string(), k.to_string())),
            None if has("perplexity") => bail!(
                "--neighbours is an option of isomap, lle and laplacian; t-SNE takes --perplexity"
            ),
            None => bail!("--neighbours is not an option of {name}"),
        }
    }
    if let Some(p) = &args.perplexity {
        match neighbours {
            _ if has("perplexity") => first.push(("perplexity".to_string(), p.clone())),
            Some("k") => bail!("--perplexity is a t-SNE option; {name} takes --neighbours"),
            Some(option) => {
                bail!("--perplexity is a t-SNE option; {name} takes --neighbours ({option})")
            }
            None => bail!("--perplexity is a t-SNE option; {name} has no options"),
        }
    }
    let a = assignments(args, first)?;
    Ok(Params::parse(
        projection.schema,
        name,
        a.iter().map(|(k, v)| (k.as_str(), v.as_str())),
    )?)
}

/// A schema's options, generated from it.
fn schema_help(title: &str, schema: &'static [wordbench::schema::ParamSpec]) -> String {
    let mut out = format!("{title} (--set name=value):\n");
    let defaults = Params::defaults(schema);
    for p in schema {
        let live = if p.live { " (live)" } else { "" };
        let _ = writeln!(
            out,
            "    {:<20} {:<8} {}{live}  [{}]",
            p.name,
            defaults.get(p.name).to_string(),
            p.help,
            p.range_text()
        );
    }
    out
}

/// The progress bar of a layout: steps and the loss, or a graph method's
/// phase on a spinner; log lines above it.
struct Bar {
    bar: ProgressBar,
    quiet: bool,
    loss: Option<Loss>,
    /// The last loss reported.
    last: f64,
    /// Steps came with a graph method's phase.
    phased: bool,
}

impl Bar {
    fn new(quiet: bool, loss: Option<Loss>) -> Bar {
        let bar = ticking(quiet, || {
            ProgressBar::new(0).with_style(
                ProgressStyle::with_template("{bar:30} {pos}/{len} steps  {msg}  eta {eta}")
                    .expect("valid template"),
            )
        });
        Bar {
            bar,
            quiet,
            loss,
            last: f64::NAN,
            phased: false,
        }
    }
}

impl Progress for Bar {
    fn tick(&mut self, t: Tick) {
        self.last = t.loss;
        if let Some(phase) = t.phase {
            if !self.phased {
                self.phased = true;
                self.bar.set_style(ProgressStyle::default_spinner());
            }
            self.bar.set_message(match phase {
                Phase::Graph => "neighbourhood graph".to_string(),
                Phase::Paths { done, total } => format!("shortest paths {done}/{total}"),
                Phase::Eigen(s) => {
                    format!(
                        "eigensolve: {} products, residual {:.1e}",
                        s.matvecs, t.loss
                    )
                }
                Phase::Done => "done".to_string(),
            });
            return;
        }
        self.bar.set_length(t.total);
        self.bar.set_position(t.step);
        if let Some(l) = self.loss {
            self.bar.set_message(format!("{} {:.6}", l.short, t.loss));
        }
    }

    fn note(&mut self, line: String) {
        log_line(&self.bar, self.quiet, &line);
    }
}

/// A pool of `threads` workers for one projection.
fn pool(threads: usize) -> Result<rayon::ThreadPool> {
    Ok(rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?)
}

/// The bar `make` builds, ticking on its own, or a hidden one with `-q`.
fn ticking(quiet: bool, make: impl FnOnce() -> ProgressBar) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let bar = make();
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// A progress log line: above the bar, on stderr when the bar is hidden (not
/// a terminal), nowhere with `-q`.
fn log_line(bar: &ProgressBar, quiet: bool, line: &str) {
    if quiet {
    } else if bar.is_hidden() {
        eprintln!("{line}");
    } else {
        bar.println(line);
    }
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |f| f.to_string_lossy().into_owned(),
    )
}
