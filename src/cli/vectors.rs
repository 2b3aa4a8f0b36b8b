//! Opening vector files for the commands (notes on stderr), `wordbench
//! convert` and `wordbench align`.

use std::io::Write;
use std::path::Path;

use anyhow::Result;
use wordbench::embedding::format::{self, ReadOptions};
use wordbench::embedding::{Embedding, VectorFormat};

use super::args::{AlignArgs, ConvertArgs};

/// Reads a vector file in any format wordbench knows (detected), its first
/// `limit` words when given; what the reader noticed goes to stderr.
pub fn load(path: &Path, limit: Option<usize>) -> Result<Embedding> {
    let (embedding, report) = format::read_with(
        path,
        ReadOptions {
            format: None,
            limit,
        },
    )?;
    for note in report.notes() {
        eprintln!("{}: {note}", path.display());
    }
    Ok(embedding)
}

/// `wordbench convert IN OUT`.
pub fn convert(args: ConvertArgs) -> Result<()> {
    let embedding = load(&args.input, args.limit)?;
    let format = args
        .format
        .map_or_else(|| VectorFormat::for_path(&args.output), Into::into);
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
