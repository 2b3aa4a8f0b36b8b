//! Answering many analogy questions at once.
//!
//! Both 3CosAdd and 3CosMul only need the cosines of the three question words
//! with every candidate: 3CosAdd's argmax of cos(x, b - a + c) (unit vectors)
//! is the argmax of cos(x,b) - cos(x,a) + cos(x,c), since the query's length
//! does not depend on x. The Google set's 19,544 questions use fewer than a
//! thousand distinct words, so instead of one matrix product per question
//! (19,544 x N x d) we multiply the distinct question words with blocks of
//! candidate rows (U x N x d, about 20x less work) and combine three score rows
//! per question. Rayon runs over candidate blocks; each block keeps its best
//! candidate per question and the blocks are merged, ties going to the lower id.
//!
//! Scores are `f32`, as gensim's; on near-ties (differences below ~1e-6) the
//! two may pick different words.

use std::ops::Range;

use ndarray::{s, Array2};
use rayon::prelude::*;

use super::AnalogyMethod;
use crate::embedding::Embedding;
use crate::eval::lookup::WordLookup;

/// Levy & Goldberg's epsilon in 3CosMul's denominator.
pub const COSMUL_EPSILON: f32 = 0.001;

/// Scratch score matrix size per block, in floats (1 MiB).
const BLOCK_FLOATS: usize = 1 << 18;

/// The best candidate row for each question `[a, b, c]` ("a is to b as c is to ?"),
/// among rows `0..lookup.limit()`, excluding the question words (and rows that
/// differ from them only in case). `None` when no candidate is left.
pub fn solve(
    embedding: &Embedding,
    lookup: &WordLookup<'_>,
    questions: &[[u32; 3]],
    method: AnalogyMethod,
) -> Vec<Option<u32>> {
    let n_rows = lookup.limit();
    if questions.is_empty() || n_rows == 0 {
        return vec![None; questions.len()];
    }
    let (words, slots) = question_words(embedding, questions, n_rows);
    let block = (BLOCK_FLOATS / words.nrows()).clamp(64, 8192);
    let blocks: Vec<Range<usize>> = (0..n_rows)
        .step_by(block)
        .map(|r| r..(r + block).min(n_rows))
        .collect();
    let ctx = Context {
        embedding,
        lookup,
        questions,
        slots: &slots,
        words: &words,
        method,
    };
    let best = blocks
        .into_par_iter()
        .fold(
            || Partial::new(questions.len(), words.nrows(), block),
            |mut acc, rows| {
                ctx.scan(rows, &mut acc);
                acc
            },
        )
        .map(|p| p.best)
        .reduce(|| vec![Best::NONE; questions.len()], merge);
    best.into_iter()
        .map(|b| (b.id != u32::MAX).then_some(b.id))
        .collect()
}

/// Unit vectors of the distinct question words, and each question's three rows in it.
fn question_words(
    embedding: &Embedding,
    questions: &[[u32; 3]],
    n_rows: usize,
) -> (Array2<f32>, Vec<[usize; 3]>) {
    let mut slot_of = vec![u32::MAX; n_rows];
    let mut ids = Vec::new();
    let slots = questions
        .iter()
        .map(|q| {
            q.map(|id| {
                let s = &mut slot_of[id as usize];
                if *s == u32::MAX {
                    *s = ids.len() as u32;
                    ids.push(id);
                }
                *s as usize
            })
        })
        .collect();
    let mut words = Array2::zeros((ids.len(), embedding.dim()));
    for (mut row, &id) in words.rows_mut().into_iter().zip(&ids) {
        row.assign(&embedding.unit_row(id));
    }
    (words, slots)
}

/// Best candidate so far for one question.
#[derive(Debug, Clone, Copy)]
struct Best {
    score: f32,
    id: u32,
}

impl Best {
    const NONE: Best = Best {
        score: f32::NEG_INFINITY,
        id: u32::MAX,
    };

    fn better(&self, other: &Best) -> bool {
        self.score > other.score || (self.score == other.score && self.id < other.id)
    }
}

fn merge(mut a: Vec<Best>, b: Vec<Best>) -> Vec<Best> {
    for (x, y) in a.iter_mut().zip(b) {
        if y.better(x) {
            *x = y;
        }
    }
    a
}

/// One worker's state: best per question plus reusable scratch.
struct Partial {
    best: Vec<Best>,
    scores: Array2<f32>,
    combined: Vec<f32>,
}

impl Partial {
    fn new(questions: usize, words: usize, block: usize) -> Self {
        Partial {
            best: vec![Best::NONE; questions],
            scores: Array2::zeros((words, block)),
            combined: vec![0.0; block],
        }
    }
}

