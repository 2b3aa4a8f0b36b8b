//! Pre-trained vector files as people have them: GloVe text with and without
//! a header (and Stanford's `<unk>` quirk), fastText `.vec`, compressed files,
//! `--limit`; and the two-file formats wordbench writes for Python (`.npy`)
//! and the TensorBoard Projector. Fixtures: tests/fixtures/pretrained/make.sh
//! (the first 20 words of the eval fixture, 16 dims).

use std::path::Path;

use crate::common;
use wordbench::embedding::format::{self, ReadOptions};
use wordbench::embedding::{Embedding, VectorFormat};

/// This file's fixtures, under `tests/fixtures/`.
const FIXTURES: &str = "pretrained";

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
        let (e, report) = format::read(&common::fixture(FIXTURES, name), None).unwrap();
        assert_eq!(report.format, format, "{name} detected");
        assert!(report.notes().is_empty(), "{name}: {:?}", report.notes());
        assert_same(&e, &want, name);
    }
}

#[test]
fn stanford_write_header_unk_quirk_is_accepted_with_a_note() {
    let (e, report) =
        format::read(&common::fixture(FIXTURES, "stanford-header.txt"), None).unwrap();
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
        &common::fixture(FIXTURES, "stanford-header.txt"),
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
            &common::fixture(FIXTURES, name),
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

#[test]
fn cli_convert_neighbors_with_limit_and_the_stanford_note() {
    let dir = tempfile::tempdir().unwrap();
    let npy = dir.path().join("g.npy");
    let (ok, _, err) = common::wordbench_text(&[
        "convert",
        common::fixture(FIXTURES, "glove.txt.xz").to_str().unwrap(),
        npy.to_str().unwrap(),
        "--limit",
        "12",
    ]);
    assert!(ok, "{err}");
    assert!(err.contains("12 words x 16 dims"), "{err}");
    let (back, report) = format::read(&npy, None).unwrap();
    assert_eq!(report.format, VectorFormat::Npy);
    assert_eq!(back.words().words(), &reference().words().words()[..12]);

    let (ok, out, err) = common::wordbench_text(&[
        "neighbors",
        common::fixture(FIXTURES, "stanford-header.txt")
            .to_str()
            .unwrap(),
        "the",
        "-k",
        "3",
    ]);
    assert!(ok, "{err}");
    assert!(err.contains("Stanford GloVe"), "{err}");
    assert_eq!(out.lines().count(), 4, "{out}");
}

#[test]
fn cli_align_recovers_a_rotated_copy() {
    // B = A rotated by a fixed orthogonal matrix (a product of plane rotations),
    // with one word's vector replaced: it is the one listed as moved most.
    let a = Embedding::load(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/eval/vectors.txt"),
    )
    .unwrap();
    let d = a.dim();
    let mut q = ndarray::Array2::<f64>::eye(d);
    for k in 0..d - 1 {
        let t = 0.3 + 0.1 * k as f64;
        let mut g = ndarray::Array2::<f64>::eye(d);
        g[[k, k]] = t.cos();
        g[[k + 1, k + 1]] = t.cos();
        g[[k, k + 1]] = -t.sin();
        g[[k + 1, k]] = t.sin();
        q = q.dot(&g);
    }
    let mut b = a.vectors().mapv(f64::from).dot(&q).mapv(|v| v as f32);
    let king = a.id("king").unwrap() as usize;
    let other = a.row(a.id("computer").unwrap()).to_owned();
    b.row_mut(king).assign(&other);
    let rotated = Embedding::new(a.words().clone(), b).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let pb = dir.path().join("b.txt");
    rotated.save(&pb, VectorFormat::Word2VecText).unwrap();
    let out_path = dir.path().join("a-in-b.txt");
    let (ok, out, err) = common::wordbench_text(&[
        "align",
        common::fixture(FIXTURES, "../eval/vectors.txt")
            .to_str()
            .unwrap(),
        pb.to_str().unwrap(),
        "-k",
        "3",
        "--out",
        out_path.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(out.starts_with("174 shared words"), "{out}");
    let moved: Vec<&str> = out.lines().skip(2).collect();
    assert!(moved[0].trim_start().starts_with("king "), "{out}");
    let cosine = |line: &str| -> f64 { line.split_whitespace().nth(1).unwrap().parse().unwrap() };
    assert!(cosine(moved[0]) < 0.8, "{out}");
    assert!(cosine(moved[1]) > 0.9, "the others stay close: {out}");
    let mapped = Embedding::load(&out_path).unwrap();
    let the = a.id("the").unwrap();
    let unit = rotated.unit_row(the);
    let cos: f32 = mapped
        .row(the)
        .iter()
        .zip(unit.iter())
        .map(|(x, y)| x * y)
        .sum();
    assert!(cos > 0.9, "{cos}");

    // Without the moved word the rotation is recovered exactly.
    let clean = Embedding::new(
        a.words().clone(),
        a.vectors().mapv(f64::from).dot(&q).mapv(|v| v as f32),
    )
    .unwrap();
    let al = wordbench::embedding::align::procrustes(&a, &clean, None).unwrap();
    let err = (&al.rotation - &q)
        .mapv(f64::abs)
        .fold(0.0f64, |m, &v| m.max(v));
    assert!(err < 1e-4, "{err}");
    assert!(al.mean_cosine > 1.0 - 1e-6);
}
