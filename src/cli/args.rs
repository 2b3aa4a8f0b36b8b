//! The command line: [`Cli`] and its [`Command`]s, with the arguments of
//! the commands that have no module of their own. The value parsers and
//! bounds every command shares are in [`super::values`], so a command's
//! module never imports this one.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use super::eval::{EvalArgs, NeighborsArgs, TopicsArgs};
use super::schema_args::{CorpusFormat, CorpusOpts};
use super::values::{count, VectorFormatArg, MAX_LISTED, MAX_THREADS, MAX_WORDS};
use super::vectors::{AlignArgs, ConvertArgs};

/// wordbench: a workbench for word embeddings.
#[derive(Debug, Parser)]
#[command(name = "wordbench", version, about, propagate_version = true)]
pub struct Cli {
    /// What to do (default: the workbench in a terminal, else the demo).
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Open this session file in the workbench (with no subcommand).
    #[arg(long, value_name = "FILE")]
    pub session: Option<PathBuf>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// The terminal workbench (what `wordbench` opens in a terminal).
    Tui(TuiArgs),
    /// Corpus statistics and PPMI neighbours on the bundled (or a given) corpus.
    Demo(DemoArgs),
    /// Inspect a corpus.
    #[command(subcommand)]
    Corpus(CorpusCommand),
    /// Train word vectors with one of the methods.
    Train(TrainArgs),
    /// List the training methods and their hyperparameters.
    Methods(MethodsArgs),
    /// Train a method over a grid (and random draws) of hyperparameters; rank the runs by a metric.
    Sweep(super::sweep::SweepArgs),
    /// Evaluate vectors on word-similarity and analogy sets.
    Eval(EvalArgs),
    /// Nearest neighbours of words by cosine (or by a dsnmf model's word-topic-word walk).
    Neighbors(NeighborsArgs),
    /// Words most similar to some and least to others (`king -man +woman`), as gensim's most_similar.
    Similar(super::similar::SimilarArgs),
    /// The word least like the others, as gensim's doesnt_match.
    DoesntMatch(super::similar::DoesntMatchArgs),
    /// The most probable words of each topic of dsnmf vectors.
    Topics(TopicsArgs),
    /// The senses of a word in multi-sense vectors (--algo senses): labels, neighbours, and the sense a --context sentence picks.
    Sense(super::sense::SenseArgs),
    /// Count co-occurrences once into a counts file (or import GloVe / Spark counts).
    Counts(super::counts::CountsArgs),
    /// Re-run a session's runs headless; `--check` compares the curves with the recording.
    Replay(ReplayArgs),
    /// Project words to 2-D (PCA, t-SNE, UMAP, the graph methods) or a UBE sphere: a PNG/SVG scatter plot or CSV coordinates.
    Project(super::project::ProjectArgs),
    /// Align A onto B by orthogonal Procrustes on their shared words; list the words that moved most.
    Align(AlignArgs),
    /// Convert a vector file to another format (by the output's extension, or --format).
    Convert(ConvertArgs),
    /// Classify labelled text: naive Bayes and MNB-FM (word marginals from unlabelled text), learning curves.
    Classify(super::classify::ClassifyArgs),
    /// k-means clusters of vectors or projected coordinates, with NMI against class labels.
    Cluster(super::cluster::ClusterArgs),
}

/// `wordbench corpus ...`
#[derive(Debug, Subcommand)]
pub enum CorpusCommand {
    /// Documents, tokens, types, vocabulary, held-out tokens and top words.
    Stats(StatsArgs),
}

