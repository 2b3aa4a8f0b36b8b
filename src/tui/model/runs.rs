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
}

/// The vector format for a file name: `.bin` word2vec binary, `.glove`
/// (or a name containing `glove`) GloVe text, anything else word2vec text.
pub fn format_for(path: &Path) -> VectorFormat {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    if name.ends_with(".bin") {
        VectorFormat::Word2VecBinary
    } else if name.contains("glove") {
        VectorFormat::GloveText
    } else {
        VectorFormat::Word2VecText
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_follow_the_extension() {
        assert_eq!(format_for(Path::new("v.bin")), VectorFormat::Word2VecBinary);
        assert_eq!(format_for(Path::new("d/v.GLOVE")), VectorFormat::GloveText);
        assert_eq!(
            format_for(Path::new("glove-50.txt")),
            VectorFormat::GloveText
        );
        assert_eq!(format_for(Path::new("v.txt")), VectorFormat::Word2VecText);
        assert_eq!(format_for(Path::new("v")), VectorFormat::Word2VecText);
    }
}
