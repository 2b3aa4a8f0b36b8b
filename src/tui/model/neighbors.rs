//! The Neighbours screen's state and query language: a word (completed from the vocabulary), gensim's
//! queries typed in the word field (`king -man +woman` for `most_similar`,
//! `? breakfast cereal dinner lunch` for `doesnt_match`) or an analogy
//! `a : b :: c : ?`, answered by the picked runs side by side; `m` switches
//! how several words combine (3CosAdd or 3CosMul), `w` how a single word's
//! neighbours are ranked (cosine, or a dsnmf model's Ŝ walk).
//!
//! Searches run while the user types: each keystroke that forms a known word
//! sends a request tagged with a fresh id, and only the answer to the latest
//! request of each side is kept.

use crate::embedding::{Combine, Embedding, Neighbor};
use crate::tui::input::LineInput;

/// A neighbour query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Query {
    /// Nearest words to a word.
    Word(String),
    /// `a : b :: c : ?`
    Analogy(String, String, String),
    /// gensim's `most_similar(positive, negative)`: typed `king -man +woman`.
    Similar {
        /// Words to be near.
        positive: Vec<String>,
        /// Words to be far from.
        negative: Vec<String>,
    },
    /// gensim's `doesnt_match`: typed `? breakfast cereal dinner lunch`; the
    /// words ranked by cosine to their mean, the odd one out first.
    OddOneOut(Vec<String>),
    /// The sense of a word that a sentence picks (a senses run), typed
    /// `bank | they fished from the river bank`; its neighbours.
    InContext {
        /// The word.
        word: String,
        /// The sentence around it.
        context: String,
    },
}

impl Query {
    /// Every word the query names.
    pub fn words(&self) -> Vec<&str> {
        match self {
            Query::Word(w) => vec![w],
            Query::Analogy(a, b, c) => vec![a, b, c],
            Query::Similar { positive, negative } => positive
                .iter()
                .chain(negative)
                .map(String::as_str)
                .collect(),
            Query::OddOneOut(words) => words.iter().map(String::as_str).collect(),
            Query::InContext { word, .. } => vec![word],
        }
    }

    /// The same query with every word mapped (to the spelling a run knows).
    pub fn map_words(&self, mut f: impl FnMut(&str) -> String) -> Query {
        let mut all = |ws: &[String]| ws.iter().map(|w| f(w)).collect::<Vec<_>>();
        match self {
            Query::Word(w) => Query::Word(all(std::slice::from_ref(w)).remove(0)),
            Query::Analogy(a, b, c) => {
                let v = all(&[a.clone(), b.clone(), c.clone()]);
                Query::Analogy(v[0].clone(), v[1].clone(), v[2].clone())
            }
            Query::Similar { positive, negative } => Query::Similar {
                positive: all(positive),
                negative: all(negative),
            },
            Query::OddOneOut(words) => Query::OddOneOut(all(words)),
            Query::InContext { word, context } => Query::InContext {
                word: f(word),
                context: context.clone(),
            },
        }
    }

    /// Short text for titles: `king`, `man:king::woman:?`, `king -man +woman`.
    pub fn describe(&self) -> String {
        match self {
            Query::Word(w) => w.clone(),
            Query::Analogy(a, b, c) => format!("{a}:{b}::{c}:?"),
            Query::Similar { positive, negative } => {
                let mut parts: Vec<String> = positive.iter().map(|w| format!("+{w}")).collect();
                parts.extend(negative.iter().map(|w| format!("-{w}")));
                parts.join(" ").trim_start_matches('+').to_string()
            }
            Query::OddOneOut(words) => format!("odd one out of {}", words.join(" ")),
            Query::InContext { word, context } => format!("{word} in '{context}'"),
        }
    }
}

/// How the neighbours of a single word are ranked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Ranking {
    /// Cosine of the vectors (every run).
    #[default]
    Cosine,
    /// The probability of a word → topic → word walk, `Ŝ_ij = Σ_k W_ik W_jk / s_k`,
    /// the similarity a dsnmf model learned (its rows are `P(topic | word)`).
    Walk,
}

impl Ranking {
    /// Its name on the screen.
    pub fn name(self) -> &'static str {
        match self {
            Ranking::Cosine => "cosine",
            Ranking::Walk => "Ŝ walk",
        }
    }

    /// How a run of `method` ranks a word's neighbours under this choice:
    /// the walk is a dsnmf model's (its rows are `P(topic | word)`); every
    /// other run keeps cosine.
    pub fn for_method(self, method: &str) -> Ranking {
        if method == crate::algo::dsnmf::DSNMF.name {
            self
        } else {
            Ranking::Cosine
        }
    }
}

/// The note above a run's answer when the walk was asked for and the run
/// ranks by cosine instead.
pub fn walk_fallback(method: &str) -> String {
    format!("cosine: the Ŝ walk ranks dsnmf runs only (this is {method})")
}

/// Which input has the keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NeighborsFocus {
    /// The word input.
    #[default]
    Word,
    /// The analogy input (`a b c`).
    Analogy,
}