/// `wordbench corpus stats`
#[derive(Debug, Args)]
pub struct StatsArgs {
    /// Corpus file (plain text, one document per line, Wikipedia XML, fastText; .gz/.bz2 ok).
    pub corpus: PathBuf,
    /// Corpus format, reading and vocabulary options.
    #[command(flatten)]
    pub opts: CorpusOpts,
    /// How many of the most frequent words to list.
    #[arg(long, default_value_t = 10, value_parser = count(0, MAX_LISTED))]
    pub top: usize,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `wordbench train`
#[derive(Debug, Args)]
pub struct TrainArgs {
    /// Corpus file (or a counts file from `wordbench counts`).
    #[arg(required_unless_present = "counts")]
    pub corpus: Option<PathBuf>,
    /// Train a count-based method from a counts file (`wordbench counts`)
    /// instead of a corpus.
    #[arg(long, value_name = "FILE", conflicts_with = "corpus")]
    pub counts: Option<PathBuf>,
    /// Method (see `wordbench methods`).
    #[arg(long)]
    pub algo: String,
    /// Embedding dimension (shorthand for `--set dim=N`).
    #[arg(long, value_parser = count(1, 1 << 32))]
    pub dim: Option<usize>,
    /// Set a hyperparameter: `--set name=value` (repeatable; see `wordbench methods`).
    #[arg(long, value_name = "NAME=VALUE")]
    pub set: Vec<String>,
    /// Change a hyperparameter mid-run once STEP steps have run (repeatable;
    /// only parameters `wordbench methods` marks as live), e.g. `--change 40:lr=0.01`
    /// (from the 41st step on; `0:` from the start).
    #[arg(long, value_name = "STEP:NAME=VALUE")]
    pub change: Vec<String>,
    /// Seed of every random choice.
    #[arg(long, default_value_t = wordbench::train::DEFAULT_SEED)]
    pub seed: u64,
    /// Worker threads (default: all cores). With 1 thread a run is bit-for-bit reproducible.
    #[arg(long, value_parser = count(0, MAX_THREADS))]
    pub threads: Option<usize>,
    /// Where to write the vectors.
    #[arg(long)]
    pub out: PathBuf,
    /// Vector file format.
    #[arg(long, value_enum, default_value = "w2v-text")]
    pub format: VectorFormatArg,
    /// Write the metric history (step, loss, perplexity, ...) as CSV.
    #[arg(long)]
    pub metrics_out: Option<PathBuf>,
    /// Corpus format (`--corpus-format`), reading and vocabulary options.
    #[command(flatten)]
    pub opts: CorpusOpts<CorpusFormat>,
    /// Record the run in a session file (RON), autosaved while training; the
    /// vectors are kept beside it (`NAME.vectors/`), read back as `FILE#N`.
    #[arg(long)]
    pub session_out: Option<PathBuf>,
    /// Seconds between session autosaves.
    #[arg(long, default_value = "2", hide = true, allow_hyphen_values = true)]
    pub autosave_secs: String,
    /// Evaluate the vectors on the bundled similarity and analogy sets.
    #[arg(long)]
    pub eval: bool,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

impl TrainArgs {
    /// The corpus or counts file to train from.
    pub fn input(&self) -> &std::path::Path {
        self.counts
            .as_deref()
            .or(self.corpus.as_deref())
            .expect("clap requires a corpus or --counts")
    }
}

/// `wordbench replay`
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// Session file.
    pub session: PathBuf,
    /// Exit non-zero when a replayed curve or ending differs from the recording
    /// (without it the differences are only reported).
    #[arg(long)]
    pub check: bool,
    /// Only run #N (its number as the workbench's Runs screen shows it).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub run: Option<u32>,
    /// Write each replayed run's vectors to this folder (`run<N>-<method>.txt`,
    /// word2vec text); the folder is created if needed.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// `wordbench methods`
#[derive(Debug, Args)]
pub struct MethodsArgs {
    /// Only this method.
    pub algo: Option<String>,
}

/// `wordbench tui`
#[derive(Debug, Default, Args)]
pub struct TuiArgs {
    /// Corpus file (default: the bundled text8-head).
    pub corpus: Option<PathBuf>,
    /// Session file to open (its corpus is used).
    #[arg(long, value_name = "FILE")]
    pub session: Option<PathBuf>,
    /// Open pre-trained vectors as runs of kind "imported" (repeatable; any
    /// format `wordbench convert` reads, compressed or not).
    #[arg(long, value_name = "FILE", num_args = 1..)]
    pub vectors: Vec<PathBuf>,
    /// With --vectors: read only the first N words of each file.
    #[arg(long, value_name = "N", value_parser = count(1, MAX_WORDS))]
    pub limit: Option<usize>,
    /// Append each key's latency (key event to frame, in microseconds) to this file.
    #[arg(long, value_name = "FILE", hide = true)]
    pub key_trace: Option<PathBuf>,
}

/// `wordbench demo`
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Corpus file (default: the bundled text8-head).
    pub corpus: Option<PathBuf>,
    /// Words to show neighbours of.
    #[arg(long = "word", short = 'w')]
    pub words: Vec<String>,
    /// Window size for the co-occurrence counts.
    #[arg(long, default_value_t = 5, value_parser = count(1, 1000))]
    pub window: usize,
    /// Keep the N most frequent words in the PPMI matrix.
    #[arg(long, default_value_t = 30_000, value_parser = count(1, 10_000_000))]
    pub matrix_words: usize,
    /// Neighbours per word.
    #[arg(short, default_value_t = 8, value_parser = count(1, MAX_LISTED))]
    pub k: usize,
    /// Reading and vocabulary options.
    #[command(flatten)]
    pub opts: CorpusOpts,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// clap checks names and flags only when a command is parsed; this checks
    /// every subcommand at once (a duplicate flag would panic at run time).
    #[test]
    fn every_command_is_well_formed() {
        super::Cli::command().debug_assert();
    }

