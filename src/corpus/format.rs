//! Corpus file formats and their detection.

use std::path::Path;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::source;
use crate::{Error, Result};

/// How a corpus file is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Format {
    /// Detect from the content (see [`Format::detect`]).
    #[default]
    Auto,
    /// Running text; a blank line separates documents (text8 is one document).
    Text,
    /// One document per line.
    Lines,
    /// A MediaWiki XML dump (`.xml`, `.xml.bz2`): one document per article.
    Wikipedia,
    /// fastText-labeled lines (`__label__X text`): one document per line, labels dropped.
    FastText,
}

impl Format {
    /// Every concrete format's CLI name.
    pub const NAMES: &'static [&'static str] = &["auto", "text", "lines", "wiki", "fasttext"];

    /// The CLI name.
    pub fn name(self) -> &'static str {
        match self {
            Format::Auto => "auto",
            Format::Text => "text",
            Format::Lines => "lines",
            Format::Wikipedia => "wiki",
            Format::FastText => "fasttext",
        }
    }

    /// Resolves [`Format::Auto`] by looking at the first 64 KiB of `path`;
    /// other formats are returned unchanged. A pipe or device (`/dev/stdin`)
    /// cannot be looked at and then read from the start: it needs a format.
    pub fn resolve(self, path: &Path) -> Result<Format> {
        self.resolve_noting(path).map(|(format, _)| format)
    }

    /// [`Format::resolve`], with a warning when detection had to guess
    /// against a hint: a file that is XML, or named `.xml`/`.xml.bz2`, whose
    /// start is not a MediaWiki dump is read as text, which is probably not
    /// what was meant.
    pub fn resolve_noting(self, path: &Path) -> Result<(Format, Option<String>)> {
        if self != Format::Auto {
            return Ok((self, None));
        }
        let meta = std::fs::metadata(path).map_err(|e| crate::Error::io(path, e))?;
        if !meta.is_file() && !meta.is_dir() {
            return Err(crate::Error::format(
                path,
                "is a pipe or device: detecting its format would consume its start; \
                 give the format (--format text, lines, wiki or fasttext)",
            ));
        }
        let head = source::peek(path, 1 << 16)?;
        let format = Format::detect(&head);
        let warning = (format != Format::Wikipedia && looks_like_xml(path, &head)).then(|| {
            format!(
                "{}: looks like XML but is not a MediaWiki dump (no <mediawiki> element at its start); \
                 reading it as {} (markup and all)",
                path.display(),
                match format {
                    Format::Lines => "one document per line",
                    Format::FastText => "fastText lines",
                    _ => "running text",
                }
            )
        });
        Ok((format, warning))
    }

    /// Guesses a format from the leading (decompressed) bytes:
    /// an XML `<mediawiki` root is a dump, `__label__` starts fastText lines, a
    /// sample with several lines and no blank line is one document per line, and
    /// anything else (one long line, or paragraphs) is running text.
    pub fn detect(head: &[u8]) -> Format {
        let text = String::from_utf8_lossy(head);
        let trimmed = text.trim_start_matches('\u{feff}').trim_start();
        if trimmed.starts_with("<mediawiki")
            || (trimmed.starts_with("<?xml") && trimmed.contains("<mediawiki"))
        {
            return Format::Wikipedia;
        }
        if trimmed.starts_with("__label__") {
            return Format::FastText;
        }
        let complete = match text.rfind('\n') {
            Some(i) => &text[..i],
            None => return Format::Text,
        };
        let lines: Vec<&str> = complete.lines().collect();
        let has_blank = lines.iter().any(|l| l.trim().is_empty());
        if lines.len() >= 2 && !has_blank {
            Format::Lines
        } else {
            Format::Text
        }
    }
}

/// Named `.xml` (before any compression suffix) or starting with an XML
/// declaration or tag.
fn looks_like_xml(path: &Path, head: &[u8]) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let stem = [".bz2", ".gz", ".xz"]
        .iter()
        .find_map(|ext| name.strip_suffix(ext))
        .unwrap_or(&name);
    let text = String::from_utf8_lossy(&head[..head.len().min(256)]);
    let start = text.trim_start_matches('\u{feff}').trim_start();
    stem.ends_with(".xml") || start.starts_with("<?xml")
}

impl FromStr for Format {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        Ok(match s {
            "auto" => Format::Auto,
            "text" => Format::Text,
            "lines" => Format::Lines,
            "wiki" | "wikipedia" => Format::Wikipedia,
            "fasttext" => Format::FastText,
            _ => {
                return Err(Error::param(
                    "format",
                    format!("'{s}' (expected one of: {})", Format::NAMES.join(", ")),
                ))
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_each_format() {
        assert_eq!(
            Format::detect(b"<mediawiki xmlns=\"x\">\n<page>"),
            Format::Wikipedia
        );
        assert_eq!(
            Format::detect(b"__label__pos good\n__label__neg bad\n"),
            Format::FastText
        );
        assert_eq!(
            Format::detect(b"doc one\ndoc two\ndoc three\n"),
            Format::Lines
        );
        assert_eq!(
            Format::detect(b"para one\nwrapped\n\npara two\n"),
            Format::Text
        );
        assert_eq!(
            Format::detect(b" anarchism originated as a term"),
            Format::Text
        );
    }

    #[test]
    fn parses_names() {
        assert_eq!("wiki".parse::<Format>().unwrap(), Format::Wikipedia);
        assert!("xml"
            .parse::<Format>()
            .unwrap_err()
            .to_string()
            .contains("auto, text"));
    }
}
