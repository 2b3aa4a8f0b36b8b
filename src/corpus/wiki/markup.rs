//! Wiki-markup removal: wikitext in, plain article text out.
//!
//! Soleimani ch.6.2 ran WikiExtractor and then deleted leftover `<...>` tags,
//! everything inside `(...)` and `{...}`, and links/URLs with regexes. Here the
//! same cleaning is four linear passes over the bytes, each a small state
//! machine, so text streams through at over 100 MB/s and no input can make it
//! backtrack:
//!
//! 1. **tags**: HTML comments, blocks whose content is not prose (`<ref>`,
//!    `<math>`, `<gallery>`, `<timeline>`, ...), and every other tag (its text kept);
//! 2. **braces**: templates `{{...}}`, tables `{|...|}`, parameters, any `{...}`;
//! 3. **brackets**: `[[target|anchor]]` keeps its anchor, `[[target]]` its
//!    target; file, image, category and interlanguage links go whole (captions
//!    with nested links included); `[http://x label]` keeps its label;
//! 4. **lines**: headings stay as lines ending in a full stop (as WikiExtractor
//!    writes them, so the sentence splitter sees them end), list markers,
//!    bold/italic quotes and magic words go, `(...)` and bare URLs go, HTML
//!    entities are decoded and white space is squeezed.
//!
//! Every markup character is ASCII, so the passes cut the UTF-8 text only at
//! character boundaries and copy the text between markup as whole slices.
//! Openers are matched with their closers up front ([`Pairs`], one stack pass);
//! an unbalanced opener never swallows the rest of the article: a lone `{` is
//! dropped, a lone `[` or `(` kept as text.

use std::ops::Range;

use memchr::{memchr, memchr2, memchr2_iter, memchr3, memmem};
use serde::{Deserialize, Serialize};

use super::entities::{self, Decoded};

/// Cleaning choices; the default is Soleimani ch.6.2's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct StripOptions {
    /// Delete parenthesised text `(...)`, nested, within one line (ch.6.2 step 3).
    pub remove_parentheses: bool,
}

impl Default for StripOptions {
    fn default() -> Self {
        StripOptions {
            remove_parentheses: true,
        }
    }
}

/// Turns wikitext into plain text with the default (thesis) options.
pub fn strip_markup(wikitext: &str) -> String {
    strip_markup_with(wikitext, &StripOptions::default())
}

/// Turns wikitext into plain text: one line per paragraph, list item or heading.
pub fn strip_markup_with(wikitext: &str, options: &StripOptions) -> String {
    Stripper::new(*options).strip(wikitext).to_string()
}

/// A reusable markup stripper: keeps its buffers between articles, so a dump
/// is cleaned without allocating per page.
#[derive(Debug, Clone, Default)]
pub struct Stripper {
    options: StripOptions,
    a: String,
    b: String,
    pairs: Pairs,
}

impl Stripper {
    /// A stripper with the given options.
    pub fn new(options: StripOptions) -> Self {
        Stripper {
            options,
            ..Default::default()
        }
    }

    /// Cleans `wikitext`; the result lives until the next call.
    pub fn strip(&mut self, wikitext: &str) -> &str {
        self.a.clear();
        strip_tags(wikitext, &mut self.a);
        self.b.clear();
        strip_braces(&self.a, &mut self.b, &mut self.pairs);
        self.a.clear();
        strip_links(&self.b, &mut self.a, &mut self.pairs);
        self.b.clear();
        clean_lines(&self.a, &mut self.b, &self.options, &mut self.pairs);
        &self.b
    }
}

/// Opener/closer matches of one bracket kind, looked up in increasing order.
#[derive(Debug, Clone, Default)]
struct Pairs {
    list: Vec<(usize, usize)>,
    stack: Vec<usize>,
    cursor: usize,
}

impl Pairs {
    /// Matches `open` with `close` bytes in `b` (nesting allowed).
    fn compute(&mut self, b: &[u8], open: u8, close: u8) {
        self.list.clear();
        self.stack.clear();
        self.cursor = 0;
        for i in memchr2_iter(open, close, b) {
            if b[i] == open {
                self.stack.push(i);
            } else if let Some(o) = self.stack.pop() {
                self.list.push((o, i));
            }
        }
        self.list.sort_unstable();
    }