    /// Every subcommand with its path of names (`corpus stats`).
    fn leaves(cmd: &clap::Command, path: Vec<String>, out: &mut Vec<(Vec<String>, clap::Command)>) {
        if cmd.get_subcommands().next().is_none() {
            out.push((path.clone(), cmd.clone()));
        }
        for sub in cmd.get_subcommands() {
            let mut p = path.clone();
            p.push(sub.get_name().to_string());
            leaves(sub, p, out);
        }
    }

    /// The class of `cluster --runs 4000000000`: every integer option of
    /// every command but a seed refuses a huge value when parsed, before
    /// any work. (Options generated from a schema are text checked by the
    /// schema's ranges; their own tests cover them.)
    #[test]
    fn every_count_option_has_an_upper_bound() {
        use std::any::TypeId;
        let mut commands = Vec::new();
        leaves(&super::Cli::command(), Vec::new(), &mut commands);
        let integers = [
            TypeId::of::<usize>(),
            TypeId::of::<u64>(),
            TypeId::of::<u32>(),
        ];
        let mut checked = 0;
        for (path, cmd) in &commands {
            for arg in cmd.get_arguments() {
                let integer = integers
                    .iter()
                    .any(|t| arg.get_value_parser().type_id() == *t);
                if !integer || arg.get_id() == "seed" {
                    continue;
                }
                let flag = match (arg.get_long(), arg.get_short()) {
                    (Some(l), _) => format!("--{l}"),
                    (None, Some(s)) => format!("-{s}"),
                    (None, None) => continue,
                };
                let argv = std::iter::once("wordbench".to_string())
                    .chain(path.iter().cloned())
                    .chain([flag.clone(), u64::MAX.to_string()]);
                let err = super::Cli::command()
                    .try_get_matches_from(argv)
                    .expect_err(&format!("{path:?} {flag} accepts {}", u64::MAX));
                assert_eq!(
                    err.kind(),
                    clap::error::ErrorKind::ValueValidation,
                    "{path:?} {flag}: {err}"
                );
                checked += 1;
            }
        }
        assert!(checked >= 20, "only {checked} options checked");
    }
}
