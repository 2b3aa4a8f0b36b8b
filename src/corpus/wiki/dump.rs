//! Streaming a MediaWiki XML dump page by page.
//!
//! A full English dump is ~90 GB of XML, so the reader holds one `<page>` at a
//! time: quick-xml hands out events from a reused buffer, the page's namespace
//! and wikitext are gathered into reused strings, and the cleaned text goes to
//! the caller before the next page is read. Only articles (namespace 0, not
//! redirects) are passed on.
//!
//! The input is counted as it is consumed ([`LineCounter`]) so a malformed dump
//! is reported as `file:line`, at the cost of one `memchr` pass over the bytes.

use std::collections::VecDeque;
use std::io::{self, BufRead, Read};
use std::path::Path;

use quick_xml::events::{BytesRef, Event};
use quick_xml::Reader;

use super::markup::{StripOptions, Stripper};
use crate::{Error, Result};

/// The longest piece of one article's wikitext held and cleaned at once.
/// Real articles stay far below it (the longest English ones are about
/// 1 MB of wikitext); a longer one is cleaned and handed out in pieces so
/// that memory does not grow with it.
pub const MAX_PIECE: usize = 8 << 20;

/// Calls `f` with the cleaned plain text of every article of a MediaWiki XML
/// dump, streaming; `f` returns `Ok(false)` to stop early. See
/// [`for_each_article`](super::for_each_article). An article longer than
/// [`MAX_PIECE`] arrives in several calls (see [`for_each_piece`]).
pub fn for_each_article_with<R: BufRead>(
    reader: R,
    path: &Path,
    options: &StripOptions,
    mut f: impl FnMut(&str) -> Result<bool>,
) -> Result<()> {
    for_each_piece(reader, path, options, MAX_PIECE, |piece| f(piece.text))
}

/// A cleaned piece of an article: the whole article, or a part of one
/// longer than the piece limit.
#[derive(Debug, Clone, Copy)]
pub struct Piece<'a> {
    /// Cleaned plain text.
    pub text: &'a str,
    /// True for the article's last (or only) piece.
    pub article_end: bool,
    /// True when this piece was cut in the middle of a word (no whitespace
    /// in the last `max_piece` bytes).
    pub cut_word: bool,
    /// Line of the article's `<page>` tag, when known.
    pub line: Option<u64>,
}

/// [`for_each_article_with`], holding at most about `max_piece` bytes of one
/// article's wikitext: a longer article is cut at whitespace (or anywhere
/// after `2 × max_piece` bytes without any) and each part is cleaned and
/// handed out on its own, so markup that crosses a cut (a template, a link)
/// may be cleaned less well. Pieces of one article share its `line`; the last
/// has `article_end`. Text elements are also read from the XML in pieces of
/// about `max_piece` bytes (see [`Chunked`]), so no buffer grows with the article.
pub fn for_each_piece<R: BufRead>(
    reader: R,
    path: &Path,
    options: &StripOptions,
    max_piece: usize,
    mut f: impl FnMut(Piece<'_>) -> Result<bool>,
) -> Result<()> {
    let max_piece = max_piece.max(64);
    let mut xml = Reader::from_reader(LineCounter {
        inner: Chunked::new(reader, max_piece),
        lines: Lines::default(),
    });
    let mut buf = Vec::with_capacity(1 << 16);
    let mut page = Page::default();
    let mut stripper = Stripper::new(*options);
    let mut depth = 0usize;
    let mut seen_dump = false;
    loop {
        let event = match xml.read_event_into(&mut buf) {
            Ok(event) => event,
            Err(e) => return Err(xml_error(&xml, path, e)),
        };
        match event {
            Event::Start(start) => {
                depth += 1;
                let name = start.name();
                match name.as_ref() {
                    b"page" => {
                        page.begin(xml.get_ref().lines.line_at(xml.buffer_position()));
                        seen_dump = true;
                    }
                    b"mediawiki" => seen_dump = true,
                    b"ns" if page.open => page.field = Field::Ns,
                    b"text" if page.open => {
                        page.text.clear();
                        page.field = Field::Text;
                    }
                    b"redirect" if page.open => page.redirect = true,
                    _ => {}
                }
            }
            Event::Empty(empty) if page.open && empty.name().as_ref() == b"redirect" => {
                page.redirect = true;
            }
            Event::End(end) => {
                depth = depth.saturating_sub(1);
                match end.name().as_ref() {
                    b"page" if page.open => {
                        page.open = false;
                        if page.is_article() {
                            let text = stripper.strip(&page.text);
                            let piece = Piece {
                                text,
                                article_end: true,
                                cut_word: false,
                                line: page.line,
                            };
                            if (page.pieces > 0 || !text.is_empty()) && !f(piece)? {
                                return Ok(());
                            }
                        }
                    }
                    b"ns" | b"text" => page.field = Field::None,
                    _ => {}
                }
            }
            Event::Text(text) => page.push_raw(&text),
            Event::CData(data) => page.push_raw(&data),
            Event::GeneralRef(reference) if page.field != Field::None => {
                push_reference(&mut page, &reference, path, &xml)?;
            }
            Event::Eof => break,
            _ => {}
        }
        while page.field == Field::Text && page.text.len() >= max_piece {
            if !page.is_article() {
                page.skipped = true;
                page.text.clear();
            } else {
                let cut = piece_cut(&page.text, max_piece);
                let piece = Piece {
                    text: stripper.strip(&page.text[..cut.at]),
                    article_end: false,
                    cut_word: cut.in_word,
                    line: page.line,
                };
                let more = f(piece)?;
                page.text.drain(..cut.at);
                page.pieces += 1;
                if !more {
                    return Ok(());
                }
            }
        }
        buf.clear();
    }
    if page.open {
        let at = page
            .line
            .map_or(String::new(), |l| format!(" (opened at line {l})"));
        return Err(Error::format(
            path,
            format!("unexpected end of file inside <page>{at}: truncated dump?"),
        ));
    }
    if depth > 0 {
        return Err(Error::format(
            path,
            "unexpected end of file: XML elements left open (truncated dump?)",
        ));
    }
    if !seen_dump {
        return Err(Error::format(
            path,
            "not a MediaWiki XML dump: no <mediawiki> or <page> element",
        ));
    }
    Ok(())
}

/// Which element's text is being gathered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Field {
    #[default]
    None,
    Ns,
    Text,
}

