//! Wikipedia XML dumps: streaming article extraction and wiki-markup removal.
//!
//! Soleimani ch.6.2 trains on a Wikipedia dump cleaned by WikiExtractor plus a
//! few deletions (leftover tags, `(...)`, `{...}`, URLs); Rust has no
//! WikiExtractor, so this module is the stand-in: `dump` streams articles out
//! of the XML one page at a time, `markup` turns wikitext into plain text.

mod dump;
mod entities;
mod markup;

use std::io::BufRead;
use std::path::Path;

pub use dump::{for_each_article_with, for_each_piece, Chunked, Piece, MAX_PIECE};
pub use markup::{strip_markup, strip_markup_with, StripOptions, Stripper};

use crate::Result;

/// Calls `f` with the cleaned plain text of every main-namespace article in a
/// MediaWiki XML dump, streaming (one article in memory at a time). `f`
/// returns `Ok(false)` to stop early.
///
/// Redirects (a `<redirect/>` element or `#REDIRECT` text) and pages outside
/// namespace 0 are skipped, as are articles with no text left after cleaning.
/// Malformed XML is an error naming the file and line.
pub fn for_each_article<R: BufRead>(
    reader: R,
    path: &Path,
    f: impl FnMut(&str) -> Result<bool>,
) -> Result<()> {
    for_each_article_with(reader, path, &StripOptions::default(), f)
}

#[cfg(test)]
mod tests {
    use std::io::{BufReader, Cursor};
    use std::path::PathBuf;

    use super::*;
    use crate::corpus::{Corpus, CorpusConfig, Format, ReadConfig, VocabConfig};
    use crate::Error;

    fn fixture(name: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/wiki")
            .join(name)
    }

    fn articles_of(xml: &str) -> Result<Vec<String>> {
        let mut out = Vec::new();
        for_each_article(Cursor::new(xml), Path::new("t.xml"), |text| {
            out.push(text.to_string());
            Ok(true)
        })?;
        Ok(out)
    }

    fn page(ns: &str, extra: &str, text: &str) -> String {
        format!(
            "<page><title>T</title><ns>{ns}</ns>{extra}<revision><text xml:space=\"preserve\">{text}</text></revision></page>"
        )
    }

    fn dump(pages: &[String]) -> String {
        format!("<mediawiki>\n{}\n</mediawiki>\n", pages.join("\n"))
    }

    #[test]
    fn fixture_dump_yields_exactly_the_hand_checked_articles() {
        let path = fixture("sample.xml");
        let file = std::fs::File::open(&path).unwrap();
        let mut got = Vec::new();
        for_each_article(BufReader::new(file), &path, |text| {
            got.push(text.to_string());
            Ok(true)
        })
        .unwrap();
        // Of six pages: a redirect element, a Wikipedia: page, a Template: page
        // and a lower-case #redirect are skipped; Albedo (an excerpt with
        // templates, a table, refs, math, file and category links) and a
        // hand-made page (entities, CDATA, interlanguage links) remain.
        let expected = std::fs::read_to_string(fixture("sample.expected.txt")).unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(got.join("\n"), expected);
    }

    #[test]
    fn namespaces_and_redirects_are_skipped() {
        let xml = dump(&[
            page("0", "", "Kept one."),
            page("1", "", "Talk page."),
            page("0", "<redirect title=\"X\" />", "Redirect element only."),
            page("0", "", "  #ReDiReCt [[X]]"),
            page("14", "", "Category page."),
            page("0", "", "{{only a template}}"),
            page("0", "", "Kept &amp;amp; two."),
        ]);
        assert_eq!(articles_of(&xml).unwrap(), ["Kept one.\n", "Kept & two.\n"]);
    }

    #[test]
    fn stops_early_and_passes_errors_through() {
        let xml = dump(&[page("0", "", "One."), page("0", "", "Two.")]);
        let mut seen = 0;
        for_each_article(Cursor::new(&xml), Path::new("t.xml"), |_| {
            seen += 1;
            Ok(false)
        })
        .unwrap();
        assert_eq!(seen, 1);
        let err = for_each_article(Cursor::new(&xml), Path::new("t.xml"), |_| {
            Err(Error::param("x", "stop"))
        })
        .unwrap_err();
        assert!(matches!(err, Error::InvalidParam { .. }));
    }

    #[test]
    fn malformed_xml_names_file_and_line() {
        let xml = "<mediawiki>\n<page>\n<ns>0</ns>\n<text>a\nb</txet>\n</page>\n</mediawiki>\n";
        match articles_of(xml).unwrap_err() {
            Error::Parse {
                path,
                line,
                message,
            } => {
                assert_eq!(path, Path::new("t.xml"));
                assert_eq!(line, 5, "{message}");
                assert!(message.contains("malformed XML"), "{message}");
            }
            other => panic!("unexpected {other:?}"),
        }
        let truncated = "<mediawiki>\n<page>\n<ns>0</ns>\n<text>cut here";
        let err = articles_of(truncated).unwrap_err().to_string();
        assert!(
            err.starts_with("t.xml: unexpected end of file inside <page> (opened at line 2)"),
            "{err}"
        );
        let unclosed_root = "<mediawiki>\n<page><ns>0</ns><text>x</text></page>\n";
        assert!(matches!(
            articles_of(unclosed_root).unwrap_err(),
            Error::Format { .. }
        ));
        let not_xml = "just some text\nwithout markup\n";
        let err = articles_of(not_xml).unwrap_err().to_string();
        assert!(err.contains("not a MediaWiki XML dump"), "{err}");
        let bad_ref = "<mediawiki><page><ns>0</ns><text>&#xZZ;</text></page></mediawiki>";
        assert!(matches!(
            articles_of(bad_ref).unwrap_err(),
            Error::Parse { line: 1, .. }
        ));
    }

