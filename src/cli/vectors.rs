//! Opening vector files for the commands (notes on stderr), `wordbench
//! convert` and `wordbench align`.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use wordbench::embedding::format::{self, ReadOptions};
use wordbench::embedding::{Embedding, LoadProgress, ReadReport, VectorFormat};
use wordbench::outputs::{Guard, Kind};

use super::values::{count, VectorFormatArg, MAX_LISTED, MAX_WORDS};

/// `wordbench convert`
#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// Input vectors (any format wordbench reads; compressed ok).
    pub input: PathBuf,
    /// Output file: `.npy` NumPy + `.vocab.txt`, `.tsv` Projector + `.metadata.tsv`,
    /// `.bin` word2vec binary, `.glove` GloVe text, else word2vec text (`.gz` compresses text).
    pub output: PathBuf,
    /// Output format instead of the one the extension asks for.
    #[arg(long, value_enum)]
    pub format: Option<VectorFormatArg>,
    /// Keep only the first N words.
    #[arg(long, value_name = "N", value_parser = count(1, MAX_WORDS))]
    pub limit: Option<usize>,
}

/// `wordbench align`
#[derive(Debug, Args)]
pub struct AlignArgs {
    /// The vectors to rotate.
    pub a: PathBuf,
    /// The vectors whose axes they are rotated into.
    pub b: PathBuf,
    /// Align on the shared words among A's first N words (files list frequent words first).
    #[arg(long, value_name = "N", value_parser = count(1, MAX_WORDS))]
    pub top: Option<usize>,
    /// How many of the words that moved most to list.
    #[arg(short, default_value_t = 20, value_parser = count(0, MAX_LISTED))]
    pub k: usize,
    /// Read only the first N words of each file.
    #[arg(long, value_name = "N", value_parser = count(1, MAX_WORDS))]
    pub limit: Option<usize>,
    /// Write A's vectors rotated into B's axes (format by extension).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Files from this size on get a progress bar (on a terminal).
const BAR_FROM_BYTES: u64 = 16 << 20;

/// Reads a vector file in any format wordbench knows (detected), its first
/// `limit` words when given; what the reader noticed goes to stderr. A large
/// file read on a terminal shows a progress bar. `SESSION.ron#N` reads the
/// vectors run `N` of a saved session keeps (`limit` does not apply).
pub fn load(path: &Path, limit: Option<usize>) -> Result<Embedding> {
    if let Some((session, run)) = wordbench::session::store::run_reference(path) {
        return Ok(wordbench::session::store::run_vectors(&session, run)?);
    }
    let options = ReadOptions {
        format: None,
        limit,
    };
    let large = std::fs::metadata(path).is_ok_and(|m| m.len() >= BAR_FROM_BYTES);
    let (embedding, report) = if large && std::io::stderr().is_terminal() {
        read_with_bar(path, options)?
    } else {
        format::read_with(path, options)?
    };
    for note in report.notes() {
        eprintln!("{}: {note}", path.display());
    }
    Ok(embedding)
}

/// Reads on a scoped thread while this one draws the bar from the reader's
/// counts (bytes, or words for a fastText model; a spinner while the total
/// is unknown, as for a compressed file).
fn read_with_bar(path: &Path, options: ReadOptions) -> Result<(Embedding, ReadReport)> {
    let progress = LoadProgress::default();
    let bar = ProgressBar::new(1000).with_style(
        ProgressStyle::with_template("reading {prefix} {bar:30} {percent:>3}%  eta {eta}")
            .expect("a valid template"),
    );
    bar.set_prefix(
        path.file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
    );
    let read = std::thread::scope(|scope| {
        let reader = scope.spawn(|| format::read_observed(path, options, &progress));
        while !reader.is_finished() {
            match progress.fraction() {
                Some(f) => bar.set_position((f * 1000.0) as u64),
                None => bar.tick(),
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        reader.join()
    });
    bar.finish_and_clear();
    match read {
        Ok(result) => Ok(result?),
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

/// `wordbench convert IN OUT`.
pub fn convert(args: ConvertArgs) -> Result<()> {
    let format = args
        .format
        .map_or_else(|| VectorFormat::for_path(&args.output), Into::into);
    super::check_output_name("OUTPUT", &args.output, true)?;
    wordbench::embedding::format::check_output(&args.output, format)?;
    Guard::new()
        .vectors_input("the vectors being converted", &args.input)
        .output("OUTPUT", &args.output, Kind::Vectors(format))?;
    let embedding = load(&args.input, args.limit)?;
    embedding.save(&args.output, format)?;
    eprintln!(
        "{} words x {} dims written to {} ({format})",
        embedding.len(),
        embedding.dim(),
        args.output.display()
    );
    Ok(())
}

/// `wordbench align A B`: Procrustes-aligns A onto B on their shared words
/// and lists the words that moved most.
pub fn align(args: AlignArgs) -> Result<()> {
    if let Some(path) = &args.out {
        super::check_output_name("--out", path, true)?;
        wordbench::embedding::format::check_output(path, VectorFormat::for_path(path))?;
        Guard::new()
            .vectors_input("vectors A", &args.a)
            .vectors_input("vectors B", &args.b)
            .output("--out", path, Kind::Vectors(VectorFormat::for_path(path)))?;
    }
    let a = load(&args.a, args.limit)?;
    let b = load(&args.b, args.limit)?;
    let alignment = wordbench::embedding::align::procrustes(&a, &b, args.top)?;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{} shared words ({} x {} onto {} x {}); mean cosine after alignment {:.4}",
        alignment.shared.len(),
        a.len(),
        a.dim(),
        b.len(),
        b.dim(),
        alignment.mean_cosine
    )?;
    writeln!(out, "moved most (cosine of the aligned vectors):")?;
    for m in alignment.moved.iter().take(args.k) {
        writeln!(out, "  {:<20} {:.4}", m.word, m.cosine)?;
    }
    if let Some(path) = &args.out {
        let mapped = alignment.apply(&a, b.dim())?;
        mapped.save(path, VectorFormat::for_path(path))?;
        writeln!(out, "A in B's axes written to {}", path.display())?;
    }
    Ok(())
}
