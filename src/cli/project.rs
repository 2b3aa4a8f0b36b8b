//! `wordbench project`: words to 2-D with PCA, t-SNE, Isomap, LLE or
//! Laplacian eigenmaps, written as a PNG or SVG scatter plot or as CSV
//! coordinates. t-SNE runs on the training engine (progress bar with live KL
//! divergence); the graph methods show their phase and eigen residual.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};

use super::args::{count, MAX_THREADS, MAX_WORDS};
use indicatif::{ProgressBar, ProgressStyle};
use ndarray::Array2;
use wordbench::manifold::Phase;
use wordbench::outputs::{Guard, Kind};
use wordbench::project::export::write_csv;
use wordbench::project::manifold as graph;
use wordbench::project::options;
use wordbench::project::pca::{pca, PcaSolver};
use wordbench::project::plot::{self, ImageFormat, Plot};
use wordbench::project::select::{select, Groups, Selection};
use wordbench::project::tsne::{self, TsneConfig};
use wordbench::project::ube;
use wordbench::train::{Event, Params};
use wordbench::words::WordIndex;

/// `wordbench project`
#[derive(Debug, Args)]
pub struct ProjectArgs {
    /// Vectors file (word2vec text or binary, GloVe text; .gz ok).
    pub vectors: PathBuf,
    /// Projection method.
    #[arg(long, value_enum, default_value = options::METHOD_DEFAULT)]
    pub method: MethodArg,
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
    /// Output dimensions, 2 or 3: PCA components written to CSV (plots show the
    /// first two); UBE's sphere (default 3; plots show its equal-area map).
    #[arg(long, visible_alias = "dim", value_parser = count(1, 1000))]
    pub dims: Option<usize>,
    /// Image size in pixels, WIDTHxHEIGHT.
    #[arg(long, default_value = "1600x1200")]
    pub size: String,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Projection methods on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MethodArg {
    /// Principal components.
    Pca,
    /// t-SNE.
    Tsne,
    /// Isomap (geodesic distances on the kNN graph, classical MDS).
    Isomap,
    /// Locally linear embedding.
    Lle,
    /// Laplacian eigenmaps.
    Laplacian,
    /// Unit ball embedding: points on a sphere (3-D by default).
    Ube,
}

impl MethodArg {
    fn name(self) -> &'static str {
        match self {
            MethodArg::Pca => "pca",
            MethodArg::Tsne => "tsne",
            MethodArg::Isomap => "isomap",
            MethodArg::Lle => "lle",
            MethodArg::Laplacian => "laplacian",
            MethodArg::Ube => "ube",
        }
    }
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

/// A finished projection and how to describe it.
struct Projected {
    coords: Array2<f64>,
    title: String,
    axes: Option<(String, String)>,
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
    let ube_method = args.method == MethodArg::Ube;
    let asked_dims = args.dims.unwrap_or(if ube_method { 3 } else { 2 });
    if !(2..=3).contains(&asked_dims) {
        bail!("invalid value for --dims: {asked_dims} (expected 2 or 3)");
    }
    if asked_dims == 3 && !matches!(args.method, MethodArg::Pca | MethodArg::Ube) {
        bail!(
            "invalid value for --dims: 3 needs --method pca or ube ({} lays out in 2-D)",
            args.method.name()
        );
    }
    let size = parse_size(&args.size)?;
    let threads = super::threads(args.threads);
    let graph_kind = graph::kind(args.method.name());
    let ube_params = if ube_method {
        Some(ube_params(&args)?)
    } else {
        None
    };
    let (config, graph_params) = if graph_kind.is_some() || ube_method {
        (
            TsneConfig::from_params(&Params::defaults(tsne::SCHEMA), args.seed),
            graph_kind.map(|_| graph_params(&args)).transpose()?,
        )
    } else {
        (tsne_config(&args)?, None)
    };
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
    let vectors = selected.vectors(&embedding, args.metric == MetricArg::Cosine);
    let groups = match &selected.groups {
        Some(names) => Some(Groups::from_names(names)),
        None if args.clusters > 0 => Some(Groups::from_kmeans(&vectors, args.clusters, args.seed)),
        None => None,
    };
    let dims = if matches!(output, Output::Csv) || ube_method {
        asked_dims
    } else {
        2
    };
    let projected = match args.method {
        MethodArg::Pca => run_pca(&vectors, dims, args.seed, threads)?,
        MethodArg::Tsne => run_tsne(&selected.words, vectors, config, threads, args.quiet)?,
        MethodArg::Isomap | MethodArg::Lle | MethodArg::Laplacian => {
            let (kind, params) = graph_kind.zip(graph_params).context("graph method")?;
            let c = graph::config(kind, &params, args.seed);
            run_graph(vectors, c, threads, args.quiet)?
        }
        MethodArg::Ube => {
            let params = ube_params.context("ube options")?;
            let c = ube::config(&params, dims, args.seed);
            let mut p = run_ube(vectors, c, threads, args.quiet)?;
            if matches!(output, Output::Image(_)) {
                p.coords = ube::picture(&p.coords);
                if dims == 3 {
                    p.title.push_str("; Hammer equal-area map of the sphere");
                }
            }
            p
        }
    };
    match output {
        Output::Csv => write_csv(
            &out,
            &selected.words,
            projected.coords.view(),
            groups.as_ref(),
        )?,
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
            let mut p = Plot::new(&selected.words, projected.coords.view());
            p.groups = groups.as_ref();
            p.title = projected.title;
            p.subtitle = subtitle;
            p.axes = projected.axes;
            p.size = size;
            plot::save(&out, &p, format)?;
        }
    }
    eprintln!("wrote {} points to {}", selected.len(), out.display());
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

/// Validated graph-method options from `--neighbours` and `--set`.
fn graph_params(args: &ProjectArgs) -> Result<Params> {
    if args.perplexity.is_some() {
        bail!(
            "--perplexity is a t-SNE option; {} takes --neighbours",
            args.method.name()
        );
    }
    let first = args
        .neighbours
        .map(|k| vec![("k".to_string(), k.to_string())])
        .unwrap_or_default();
    let a = assignments(args, first)?;
    Ok(Params::parse(
        graph::SCHEMA,
        args.method.name(),
        a.iter().map(|(k, v)| (k.as_str(), v.as_str())),
    )?)
}

/// Validated UBE options from `--neighbours` (its `k_max`) and `--set`.
fn ube_params(args: &ProjectArgs) -> Result<Params> {
    if args.perplexity.is_some() {
        bail!("--perplexity is a t-SNE option; ube takes --neighbours (k_max)");
    }
    let first = args
        .neighbours
        .map(|k| vec![("k_max".to_string(), k.to_string())])
        .unwrap_or_default();
    let a = assignments(args, first)?;
    Ok(Params::parse(
        ube::SCHEMA,
        "ube",
        a.iter().map(|(k, v)| (k.as_str(), v.as_str())),
    )?)
}

/// Runs UBE with a progress bar showing the loss `J`.
fn run_ube(
    vectors: Array2<f32>,
    config: wordbench::ube::Config,
    threads: usize,
    quiet: bool,
) -> Result<Projected> {
    let n = vectors.nrows();
    let title = ube::describe(&config);
    let pool = pool(threads)?;
    let bar = ticking(quiet, || {
        ProgressBar::new(1 + config.iters as u64).with_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} steps  {msg}  eta {eta}")
                .expect("valid template"),
        )
    });
    let start = Instant::now();
    let mut last = f64::NAN;
    let result = pool.install(|| {
        ube::run(
            vectors,
            config,
            &mut |step, _, loss| {
                last = loss;
                bar.set_position(step);
                bar.set_message(format!("J {loss:.6e}"));
            },
            &mut |line| log_line(&bar, quiet, &line),
        )
    });
    bar.finish_and_clear();
    let coords = result?;
    if !quiet {
        eprintln!(
            "UBE: {n} points, J {last:.6e}, {:.1}s",
            start.elapsed().as_secs_f64()
        );
    }
    Ok(Projected {
        coords,
        title,
        axes: None,
    })
}

