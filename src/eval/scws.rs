//! SCWS, Stanford Contextual Word Similarity (Huang, Socher, Manning & Ng,
//! ACL 2012): word pairs rated for similarity *in context*, the way
//! multi-sense vectors (`--algo senses`) are scored (docs/methods/senses.md,
//! "SCWS").
//!
//! File format (tab-separated, no header): `id  word1  POS1  word2  POS2
//! context1  context2  mean  r1 … r10`, the target word marked `<b> w </b>`
//! in its context. Each word's vectors in its context are weighted by sense
//! induction ([`SenseTable::induce`]): its senses with their induction
//! scores normalised to sum 1 (uniform when no context word supports any
//! sense), or its one vector for a word without senses.
//!
//! - AvgSimC = `Σ_j Σ_k p_j p_k cos(s_1j, s_2k)` over both words' weighted senses;
//! - MaxSimC = `cos` of each word's best sense (`#1` when none is supported);
//! - GlobalSim = `cos` of the two words' own rows (context ignored).
//!
//! Each is scored by Spearman's ρ against the mean rating, over the pairs
//! whose two words have vectors.

use std::path::Path;

use serde::Serialize;

use crate::corpus::source::{self, BoundedLines};
use crate::embedding::{Embedding, SenseTable};
use crate::stats::spearman;
use crate::{Error, Result};

/// One SCWS pair.
#[derive(Debug, Clone, PartialEq)]
pub struct ScwsPair {
    /// First word (lower-cased).
    pub word1: String,
    /// Its context, the `<b>`/`</b>` marks removed.
    pub context1: String,
    /// Second word (lower-cased).
    pub word2: String,
    /// Its context.
    pub context2: String,
    /// The mean human rating (0–10).
    pub rating: f64,
}

/// The three SCWS scores of one embedding.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScwsResult {
    /// Pairs in the file.
    pub pairs: usize,
    /// Pairs whose two words have vectors (the ones scored).
    pub found: usize,
    /// Scored pairs where at least one word has senses.
    pub with_senses: usize,
    /// Spearman ρ of AvgSimC.
    pub avg_sim_c: f64,
    /// Spearman ρ of MaxSimC.
    pub max_sim_c: f64,
    /// Spearman ρ of GlobalSim (the words' own rows).
    pub global_sim: f64,
}

/// Reads an SCWS file (gzip read transparently); a line with fewer than 8
/// fields or a mean that is not a number is an error naming the line.
pub fn read_scws(path: &Path) -> Result<Vec<ScwsPair>> {
    let input = source::open(path)?;
    let mut pairs = Vec::new();
    for (n, line) in input.bounded_lines().enumerate() {
        let line = line.map_err(|e| Error::io(path, e))?;
        if line.trim().is_empty() {
            continue;
        }
        let bad = |message: String| Error::Parse {
            path: path.to_path_buf(),
            line: n + 1,
            message,
        };
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() < 8 {
            return Err(bad(format!(
                "{} tab-separated fields (expected at least 8: id, word1, POS1, word2, POS2, context1, context2, mean)",
                f.len()
            )));
        }
        let rating: f64 = f[7]
            .trim()
            .parse()
            .ok()
            .filter(|r: &f64| r.is_finite())
            .ok_or_else(|| bad(format!("mean rating '{}' is not a number", f[7])))?;
        let clean = |c: &str| c.replace("<b>", " ").replace("</b>", " ");
        pairs.push(ScwsPair {
            word1: f[1].trim().to_lowercase(),
            word2: f[3].trim().to_lowercase(),
            context1: clean(f[5]),
            context2: clean(f[6]),
            rating,
        });
    }
    Ok(pairs)
}

/// The rows of `word` in `context` with their weights (summing to 1): its
/// senses weighted by their normalised induction scores, or its own row.
/// Empty when the word has no vector.
pub fn weighted_rows(
    e: &Embedding,
    table: Option<&SenseTable>,
    word: &str,
    context: &str,
) -> Vec<(u32, f64)> {
    let Some(r) = table.and_then(|t| t.induce(word, context)) else {
        return e.id(word).map(|id| vec![(id, 1.0)]).unwrap_or_default();
    };
    let senses = table.map(|t| t.of(word)).unwrap_or_default();
    let total: f64 = r.scores.iter().sum();
    let k = r.scores.len() as f64;
    senses
        .iter()
        .zip(&r.scores)
        .filter_map(|(s, &score)| {
            let p = if total > 0.0 { score / total } else { 1.0 / k };
            e.id(&s.name).map(|id| (id, p))
        })
        .collect()
}

/// The row of largest weight (the first on ties).
fn best(rows: &[(u32, f64)]) -> u32 {
    rows.iter()
        .fold(rows[0], |b, &x| if x.1 > b.1 { x } else { b })
        .0
}