/// The page being read (buffers reused across pages).
#[derive(Debug, Default)]
struct Page {
    open: bool,
    /// Line of its `<page>` tag, when known.
    line: Option<u64>,
    field: Field,
    ns: String,
    redirect: bool,
    text: String,
    /// Pieces of its text already handed out.
    pieces: usize,
    /// Not an article, and its text grew past the piece limit: dropped.
    skipped: bool,
}

impl Page {
    fn begin(&mut self, line: Option<u64>) {
        self.open = true;
        self.line = line;
        self.field = Field::None;
        self.ns.clear();
        self.redirect = false;
        self.text.clear();
        self.pieces = 0;
        self.skipped = false;
    }

    fn target(&mut self) -> Option<&mut String> {
        match self.field {
            Field::None => None,
            Field::Ns => Some(&mut self.ns),
            Field::Text => Some(&mut self.text),
        }
    }

    /// Appends undecoded bytes (invalid UTF-8 replaced).
    fn push_raw(&mut self, bytes: &[u8]) {
        if let Some(target) = self.target() {
            match std::str::from_utf8(bytes) {
                Ok(s) => target.push_str(s),
                Err(_) => target.push_str(&String::from_utf8_lossy(bytes)),
            }
        }
    }

    /// A main-namespace page that is not a redirect.
    fn is_article(&self) -> bool {
        let ns_main = self.ns.trim().is_empty() || self.ns.trim() == "0";
        let redirect = self.redirect || (self.pieces == 0 && is_redirect_text(&self.text));
        !self.skipped && ns_main && !redirect
    }
}

/// Where to cut an over-long text: after its last whitespace at or after
/// half the limit, or, in a run of more than half the limit without any, at
/// the limit's last character boundary (`in_word`).
struct Cut {
    at: usize,
    in_word: bool,
}

fn piece_cut(text: &str, max_piece: usize) -> Cut {
    let limit = max_piece.min(text.len());
    let bytes = text.as_bytes();
    let from = limit / 2;
    if let Some(i) = bytes[from..limit]
        .iter()
        .rposition(|b| b.is_ascii_whitespace())
    {
        return Cut {
            at: from + i + 1,
            in_word: false,
        };
    }
    let mut at = limit;
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    Cut { at, in_word: true }
}

/// Whether wikitext is a redirect (`#REDIRECT [[...]]`, any case).
fn is_redirect_text(text: &str) -> bool {
    let head = text.trim_start().as_bytes();
    head.len() >= 9 && head[..9].eq_ignore_ascii_case(b"#redirect")
}