    /// The closer of the opener at `pos`; positions must come in increasing order.
    fn close_of(&mut self, pos: usize) -> Option<usize> {
        while self.list.get(self.cursor).is_some_and(|&(o, _)| o < pos) {
            self.cursor += 1;
        }
        match self.list.get(self.cursor) {
            Some(&(o, c)) if o == pos => Some(c),
            _ => None,
        }
    }
}

// ---------------------------------------------------------------- pass 1: tags

/// Tags whose whole content is dropped (references, formulas, galleries, code, ...).
const DROP_CONTENT: &[&str] = &[
    "ref",
    "references",
    "math",
    "chem",
    "ce",
    "gallery",
    "timeline",
    "imagemap",
    "score",
    "hiero",
    "graph",
    "source",
    "syntaxhighlight",
    "templatedata",
    "mapframe",
    "maplink",
    "inputbox",
    "categorytree",
    "noinclude",
];

/// Tags that break lines when removed.
const BLOCK: &[&str] = &[
    "br",
    "p",
    "div",
    "li",
    "ul",
    "ol",
    "dl",
    "dd",
    "dt",
    "tr",
    "td",
    "th",
    "table",
    "blockquote",
    "hr",
    "center",
    "pre",
    "poem",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
];

/// A parsed tag `<name ...>`, `</name>` or `<name .../>`.
struct Tag<'a> {
    name: &'a [u8],
    closing: bool,
    self_closing: bool,
    /// Just past the `>`.
    end: usize,
}

/// Parses the tag starting at `b[lt] == b'<'`: a name of ASCII letters and
/// digits, attributes without `<` or line breaks, then `>`.
fn parse_tag(b: &[u8], lt: usize) -> Option<Tag<'_>> {
    let mut j = lt + 1;
    let closing = b.get(j) == Some(&b'/');
    if closing {
        j += 1;
    }
    let start = j;
    if !b.get(j)?.is_ascii_alphabetic() {
        return None;
    }
    while b.get(j).is_some_and(u8::is_ascii_alphanumeric) {
        j += 1;
    }
    let name = &b[start..j];
    if !matches!(b.get(j)?, b'>' | b'/' | b' ' | b'\t' | b'\n') {
        return None;
    }
    let gt = j + b[j..].iter().position(|&c| matches!(c, b'>' | b'<'))?;
    if b[gt] != b'>' || b[j..gt].contains(&b'\n') {
        return None;
    }
    Some(Tag {
        name,
        closing,
        self_closing: b[gt - 1] == b'/',
        end: gt + 1,
    })
}

/// The end (past `>`) of the first `</name>` at or after `from`, any case.
fn find_close(b: &[u8], from: usize, name: &[u8]) -> Option<usize> {
    let mut i = from;
    while let Some(off) = memmem::find(&b[i..], b"</") {
        let lt = i + off;
        if let Some(tag) = parse_tag(b, lt) {
            if tag.closing && tag.name.eq_ignore_ascii_case(name) {
                return Some(tag.end);
            }
        }
        i = lt + 2;
    }
    None
}

fn is_one_of(name: &[u8], list: &[&str]) -> Option<usize> {
    list.iter()
        .position(|n| n.as_bytes().eq_ignore_ascii_case(name))
}

/// Pass 1: comments, drop-content blocks and leftover tags.
fn strip_tags(src: &str, dst: &mut String) {
    let b = src.as_bytes();
    // Bit k set: no closer of DROP_CONTENT[k] is left in the text, so an
    // opener of it never searches again (keeps the pass linear).
    let mut unclosed = 0u32;
    let (mut i, mut copied) = (0, 0);
    while let Some(off) = memchr(b'<', &b[i..]) {
        let lt = i + off;
        if b[lt..].starts_with(b"<!--") {
            dst.push_str(&src[copied..lt]);
            i = memmem::find(&b[lt + 4..], b"-->").map_or(b.len(), |e| lt + 4 + e + 3);
            copied = i;
            continue;
        }
        let Some(tag) = parse_tag(b, lt) else {
            i = lt + 1;
            continue;
        };
        dst.push_str(&src[copied..lt]);
        i = tag.end;
        if let (false, false, Some(k)) = (
            tag.closing,
            tag.self_closing,
            is_one_of(tag.name, DROP_CONTENT),
        ) {
            if unclosed & (1 << k) == 0 {
                match find_close(b, tag.end, tag.name) {
                    Some(end) => i = end,
                    None => unclosed |= 1 << k,
                }
            }
        }
        if is_one_of(tag.name, BLOCK).is_some() {
            dst.push('\n');
        }
        copied = i;
    }
    dst.push_str(&src[copied..]);
}

