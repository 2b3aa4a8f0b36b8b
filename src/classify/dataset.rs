//! Labelled documents as sparse bags of words.
//!
//! Two layouts are read, told apart by their first line: fastText
//! (`__label__A __label__B text`, several labels allowed) and the Reuters
//! layout `split<TAB>id<TAB>label,label<TAB>text`, whose split column lets one
//! file serve as both the training and the test file. Text goes through the
//! corpus tokenizer (lower case, punctuation dropped), so words match the
//! marginals counted from any corpus the workbench reads.

use std::path::Path;

use rustc_hash::FxHashMap;

use super::stopwords::is_stop_word;
use crate::corpus::reader::strip_labels;
use crate::corpus::source::{self, LineReader};
use crate::corpus::tokenize::{TokenSink, Tokenizer, TokenizerConfig};
use crate::{Error, Result};

/// Words seen anywhere (labelled, test or unlabelled text), numbered densely.
#[derive(Debug, Default, Clone)]
pub struct Lexicon {
    ids: FxHashMap<Box<str>, u32>,
    words: Vec<Box<str>>,
}

impl Lexicon {
    /// The id of `word`, adding it if new.
    pub fn intern(&mut self, word: &str) -> u32 {
        if let Some(&id) = self.ids.get(word) {
            return id;
        }
        let id = self.words.len() as u32;
        self.words.push(word.into());
        self.ids.insert(word.into(), id);
        id
    }

    /// The id of `word`, if seen.
    pub fn get(&self, word: &str) -> Option<u32> {
        self.ids.get(word).copied()
    }

    /// The word with id `id`.
    pub fn word(&self, id: u32) -> &str {
        &self.words[id as usize]
    }

    /// Number of words.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// True when no word was seen.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }
}

/// Label names, numbered in order of first appearance.
#[derive(Debug, Default, Clone)]
pub struct Labels {
    ids: FxHashMap<String, u32>,
    names: Vec<String>,
}

impl Labels {
    fn intern(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(name.to_string());
        self.ids.insert(name.to_string(), id);
        id
    }

    /// The id of a label name.
    pub fn get(&self, name: &str) -> Option<u32> {
        self.ids.get(name).copied()
    }

    /// The name of label `id`.
    pub fn name(&self, id: u32) -> &str {
        &self.names[id as usize]
    }

    /// Every label name, by id.
    pub fn names(&self) -> &[String] {
        &self.names
    }
}

/// One labelled document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    /// Its labels (at least one), in file order.
    pub labels: Vec<u32>,
    /// `(word id, count)`, sorted by word id.
    pub bag: Vec<(u32, u32)>,
    /// 1-based line in its file.
    pub line: usize,
}

impl Document {
    /// True when the document carries `label`.
    pub fn has(&self, label: u32) -> bool {
        self.labels.contains(&label)
    }

    /// Number of tokens.
    pub fn tokens(&self) -> u64 {
        self.bag.iter().map(|&(_, n)| u64::from(n)).sum()
    }
}

/// Which rows of a file with a split column to keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// Every row.
    All,
    /// Rows whose split is `train`.
    Train,
    /// Rows whose split is `test`.
    Test,
}

/// The two line layouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// `__label__A __label__B text`.
    FastText,
    /// `split<TAB>id<TAB>labels<TAB>text`.
    Tsv,
}

/// Reads labelled files into one lexicon and one label set.
#[derive(Debug, Clone)]
pub struct Reader {
    /// Every word seen so far.
    pub lexicon: Lexicon,
    /// Every label seen so far.
    pub labels: Labels,
    stop_words: bool,
}

impl Reader {
    /// A reader; `stop_words` drops the words of the built-in stop list.
    pub fn new(stop_words: bool) -> Self {
        Reader {
            lexicon: Lexicon::default(),
            labels: Labels::default(),
            stop_words,
        }
    }

    /// True when stop words are dropped.
    pub fn drops_stop_words(&self) -> bool {
        self.stop_words
    }

