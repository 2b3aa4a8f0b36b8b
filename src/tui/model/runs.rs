//! The Runs screen's state (the selected row and the filter; the runs
//! themselves are the whole workbench's, held by the app state), run tags,
//! and the vector format an export path asks for.

use std::path::Path;

use crate::embedding::VectorFormat;
use crate::tui::run::RunEntry;

/// The Runs screen.
#[derive(Debug, Clone, Default)]
pub struct RunsView {
    /// Selected run (an index into every run, listed or not).
    pub selected: usize,
    /// The rank (0-based) the vocabulary line of an imported run starts at.
    pub vocab_from: usize,
    /// Lower-cased words a listed run must all contain (in its number,
    /// name, method, settings, tags, corpus or status); empty lists all.
    filter: Vec<String>,
}

impl RunsView {
    /// Sets the filter from what the user typed.
    pub fn set_filter(&mut self, text: &str) {
        self.filter = text.split_whitespace().map(str::to_lowercase).collect();
    }

    /// The filter as typed (words joined by spaces).
    pub fn filter_text(&self) -> String {
        self.filter.join(" ")
    }

    /// Whether `run` is listed.
    pub fn lists(&self, run: &RunEntry) -> bool {
        if self.filter.is_empty() {
            return true;
        }
        let rec = run.record();
        let corpus = run.corpus().map(|c| c.name()).unwrap_or_default();
        let text = format!(
            "{} {} {} {corpus} {}",
            run.label(),
            run.settings(),
            rec.tags.join(" "),
            run.status_text()
        )
        .to_lowercase();
        self.filter.iter().all(|w| text.contains(w.as_str()))
    }

    /// The listed runs' indices, in order.
    pub fn listed(&self, runs: &[RunEntry]) -> Vec<usize> {
        (0..runs.len()).filter(|&i| self.lists(&runs[i])).collect()
    }
}

/// Tags from what the user typed: split at commas and spaces, trimmed,
/// without repeats, in the order given.
pub fn parse_tags(text: &str) -> Vec<String> {
    let mut tags: Vec<String> = Vec::new();
    for t in text
        .split([',', ' '])
        .map(str::trim)
        .filter(|t| !t.is_empty())
    {
        if !tags.iter().any(|have| have == t) {
            tags.push(t.to_string());
        }
    }
    tags
}

/// The vector format for a file name ([`VectorFormat::for_path`]).
pub fn format_for(path: &Path) -> VectorFormat {
    VectorFormat::for_path(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_split_at_commas_and_spaces_without_repeats() {
        assert_eq!(parse_tags(" tuned, w5 tuned,,big "), ["tuned", "w5", "big"]);
        assert!(parse_tags(" , ").is_empty());
    }

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
