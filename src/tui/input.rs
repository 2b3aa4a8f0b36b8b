//! A one-line text input: the text, a cursor counted in characters, and the
//! edits of [`EditOp`]. Small enough to own rather than depend on a crate,
//! and it keeps every edit a plain value that tests can replay. Path fields
//! complete with Tab ([`complete_path`]), as a shell does.
//!
//! An input opened on a value ([`LineInput::selected`]) starts with the whole
//! text selected, as in a spreadsheet cell or a file dialog: typing replaces
//! it (`dim` 100 → type `50` gives 50, not 10050), a cursor key keeps it.

use super::action::EditOp;

/// The most characters one paste puts into a line.
pub const MAX_PASTE: usize = 4096;

/// Pasted text as one line: trailing line breaks dropped, other line breaks,
/// tabs and control characters made spaces, cut to [`MAX_PASTE`]
/// characters. Returns the text and whether it was cut.
pub fn pasted(text: &str) -> (String, bool) {
    let text = text.trim_end_matches(['\r', '\n']);
    let line: String = text
        .chars()
        .take(MAX_PASTE)
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let cut = text.chars().nth(MAX_PASTE).is_some();
    (line, cut)
}

/// One line of editable text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineInput {
    text: String,
    /// Cursor position in characters (0..=len).
    cursor: usize,
    /// The whole text is selected: the next insertion or deletion replaces it.
    selected: bool,
}

impl LineInput {
    /// An input holding `text`, cursor at the end.
    pub fn new(text: impl Into<String>) -> Self {
        let text = text.into();
        let cursor = text.chars().count();
        LineInput {
            text,
            cursor,
            selected: false,
        }
    }

    /// An input holding `text`, all of it selected (typing replaces it).
    pub fn selected(text: impl Into<String>) -> Self {
        let mut input = LineInput::new(text);
        input.selected = !input.text.is_empty();
        input
    }

    /// Selects the whole text (the next insertion replaces it), cursor at the end.
    pub fn select_all(&mut self) {
        self.cursor = self.text.chars().count();
        self.selected = !self.text.is_empty();
    }

    /// Whether the whole text is selected (the next edit replaces it).
    pub fn is_selected(&self) -> bool {
        self.selected
    }

    /// The text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Cursor position in characters.
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// Replaces the text, cursor at the end.
    pub fn set(&mut self, text: impl Into<String>) {
        *self = LineInput::new(text);
    }

    /// Applies an edit; returns true when the text changed.
    pub fn apply(&mut self, op: &EditOp) -> bool {
        if std::mem::take(&mut self.selected) {
            match op {
                EditOp::Insert(_) | EditOp::Paste(_) => {
                    self.set("");
                    self.apply(op);
                    return true;
                }
                EditOp::Backspace | EditOp::Delete | EditOp::DeleteWord | EditOp::Clear => {
                    self.set("");
                    return true;
                }
                _ => {}
            }
        }
        let len = self.text.chars().count();
        match op {
            EditOp::Insert(c) => {
                let at = self.byte(self.cursor);
                self.text.insert(at, *c);
                self.cursor += 1;
                true
            }
            EditOp::Paste(text) => {
                let at = self.byte(self.cursor);
                self.text.insert_str(at, text);
                self.cursor += text.chars().count();
                !text.is_empty()
            }
            EditOp::Backspace if self.cursor > 0 => {
                let at = self.byte(self.cursor - 1);
                self.text.remove(at);
                self.cursor -= 1;
                true
            }
            EditOp::Delete if self.cursor < len => {
                let at = self.byte(self.cursor);
                self.text.remove(at);
                true
            }
            EditOp::Left => {
                self.cursor = self.cursor.saturating_sub(1);
                false
            }
            EditOp::Right => {
                self.cursor = (self.cursor + 1).min(len);
                false
            }
            EditOp::Home => {
                self.cursor = 0;
                false
            }
            EditOp::End => {
                self.cursor = len;
                false
            }
            EditOp::DeleteWord => self.delete_word(),
            EditOp::Clear => {
                let changed = !self.text.is_empty();
                self.set("");
                changed
            }
            EditOp::Backspace | EditOp::Delete => false,
        }
    }

    /// The text with `s` inserted at the cursor.
    pub fn insert_str(&mut self, s: &str) {
        for c in s.chars() {
            self.apply(&EditOp::Insert(c));
        }
    }

    fn delete_word(&mut self) -> bool {
        let chars: Vec<char> = self.text.chars().collect();
        let mut start = self.cursor;
        while start > 0 && chars[start - 1].is_whitespace() {
            start -= 1;
        }
        while start > 0 && !chars[start - 1].is_whitespace() && chars[start - 1] != '/' {
            start -= 1;
        }
        if start == self.cursor {
            return false;
        }
        let (a, b) = (self.byte(start), self.byte(self.cursor));
        self.text.replace_range(a..b, "");
        self.cursor = start;
        true
    }

    fn byte(&self, chars: usize) -> usize {
        self.text
            .char_indices()
            .nth(chars)
            .map_or(self.text.len(), |(i, _)| i)
    }
}

