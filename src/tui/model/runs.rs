//! The Runs screen's state (the selected row; the runs themselves are the
//! whole workbench's, held by the app state), and the vector
//! format an export path asks for.

use std::path::Path;

use crate::embedding::VectorFormat;

/// The Runs screen.
#[derive(Debug, Clone, Default)]
pub struct RunsView {
    /// Selected row.
    pub selected: usize,
    /// The rank (0-based) the vocabulary line of an imported run starts at.
    pub vocab_from: usize,
}

/// The vector format for a file name ([`VectorFormat::for_path`]).
pub fn format_for(path: &Path) -> VectorFormat {
    VectorFormat::for_path(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_follow_the_extension() {
        assert_eq!(format_for(Path::new("v.bin")), VectorFormat::Word2VecBinary);
        assert_eq!(format_for(Path::new("d/run1.npy")), VectorFormat::Npy);
        assert_eq!(format_for(Path::new("p.TSV")), VectorFormat::ProjectorTsv);
        assert_eq!(format_for(Path::new("d/v.GLOVE")), VectorFormat::GloveText);
        assert_eq!(
            format_for(Path::new("glove-50.txt")),
            VectorFormat::GloveText
        );
        assert_eq!(format_for(Path::new("v.txt")), VectorFormat::Word2VecText);
        assert_eq!(format_for(Path::new("v")), VectorFormat::Word2VecText);
    }
}
