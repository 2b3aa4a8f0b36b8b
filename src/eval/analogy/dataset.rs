//! Google-format analogy files: `: section` header lines, then questions
//! `a b c d` ("a is to b as c is to d"). Words are lowercased; blank lines are
//! skipped; a question before the first header or with other than four words
//! is an error naming `file:line`; so is a file without any question.

use std::io::BufRead;
use std::path::Path;

use crate::corpus::source::{self, LineReader};
use crate::eval::dataset_name;
use crate::{Error, Result};

/// One section of questions (`capital-common-countries`, `gram1-adjective-to-adverb`, ...).
#[derive(Debug, Clone, PartialEq)]
pub struct AnalogySection {
    /// The name after `: `.
    pub name: String,
    /// Questions `[a, b, c, d]`: a is to b as c is to d (lowercase).
    pub questions: Vec<[String; 4]>,
}

impl AnalogySection {
    /// Google's convention: sections whose name starts with `gram` are syntactic.
    pub fn is_syntactic(&self) -> bool {
        self.name.starts_with("gram")
    }
}

/// An analogy benchmark.
#[derive(Debug, Clone, PartialEq)]
pub struct AnalogyDataset {
    /// Dataset name, the file stem.
    pub name: String,
    /// Sections in file order.
    pub sections: Vec<AnalogySection>,
}

impl AnalogyDataset {
    /// Reads a dataset file (plain, `.gz` or `.bz2`).
    pub fn read(path: impl AsRef<Path>) -> Result<AnalogyDataset> {
        let path = path.as_ref();
        Self::from_reader(source::open(path)?, path)
    }

    /// Parses a dataset from `input`; `path` names it (stem) and appears in errors.
    pub fn from_reader(input: impl BufRead, path: &Path) -> Result<AnalogyDataset> {
        let mut lines = LineReader::new(input, path);
        let mut sections: Vec<AnalogySection> = Vec::new();
        while let Some(seg) = lines.next_segment()? {
            let text = seg.text.trim();
            if text.is_empty() {
                continue;
            }
            if let Some(name) = text.strip_prefix(':') {
                sections.push(AnalogySection {
                    name: name.trim().to_string(),
                    questions: Vec::new(),
                });
                continue;
            }
            let section = sections.last_mut().ok_or_else(|| {
                Error::parse(
                    path,
                    seg.line,
                    "question before the first `: section` header line",
                )
            })?;
            let words: Vec<String> = text.split_whitespace().map(str::to_lowercase).collect();
            let question: [String; 4] = words.try_into().map_err(|w: Vec<String>| {
                Error::parse(
                    path,
                    seg.line,
                    format!("expected 4 words `a b c d`, found {}", w.len()),
                )
            })?;
            section.questions.push(question);
        }
        let dataset = AnalogyDataset {
            name: dataset_name(path),
            sections,
        };
        if dataset.questions() == 0 {
            return Err(Error::format(
                path,
                "no questions, expected `: section` lines followed by questions `a b c d`",
            ));
        }
        Ok(dataset)
    }

    /// Number of questions in all sections.
    pub fn questions(&self) -> usize {
        self.sections.iter().map(|s| s.questions.len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<AnalogyDataset> {
        AnalogyDataset::from_reader(text.as_bytes(), Path::new("q.txt"))
    }

    #[test]
    fn sections_and_questions() {
        let d = parse(": capitals\nAthens Greece Oslo Norway\n\n: gram2-opposite\nacceptable unacceptable aware unaware\n").unwrap();
        assert_eq!(d.name, "q");
        assert_eq!(d.questions(), 2);
        assert_eq!(d.sections[0].name, "capitals");
        assert_eq!(
            d.sections[0].questions[0],
            ["athens", "greece", "oslo", "norway"].map(String::from)
        );
        assert!(!d.sections[0].is_syntactic() && d.sections[1].is_syntactic());
    }

    #[test]
    fn malformed_lines() {
        let e = parse("a b c d\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "q.txt:1: question before the first `: section` header line"
        );
        let e = parse(": s\na b c d\na b c\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "q.txt:3: expected 4 words `a b c d`, found 3"
        );
        for empty in ["", "\n\n", ": capitals\n: gram1\n"] {
            let e = parse(empty).unwrap_err();
            assert_eq!(
                e.to_string(),
                "q.txt: no questions, expected `: section` lines followed by questions `a b c d`"
            );
        }
    }
}
