//! `--algo senses` end to end on the fixture corpus: two frequent words of
//! different topics merged into one token come apart again as two senses
//! whose neighbours are the originals' neighbours; the sense inventory
//! survives a save and load; induction picks the right sense.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use wordbench::algo::senses::SENSES;
use wordbench::corpus::{Corpus, CorpusConfig, HeldoutConfig, ReadConfig, VocabConfig};
use wordbench::embedding::{Embedding, NeighborParams, VectorFormat};
use wordbench::train::{Event, Job, JobConfig, TrainInput};

const A: &str = "palestinian";
const B: &str = "fire";
const MERGED: &str = "palestinianfire";

fn open(path: &Path) -> Arc<Corpus> {
    let config = CorpusConfig {
        vocab: VocabConfig {
            min_count: 3,
            max_size: None,
        },
        read: ReadConfig {
            heldout: HeldoutConfig {
                fraction: 0.0,
                max_unit_tokens: 200,
            },
            ..Default::default()
        },
    };
    Arc::new(Corpus::open(path, config).unwrap())
}

fn train(corpus: &Arc<Corpus>, sets: &[(&str, &str)]) -> (Embedding, Vec<String>) {
    let input = TrainInput {
        corpus: corpus.clone(),
        params: SENSES.params(sets.iter().copied()).unwrap(),
        seed: 1,
        threads: 2,
        counts: Default::default(),
    };
    let mut logs = Vec::new();
    let emb = Job::spawn(&SENSES, input, JobConfig::default())
        .wait(|e| {
            if let Event::Log(l) = e {
                logs.push(l.clone())
            }
        })
        .unwrap();
    (emb, logs)
}

fn neighbours(e: &Embedding, word: &str, k: usize) -> BTreeSet<String> {
    e.neighbors(word, NeighborParams::k(k + 4))
        .unwrap()
        .into_iter()
        .map(|n| n.word)
        .filter(|w| !w.contains('#') && w != A && w != B && w != MERGED)
        .take(k)
        .collect()
}