    #[test]
    fn entities_xml_does_not_define_are_kept_for_the_stripper() {
        let xml = dump(&[page("0", "", "a&nbsp;b &#233; c")]);
        assert_eq!(articles_of(&xml).unwrap(), ["a b é c\n"]);
    }

    #[test]
    fn corpus_reads_the_fixture_as_wikipedia() {
        let config = CorpusConfig {
            read: ReadConfig {
                format: Format::Wikipedia,
                ..Default::default()
            },
            vocab: VocabConfig {
                min_count: 1,
                ..Default::default()
            },
        };
        let corpus = Corpus::open(fixture("sample.xml"), config).unwrap();
        assert_eq!(corpus.stats().documents, 2);
        let vocab = corpus.vocab();
        for word in ["albedo", "reflectance", "cafés", "coffee", "mugs", "label"] {
            assert!(vocab.id(word).is_some(), "{word} missing");
        }
        for markup in [
            "ref",
            "cite",
            "wikitable",
            "category",
            "http",
            "thumb",
            "kaffeehaus",
            "nbsp",
        ] {
            assert!(vocab.id(markup).is_none(), "{markup} leaked");
        }
    }

    /// Every cleaned piece of every article of `xml`, with `max_piece`.
    fn pieces_of(xml: &str, max_piece: usize) -> Vec<(String, bool, bool)> {
        let mut out = Vec::new();
        for_each_piece(
            Cursor::new(xml),
            Path::new("t.xml"),
            &StripOptions::default(),
            max_piece,
            |p| {
                out.push((p.text.to_string(), p.article_end, p.cut_word));
                Ok(true)
            },
        )
        .unwrap();
        out
    }

    #[test]
    fn a_long_article_is_cleaned_in_bounded_pieces_with_the_same_words() {
        let mut body = String::new();
        for i in 0..20_000 {
            body.push_str(&format!(
                "word{} [[link{}|shown{}]] ",
                i % 97,
                i % 13,
                i % 7
            ));
            if i % 50 == 49 {
                body.push_str("\n\n");
            }
        }
        let xml = dump(&[page("0", "", &body), page("0", "", "Short one.")]);
        let whole = pieces_of(&xml, usize::MAX / 4);
        assert_eq!(whole.len(), 2);
        let cut = pieces_of(&xml, 4096);
        assert!(cut.len() > 50, "{} pieces", cut.len());
        assert!(cut
            .iter()
            .all(|(text, _, in_word)| text.len() <= 4096 && !in_word));
        let ends: Vec<bool> = cut.iter().map(|p| p.1).collect();
        assert_eq!(ends.iter().filter(|&&e| e).count(), 2);
        assert!(ends[ends.len() - 2] && ends[ends.len() - 1]);
        let words = |pieces: &[(String, bool, bool)]| -> Vec<String> {
            pieces
                .iter()
                .flat_map(|p| p.0.split_whitespace().map(str::to_string))
                .collect()
        };
        assert_eq!(words(&cut), words(&whole));
    }

    #[test]
    fn an_article_without_whitespace_is_cut_and_says_so() {
        let xml = dump(&[page("0", "", &"é".repeat(10_000))]);
        let cut = pieces_of(&xml, 1000);
        assert!(cut.iter().any(|p| p.2), "no cut word reported");
        assert!(cut.iter().all(|p| p.0.len() <= 2 * 1000));
        let joined: String = cut.iter().map(|p| p.0.trim_end()).collect();
        assert_eq!(joined, "é".repeat(10_000));
    }

    #[test]
    fn chunked_bounds_text_events_and_changes_no_text() {
        use quick_xml::events::Event;
        let text = format!("a&amp;b {}", "xyz ".repeat(5000)) + &"q".repeat(9000);
        let xml = format!("<mediawiki><page><text>{text}</text></page></mediawiki>");
        let mut reader = quick_xml::Reader::from_reader(Chunked::new(Cursor::new(xml), 256));
        let (mut buf, mut got, mut longest) = (Vec::new(), String::new(), 0);
        loop {
            match reader.read_event_into(&mut buf).unwrap() {
                Event::Text(t) => {
                    longest = longest.max(t.len());
                    got.push_str(std::str::from_utf8(&t).unwrap());
                }
                Event::GeneralRef(r) => {
                    assert_eq!(&*r, b"amp");
                    got.push('&');
                }
                Event::Eof => break,
                _ => {}
            }
            buf.clear();
        }
        assert_eq!(got, text.replace("&amp;", "&"));
        assert!(longest <= 2 * 256 + 4, "a text event of {longest} bytes");
    }

    /// The real 206-page sample in the shared data folder beside the repository
    /// (skipped when absent).
    #[test]
    fn real_sample_counts_are_plausible() {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/data/corpora/enwiki-sample.xml.bz2");
        if !path.exists() {
            eprintln!("skipping: {} not found", path.display());
            return;
        }
        let input = crate::corpus::source::open(&path).unwrap();
        let (mut articles, mut words) = (0u64, 0u64);
        for_each_article(input, &path, |text| {
            articles += 1;
            words += text.split_whitespace().count() as u64;
            Ok(true)
        })
        .unwrap();
        eprintln!("enwiki-sample: {articles} articles, {words} whitespace-separated words");
        // 206 pages: 205 in namespace 0, of which 99 are redirects.
        assert_eq!(articles, 106);
        // The shared data folder's README: ~430k words after markup removal.
        assert!((380_000..480_000).contains(&words), "{words} words");
    }
}