/// What every block needs to read.
struct Context<'a> {
    embedding: &'a Embedding,
    lookup: &'a WordLookup<'a>,
    questions: &'a [[u32; 3]],
    slots: &'a [[usize; 3]],
    words: &'a Array2<f32>,
    method: AnalogyMethod,
}

impl Context<'_> {
    /// Scores candidate rows `rows` for every question.
    fn scan(&self, rows: Range<usize>, acc: &mut Partial) {
        let (start, len) = (rows.start, rows.len());
        let mut scores = acc.scores.slice_mut(s![.., ..len]);
        self.embedding
            .cosine_block(self.words.view(), rows, scores.view_mut());
        let scores = acc.scores.view();
        let combined = &mut acc.combined[..len];
        for ((q, slot), best) in self.questions.iter().zip(self.slots).zip(&mut acc.best) {
            let row = |i: usize| &scores.row(slot[i]).to_slice().expect("standard layout")[..len];
            combine(self.method, row(0), row(1), row(2), combined);
            for &word in q {
                self.exclude(word, start, combined);
            }
            if let Some((score, j)) = argmax(combined) {
                let cand = Best {
                    score,
                    id: (start + j) as u32,
                };
                if cand.better(best) {
                    *best = cand;
                }
            }
        }
    }

    /// Rules out `word` (and its case variants) if it falls in this block.
    fn exclude(&self, word: u32, start: usize, combined: &mut [f32]) {
        let class = self.lookup.class(word);
        for &id in std::iter::once(&class).chain(self.lookup.other_members(class)) {
            if let Some(v) = (id as usize)
                .checked_sub(start)
                .and_then(|j| combined.get_mut(j))
            {
                *v = f32::NEG_INFINITY;
            }
        }
    }
}

/// Per-candidate score from the cosines with a, b and c.
fn combine(method: AnalogyMethod, a: &[f32], b: &[f32], c: &[f32], out: &mut [f32]) {
    let it = out.iter_mut().zip(a).zip(b).zip(c);
    match method {
        AnalogyMethod::CosAdd => it.for_each(|(((o, &a), &b), &c)| *o = b - a + c),
        AnalogyMethod::CosMul => it.for_each(|(((o, &a), &b), &c)| {
            *o = (0.5 * (b + 1.0)) * (0.5 * (c + 1.0)) / (0.5 * (a + 1.0) + COSMUL_EPSILON)
        }),
    }
}

/// Largest value and its first position; `None` if every value is -inf or NaN.
fn argmax(xs: &[f32]) -> Option<(f32, usize)> {
    let mut lanes = [f32::NEG_INFINITY; 8];
    let mut chunks = xs.chunks_exact(8);
    for chunk in &mut chunks {
        for (m, &v) in lanes.iter_mut().zip(chunk) {
            *m = if v > *m { v } else { *m };
        }
    }
    let max = chunks
        .remainder()
        .iter()
        .chain(&lanes)
        .fold(f32::NEG_INFINITY, |m, &v| if v > m { v } else { m });
    if max == f32::NEG_INFINITY {
        return None;
    }
    xs.iter().position(|&v| v == max).map(|j| (max, j))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argmax_first_of_ties_skips_nan_and_minus_infinity() {
        let mut v = vec![0.0f32; 21];
        v[3] = 2.0;
        v[17] = 2.0;
        v[5] = f32::NAN;
        assert_eq!(argmax(&v), Some((2.0, 3)));
        assert_eq!(argmax(&[f32::NEG_INFINITY, f32::NAN]), None);
        assert_eq!(argmax(&[]), None);
        assert_eq!(argmax(&[-1.0, -0.5]), Some((-0.5, 1)));
    }

    #[test]
    fn combine_by_hand() {
        let mut out = [0.0f32; 2];
        combine(
            AnalogyMethod::CosAdd,
            &[0.5, 0.0],
            &[1.0, 0.5],
            &[0.25, 0.5],
            &mut out,
        );
        assert_eq!(out, [0.75, 1.0]);
        // 3CosMul: ((1+1)/2 * (0+1)/2) / ((-1+1)/2 + 0.001) = 0.5 / 0.001 = 500.
        combine(
            AnalogyMethod::CosMul,
            &[-1.0, 1.0],
            &[1.0, 1.0],
            &[0.0, 1.0],
            &mut out,
        );
        assert!((out[0] - 500.0).abs() < 1e-3, "{}", out[0]);
        assert!((out[1] - 1.0 / 1.001).abs() < 1e-6);
    }
}
