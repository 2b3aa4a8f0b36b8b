//! Every reader of user files on arbitrary and damaged input: vectors files
//! (word2vec text and binary, GloVe text, NumPy `.npy` plain and gzipped,
//! fastText `.bin` plain and gzipped), corpora (format detection, the text,
//! line, Wikipedia and fastText readers, compressed or not), evaluation sets
//! and counts imports (Spark-style parts, GloVe `cooccur` with its
//! vocabulary, counts files). Never a panic, never an abort on a huge
//! declared size; a refusal is one line that names the file, with every
//! byte it quotes escaped (no control character reaches the terminal).
//! Case counts are bounded so the suite stays fast.

use std::io::Cursor;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use wordbench::corpus::{Corpus, CorpusConfig};
use wordbench::embedding::{self, VectorFormat};
use wordbench::eval::{AnalogyDataset, SimilarityDataset};

/// One line, naming the file, without a control character (quoted input is escaped).
fn located(err: &str, file: &Path) -> bool {
    err.contains(&*file.file_name().unwrap().to_string_lossy())
        && !err.chars().any(char::is_control)
}

/// `bytes` gzip-compressed.
fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(bytes).unwrap();
    gz.finish().unwrap()
}

/// A small valid fastText model: dim 2, 3 buckets, 3-grams, the words `ab`
/// and `</s>`; row r of the input matrix is (r, -r).
fn fasttext_model() -> Vec<u8> {
    let mut b = 793_712_314i32.to_le_bytes().to_vec();
    b.extend(12i32.to_le_bytes());
    for a in [2i32, 5, 1, 1, 5, 1, 2, 2, 3, 3, 3, 100] {
        b.extend(a.to_le_bytes());
    }
    b.extend(1e-4f64.to_le_bytes());
    for a in [2i32, 2, 0] {
        b.extend(a.to_le_bytes());
    }
    b.extend(10i64.to_le_bytes());
    b.extend((-1i64).to_le_bytes());
    for w in ["ab", "</s>"] {
        b.extend(w.as_bytes());
        b.push(0);
        b.extend(3i64.to_le_bytes());
        b.push(0);
    }
    b.push(0);
    b.extend(5i64.to_le_bytes());
    b.extend(2i64.to_le_bytes());
    for r in 0..5 {
        b.extend((r as f32).to_le_bytes());
        b.extend((-(r as f32)).to_le_bytes());
    }
    b
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
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// `.npy` (with its vocabulary file) and `.npy.gz`, and fastText `.bin`
    /// and `.bin.gz`, damaged anywhere: header fields included, so shapes,
    /// dimensions, bucket counts and n-gram lengths take any value.
    #[test]
    fn damaged_npy_and_fasttext_models_are_read_or_refused_with_the_file_named(
        which in 0usize..4,
        at in 0usize..160,
        cut in 0usize..6,
        insert in proptest::collection::vec(any::<u8>(), 0..8),
        vocab in "([a-z]{1,4}\n){0,6}",
    ) {
        let (name, valid) = if which < 2 {
            let (dir, path) = file("v.npy", b"");
            let words = wordbench::words::WordIndex::from_words(
                ["the", "cat", "sat"].map(String::from).to_vec(),
            );
            let rows = ndarray::Array2::from_shape_fn((3, 2), |(i, j)| (i + j) as f32 - 1.5);
            let e = embedding::Embedding::new(words, rows).unwrap();
            embedding::format::write(&e, &path, VectorFormat::Npy).unwrap();
            let bytes = std::fs::read(&path).unwrap();
            drop(dir);
            ("v.npy", bytes)
        } else {
            ("m.bin", fasttext_model())
        };
        let mut damaged = damage(&valid, at, cut, &insert);
        let name = if which % 2 == 1 {
            damaged = gzip(&damaged);
            format!("{name}.gz")
        } else {
            name.to_string()
        };
        let (_dir, path) = file(&name, &damaged);
        let vocab_file = embedding::paired::npy_vocab_path(&path);
        std::fs::write(&vocab_file, &vocab).unwrap();
        match embedding::format::read(&path, None) {
            Ok((e, _)) => prop_assert!(e.vectors().iter().all(|x| x.is_finite())),
            Err(e) => {
                let text = e.to_string();
                prop_assert!(located(&text, &path) || located(&text, &vocab_file), "{}", text);
            }
        }
    }

    /// Spark-style part files of arbitrary fields (negative, huge, not
    /// finite, duplicated words), with or without a vocabulary file of
    /// arbitrary lines; GloVe `cooccur` records of arbitrary bytes.
    #[test]
    fn arbitrary_counts_imports_are_read_or_refused_with_the_file_named(
        rows in proptest::collection::vec(
            ("[a-c\x1b]{0,2}", "[a-c]{1,2}", "-?[0-9]{0,17}([.][0-9])?|nan|inf|x|1e400"), 0..8),
        sep in prop_oneof![Just(","), Just("\t")],
        vocab in proptest::option::of("([a-c\x1b]{1,2} -?[0-9]{0,20}\n){0,5}"),
        records in proptest::collection::vec(any::<u8>(), 0..80),
    ) {
        use wordbench::counts::import;
        let dir = tempfile::tempdir().unwrap();
        let parts = dir.path().join("parts");
        std::fs::create_dir(&parts).unwrap();
        let part = parts.join("part-0.csv");
        let text: String = rows.iter().map(|(w, c, n)| format!("{w}{sep}{c}{sep}{n}\n")).collect();
        std::fs::write(&part, text).unwrap();
        let vocab_path = dir.path().join("vocab.txt");
        if let Some(v) = &vocab {
            std::fs::write(&vocab_path, v).unwrap();
        }
        match import::parts(&parts, vocab.as_ref().map(|_| vocab_path.as_path())) {
            Ok(c) => {
                prop_assert!(c.matrix.data().iter().all(|x| x.is_finite() && *x >= 0.0));
                let mut words: Vec<&str> = (0..c.vocab.len() as u32).map(|i| c.vocab.word(i)).collect();
                words.sort_unstable();
                prop_assert!(words.windows(2).all(|w| w[0] != w[1]), "no word twice");
            }
            Err(e) => {
                let text = e.to_string();
                prop_assert!(located(&text, &part) || located(&text, &vocab_path) || located(&text, &parts), "{}", text);
            }
        }
        let cooccur = dir.path().join("cooccur.bin");
        std::fs::write(&cooccur, &records).unwrap();
        if vocab.is_some() {
            match import::glove(&cooccur, &vocab_path) {
                Ok(c) => prop_assert!(c.matrix.data().iter().all(|x| x.is_finite() && *x >= 0.0)),
                Err(e) => {
                    let text = e.to_string();
                    prop_assert!(located(&text, &cooccur) || located(&text, &vocab_path), "{}", text);
                }
            }
        }
    }

    /// A counts file damaged anywhere: refused with the file named, or read.
    #[test]
    fn damaged_counts_files_are_read_or_refused_with_the_file_named(
        at in 0usize..300,
        cut in 0usize..6,
        insert in proptest::collection::vec(any::<u8>(), 0..8),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.wbc");
        let vocab = wordbench::corpus::Vocabulary::from_sorted(
            vec![("the".into(), 9), ("café".into(), 4), ("a".into(), 4)],
        ).unwrap();
        let mut tri = sprs::TriMat::new((3, 3));
        tri.add_triplet(0, 1, 2.5);
        tri.add_triplet(2, 2, 1.0);
        wordbench::counts::write(&path, &vocab, &tri.to_csr(), Default::default()).unwrap();
        let damaged = damage(&std::fs::read(&path).unwrap(), at, cut, &insert);
        std::fs::write(&path, damaged).unwrap();
        if let Err(e) = wordbench::counts::read(&path) {
            prop_assert!(located(&e.to_string(), &path), "{}", e);
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
