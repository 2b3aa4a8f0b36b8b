//! One projection, start to end, for the workbench and the command line
//! alike: choose the words ([`choose`], or [`Chosen::new`] from a
//! [`select::select`]ion), optionally with a second run rotated onto the
//! first ([`choose_pair`]), then lay them out through the registry
//! ([`Chosen::lay_out`]). Callers only turn the [`Projected`] result into
//! what they show: the workbench's layout messages, the command line's plot
//! or CSV.

use ndarray::Array2;

use crate::embedding::{align, Embedding};
use crate::project::layout::{PairLayout, B_MARK};
use crate::project::registry::{self, Input, Laid, Progress, Projection};
use crate::project::select::{self, Groups, Selected};
use crate::schema::Params;
use crate::{Error, Result};

/// Which words to project, as typed in the workbench.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Focus {
    /// The `n` most frequent words.
    Top(usize),
    /// These words.
    List(Vec<String>),
    /// A word and its `n` nearest neighbours.
    Neighborhood(String, usize),
}

impl Focus {
    /// From the focus text: empty → top `n`, one word → its neighbourhood,
    /// several → that list.
    pub fn parse(text: &str, n: usize) -> Focus {
        let words: Vec<String> = text
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|w| !w.is_empty())
            .map(String::from)
            .collect();
        match words.len() {
            0 => Focus::Top(n),
            1 => Focus::Neighborhood(words[0].clone(), n),
            _ => Focus::List(words),
        }
    }
}

/// The words to lay out and their vectors.
#[derive(Debug, Clone)]
pub struct Chosen {
    /// The words (and their ids and groups).
    pub selected: Selected,
    /// One row per word.
    pub vectors: Array2<f32>,
    /// Set when the rows are two runs' (A's, then B's rotated onto A).
    pub pair: Option<PairLayout>,
}

/// A finished projection.
#[derive(Debug, Clone)]
pub struct Projected {
    /// The words laid out.
    pub selected: Selected,
    /// Their layout.
    pub laid: Laid,
    /// How the two runs of a pair were aligned.
    pub pair: Option<PairLayout>,
}

impl Chosen {
    /// `selected`'s rows of `embedding`, unit length when `unit` (cosine).
    pub fn new(embedding: &Embedding, selected: Selected, unit: bool) -> Chosen {
        Chosen {
            vectors: selected.vectors(embedding, unit),
            selected,
            pair: None,
        }
    }

    /// Lays the words out by `projection` with its options `params` in
    /// `dims` dimensions (see [`registry::lay_out`]).
    pub fn lay_out(
        self,
        projection: &Projection,
        params: &Params,
        dims: usize,
        seed: u64,
        progress: &mut dyn Progress,
    ) -> Result<Projected> {
        let input = Input {
            vectors: self.vectors,
            words: &self.selected.words,
            dims,
            seed,
        };
        let laid = registry::lay_out(projection, input, params, progress)?;
        Ok(Projected {
            selected: self.selected,
            laid,
            pair: self.pair,
        })
    }
}

/// The words of `focus` that `embedding` has (case folded as a fallback),
/// as unit rows.
pub fn choose(embedding: &Embedding, focus: &Focus) -> Result<Chosen> {
    Ok(Chosen::new(embedding, pick(embedding, focus)?, true))
}

/// Words whose alignment is listed as moved most.
const MOVED: usize = 30;

/// Shared words the rotation is fitted on and the moved words are listed
/// from: among A's most frequent (files list frequent words first), as
/// `wordbench align --top` chooses; rare words' vectors are too noisy to
/// say that they moved (a first try with 20,000 listed only rare words).
const ALIGN_TOP: usize = 5_000;