    /// Reads the documents of `path` (plain, .gz or .bz2) in `part`.
    pub fn read(&mut self, path: &Path, part: Part) -> Result<Vec<Document>> {
        let mut lines = LineReader::new(source::open(path)?, path);
        let mut tokenizer = Tokenizer::new(TokenizerConfig::default());
        let mut docs = Vec::new();
        let mut layout = None;
        let mut open: Option<Open> = None;
        let mut buf = Bag {
            lexicon: &mut self.lexicon,
            ids: Vec::new(),
            stop_words: self.stop_words,
        };
        let mut current_line = 0;
        while let Some(seg) = lines.next_segment()? {
            let mut text = seg.text;
            if seg.line != current_line {
                current_line = seg.line;
                if text.trim().is_empty() {
                    continue;
                }
                let layout = match layout {
                    Some(l) => l,
                    None => *layout.insert(detect(path, seg.line, text)?),
                };
                let (header, rest) = parse_header(path, seg.line, text, layout)?;
                text = rest;
                open = keeps(header.split, part).then(|| Open {
                    labels: header
                        .labels
                        .iter()
                        .map(|l| self.labels.intern(l))
                        .collect(),
                    line: seg.line,
                });
            }
            if open.is_some() {
                tokenizer.feed(text, &mut buf);
            }
            if seg.line_end {
                if let Some(o) = open.take() {
                    tokenizer.flush(&mut buf);
                    docs.push(Document {
                        labels: o.labels,
                        bag: buf.take_bag(),
                        line: o.line,
                    });
                }
            }
        }
        if docs.is_empty() {
            return Err(Error::format(path, "no labelled documents"));
        }
        Ok(docs)
    }
}

/// A document whose line is being read.
struct Open {
    labels: Vec<u32>,
    line: usize,
}

/// Collects one document's word ids (no allocation per token: the id buffer
/// is reused across documents).
struct Bag<'a> {
    lexicon: &'a mut Lexicon,
    ids: Vec<u32>,
    stop_words: bool,
}

impl Bag<'_> {
    fn take_bag(&mut self) -> Vec<(u32, u32)> {
        self.ids.sort_unstable();
        let mut bag: Vec<(u32, u32)> = Vec::new();
        for &id in &self.ids {
            match bag.last_mut() {
                Some((last, n)) if *last == id => *n += 1,
                _ => bag.push((id, 1)),
            }
        }
        self.ids.clear();
        bag
    }
}

impl TokenSink for Bag<'_> {
    fn token(&mut self, token: &str) {
        if !(self.stop_words && is_stop_word(token)) {
            self.ids.push(self.lexicon.intern(token));
        }
    }

    fn sentence_end(&mut self) {}
}

/// A line's labels and split, before its text.
struct Header<'a> {
    split: Option<&'a str>,
    labels: Vec<&'a str>,
}

fn keeps(split: Option<&str>, part: Part) -> bool {
    match (split, part) {
        (None, _) | (_, Part::All) => true,
        (Some(s), Part::Train) => s == "train",
        (Some(s), Part::Test) => s == "test",
    }
}

/// The layout of a file from its first non-empty line.
fn detect(path: &Path, line: usize, text: &str) -> Result<Layout> {
    let first = text.split('\t').next().unwrap_or("");
    if text.matches('\t').count() >= 3 && matches!(first, "train" | "test") {
        Ok(Layout::Tsv)
    } else if text.trim_start().starts_with("__label__") {
        Ok(Layout::FastText)
    } else {
        Err(Error::parse(
            path,
            line,
            "expected a labelled line: `__label__X text` (fastText) or `train|test<TAB>id<TAB>labels<TAB>text`",
        ))
    }
}

fn parse_header<'a>(
    path: &Path,
    line: usize,
    text: &'a str,
    layout: Layout,
) -> Result<(Header<'a>, &'a str)> {
    match layout {
        Layout::FastText => {
            let rest = strip_labels(text);
            let head = &text[..text.len() - rest.len()];
            let labels: Vec<&str> = head
                .split_whitespace()
                .filter_map(|w| w.strip_prefix("__label__"))
                .collect();
            if labels.is_empty() || labels.iter().any(|l| l.is_empty()) {
                return Err(Error::parse(
                    path,
                    line,
                    "expected `__label__X` before the text (a non-empty label)",
                ));
            }
            Ok((
                Header {
                    split: None,
                    labels,
                },
                rest,
            ))
        }
        Layout::Tsv => {
            let mut fields = text.splitn(4, '\t');
            let (Some(split), Some(_id), Some(labels), Some(rest)) =
                (fields.next(), fields.next(), fields.next(), fields.next())
            else {
                return Err(Error::parse(
                    path,
                    line,
                    "expected 4 tab-separated fields: split, id, labels, text",
                ));
            };
            if !matches!(split, "train" | "test") {
                return Err(Error::parse(
                    path,
                    line,
                    format!("split is `{split}`, expected `train` or `test`"),
                ));
            }
            let labels: Vec<&str> = labels.split(',').map(str::trim).collect();
            if labels.iter().any(|l| l.is_empty()) {
                return Err(Error::parse(path, line, "empty label in the labels field"));
            }
            Ok((
                Header {
                    split: Some(split),
                    labels,
                },
                rest,
            ))
        }
    }
}