/// Validated t-SNE settings from `--perplexity` and `--set`.
fn tsne_config(args: &ProjectArgs) -> Result<TsneConfig> {
    if args.neighbours.is_some() && args.method == MethodArg::Tsne {
        bail!("--neighbours is an option of isomap, lle and laplacian; t-SNE takes --perplexity");
    }
    let first = args
        .perplexity
        .as_ref()
        .map(|p| vec![("perplexity".to_string(), p.clone())])
        .unwrap_or_default();
    let assignments = assignments(args, first)?;
    let params = Params::parse(
        tsne::SCHEMA,
        "tsne",
        assignments.iter().map(|(k, v)| (k.as_str(), v.as_str())),
    )?;
    Ok(TsneConfig::from_params(&params, args.seed))
}

/// A schema's options, generated from it.
fn schema_help(title: &str, schema: &'static [wordbench::train::ParamSpec]) -> String {
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

fn run_pca(vectors: &Array2<f32>, dims: usize, seed: u64, threads: usize) -> Result<Projected> {
    let result = pool(threads)?.install(|| pca(vectors.view(), dims, PcaSolver::Auto, seed))?;
    let share = |k: usize| format!("PC{} ({:.1}%)", k + 1, 100.0 * result.explained[k]);
    let solver = match result.solver {
        PcaSolver::Randomized => "randomized",
        _ => "exact",
    };
    Ok(Projected {
        title: format!(
            "PCA ({solver}): {} and {} of the variance",
            share(0),
            share(1)
        ),
        axes: Some((share(0), share(1))),
        coords: result.coords,
    })
}

fn run_tsne(
    words: &[String],
    vectors: Array2<f32>,
    config: TsneConfig,
    threads: usize,
    quiet: bool,
) -> Result<Projected> {
    let n = vectors.nrows();
    tsne::check_points(n)?;
    let title = config.describe(n);
    let job = tsne::spawn(
        WordIndex::from_words(words.to_vec()),
        vectors,
        config,
        threads,
    );
    let bar = if quiet {
        ProgressBar::hidden()
    } else {
        let bar = ProgressBar::new(config.schedule.total() as u64);
        bar.set_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} iterations  {msg}  eta {eta}")
                .expect("valid template"),
        );
        bar.enable_steady_tick(Duration::from_millis(200));
        bar
    };
    let start = Instant::now();
    let mut last_kl = f64::NAN;
    let result = job.wait(|event| match event {
        Event::Progress(p) => {
            last_kl = p.loss;
            bar.set_position(u64::from(p.epoch));
            bar.set_message(format!("KL {:.4}", p.loss));
        }
        Event::Log(line) => log_line(&bar, quiet, line),
        _ => {}
    });
    bar.finish_and_clear();
    let layout = result?;
    if !quiet {
        eprintln!(
            "t-SNE: {} points, KL {last_kl:.4}, {:.1}s",
            n,
            start.elapsed().as_secs_f64()
        );
    }
    let coords = layout.vectors().mapv(f64::from);
    Ok(Projected {
        coords,
        title,
        axes: None,
    })
}