// -------------------------------------------------------------- pass 2: braces

/// Pass 2: everything inside `{...}`, nested (templates, tables, parameters).
fn strip_braces(src: &str, dst: &mut String, pairs: &mut Pairs) {
    let b = src.as_bytes();
    pairs.compute(b, b'{', b'}');
    let (mut i, mut copied) = (0, 0);
    while let Some(off) = memchr2(b'{', b'}', &b[i..]) {
        let p = i + off;
        dst.push_str(&src[copied..p]);
        i = match (b[p], pairs.close_of(p)) {
            (b'{', Some(close)) => close + 1,
            _ => p + 1,
        };
        // A template between two words stands for something ("a{{snd}}b").
        let word_before = dst.chars().next_back().is_some_and(char::is_alphanumeric);
        if word_before && src[i..].starts_with(char::is_alphanumeric) {
            dst.push(' ');
        }
        copied = i;
    }
    dst.push_str(&src[copied..]);
}

// ------------------------------------------------------------ pass 3: brackets

/// Namespaces whose links are not part of the text.
const HIDDEN_NAMESPACES: &[&str] = &["file", "image", "media", "category"];

/// Prefixes that make `[...]` an external link.
const URL_PREFIXES: &[&str] = &[
    "http://",
    "https://",
    "ftp://",
    "ftps://",
    "sftp://",
    "irc://",
    "ircs://",
    "gopher://",
    "news:",
    "mailto:",
    "//",
];

fn starts_with_url(b: &[u8]) -> bool {
    URL_PREFIXES
        .iter()
        .any(|p| b.len() >= p.len() && b[..p.len()].eq_ignore_ascii_case(p.as_bytes()))
}

/// What the namespace prefix of a link target says about the link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LinkKind {
    /// File, image or category link: not part of the text.
    Hidden,
    /// A lowercase language or project code (`de:`, `wikt:`): an
    /// interlanguage link unless it has an anchor.
    Interwiki,
    /// An ordinary link (a leading colon makes any link one).
    Ordinary,
}

fn link_kind(target: &[u8]) -> LinkKind {
    let target = target.trim_ascii_start();
    if target.first() == Some(&b':') {
        return LinkKind::Ordinary;
    }
    let Some(colon) = memchr(b':', target) else {
        return LinkKind::Ordinary;
    };
    let ns = target[..colon].trim_ascii();
    if is_one_of(ns, HIDDEN_NAMESPACES).is_some() {
        LinkKind::Hidden
    } else if (2..=12).contains(&ns.len())
        && ns.iter().all(|&c| c.is_ascii_lowercase() || c == b'-')
        && ns[0] != b'-'
    {
        LinkKind::Interwiki
    } else {
        LinkKind::Ordinary
    }
}

/// Pass 3: wiki links and external links.
fn strip_links(src: &str, dst: &mut String, pairs: &mut Pairs) {
    let b = src.as_bytes();
    pairs.compute(b, b'[', b']');
    // Closers of links whose anchor text is being copied: (position, width).
    let mut pending: Vec<(usize, usize)> = Vec::new();
    let (mut i, mut copied) = (0, 0);
    while let Some(off) = memchr2(b'[', b']', &b[i..]) {
        let p = i + off;
        i = p + 1;
        if b[p] == b']' {
            if let Some(&(close, width)) = pending.last().filter(|&&(c, _)| c == p) {
                dst.push_str(&src[copied..p]);
                pending.pop();
                i = close + width;
                copied = i;
            }
            continue;
        }
        let Some(close) = pairs.close_of(p) else {
            continue;
        };
        let inner = if b.get(p + 1) == Some(&b'[') {
            pairs.close_of(p + 1).filter(|&c| c + 1 == close)
        } else {
            None
        };
        let action = match inner {
            Some(inner_close) => wiki_link(b, p + 2, inner_close, &mut pending),
            None => external_link(b, p, close, &mut pending),
        };
        if let Some((show, resume)) = action {
            dst.push_str(&src[copied..p]);
            dst.push_str(&src[show]);
            i = resume;
            copied = i;
        }
    }
    dst.push_str(&src[copied..]);
}

