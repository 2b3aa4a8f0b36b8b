//! fastText binary models: the words' vectors and, for words outside the
//! vocabulary, the vectors fastText computes from character n-grams. The
//! fixture (tests/fixtures/pretrained/fasttext.bin, 1,763 words x 8 dims,
//! 2,000 buckets, n-grams of 3-5 characters) and fastText's own
//! `get_word_vector` outputs (fasttext.expected.json) were made once by
//! benches/compare/make_fasttext_fixture.sh with the fasttext Python package.

use std::io::Write;

use crate::common;
use wordbench::embedding::format::{self, ReadOptions};
use wordbench::embedding::{Embedding, VectorFormat};

/// This file's fixtures, under `tests/fixtures/`.
const FIXTURES: &str = "pretrained";

struct Expected {
    words: usize,
    dim: usize,
    vectors: serde_json::Map<String, serde_json::Value>,
    in_vocabulary: Vec<String>,
    out_of_vocabulary: Vec<String>,
}

fn expected() -> Expected {
    let text =
        std::fs::read_to_string(common::fixture(FIXTURES, "fasttext.expected.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let list = |k: &str| -> Vec<String> {
        v[k].as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap().to_string())
            .collect()
    };
    Expected {
        words: v["words"].as_u64().unwrap() as usize,
        dim: v["dim"].as_u64().unwrap() as usize,
        vectors: v["vectors"].as_object().unwrap().clone(),
        in_vocabulary: list("in_vocabulary"),
        out_of_vocabulary: list("out_of_vocabulary"),
    }
}

fn want(e: &Expected, word: &str) -> Vec<f32> {
    e.vectors[word]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap() as f32)
        .collect()
}

fn assert_close(got: &[f32], want: &[f32], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (g, w) in got.iter().zip(want) {
        assert!(
            (g - w).abs() <= 1e-5,
            "{what}: {got:?} vs fastText {want:?}"
        );
    }
}

fn check_against_fasttext(emb: &Embedding, what: &str) {
    let e = expected();
    assert_eq!((emb.len(), emb.dim()), (e.words, e.dim), "{what}: shape");
    assert!(e.in_vocabulary.iter().any(|w| w == "</s>"));
    for w in &e.in_vocabulary {
        let got = emb
            .vector(w)
            .unwrap_or_else(|| panic!("{what}: {w} missing"));
        assert!(emb.subword_vector(w).is_none(), "{w} is a vocabulary word");
        assert_close(&got.to_vec(), &want(&e, w), &format!("{what}: {w}"));
    }
    assert!(e.out_of_vocabulary.iter().any(|w| !w.is_ascii()));
    for w in &e.out_of_vocabulary {
        assert!(emb.id(w).is_none(), "{w} is out of the vocabulary");
        let got = emb
            .subword_vector(w)
            .unwrap_or_else(|| panic!("{what}: no subword vector for {w}"));
        assert_close(&got.to_vec(), &want(&e, w), &format!("{what}: OOV {w}"));
    }
}

#[test]
fn fasttext_bin_vectors_equal_fasttexts_get_word_vector_in_and_out_of_vocabulary() {
    let (emb, report) = format::read(&common::fixture(FIXTURES, "fasttext.bin"), None).unwrap();
    assert_eq!(report.format, VectorFormat::FastTextBin, "detected");
    assert!(report.notes().is_empty(), "{:?}", report.notes());
    let s = emb.subwords().unwrap();
    assert_eq!((s.minn(), s.maxn(), s.buckets(), s.dim()), (3, 5, 2000, 8));
    check_against_fasttext(&emb, "mapped");
}

#[test]
fn compressed_fasttext_bin_streams_to_the_same_vectors() {
    let dir = tempfile::tempdir().unwrap();
    let gz = dir.path().join("model.bin.gz");
    let mut enc = flate2::write::GzEncoder::new(
        std::fs::File::create(&gz).unwrap(),
        flate2::Compression::fast(),
    );
    enc.write_all(&std::fs::read(common::fixture(FIXTURES, "fasttext.bin")).unwrap())
        .unwrap();
    enc.finish().unwrap();
    let (emb, report) = format::read(&gz, None).unwrap();
    assert_eq!(report.format, VectorFormat::FastTextBin);
    check_against_fasttext(&emb, "gzip");
    let (mapped, _) = format::read(&common::fixture(FIXTURES, "fasttext.bin"), None).unwrap();
    assert_eq!(
        emb.vectors().mapv(f32::to_bits),
        mapped.vectors().mapv(f32::to_bits),
        "same bits either way"
    );
}

#[test]
fn limit_keeps_the_first_words_and_the_subwords() {
    let (full, _) = format::read(&common::fixture(FIXTURES, "fasttext.bin"), None).unwrap();
    let (e, report) = format::read_with(
        &common::fixture(FIXTURES, "fasttext.bin"),
        ReadOptions {
            format: None,
            limit: Some(100),
        },
    )
    .unwrap();
    assert!(report.limited);
    assert_eq!(e.len(), 100);
    assert_eq!(e.words().words(), &full.words().words()[..100]);
    assert_eq!(e.row(7).to_vec(), full.row(7).to_vec());
    let oov = "governmentalism";
    assert_eq!(
        e.subword_vector(oov).unwrap(),
        full.subword_vector(oov).unwrap()
    );
}

#[test]
fn damaged_models_and_writing_bin_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(common::fixture(FIXTURES, "fasttext.bin")).unwrap();
    let cut = dir.path().join("cut.bin");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let err = format::read(&cut, None).unwrap_err().to_string();
    assert!(
        err.contains("cut short") && err.contains("input matrix"),
        "{err}"
    );
    std::fs::write(&cut, &bytes[..300]).unwrap();
    let err = format::read(&cut, None).unwrap_err().to_string();
    assert!(
        err.contains("cut short") && err.contains("dictionary"),
        "{err}"
    );

    let (emb, _) = format::read(&common::fixture(FIXTURES, "fasttext.bin"), None).unwrap();
    let err = emb
        .save(dir.path().join("out.bin"), VectorFormat::FastTextBin)
        .unwrap_err()
        .to_string();
    assert!(err.contains("reads, not one it writes"), "{err}");
}

#[test]
fn cli_neighbors_of_an_oov_word_come_from_subwords() {
    let model = common::fixture(FIXTURES, "fasttext.bin");
    let (ok, out, err) = common::wordbench_text(&[
        "neighbors",
        model.to_str().unwrap(),
        "governmentalism",
        "government",
        "-k",
        "3",
    ]);
    assert!(ok, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 8, "{out}");
    assert_eq!(lines[0], "governmentalism (from subwords)");
    assert_eq!(
        lines[4], "government",
        "a vocabulary word says nothing more"
    );
    // The subword vector's neighbours are those of the library's own search.
    let (emb, _) = format::read(&model, None).unwrap();
    let v = emb.subword_vector("governmentalism").unwrap();
    let near = emb
        .neighbors_of_vector(v.view(), wordbench::embedding::NeighborParams::k(3), &[])
        .unwrap();
    for (line, n) in lines[1..4].iter().zip(&near) {
        assert!(
            line.trim_start().starts_with(&n.word),
            "{line} vs {}",
            n.word
        );
    }
}