/// Completes `text` as a path: the candidates in its directory that start
/// with its last component, and the text extended by their common prefix.
pub fn complete_path(text: &str) -> (String, Vec<String>) {
    let (dir, prefix) = match text.rfind('/') {
        Some(i) => (&text[..=i], &text[i + 1..]),
        None => ("", text),
    };
    let read_dir = if dir.is_empty() { "." } else { dir };
    let Ok(entries) = std::fs::read_dir(read_dir) else {
        return (text.to_string(), Vec::new());
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let hidden = name.starts_with('.') && !prefix.starts_with('.');
            (name.starts_with(prefix) && !hidden).then(|| {
                let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
                if is_dir {
                    format!("{name}/")
                } else {
                    name
                }
            })
        })
        .collect();
    names.sort();
    let common = names
        .iter()
        .skip(1)
        .fold(names.first().cloned().unwrap_or_default(), |acc, n| {
            acc.chars()
                .zip(n.chars())
                .take_while(|(a, b)| a == b)
                .map(|(a, _)| a)
                .collect()
        });
    let completed = if common.len() > prefix.len() {
        format!("{dir}{common}")
    } else {
        text.to_string()
    };
    if names.len() == 1 {
        names.clear();
    }
    (completed, names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_move_the_cursor_by_characters() {
        let mut i = LineInput::new("né");
        assert_eq!(i.cursor(), 2);
        assert!(i.apply(&EditOp::Insert('e')));
        assert_eq!(i.text(), "née");
        i.apply(&EditOp::Home);
        assert!(i.apply(&EditOp::Delete));
        assert_eq!(i.text(), "ée");
        i.apply(&EditOp::Right);
        assert!(i.apply(&EditOp::Backspace));
        assert_eq!(i.text(), "e");
        assert!(!i.apply(&EditOp::Backspace));
        assert_eq!(i.cursor(), 0);
    }

    #[test]
    fn a_selected_value_is_replaced_by_typing_and_kept_by_cursor_keys() {
        let mut i = LineInput::selected("100");
        assert!(i.is_selected());
        i.apply(&EditOp::Insert('5'));
        i.apply(&EditOp::Insert('0'));
        assert_eq!((i.text(), i.cursor(), i.is_selected()), ("50", 2, false));
        let mut i = LineInput::selected("100");
        i.apply(&EditOp::End);
        i.apply(&EditOp::Insert('0'));
        assert_eq!(i.text(), "1000", "a cursor key first keeps the text");
        let mut i = LineInput::selected("0.025");
        assert!(i.apply(&EditOp::Backspace));
        assert_eq!(i.text(), "", "deleting a selection deletes all of it");
        assert!(!LineInput::selected("").is_selected());
    }

    #[test]
    fn a_paste_is_one_line_inserted_at_the_cursor_and_bounded() {
        let (line, cut) = pasted("king\tqueen\r\nman\n\n");
        assert_eq!((line.as_str(), cut), ("king queen  man", false));
        let mut i = LineInput::new("ab");
        i.apply(&EditOp::Left);
        assert!(i.apply(&EditOp::Paste("é\u{1b}x".into())));
        assert_eq!((i.text(), i.cursor()), ("aé\u{1b}xb", 4));
        // A selected value is replaced by the paste, as by typing.
        let mut i = LineInput::selected("100");
        i.apply(&EditOp::Paste(pasted("50\n").0));
        assert_eq!(i.text(), "50");
        // However long the paste, one line of at most MAX_PASTE characters.
        let big = "word ".repeat(10_000);
        let (line, cut) = pasted(&big);
        assert!(cut && line.chars().count() == MAX_PASTE);
        let (line, cut) = pasted(&"é".repeat(MAX_PASTE));
        assert!(!cut && line.chars().count() == MAX_PASTE);
    }

    #[test]
    fn delete_word_stops_at_slashes_and_spaces() {
        let mut i = LineInput::new("data/text8 king");
        assert!(i.apply(&EditOp::DeleteWord));
        assert_eq!(i.text(), "data/text8 ");
        assert!(i.apply(&EditOp::DeleteWord));
        assert_eq!(i.text(), "data/");
        assert!(i.apply(&EditOp::Clear));
        assert!(!i.apply(&EditOp::DeleteWord));
    }

    #[test]
    fn paths_complete_to_the_common_prefix() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["corpus-a.txt", "corpus-b.txt", "other.txt"] {
            std::fs::write(dir.path().join(name), "x").unwrap();
        }
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let base = format!("{}/", dir.path().display());
        let (text, candidates) = complete_path(&format!("{base}cor"));
        assert_eq!(text, format!("{base}corpus-"));
        assert_eq!(candidates, vec!["corpus-a.txt", "corpus-b.txt"]);
        let (text, candidates) = complete_path(&format!("{base}s"));
        assert_eq!(text, format!("{base}sub/"));
        assert!(candidates.is_empty());
        let (text, _) = complete_path(&format!("{base}zzz"));
        assert_eq!(text, format!("{base}zzz"));
    }
}
