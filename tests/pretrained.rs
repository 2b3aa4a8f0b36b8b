//! Pre-trained vector files as people have them: GloVe text with and without
//! a header (and Stanford's `<unk>` quirk), fastText `.vec`, compressed files,
//! `--limit`; and the two-file formats wordbench writes for Python (`.npy`)
//! and the TensorBoard Projector. Fixtures: tests/fixtures/pretrained/make.sh
//! (the first 20 words of the eval fixture, 16 dims).

use std::path::{Path, PathBuf};

use wordbench::embedding::format::{self, ReadOptions};
use wordbench::embedding::{Embedding, VectorFormat};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/pretrained")
        .join(name)
}

/// The reference: the first 20 words of the eval fixture, as word2vec text.
fn reference() -> Embedding {
    let (e, _) = format::read_with(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/eval/vectors.txt"),
        ReadOptions {
            format: None,
            limit: Some(20),
        },
    )
    .unwrap();
    e
}

fn assert_same(a: &Embedding, b: &Embedding, what: &str) {
    assert_eq!(a.words(), b.words(), "{what}: words");
    assert_eq!(
        a.vectors().mapv(f32::to_bits),
        b.vectors().mapv(f32::to_bits),
        "{what}: values"
    );
}

#[test]
fn glove_fasttext_and_compressed_files_read_as_the_reference() {
    let want = reference();
    assert_eq!((want.len(), want.dim()), (20, 16));
    for (name, format) in [
        ("glove.txt", VectorFormat::GloveText),
        ("glove.txt.gz", VectorFormat::GloveText),
        ("glove.txt.bz2", VectorFormat::GloveText),
        ("glove.txt.xz", VectorFormat::GloveText),
        ("fasttext.vec", VectorFormat::Word2VecText),
    ] {
        let (e, report) = format::read(&fixture(name), None).unwrap();
        assert_eq!(report.format, format, "{name} detected");
        assert!(report.notes().is_empty(), "{name}: {:?}", report.notes());
        assert_same(&e, &want, name);
    }
}

#[test]
fn stanford_write_header_unk_quirk_is_accepted_with_a_note() {
    let (e, report) = format::read(&fixture("stanford-header.txt"), None).unwrap();
    assert_eq!(report.format, VectorFormat::Word2VecText);
    assert!(report.unk_after_header);
    assert_eq!(e.len(), 21, "the 20 counted words and <unk>");
    assert_eq!(e.words().word(20), "<unk>");
    assert!((e.row(20)[0] - -1.5201).abs() < 1e-6);
    let notes = report.notes();
    assert_eq!(notes.len(), 1);
    assert!(notes[0].contains("Stanford GloVe"), "{notes:?}");
    let want = reference();
    let (first, _) = format::read_with(
        &fixture("stanford-header.txt"),
        ReadOptions {
            format: None,
            limit: Some(20),
        },
    )
    .unwrap();
    assert_same(&first, &want, "stanford, limit 20");
}

#[test]
fn limit_keeps_the_first_words_of_every_format() {
    let want = reference();
    for name in ["glove.txt", "glove.txt.xz", "fasttext.vec"] {
        let (e, report) = format::read_with(
            &fixture(name),
            ReadOptions {
                format: None,
                limit: Some(5),
            },
        )
        .unwrap();
        assert!(report.limited, "{name}");
        assert_eq!(e.len(), 5, "{name}");
        assert_eq!(e.words().words(), &want.words().words()[..5], "{name}");
        assert_eq!(e.vectors(), want.vectors().slice(ndarray::s![..5, ..]));
    }
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("v.bin");
    want.save(&bin, VectorFormat::Word2VecBinary).unwrap();
    let (e, report) = format::read_with(
        &bin,
        ReadOptions {
            format: None,
            limit: Some(3),
        },
    )
    .unwrap();
    assert_eq!((e.len(), report.limited), (3, true));
    assert_eq!(e.vectors(), want.vectors().slice(ndarray::s![..3, ..]));
}

#[test]
fn npy_and_projector_pairs_written_for_python_and_tensorboard() {
    let want = reference();
    let dir = tempfile::tempdir().unwrap();
    let npy = dir.path().join("run1.npy");
    want.save(&npy, VectorFormat::Npy).unwrap();
    assert!(dir.path().join("run1.vocab.txt").is_file());
    let (back, report) = format::read(&npy, None).unwrap();
    assert_eq!(report.format, VectorFormat::Npy, "detected by its magic");
    assert_same(&back, &want, "npy round trip");

    let tsv = dir.path().join("run1.tsv");
    want.save(&tsv, VectorFormat::ProjectorTsv).unwrap();
    let tensor = std::fs::read_to_string(&tsv).unwrap();
    let labels = std::fs::read_to_string(dir.path().join("run1.metadata.tsv")).unwrap();
    assert_eq!(tensor.lines().count(), 20);
    assert_eq!(labels.lines().collect::<Vec<_>>(), want.words().words());
    for (line, row) in tensor.lines().zip(want.vectors().rows()) {
        let values: Vec<f32> = line.split('\t').map(|v| v.parse().unwrap()).collect();
        assert_eq!(values, row.to_vec());
    }
}