/// The words of `focus` that both runs have, as A's unit rows followed by
/// B's rotated onto A (Procrustes over the runs' shared frequent words);
/// B's points are named with [`B_MARK`]. The pair's `b_run` is left 0 for
/// the caller to set.
pub fn choose_pair(a: &Embedding, b: &Embedding, focus: &Focus) -> Result<Chosen> {
    let alignment = align::procrustes(b, a, Some(ALIGN_TOP))?;
    let rotated = alignment.apply(b, a.dim())?;
    let mut selected = pick(a, focus)?;
    let keep: Vec<bool> = selected.words.iter().map(|w| b.id(w).is_some()).collect();
    let (ids, words): (Vec<u32>, Vec<String>) = selected
        .ids
        .iter()
        .zip(&selected.words)
        .zip(&keep)
        .filter(|(_, &k)| k)
        .map(|((&i, w), _)| (i, w.clone()))
        .unzip();
    if words.len() < 2 {
        return Err(Error::param(
            "words",
            format!(
                "run B has {} of the selected words; a pair projection needs 2",
                words.len()
            ),
        ));
    }
    let a_rows = select::Selected {
        ids: ids.clone(),
        words: words.clone(),
        groups: None,
        missing: Vec::new(),
    }
    .vectors(a, true);
    let n = words.len();
    let mut vectors = Array2::<f32>::zeros((2 * n, a.dim()));
    vectors.slice_mut(ndarray::s![..n, ..]).assign(&a_rows);
    for (r, w) in words.iter().enumerate() {
        let id = rotated.id(w).expect("B has every kept word");
        vectors.row_mut(n + r).assign(&rotated.row(id));
    }
    let marked = words.iter().map(|w| format!("{w}{B_MARK}"));
    selected.ids = ids.iter().copied().chain(ids.iter().copied()).collect();
    selected.words = words.iter().cloned().chain(marked).collect();
    selected.groups = None;
    let pair = PairLayout {
        b_run: 0,
        a_points: n,
        shared: alignment.shared.len(),
        mean_cosine: alignment.mean_cosine,
        moved: alignment
            .moved
            .iter()
            .take(MOVED)
            .map(|m| (m.word.clone(), m.cosine))
            .collect(),
    };
    Ok(Chosen {
        selected,
        vectors,
        pair: Some(pair),
    })
}

/// The two colour groups of a pair layout: run A's points (`A {a}`), then
/// run B's (`B {b}`).
pub fn pair_groups(points: usize, a_points: usize, a: &str, b: &str) -> Groups {
    let names: Vec<String> = (0..points)
        .map(|i| {
            if i < a_points {
                format!("A {a}")
            } else {
                format!("B {b}")
            }
        })
        .collect();
    Groups::from_names(&names)
}

/// The words of a focus that the vectors have (case folded as a fallback).
fn pick(embedding: &Embedding, focus: &Focus) -> Result<Selected> {
    let known = |w: &str| {
        [w.to_string(), w.to_lowercase()]
            .into_iter()
            .find(|c| embedding.id(c).is_some())
    };
    match focus {
        Focus::Top(n) => select::select(embedding, &select::Selection::Top(*n)),
        Focus::Neighborhood(word, n) => {
            let word = known(word).ok_or_else(|| Error::UnknownWord(word.clone()))?;
            select::select(
                embedding,
                &select::Selection::Around {
                    word,
                    count: n.saturating_sub(1).max(1),
                },
            )
        }
        Focus::List(words) => {
            let mut s = Selected {
                ids: Vec::new(),
                words: Vec::new(),
                groups: None,
                missing: Vec::new(),
            };
            for w in words {
                match known(w).and_then(|k| embedding.id(&k).map(|id| (k, id))) {
                    Some((k, id)) if !s.ids.contains(&id) => {
                        s.ids.push(id);
                        s.words.push(k);
                    }
                    Some(_) => {}
                    None => s.missing.push(w.clone()),
                }
            }
            if s.len() < 2 {
                return Err(Error::param(
                    "words",
                    format!(
                        "{} known word(s); a projection needs at least 2 (unknown: {})",
                        s.len(),
                        s.missing.join(", ")
                    ),
                ));
            }
            Ok(s)
        }
    }
}