/// Scores `e` (and its sense inventory, if any) on `pairs`.
pub fn evaluate_scws(e: &Embedding, pairs: &[ScwsPair]) -> ScwsResult {
    let table = e.senses();
    let (mut gold, mut avg, mut max, mut global) = (vec![], vec![], vec![], vec![]);
    let mut with_senses = 0;
    for p in pairs {
        let (Some(a), Some(b)) = (e.id(&p.word1), e.id(&p.word2)) else {
            continue;
        };
        let x = weighted_rows(e, table, &p.word1, &p.context1);
        let y = weighted_rows(e, table, &p.word2, &p.context2);
        if x.is_empty() || y.is_empty() {
            continue;
        }
        if x.len() > 1 || y.len() > 1 {
            with_senses += 1;
        }
        let mut s = 0.0;
        for &(i, wi) in &x {
            for &(j, wj) in &y {
                s += wi * wj * e.cosine(i, j);
            }
        }
        gold.push(p.rating);
        avg.push(s);
        max.push(e.cosine(best(&x), best(&y)));
        global.push(e.cosine(a, b));
    }
    ScwsResult {
        pairs: pairs.len(),
        found: gold.len(),
        with_senses,
        avg_sim_c: spearman(&avg, &gold),
        max_sim_c: spearman(&max, &gold),
        global_sim: spearman(&global, &gold),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embedding::Sense;
    use crate::words::WordIndex;

    /// `bank` with a cash sense (`bank#1` = (1, 0)) and a fish sense
    /// (`bank#2` = (0, 1)), its own row (1, 1), `money` (1, 0), `river`
    /// (0, 1), `water` (1, 1).
    fn embedding() -> Embedding {
        let words = ["bank", "bank#1", "bank#2", "money", "river", "water"];
        let rows = [1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0];
        let sense = |name: &str, context: &str| Sense {
            name: name.into(),
            word: "bank".into(),
            mass: 0.5,
            contexts: vec![(context.into(), 1.0)],
        };
        Embedding::new(
            WordIndex::from_words(words.iter().map(|w| w.to_string()).collect()),
            ndarray::Array2::from_shape_vec((6, 2), rows.to_vec()).unwrap(),
        )
        .unwrap()
        .with_senses(SenseTable::new(vec![
            sense("bank#1", "cash"),
            sense("bank#2", "fish"),
        ]))
    }

    /// By hand: pair 1 (rating 9) induces `bank#1` (cash), AvgSimC = MaxSimC
    /// = cos(bank#1, money) = 1, GlobalSim = cos(bank, money) = 1/√2; pair 2
    /// (8) induces `bank#2`, 1, 1, 1/√2; pair 3 (1) has no support: senses
    /// ½ and ½, AvgSimC = ½·(1/√2) + ½·(1/√2) = 1/√2, MaxSimC takes `bank#1`,
    /// 1/√2, GlobalSim = cos(bank, water) = 1; pair 4 has an unknown word.
    /// Ratings rank (3, 2, 1); AvgSimC and MaxSimC rank (2.5, 2.5, 1):
    /// ρ = 1.5 / (√2 · √1.5) = √0.75; GlobalSim ranks (1.5, 1.5, 3): −√0.75.
    #[test]
    fn scores_a_tiny_scws_file_as_computed_by_hand() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/scws-tiny.txt");
        let pairs = read_scws(&path).unwrap();
        assert_eq!(pairs.len(), 4);
        assert_eq!(pairs[2].word1, "bank");
        assert_eq!(pairs[0].context1.split_whitespace().last(), Some("bank"));
        let e = embedding();
        let w = weighted_rows(&e, e.senses(), "bank", &pairs[2].context1);
        assert_eq!(w, vec![(1, 0.5), (2, 0.5)]);
        let r = evaluate_scws(&e, &pairs);
        assert_eq!((r.pairs, r.found, r.with_senses), (4, 3, 3));
        let rho = 0.75f64.sqrt();
        assert!((r.avg_sim_c - rho).abs() < 1e-12, "{r:?}");
        assert!((r.max_sim_c - rho).abs() < 1e-12, "{r:?}");
        assert!((r.global_sim + rho).abs() < 1e-12, "{r:?}");
    }

    #[test]
    fn bad_lines_name_the_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("scws.txt");
        std::fs::write(&file, "1\ta\tn\tb\tn\tx\ty\t5.0\n2\ta\tn\tb\n").unwrap();
        let e = read_scws(&file).unwrap_err().to_string();
        assert!(e.ends_with(":2: 4 tab-separated fields (expected at least 8: id, word1, POS1, word2, POS2, context1, context2, mean)"), "{e}");
        std::fs::write(&file, "1\ta\tn\tb\tn\tx\ty\thigh\n").unwrap();
        let e = read_scws(&file).unwrap_err().to_string();
        assert!(e.ends_with(":1: mean rating 'high' is not a number"), "{e}");
    }
}
