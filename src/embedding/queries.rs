//! gensim's word queries on an [`Embedding`]: `most_similar` with positive
//! and negative words (added, or combined multiplicatively as 3CosMul) and
//! `doesnt_match`, with gensim's definitions so answers agree with it.

use ndarray::Array1;
use serde::{Deserialize, Serialize};

use super::{Embedding, Neighbor, NeighborParams};
use crate::topk::TopK;
use crate::{Error, Result};

/// How the query words combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Combine {
    /// Nearest by cosine to the mean of the ±unit vectors (gensim's
    /// `most_similar`; for `b - a + c` it is 3CosAdd).
    #[default]
    Add,
    /// Largest `Π (1 + cos(x, p))/2 / (Π (1 + cos(x, n))/2 + 1e-6)` (gensim's
    /// `most_similar_cosmul`, Levy & Goldberg's 3CosMul).
    Mul,
}

impl Combine {
    /// Its usual name.
    pub fn name(self) -> &'static str {
        match self {
            Combine::Add => "3CosAdd",
            Combine::Mul => "3CosMul",
        }
    }
}

/// The words of a query like `king -man +woman`: a word or `+word` adds,
/// `-word` subtracts, and a lone `-` or `+` signs the next word.
pub fn signed_terms(text: &str) -> (Vec<String>, Vec<String>) {
    let (mut positive, mut negative) = (Vec::new(), Vec::new());
    let mut minus = false;
    for token in text.split_whitespace() {
        match token {
            "-" => minus = true,
            "+" => minus = false,
            _ => {
                let (m, word) = match token.strip_prefix('-') {
                    Some(w) => (true, w),
                    None => (minus, token.strip_prefix('+').unwrap_or(token)),
                };
                if !word.is_empty() {
                    if m { &mut negative } else { &mut positive }.push(word.to_string());
                }
                minus = false;
            }
        }
    }
    (positive, negative)
}

impl Embedding {
    fn ids(&self, words: &[&str]) -> Result<Vec<u32>> {
        words
            .iter()
            .map(|w| self.id(w).ok_or_else(|| Error::UnknownWord(w.to_string())))
            .collect()
    }

    /// The `k` words most similar to `positive` and least to `negative`,
    /// the query words excluded; with [`Combine::Mul`] the scores are
    /// 3CosMul's, not cosines.
    pub fn most_similar(
        &self,
        positive: &[&str],
        negative: &[&str],
        combine: Combine,
        params: NeighborParams,
    ) -> Result<Vec<Neighbor>> {
        if positive.is_empty() {
            return Err(Error::param("query", "at least one positive word"));
        }
        let (pos, neg) = (self.ids(positive)?, self.ids(negative)?);
        let exclude: Vec<u32> = pos.iter().chain(&neg).copied().collect();
        match combine {
            Combine::Add => {
                let mut mean = Array1::<f32>::zeros(self.dim());
                for &id in &pos {
                    mean += &self.unit_row(id);
                }
                for &id in &neg {
                    mean -= &self.unit_row(id);
                }
                self.neighbors_of_vector(mean.view(), params, &exclude)
            }
            Combine::Mul => Ok(self.cosmul(&pos, &neg, &exclude, params)),
        }
    }

    /// 3CosMul over every candidate row (gensim shifts cosines to [0, 1]).
    fn cosmul(
        &self,
        pos: &[u32],
        neg: &[u32],
        exclude: &[u32],
        params: NeighborParams,
    ) -> Vec<Neighbor> {
        let inv = Array1::from(self.inv_norms().to_vec());
        let shifted = |id: u32| -> Array1<f32> {
            let cos = self.vectors().dot(&self.unit_row(id)) * &inv;
            (cos + 1.0) / 2.0
        };
        let n = params.limit.unwrap_or(self.len()).min(self.len());
        let mut num = Array1::<f32>::ones(self.len());
        for &id in pos {
            num *= &shifted(id);
        }
        let mut den = Array1::<f32>::ones(self.len());
        for &id in neg {
            den *= &shifted(id);
        }
        let mut top = TopK::new(params.k);
        for (i, (a, b)) in num.iter().zip(&den).enumerate().take(n) {
            let id = i as u32;
            let score = if neg.is_empty() { *a } else { a / (b + 1e-6) };
            if score.is_finite() && !exclude.contains(&id) && top.accepts(-score, id) {
                top.push(-score, id);
            }
        }
        top.into_sorted()
            .into_iter()
            .map(|(id, key)| Neighbor {
                word: self.words().word(id).to_string(),
                id,
                score: -key,
            })
            .collect()
    }