/// Runs a graph projection with a progress line (phase and eigen residual).
fn run_graph(
    vectors: Array2<f32>,
    config: wordbench::manifold::Config,
    threads: usize,
    quiet: bool,
) -> Result<Projected> {
    let n = vectors.nrows();
    let title = graph::describe(&config);
    let pool = pool(threads)?;
    let bar = ticking(quiet, ProgressBar::new_spinner);
    let start = Instant::now();
    let result = pool.install(|| {
        graph::run(
            vectors,
            config,
            &mut |phase, loss| {
                bar.set_message(match phase {
                    Phase::Graph => "neighbourhood graph".to_string(),
                    Phase::Paths { done, total } => format!("shortest paths {done}/{total}"),
                    Phase::Eigen(s) => {
                        format!("eigensolve: {} products, residual {:.1e}", s.matvecs, loss)
                    }
                    Phase::Done => "done".to_string(),
                })
            },
            &mut |line| log_line(&bar, quiet, &line),
        )
    });
    bar.finish_and_clear();
    let done = result?;
    if !quiet {
        eprintln!(
            "{title}: {n} points, {}, {:.1}s",
            done.report,
            start.elapsed().as_secs_f64()
        );
    }
    Ok(Projected {
        coords: done.coords,
        title: format!("{title}: {}", done.report),
        axes: None,
    })
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