/// One side's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// What was asked.
    pub query: Query,
    /// The run that answered.
    pub run: usize,
    /// Neighbours or why not.
    pub result: Result<Found, String>,
}

/// What a run found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Found {
    /// The neighbours, nearest first.
    pub neighbors: Vec<Neighbor>,
    /// For a word with senses (a senses run): each sense's neighbours.
    pub senses: Vec<SenseNeighbors>,
    /// A line above the list (which sense a sentence picked, and why).
    pub note: Option<String>,
}

impl From<Vec<Neighbor>> for Found {
    fn from(neighbors: Vec<Neighbor>) -> Found {
        Found {
            neighbors,
            ..Found::default()
        }
    }
}

/// One sense of a word and its neighbours (AdaGram's and SenseGram's view).
#[derive(Debug, Clone, PartialEq)]
pub struct SenseNeighbors {
    /// Its row name, `word#j`.
    pub name: String,
    /// Its strongest context words.
    pub label: String,
    /// Its share of the word's PPMI mass.
    pub mass: f32,
    /// The neighbours of its row.
    pub neighbors: Vec<Neighbor>,
}

/// The Neighbours screen.
#[derive(Debug, Clone)]
pub struct NeighborsView {
    /// Focused input.
    pub focus: NeighborsFocus,
    /// The word.
    pub word: LineInput,
    /// The analogy words.
    pub analogy: LineInput,
    /// An input is being typed.
    pub editing: bool,
    /// Neighbours per run.
    pub k: usize,
    /// The last question asked.
    pub query: Option<Query>,
    /// Answers for A and B.
    pub answers: [Option<Answer>; 2],
    /// Latest request per side (older answers are dropped).
    pub pending: [Option<u64>; 2],
    /// Vocabulary words starting with what is typed, most frequent first.
    pub suggestions: Vec<String>,
    /// How several query words combine.
    pub combine: Combine,
    /// How a single word's neighbours are ranked.
    pub ranking: Ranking,
}

impl Default for NeighborsView {
    fn default() -> Self {
        NeighborsView {
            focus: NeighborsFocus::Word,
            word: LineInput::default(),
            analogy: LineInput::default(),
            editing: false,
            k: 10,
            query: None,
            answers: [None, None],
            pending: [None, None],
            suggestions: Vec::new(),
            combine: Combine::Add,
            ranking: Ranking::Cosine,
        }
    }
}

/// What the word field asks: one word, `a -b +c` (most similar),
/// `? a b c` (the odd one out), or `word | a sentence` (the sense it picks).
pub fn parse_query(text: &str) -> Result<Query, String> {
    let text = text.trim();
    if let Some((word, context)) = text.split_once('|') {
        let (word, context) = (word.trim(), context.trim());
        if word.is_empty() || word.contains(char::is_whitespace) || context.is_empty() {
            return Err("a word in context is one word | a sentence: bank | the river bank".into());
        }
        return Ok(Query::InContext {
            word: word.to_string(),
            context: context.to_string(),
        });
    }
    if let Some(rest) = text.strip_prefix('?') {
        let words: Vec<String> = rest.split_whitespace().map(String::from).collect();
        if words.len() < 2 {
            return Err("? needs two or more words: ? breakfast cereal dinner lunch".into());
        }
        return Ok(Query::OddOneOut(words));
    }
    let tokens: Vec<&str> = text.split_whitespace().collect();
    if tokens.len() == 1 && !tokens[0].starts_with(['-', '+']) {
        return Ok(Query::Word(tokens[0].to_string()));
    }
    let (mut positive, mut negative) = (Vec::new(), Vec::new());
    let mut sign = '+';
    for t in tokens {
        match t {
            "+" | "-" => sign = t.chars().next().unwrap_or('+'),
            _ => {
                let (s, w) = match t.strip_prefix(['-', '+']) {
                    Some(w) => (t.chars().next().unwrap_or('+'), w),
                    None => (sign, t),
                };
                if !w.is_empty() {
                    if s == '-' {
                        &mut negative
                    } else {
                        &mut positive
                    }
                    .push(w.to_string());
                }
                sign = '+';
            }
        }
    }
    if positive.is_empty() {
        return Err("a query needs a positive word: king -man +woman".into());
    }
    Ok(Query::Similar { positive, negative })
}

/// Up to `n` words of `embedding` (rows are frequency-sorted) starting with `prefix`.
pub fn suggest(embedding: &Embedding, prefix: &str, n: usize) -> Vec<String> {
    if prefix.is_empty() {
        return Vec::new();
    }
    embedding
        .words()
        .words()
        .iter()
        .filter(|w| w.starts_with(prefix))
        .take(n)
        .cloned()
        .collect()
}

/// The word as the vectors know it: as typed, else lower-cased.
pub fn known(embedding: &Embedding, word: &str) -> Option<String> {
    let lower = word.to_lowercase();
    [word.to_string(), lower]
        .into_iter()
        .find(|w| embedding.id(w).is_some())
}