/// Decodes `&name;` / `&#n;` inside a gathered field. An entity XML does not
/// define (`&nbsp;` in a hand-made file) is kept as written for
/// [`strip_markup`](super::strip_markup) to decode.
fn push_reference<R>(
    page: &mut Page,
    reference: &BytesRef<'_>,
    path: &Path,
    xml: &Reader<LineCounter<R>>,
) -> Result<()> {
    let Some(target) = page.target() else {
        return Ok(());
    };
    match reference.resolve_char_ref() {
        Ok(Some(c)) => target.push(c),
        Ok(None) => {
            let name = String::from_utf8_lossy(reference);
            match quick_xml::escape::resolve_xml_entity(&name) {
                Some(s) => target.push_str(s),
                None => {
                    target.push('&');
                    target.push_str(&name);
                    target.push(';');
                }
            }
        }
        Err(e) => {
            let at = xml.buffer_position();
            return Err(located(xml, path, at, format!("malformed XML: {e}")));
        }
    }
    Ok(())
}

/// An error at byte `pos`: `file:line` when the line is known.
fn located<R>(xml: &Reader<LineCounter<R>>, path: &Path, pos: u64, message: String) -> Error {
    match xml.get_ref().lines.line_at(pos) {
        Some(line) => Error::parse(path, line as usize, message),
        None => Error::format(path, format!("{message} (byte {pos})")),
    }
}

/// Maps a quick-xml error to the crate's, naming the line when known.
fn xml_error<R>(xml: &Reader<LineCounter<R>>, path: &Path, e: quick_xml::Error) -> Error {
    if let quick_xml::Error::Io(io) = &e {
        return Error::io(path, io::Error::new(io.kind(), io.to_string()));
    }
    located(
        xml,
        path,
        xml.error_position(),
        format!("malformed XML: {e}"),
    )
}

/// Newline offsets remembered for [`Lines::line_at`].
const RECENT_NEWLINES: usize = 1 << 16;

/// Bytes and newlines consumed so far, with the offsets of the last
/// [`RECENT_NEWLINES`] newlines, so a byte position a little behind the read
/// head can still be turned into a line number.
#[derive(Debug, Default)]
struct Lines {
    consumed: u64,
    newlines: u64,
    recent: VecDeque<u64>,
}

impl Lines {
    /// The 1-based line of byte `pos`, if it is not too far behind the read head.
    fn line_at(&self, pos: u64) -> Option<u64> {
        let after = self.recent.iter().rev().take_while(|&&o| o >= pos).count() as u64;
        let forgotten = self.newlines - self.recent.len() as u64;
        if after == self.recent.len() as u64 && forgotten > 0 {
            return None;
        }
        Some(self.newlines - after + 1)
    }

    fn count(&mut self, bytes: &[u8]) {
        for i in memchr::memchr_iter(b'\n', bytes) {
            if self.recent.len() == RECENT_NEWLINES {
                self.recent.pop_front();
            }
            self.recent.push_back(self.consumed + i as u64);
            self.newlines += 1;
        }
        self.consumed += bytes.len() as u64;
    }
}

/// A `BufRead` adapter that counts what is consumed through it.
struct LineCounter<R> {
    inner: R,
    lines: Lines,
}

impl<R: BufRead> Read for LineCounter<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(out)?;
        self.lines.count(&out[..n]);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for LineCounter<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        // The buffer is already filled: this does no I/O.
        if let Ok(buf) = self.inner.fill_buf() {
            self.lines.count(&buf[..amt.min(buf.len())]);
        }
        self.inner.consume(amt);
    }
}

/// The comment [`Chunked`] inserts into long runs of text.
const BREAK: &[u8] = b"<!---->";

/// A `BufRead` adapter that bounds quick-xml's event buffer.
///
/// quick-xml gathers a whole run of text (up to the next `<`) into one event,
/// so one article with no markup would be held whole however long it is.
/// This inserts an empty XML comment, which changes no text, into any run of
/// character data longer than `max_run` bytes: at the next whitespace, or
/// after `2 × max_run` bytes without any, before the next byte that starts a
/// UTF-8 character; never inside a tag or an entity reference. Line numbers
/// are unchanged (the comment holds no newline); byte positions past a break
/// count its 7 bytes.
pub struct Chunked<R> {
    inner: R,
    max_run: usize,
    scan: Scan,
    /// Bytes of [`BREAK`] still to hand out.
    pending: usize,
    /// Bytes of the inner buffer that may be handed out before a break.
    limit: Option<usize>,
}

