//! Quoting input in messages: every error and warning that shows a piece of
//! a file (a word, a header, a line) or a file name goes through [`text`] or
//! [`path`], so that what an input holds can never act on the terminal that
//! shows the message. Without it a vectors file whose first word is
//! `\x1b[2J` clears the screen when its error is printed, `\x1b]0;…\x07`
//! retitles the window, XOFF (`\x13`) freezes the output, and a right-to-left
//! override (U+202E) makes the rest of the line read backwards.
//!
//! Control characters (C0, DEL, C1) and the invisible format characters that
//! reorder or hide text (bidi embeddings, overrides and isolates, zero-width
//! characters, the byte-order mark) are written as Rust escapes (`\u{1b}`,
//! `\t`, `\n`); everything else, including any printable non-ASCII letter,
//! is kept as it is.

use std::borrow::Cow;
use std::path::Path;

/// Whether `c` must not reach a terminal as it is.
fn unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{200B}'..='\u{200F}'
                | '\u{2028}'..='\u{202E}'
                | '\u{2060}'..='\u{2069}'
                | '\u{FEFF}'
                | '\u{FFF9}'..='\u{FFFB}'
        )
}

/// `s` with every control or invisible format character escaped (`\u{1b}`,
/// `\n`); borrowed unchanged when there is none (the common case).
pub fn text(s: &str) -> Cow<'_, str> {
    if !s.chars().any(unsafe_char) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if unsafe_char(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A file name for a message: [`Path::display`] (invalid UTF-8 shown as
/// U+FFFD) with unsafe characters escaped as in [`text`].
pub fn path(p: &Path) -> String {
    text(&p.display().to_string()).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_controls_are_escaped_and_text_is_kept() {
        assert!(matches!(text("naïve café 東京"), Cow::Borrowed(_)));
        assert_eq!(text("a\x1b[2Jb"), "a\\u{1b}[2Jb");
        assert_eq!(text("\x1b]0;pwned\x07"), "\\u{1b}]0;pwned\\u{7}");
        assert_eq!(text("x\x13y\x7f\u{9b}"), "x\\u{13}y\\u{7f}\\u{9b}");
        assert_eq!(text("tab\there\nnext\r"), "tab\\there\\nnext\\r");
        assert_eq!(text("abc\u{202E}fed"), "abc\\u{202e}fed");
        assert_eq!(text("\u{FEFF}w\u{200B}"), "\\u{feff}w\\u{200b}");
        assert_eq!(path(Path::new("dir/\x1bx.txt")), "dir/\\u{1b}x.txt");
    }

    #[test]
    fn no_escaped_text_holds_a_control_character() {
        // Every code point below U+3000 (and a few beyond): the escaped form
        // holds no character a terminal would act on.
        let all: String = (0u32..0x3000)
            .chain([0xFEFF, 0xFFF9, 0xFFFB, 0x1F600])
            .filter_map(char::from_u32)
            .collect();
        let escaped = text(&all);
        assert!(!escaped.chars().any(unsafe_char), "{escaped}");
    }
}
