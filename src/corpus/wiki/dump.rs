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

/// Calls `f` with the cleaned plain text of every article of a MediaWiki XML
/// dump, streaming; `f` returns `Ok(false)` to stop early. See
/// [`for_each_article`](super::for_each_article).
pub fn for_each_article_with<R: BufRead>(
    reader: R,
    path: &Path,
    options: &StripOptions,
    mut f: impl FnMut(&str) -> Result<bool>,
) -> Result<()> {
    let mut xml = Reader::from_reader(LineCounter {
        inner: reader,
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
                            if !text.is_empty() && !f(text)? {
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
}

impl Page {
    fn begin(&mut self, line: Option<u64>) {
        self.open = true;
        self.line = line;
        self.field = Field::None;
        self.ns.clear();
        self.redirect = false;
        self.text.clear();
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
        ns_main && !self.redirect && !is_redirect_text(&self.text)
    }
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
