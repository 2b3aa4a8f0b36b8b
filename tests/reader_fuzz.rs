//! Every reader of user files on arbitrary and damaged input: vectors files
//! (word2vec text and binary, GloVe text), corpora (format detection, the
//! text, line, Wikipedia and fastText readers, compressed or not) and
//! evaluation sets. Never a panic; a refusal is one line that names the file.
//! Case counts are bounded so the suite stays fast.

use std::io::Cursor;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use wordbench::corpus::{Corpus, CorpusConfig};
use wordbench::embedding::{self, VectorFormat};
use wordbench::eval::{AnalogyDataset, SimilarityDataset};

/// One line, naming the file.
fn located(err: &str, file: &Path) -> bool {
    err.contains(&*file.file_name().unwrap().to_string_lossy()) && !err.contains('\n')
}

/// Writes `bytes` to a fresh file named `name` in a temporary folder.
fn file(name: &str, bytes: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    (dir, path)
}

/// A small valid vectors file in `format`, to damage.
fn vectors(format: VectorFormat) -> Vec<u8> {
    let (dir, path) = file("v", b"");
    let words = wordbench::words::WordIndex::from_words(
        ["the", "cat", "sat", "on", "mat"]
            .map(String::from)
            .to_vec(),
    );
    let rows = ndarray::Array2::from_shape_fn((5, 3), |(i, j)| (i * 3 + j) as f32 * 0.25 - 1.0);
    let e = embedding::Embedding::new(words, rows).unwrap();
    embedding::format::write(&e, &path, format).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    drop(dir);
    bytes
}

/// `text` with `cut` bytes removed at `at` and `insert` put there.
fn damage(text: &[u8], at: usize, cut: usize, insert: &[u8]) -> Vec<u8> {
    let at = at.min(text.len());
    let end = (at + cut).min(text.len());
    [&text[..at], insert, &text[end..]].concat()
}

const FORMATS: [VectorFormat; 3] = [
    VectorFormat::Word2VecText,
    VectorFormat::Word2VecBinary,
    VectorFormat::GloveText,
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_as_vectors_are_read_or_refused_with_the_file_named(
        bytes in proptest::collection::vec(any::<u8>(), 0..300),
        hint in 0usize..4,
    ) {
        let (_dir, path) = file("v.vec", &bytes);
        let format = FORMATS.get(hint).copied();
        if let Err(e) = embedding::format::read(&path, format) {
            prop_assert!(located(&e.to_string(), &path), "{}", e);
        }
    }

    #[test]
    fn damaged_vectors_files_are_read_or_refused_with_the_file_named(
        which in 0usize..3,
        at in 0usize..200,
        cut in 0usize..12,
        insert in proptest::collection::vec(any::<u8>(), 0..8),
    ) {
        let damaged = damage(&vectors(FORMATS[which]), at, cut, &insert);
        let (_dir, path) = file("v.bin", &damaged);
        match embedding::format::read(&path, None) {
            Ok((e, _)) => prop_assert!(e.vectors().iter().all(|x| x.is_finite())),
            Err(e) => prop_assert!(located(&e.to_string(), &path), "{}", e),
        }
    }

    #[test]
    fn arbitrary_text_as_an_evaluation_set_is_read_or_refused_with_the_file_named(
        text in "([a-z]{1,6}[ \t]{1,2}){0,3}(-?[0-9]{0,3}\\.?[0-9]{0,3}|nan|inf|[:#])?\n{0,2}.{0,40}",
        lines in 1usize..6,
    ) {
        let text = text.repeat(lines);
        let path = Path::new("set.txt");
        if let Err(e) = SimilarityDataset::from_reader(Cursor::new(text.as_bytes()), path) {
            prop_assert!(located(&e.to_string(), path), "{}", e);
        }
        if let Err(e) = AnalogyDataset::from_reader(Cursor::new(text.as_bytes()), path) {
            prop_assert!(located(&e.to_string(), path), "{}", e);
        }
    }
}

proptest! {
    // Each case opens a corpus (detection, reading, vocabulary): fewer cases.
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_corpora_are_read_or_refused_with_the_file_named(
        bytes in proptest::collection::vec(any::<u8>(), 0..400),
        words in "([a-z]{1,5} ){0,30}",
        shape in 0usize..5,
    ) {
        // Raw bytes, text, a truncated Wikipedia dump, fastText lines, gzip of text.
        let (name, content): (&str, Vec<u8>) = match shape {
            0 => ("c.txt", bytes),
            1 => ("c.txt", [words.as_bytes(), &bytes[..bytes.len().min(3)]].concat()),
            2 => ("c.xml", format!("<mediawiki><page><title>T</title><text>{words}").into_bytes()),
            3 => ("c.txt", format!("__label__a {words}\n__label__b\n").into_bytes()),
            _ => {
                use std::io::Write;
                let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                gz.write_all(words.as_bytes()).unwrap();
                let mut out = gz.finish().unwrap();
                let keep = out.len().saturating_sub(bytes.len() % 8);
                out.truncate(keep);
                ("c.txt.gz", out)
            }
        };
        let (_dir, path) = file(name, &content);
        if let Err(e) = Corpus::open(&path, CorpusConfig::default()) {
            prop_assert!(located(&e.to_string(), &path), "{}", e);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Wikipedia pages of arbitrary markup-ish text, read in small pieces
    /// (the bound on one article's memory): never a panic, a refusal names
    /// the file, and the pieces hold the same text as the XML (checked
    /// on text without markup, where cleaning changes nothing but spacing).
    #[test]
    fn wikipedia_pages_read_in_small_pieces_are_read_or_refused_with_the_file_named(
        text in "[a-zé <>&;\\[\\]{}|=']{0,600}",
        plain in "[a-zé ]{0,600}",
        max_piece in 64usize..300,
    ) {
        use wordbench::corpus::wiki::{for_each_piece, StripOptions};
        let path = Path::new("w.xml");
        let read = |body: &str, max: usize| {
            let xml = format!(
                "<mediawiki><page><title>T</title><ns>0</ns><revision><text>{body}</text></revision></page></mediawiki>"
            );
            let mut words = Vec::new();
            for_each_piece(Cursor::new(xml), path, &StripOptions::default(), max, |p| {
                words.extend(p.text.split_whitespace().map(str::to_string));
                Ok(true)
            })
            .map(|_| words)
        };
        if let Err(e) = read(&text, max_piece) {
            prop_assert!(located(&e.to_string(), path), "{}", e);
        }
        let whole = read(&plain, usize::MAX / 4).unwrap();
        let pieces = read(&plain, max_piece).unwrap();
        // A word may be cut where a run has no whitespace: compare the letters.
        prop_assert_eq!(whole.concat(), pieces.concat());
    }
}