#[test]
fn a_conflated_pair_splits_into_senses_with_the_originals_neighbours() {
    let dir = tempfile::tempdir().unwrap();
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/corpus/lee_background.txt");
    let text = std::fs::read_to_string(&fixture).unwrap();
    let merged: Vec<String> = text
        .lines()
        .map(|line| {
            line.split(' ')
                .map(|t| {
                    if t.eq_ignore_ascii_case(A) || t.eq_ignore_ascii_case(B) {
                        MERGED
                    } else {
                        t
                    }
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let merged_path = dir.path().join("merged.txt");
    std::fs::write(&merged_path, merged.join("\n")).unwrap();
    let lexicon = dir.path().join("senses.tsv");
    std::fs::write(&lexicon, format!("{MERGED}\t2\n")).unwrap();
    let lex = lexicon.to_str().unwrap();
    let sets = [
        ("dim", "40"),
        ("sense_counts", lex),
        ("min_sense_count", "5"),
    ];
    let about_a = "arafat said the authority in gaza would arrest militants";
    let about_b = "crews battled the blaze in the blue mountains";
    let (original, _) = train(&open(&fixture), &sets);
    assert!(original.senses().unwrap().is_empty());

    // NNDSVD alone (the thesis' method, the default): the two topics'
    // sentences pick different senses.
    let (plain, _) = train(&open(&merged_path), &sets);
    let plain = plain.senses().unwrap();
    assert_eq!(plain.len(), 2);
    assert_ne!(
        plain.induce(MERGED, about_a).unwrap().best,
        plain.induce(MERGED, about_b).unwrap().best
    );

    // With the NMF refinement the dense neighbours of the two senses are
    // the two originals' (NNDSVD alone leaves sense #1 broad, its
    // neighbours those of the larger word: docs/methods/senses.md).
    let mut sets = sets.to_vec();
    sets.push(("nmf_iterations", "50"));
    let (split, logs) = train(&open(&merged_path), &sets);
    let senses = split.senses().unwrap();
    assert_eq!(senses.len(), 2, "{logs:?}");
    assert!(
        logs.iter()
            .any(|l| l.contains("split 1 of 1 words into 2 senses")),
        "{logs:?}"
    );

    let k = 20;
    let (na, nb) = (neighbours(&original, A, k), neighbours(&original, B, k));
    let s1 = neighbours(&split, &format!("{MERGED}#1"), k);
    let s2 = neighbours(&split, &format!("{MERGED}#2"), k);
    let overlap = |x: &BTreeSet<String>, y: &BTreeSet<String>| x.intersection(y).count();
    let straight = (overlap(&s1, &na), overlap(&s2, &nb));
    let crossed = (overlap(&s1, &nb), overlap(&s2, &na));
    eprintln!("{A}: {na:?}\n{B}: {nb:?}\n#1: {s1:?}\n#2: {s2:?}\nstraight {straight:?} crossed {crossed:?}");
    // One assignment of senses to originals wins on both senses.
    let (good, bad) = if straight.0 + straight.1 >= crossed.0 + crossed.1 {
        (straight, crossed)
    } else {
        (crossed, straight)
    };
    assert!(good.0 > bad.1 && good.1 > bad.0, "{good:?} vs {bad:?}");
    assert!(good.0 >= 3 && good.1 >= 3, "{good:?}");

    // Induction: a sentence about one topic picks that topic's sense.
    let (ia, ib) = if good == straight { (0, 1) } else { (1, 0) };
    assert_eq!(senses.induce(MERGED, about_a).unwrap().best, Some(ia));
    assert_eq!(senses.induce(MERGED, about_b).unwrap().best, Some(ib));

    // Saved vectors carry the inventory beside them.
    let out = dir.path().join("v.txt");
    split.save(&out, VectorFormat::Word2VecText).unwrap();
    let back = Embedding::load(&out).unwrap();
    // (weights are written to 4 significant digits, every context of
    // positive weight: the whole sense vectors)
    assert!(back.senses().unwrap().is_whole());
    let back_senses = back.senses().unwrap().senses();
    assert_eq!(back_senses.len(), senses.len());
    for (a, b) in back_senses.iter().zip(senses.senses()) {
        assert_eq!((&a.name, &a.word), (&b.name, &b.word));
        assert!((a.mass - b.mass).abs() < 1e-6);
        assert_eq!(a.contexts.len(), b.contexts.len());
        for ((ca, wa), (cb, wb)) in a.contexts.iter().zip(&b.contexts) {
            assert_eq!(ca, cb);
            assert!((wa - wb).abs() <= 5e-4 * wb.abs(), "{ca}: {wa} vs {wb}");
        }
    }
    assert!(back.id(&format!("{MERGED}#2")).is_some());
}

/// `wordbench sense` on vectors written by hand with a version-1 sidecar
/// (the 100-strongest-contexts files older wordbench wrote): `--scws`
/// gives the hand-computed scores of `src/eval/scws.rs`' fixture, and
/// `--context` still induces, saying that the inventory is cut.
#[test]
fn the_sense_command_scores_scws_and_reads_old_sidecars() {
    let dir = tempfile::tempdir().unwrap();
    let vectors = dir.path().join("v.txt");
    std::fs::write(
        &vectors,
        "6 2\nbank 1 1\nbank#1 1 0\nbank#2 0 1\nmoney 1 0\nriver 0 1\nwater 1 1\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("v.txt.senses"),
        "# wordbench senses 1: sense<TAB>word<TAB>mass<TAB>context:weight ...\n\
         bank#1\tbank\t0.500000\tcash:1.000000\n\
         bank#2\tbank\t0.500000\tfish:1.000000\n",
    )
    .unwrap();
    let scws = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/scws-tiny.txt");
    let out = crate::common::wordbench(&[
        "sense",
        vectors.to_str().unwrap(),
        "--scws",
        scws.to_str().unwrap(),
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rho = 0.75f64.sqrt();
    assert_eq!(
        (v["pairs"].as_u64(), v["found"].as_u64()),
        (Some(4), Some(3))
    );
    assert!((v["avg_sim_c"].as_f64().unwrap() - rho).abs() < 1e-6, "{v}");
    assert!((v["max_sim_c"].as_f64().unwrap() - rho).abs() < 1e-6, "{v}");
    assert!(
        (v["global_sim"].as_f64().unwrap() + rho).abs() < 1e-6,
        "{v}"
    );
    let out = crate::common::wordbench(&[
        "sense",
        vectors.to_str().unwrap(),
        "--word",
        "bank",
        "--context",
        "fish for dinner",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.starts_with("note: this sense inventory keeps only"),
        "{text}"
    );
    assert!(text.trim_end().ends_with("sense: bank#2"), "{text}");
}