/// What replaces a link: the range of the source to write in its place, and
/// where copying resumes.
type Replacement = Option<(Range<usize>, usize)>;

/// Handles the wiki link `[[` `b[start..close]` `]]`: writes its target, or
/// resumes at its anchor (whose closer is queued), or drops it. `None` when it
/// is not a link (its target holds a bracket or a line break).
fn wiki_link(
    b: &[u8],
    start: usize,
    close: usize,
    pending: &mut Vec<(usize, usize)>,
) -> Replacement {
    let content = &b[start..close];
    let cut = memchr3(b'|', b'[', b']', content);
    let target = &content[..cut.unwrap_or(content.len())];
    if target.contains(&b'\n') {
        return None;
    }
    let kind = link_kind(target);
    if kind == LinkKind::Hidden {
        // Captions may hold links and line breaks: all of it goes.
        return Some((0..0, close + 2));
    }
    let bar = match cut {
        Some(k) if content[k] != b'|' => return None,
        cut => cut,
    };
    let anchored = bar.is_some_and(|k| content[k + 1..].iter().any(|c| !c.is_ascii_whitespace()));
    if kind == LinkKind::Interwiki && !anchored {
        return Some((0..0, close + 2));
    }
    if let (Some(k), true) = (bar, anchored) {
        pending.push((close, 2));
        return Some((0..0, start + k + 1));
    }
    let lead = target
        .iter()
        .take_while(|c| c.is_ascii_whitespace() || **c == b':')
        .count();
    let end = target.trim_ascii_end().len().max(lead);
    Some((start + lead..start + end, close + 2))
}

/// Handles `[` `b[open+1..close]` `]`: an external link resumes at its label
/// (whose closer is queued) or is dropped; anything else is text (`None`).
fn external_link(
    b: &[u8],
    open: usize,
    close: usize,
    pending: &mut Vec<(usize, usize)>,
) -> Replacement {
    let content = &b[open + 1..close];
    if !starts_with_url(content) {
        return None;
    }
    Some(match memchr2(b' ', b'\t', content) {
        Some(sp) => {
            pending.push((close, 1));
            (0..0, open + 1 + sp + 1)
        }
        None => (0..0, close + 1),
    })
}

// --------------------------------------------------------------- pass 4: lines

/// Pass 4: line structure and inline leftovers.
fn clean_lines(src: &str, dst: &mut String, options: &StripOptions, pairs: &mut Pairs) {
    for line in src.split('\n') {
        let line = line.trim();
        if line.is_empty() || line.starts_with("----") {
            continue;
        }
        let start = dst.len();
        let title = heading(line);
        let text =
            title.unwrap_or_else(|| line.trim_start_matches(['*', '#', ':', ';', ' ', '\t']));
        inline(text, dst, options, pairs);
        if !dst[start..].chars().any(char::is_alphanumeric) {
            dst.truncate(start);
            continue;
        }
        let kept = dst[start..].trim_end().len();
        dst.truncate(start + kept);
        if title.is_some() && dst.ends_with(char::is_alphanumeric) {
            dst.push('.');
        }
        dst.push('\n');
    }
}

/// The title of a `== heading ==` line.
fn heading(line: &str) -> Option<&str> {
    if !line.starts_with('=') || !line.ends_with('=') || line.len() < 3 {
        return None;
    }
    Some(line.trim_matches('='))
}

/// Bytes that end a run of plain text in [`inline`].
const fn special_bytes() -> [bool; 256] {
    let mut t = [false; 256];
    let specials = b" \t\r'()_&";
    let mut k = 0;
    while k < specials.len() {
        t[specials[k] as usize] = true;
        k += 1;
    }
    t
}
static SPECIAL: [bool; 256] = special_bytes();