    /// gensim's `doesnt_match`: the words ranked by cosine to the mean of
    /// their unit vectors, least similar (the odd one out) first.
    pub fn doesnt_match(&self, words: &[&str]) -> Result<Vec<Neighbor>> {
        if words.len() < 2 {
            return Err(Error::param("query", "at least two words to compare"));
        }
        let ids = self.ids(words)?;
        let units: Vec<Array1<f32>> = ids.iter().map(|&i| self.unit_row(i)).collect();
        let mut mean = Array1::<f32>::zeros(self.dim());
        for u in &units {
            mean += u;
        }
        let norm = mean.dot(&mean).sqrt().max(f32::MIN_POSITIVE);
        let mut ranked: Vec<Neighbor> = ids
            .iter()
            .zip(&units)
            .map(|(&id, u)| Neighbor {
                word: self.words().word(id).to_string(),
                id,
                score: u.dot(&mean) / norm,
            })
            .collect();
        ranked.sort_by(|a, b| a.score.total_cmp(&b.score).then(a.id.cmp(&b.id)));
        Ok(ranked)
    }
}

#[cfg(test)]
mod tests {
    use ndarray::array;

    use super::*;
    use crate::words::WordIndex;

    #[test]
    fn signed_terms_read_plus_and_minus_as_gensim_lists() {
        let (p, n) = signed_terms("king -man +woman");
        assert_eq!(
            (p, n),
            (vec!["king".into(), "woman".into()], vec!["man".into()])
        );
        let (p, n) = signed_terms("king - man + woman -");
        assert_eq!(
            (p, n),
            (vec!["king".into(), "woman".into()], vec!["man".into()])
        );
        assert_eq!(signed_terms("-a"), (vec![], vec!["a".to_string()]));
    }

    fn emb() -> Embedding {
        let words = ["king", "queen", "man", "woman", "apple"]
            .map(String::from)
            .to_vec();
        let v = array![
            [1.0f32, 1.0, 0.0],
            [1.0, -1.0, 0.0],
            [0.1, 1.0, 0.0],
            [0.1, -1.0, 0.0],
            [0.0, 0.0, 1.0],
        ];
        Embedding::new(WordIndex::from_words(words), v).unwrap()
    }

    #[test]
    fn added_query_is_three_cos_add() {
        let e = emb();
        let got = e
            .most_similar(
                &["king", "woman"],
                &["man"],
                Combine::Add,
                NeighborParams::k(1),
            )
            .unwrap();
        assert_eq!(got[0].word, "queen");
        let analogy = e
            .analogy("man", "king", "woman", NeighborParams::k(2))
            .unwrap();
        let words: Vec<_> = analogy.iter().map(|n| &n.word).collect();
        let again = e
            .most_similar(
                &["king", "woman"],
                &["man"],
                Combine::Add,
                NeighborParams::k(2),
            )
            .unwrap();
        assert_eq!(words, again.iter().map(|n| &n.word).collect::<Vec<_>>());
    }

    #[test]
    fn cosmul_matches_its_definition() {
        let e = emb();
        let got = e
            .most_similar(
                &["king", "woman"],
                &["man"],
                Combine::Mul,
                NeighborParams::k(2),
            )
            .unwrap();
        let cos = |a: u32, b: u32| e.cosine(a, b) as f32;
        let shift = |c: f32| (1.0 + c) / 2.0;
        for n in &got {
            let want = shift(cos(n.id, 0)) * shift(cos(n.id, 3)) / (shift(cos(n.id, 2)) + 1e-6);
            assert!((n.score - want).abs() < 1e-5, "{n:?} vs {want}");
        }
        assert_eq!(got[0].word, "queen");
        assert!(got[0].score >= got[1].score);
    }

    #[test]
    fn the_odd_one_out_comes_first() {
        let e = emb();
        let ranked = e.doesnt_match(&["king", "man", "apple"]).unwrap();
        assert_eq!(ranked[0].word, "apple");
        assert_eq!(ranked.len(), 3);
        assert!(e.doesnt_match(&["king"]).is_err());
        assert!(matches!(
            e.doesnt_match(&["king", "zebra"]),
            Err(Error::UnknownWord(w)) if w == "zebra"
        ));
    }
}