/// Where a break belongs in `plain` (text without `<`, `>` or `&`) that
/// follows a run of `run` bytes: at the first whitespace once the run
/// reaches `max_run`, or at the first character start once it reaches
/// `2 × max_run`.
fn break_in(plain: &[u8], run: usize, max_run: usize) -> Option<usize> {
    let soft = max_run.saturating_sub(run);
    let hard = max_run.saturating_mul(2).saturating_sub(run);
    if soft >= plain.len() {
        return None;
    }
    let end = hard.min(plain.len());
    if let Some(k) = plain[soft..end]
        .iter()
        .position(|b| b.is_ascii_whitespace())
    {
        return Some(soft + k);
    }
    plain
        .get(hard..)?
        .iter()
        .position(|&b| (b & 0xC0) != 0x80)
        .map(|k| hard + k)
}

/// Where the reader is, as far as breaking text goes.
#[derive(Debug, Clone, Copy)]
struct Scan {
    /// Between a `>` and the next `<`.
    in_text: bool,
    /// Bytes since the `&` of an entity reference not yet closed by `;`.
    in_ref: Option<usize>,
    /// Text bytes since the last tag or break.
    run: usize,
}

impl Scan {
    /// Advances over `bytes`; returns the index of the first byte before
    /// which a break belongs (without consuming it).
    fn advance(&mut self, bytes: &[u8], max_run: usize) -> Option<usize> {
        let mut i = 0;
        while i < bytes.len() {
            if let Some(n) = self.in_ref {
                match bytes[i] {
                    b';' => self.in_ref = None,
                    b'<' | b'>' => {
                        self.in_ref = None;
                        continue;
                    }
                    // Entity names are short: a long run is not one.
                    _ if n > 64 => self.in_ref = None,
                    _ => self.in_ref = Some(n + 1),
                }
                self.run += 1;
                i += 1;
                continue;
            }
            // Plain text up to the next byte that matters.
            let next =
                memchr::memchr3(b'<', b'>', b'&', &bytes[i..]).map_or(bytes.len(), |j| i + j);
            if self.in_text {
                if let Some(k) = break_in(&bytes[i..next], self.run, max_run) {
                    self.run += k;
                    return Some(i + k);
                }
            }
            let plain = next - i;
            self.run += plain;
            i = next;
            if i == bytes.len() {
                break;
            }
            match bytes[i] {
                b'<' => {
                    self.in_text = false;
                    self.run = 0;
                }
                b'>' => {
                    self.in_text = true;
                    self.run = 0;
                }
                _ if self.in_text => self.in_ref = Some(0),
                _ => {}
            }
            i += 1;
        }
        None
    }
}

impl<R: BufRead> Chunked<R> {
    /// Wraps `inner`, breaking text runs longer than `max_run` bytes.
    pub fn new(inner: R, max_run: usize) -> Self {
        Chunked {
            inner,
            max_run: max_run.max(1),
            // Text before the root element is broken too (a file that is not XML).
            scan: Scan {
                in_text: true,
                in_ref: None,
                run: 0,
            },
            pending: 0,
            limit: None,
        }
    }
}

impl<R: BufRead> Read for Chunked<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let buf = self.fill_buf()?;
        let n = buf.len().min(out.len());
        out[..n].copy_from_slice(&buf[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Chunked<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.pending > 0 {
            return Ok(&BREAK[BREAK.len() - self.pending..]);
        }
        let max_run = self.max_run;
        let buf = self.inner.fill_buf()?;
        let limit = match self.limit {
            Some(limit) => limit.min(buf.len()),
            None => {
                let mut ahead = self.scan;
                ahead.advance(buf, max_run).unwrap_or(buf.len())
            }
        };
        if limit == 0 && !buf.is_empty() {
            self.pending = BREAK.len();
            self.scan.run = 0;
            self.limit = None;
            return Ok(BREAK);
        }
        self.limit = Some(limit);
        Ok(&self.inner.fill_buf()?[..limit])
    }

    fn consume(&mut self, amt: usize) {
        if self.pending > 0 {
            self.pending -= amt.min(self.pending);
            return;
        }
        if let Ok(buf) = self.inner.fill_buf() {
            let amt = amt.min(buf.len());
            self.scan.advance(&buf[..amt], self.max_run);
        }
        self.limit = self.limit.map(|l| l.saturating_sub(amt));
        if self.limit == Some(0) {
            self.limit = None;
        }
        self.inner.consume(amt);
    }
}