/// Copies one line's text: drops quotes, magic words, `(...)` and URLs,
/// decodes entities and squeezes white space.
fn inline(text: &str, dst: &mut String, options: &StripOptions, pairs: &mut Pairs) {
    let b = text.as_bytes();
    if options.remove_parentheses {
        pairs.compute(b, b'(', b')');
    }
    let mut i = skip_url(b, 0);
    while i < b.len() {
        let c = b[i];
        if !SPECIAL[c as usize] {
            let run = b[i..].iter().position(|&c| SPECIAL[c as usize]);
            let end = run.map_or(b.len(), |r| i + r);
            dst.push_str(&text[i..end]);
            i = end;
            continue;
        }
        i = match c {
            b' ' | b'\t' | b'\r' => {
                if !dst.is_empty() && !dst.ends_with([' ', '\n']) {
                    dst.push(' ');
                }
                skip_url(b, i + 1)
            }
            b'\'' => {
                let run = b[i..].iter().take_while(|&&q| q == b'\'').count();
                if run == 1 {
                    dst.push('\'');
                }
                i + run
            }
            b'(' if options.remove_parentheses => match pairs.close_of(i) {
                Some(close) => {
                    // "word (aside)." becomes "word." rather than "word ."
                    if b.get(close + 1).is_some_and(|c| b",.;:!?".contains(c)) && dst.ends_with(' ')
                    {
                        dst.pop();
                    }
                    close + 1
                }
                None => {
                    dst.push('(');
                    i + 1
                }
            },
            b'_' => match magic_word(&b[i..]) {
                Some(len) => i + len,
                None => {
                    dst.push('_');
                    i + 1
                }
            },
            b'&' => match entities::decode(&b[i..]) {
                Some((Decoded::Char(' '), len)) => {
                    if !dst.is_empty() && !dst.ends_with([' ', '\n']) {
                        dst.push(' ');
                    }
                    i + len
                }
                Some((Decoded::Char(ch), len)) => {
                    dst.push(ch);
                    i + len
                }
                Some((Decoded::Nothing, len)) => i + len,
                None => {
                    dst.push('&');
                    i + 1
                }
            },
            other => {
                dst.push(other as char);
                i + 1
            }
        };
    }
}

/// Skips a bare URL (`http://...`, `www....`) starting at `i`, up to white space.
fn skip_url(b: &[u8], i: usize) -> usize {
    let rest = &b[i.min(b.len())..];
    let www = rest.len() > 4 && rest[..4].eq_ignore_ascii_case(b"www.");
    let scheme = starts_with_url(rest) && !rest.starts_with(b"//");
    if !www && !scheme {
        return i;
    }
    i + rest
        .iter()
        .position(|c| c.is_ascii_whitespace())
        .unwrap_or(rest.len())
}

