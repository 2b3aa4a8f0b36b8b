//! Value parsers and bounds the commands' flags share.

use clap::builder::RangedU64ValueParser;
use clap::ValueEnum;

/// A count option's parser: an integer in `lo..=hi`. Every count has an
/// upper bound, so that no option asks for work (or memory) without end
/// (`cluster --runs 4000000000`); the bounds are far above any real use.
pub fn count(lo: u64, hi: u64) -> RangedU64ValueParser<usize> {
    RangedU64ValueParser::new().range(lo..=hi)
}

/// The bound of `--limit`-like options: words of a file.
pub const MAX_WORDS: u64 = 4_000_000_000;
/// The bound of `-k`-like options: items listed.
pub const MAX_LISTED: u64 = 1_000_000;
/// The bound of `--threads`: more are capped at the CPUs with a warning.
pub const MAX_THREADS: u64 = 1 << 20;

/// Vector file formats on the command line.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum VectorFormatArg {
    /// word2vec text: a `count dim` header, then `word v1 ... vd` lines.
    W2vText,
    /// word2vec binary.
    W2vBin,
    /// GloVe text: `word v1 ... vd` lines, no header.
    Glove,
    /// NumPy `.npy` (f32) plus `NAME.vocab.txt`, one word a line.
    Npy,
    /// TensorBoard Embedding Projector: tensor TSV plus `NAME.metadata.tsv`.
    Projector,
}

impl From<VectorFormatArg> for wordbench::embedding::VectorFormat {
    fn from(f: VectorFormatArg) -> Self {
        match f {
            VectorFormatArg::W2vText => Self::Word2VecText,
            VectorFormatArg::W2vBin => Self::Word2VecBinary,
            VectorFormatArg::Glove => Self::GloveText,
            VectorFormatArg::Npy => Self::Npy,
            VectorFormatArg::Projector => Self::ProjectorTsv,
        }
    }
}