/// The length of a magic word `__NAME__` (upper-case letters) at the start of `b`.
fn magic_word(b: &[u8]) -> Option<usize> {
    let body = b.strip_prefix(b"__")?;
    let n = body.iter().take_while(|c| c.is_ascii_uppercase()).count();
    (n > 0 && body[n..].starts_with(b"__")).then_some(n + 4)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(text: &str) -> String {
        strip_markup(text)
    }

    #[test]
    fn plain_text_passes_through_squeezed() {
        assert_eq!(
            s("Hello  world.\n\n  Second\tline. "),
            "Hello world.\nSecond line.\n"
        );
        assert_eq!(s(""), "");
        assert_eq!(s("Ünïcödé テキスト ok"), "Ünïcödé テキスト ok\n");
    }

    #[test]
    fn templates_nested_and_tables_dropped() {
        assert_eq!(s("a {{cite|x={{b|c}}|d}} b"), "a b\n");
        assert_eq!(
            s("{{Infobox\n| name = X\n| y = {{z}}\n}}\nText."),
            "Text.\n"
        );
        assert_eq!(
            s("Before.\n{| class=\"wikitable\"\n|-\n! H\n|-\n| cell {{t}}\n|}\nAfter."),
            "Before.\nAfter.\n"
        );
        assert_eq!(s("x {a} y"), "x y\n");
        assert_eq!(s("{{{param|default}}} z"), "z\n");
        assert_eq!(
            s("computers{{mdashb}}following, x{{y}}."),
            "computers following, x.\n"
        );
    }

    #[test]
    fn unbalanced_braces_do_not_swallow_text() {
        assert_eq!(s("a {{ b c"), "a b c\n");
        assert_eq!(s("a }} b"), "a b\n");
        assert_eq!(s("a {{x}} b }} c {{"), "a b c\n");
    }

    #[test]
    fn refs_comments_and_content_blocks_dropped() {
        assert_eq!(
            s("Fact.<ref>{{cite web|url=http://x}}</ref> More."),
            "Fact. More.\n"
        );
        assert_eq!(s("Fact.<ref name=\"a\" /> More."), "Fact. More.\n");
        assert_eq!(s("Fact.<REF NAME=a>note</Ref> More."), "Fact. More.\n");
        assert_eq!(s("a <!-- hidden {{ [[ --> b"), "a b\n");
        assert_eq!(s("a <!-- never closed\n\nb"), "a\n");
        assert_eq!(s("x <math>\\frac{a}{b}</math> y"), "x y\n");
        assert_eq!(s("x\n<gallery>\nFile:A.jpg|cap\n</gallery>\ny"), "x\ny\n");
        assert_eq!(s("<timeline>\nImageSize = x\n</timeline>\nz"), "z\n");
        assert_eq!(s("x <references/> y"), "x y\n");
    }

    #[test]
    fn unclosed_ref_drops_only_the_tag() {
        assert_eq!(s("a <ref>b c"), "a b c\n");
        assert_eq!(s("a <ref>b <ref>c</ref> d"), "a d\n");
    }

    #[test]
    fn other_tags_removed_text_kept() {
        assert_eq!(
            s("H<sub>2</sub>O and <span style=\"x\">this</span>"),
            "H2O and this\n"
        );
        assert_eq!(
            s("line one<br/>line two<br>three"),
            "line one\nline two\nthree\n"
        );
        assert_eq!(s("a < b and c<d"), "a < b and c<d\n");
        assert_eq!(s("<div\nclass=x>y</div>"), "<div\nclass=x>y\n");
    }

    #[test]
    fn wiki_links_keep_anchor_or_target() {
        assert_eq!(
            s("a [[political philosophy]] b"),
            "a political philosophy b\n"
        );
        assert_eq!(
            s("[[self-governance|self-governed]] societies"),
            "self-governed societies\n"
        );
        assert_eq!(s("[[dog]]s bark"), "dogs bark\n");
        assert_eq!(s("[[Foo|]] x"), "Foo x\n");
        assert_eq!(s("[[wikt:anarchism|anarchism]]"), "anarchism\n");
        assert_eq!(s("[[:Category:Foo|the category]] x"), "the category x\n");
        assert_eq!(
            s("[[Star Wars: A New Hope]] x"),
            "Star Wars: A New Hope x\n"
        );
        assert_eq!(s("[[a|''b'' c]]"), "b c\n");
    }

    #[test]
    fn file_category_and_interlanguage_links_dropped() {
        assert_eq!(
            s("a [[File:X.jpg|thumb|A [[b]] [[c|d]] caption]] e"),
            "a e\n"
        );
        assert_eq!(s("[[Image:Y.png|left|[[Z]]]]Text"), "Text\n");
        assert_eq!(
            s("[[File:M.svg|thumb|Map.\n{{legend|x|[[A]]}}\n<center>c</center><center>d</center>]]\nText"),
            "Text\n"
        );
        assert_eq!(
            s("Text.\n[[Category:Anarchism| ]]\n[[category:X]]"),
            "Text.\n"
        );
        assert_eq!(
            s("Text.\n[[de:Anarchismus]]\n[[zh-min-nan:Bô-chèng-hú]]"),
            "Text.\n"
        );
    }

    #[test]
    fn external_links_keep_label_and_urls_go() {
        assert_eq!(
            s("see [http://x.org/a?b=c the site] now"),
            "see the site now\n"
        );
        assert_eq!(s("see [http://x.org/a] now"), "see now\n");
        assert_eq!(s("see [//x.org label] now"), "see label now\n");
        assert_eq!(s("at http://x.org/a_b now"), "at now\n");
        assert_eq!(
            s("https://x.y starts; www.example.com too"),
            "starts; too\n"
        );
        assert_eq!(s("a [sic] b [1]"), "a [sic] b [1]\n");
        assert_eq!(s("[http://a [[b|c]] d]"), "c d\n");
    }

    #[test]
    fn unbalanced_brackets_are_text() {
        assert_eq!(s("a [[b c"), "a [[b c\n");
        assert_eq!(s("a ]] b"), "a ]] b\n");
        assert_eq!(s("a [[b\n\nc]] d"), "a [[b\nc]] d\n");
        assert_eq!(s("a [[b [c]] d"), "a [[b [c]] d\n");
    }

    #[test]
    fn quotes_headings_lists_and_magic_words() {
        assert_eq!(
            s("'''Anarchism''' is ''a'' '''''b''''' don't"),
            "Anarchism is a b don't\n"
        );
        assert_eq!(
            s("== History ==\nText\n=== Origins===\n"),
            "History.\nText\nOrigins.\n"
        );
        assert_eq!(s("== Why? ==\n== [[Link|Sub]] =="), "Why?\nSub.\n");
        assert_eq!(s("==Notes (1)==\n=Top="), "Notes.\nTop.\n");
        assert_eq!(
            s("* one\n** two\n# three\n: four\n; term"),
            "one\ntwo\nthree\nfour\nterm\n"
        );
        assert_eq!(
            s("__TOC__\nText __NOTOC__ here\n__init__"),
            "Text here\n__init__\n"
        );
        assert_eq!(s("a\n----\nb"), "a\nb\n");
    }

    #[test]
    fn parentheses_removed_by_default_only() {
        assert_eq!(s("Godwin (1756 (b) x) argued (see)"), "Godwin argued\n");
        assert_eq!(s("a (open\nb) c"), "a (open\nb) c\n");
        assert_eq!(
            s("reflectance (e.g. x). Next (y), z"),
            "reflectance. Next, z\n"
        );
        let keep = StripOptions {
            remove_parentheses: false,
        };
        assert_eq!(
            strip_markup_with("Godwin (1756) argued", &keep),
            "Godwin (1756) argued\n"
        );
    }

    #[test]
    fn entities_decoded_after_markup() {
        assert_eq!(s("a&nbsp;b &ndash; c &amp; d"), "a b – c & d\n");
        assert_eq!(
            s("&lt;ref&gt;x&lt;/ref&gt; caf&eacute;"),
            "<ref>x</ref> café\n"
        );
        assert_eq!(s("R&D &unknown; AT&T"), "R&D &unknown; AT&T\n");
        assert_eq!(s("x &nbsp; &nbsp; y"), "x y\n");
        assert_eq!(s("&nbsp;x&nbsp;"), "x\n");
    }

    #[test]
    fn lines_without_letters_or_digits_dropped() {
        assert_eq!(s("Text.\n|}\n.\n* \n"), "Text.\n");
    }

    #[test]
    fn never_panics_on_markup_fragments() {
        let pieces = [
            "{{", "}}", "[[", "]]", "[", "]", "{", "}", "<", ">", "</", "/>", "<ref>", "</ref>",
            "<!--", "-->", "''", "'''", "(", ")", "&", ";", "&#", "x", "é", "\n", "\n\n", "=",
            "==", "*", "|", ":", "File:", "http://", "__", "TOC", " ", "<br", "&nbsp;",
        ];
        // Every sequence of three pieces, plus longer seeded mixes.
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    let text = format!("{a}{b}{c}");
                    let out = s(&text);
                    assert!(out.len() <= text.len() * 2 + 2, "{text:?} -> {out:?}");
                }
            }
        }
        let mut state = 0x9e3779b97f4a7c15u64;
        for _ in 0..200 {
            let mut text = String::new();
            for _ in 0..60 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                text.push_str(pieces[(state % pieces.len() as u64) as usize]);
            }
            let _ = s(&text);
        }
    }

    #[test]
    fn deep_nesting_is_linear_and_safe() {
        let deep = format!("{}x{} y", "{{".repeat(50_000), "}}".repeat(50_000));
        assert_eq!(s(&deep), "y\n");
        let links = format!("{}x{} y", "[[".repeat(50_000), "]]".repeat(50_000));
        assert!(s(&links).ends_with("x y\n") || s(&links).ends_with("y\n"));
        let refs = "<ref>a ".repeat(20_000);
        assert_eq!(s(&refs).split_whitespace().count(), 20_000);
        let parens = "(".repeat(30_000) + &")".repeat(30_000) + " z";
        assert_eq!(s(&parens), "z\n");
    }
}
