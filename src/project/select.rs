//! Which words to project, and how to colour them.
//!
//! Three ways to pick words: the `N` most frequent (vector files list words
//! by frequency, so the first `N` rows), a word-list file, or a word and its
//! nearest neighbours. Colour groups come from the word list's second column
//! when it has one, else from k-means of the selected vectors.

use std::path::{Path, PathBuf};

use ndarray::{Array2, Axis};

use crate::embedding::{Embedding, NeighborParams};
use crate::geometry::kmeans::kmeans;
use crate::{Error, Result};

/// How the words are chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selection {
    /// The first `n` rows (the most frequent words).
    Top(usize),
    /// Words listed in a file: `word [group]` per line, `#` comments.
    List(PathBuf),
    /// A word and its `count` nearest neighbours by cosine.
    Around {
        /// The centre word.
        word: String,
        /// Neighbours to add.
        count: usize,
    },
}

/// The chosen words, in plot order (most important first: labels are placed in this order).
#[derive(Debug, Clone, PartialEq)]
pub struct Selected {
    /// Row ids in the embedding.
    pub ids: Vec<u32>,
    /// The words.
    pub words: Vec<String>,
    /// Group name per word, from a word list's second column.
    pub groups: Option<Vec<String>>,
    /// Listed words that the embedding does not have.
    pub missing: Vec<String>,
}

impl Selected {
    /// Number of words.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True when nothing was selected.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The selected rows as a matrix; unit length when `unit` (cosine geometry).
    pub fn vectors(&self, emb: &Embedding, unit: bool) -> Array2<f32> {
        let mut m = Array2::zeros((self.ids.len(), emb.dim()));
        for (mut row, &id) in m.axis_iter_mut(Axis(0)).zip(&self.ids) {
            if unit {
                row.assign(&emb.unit_row(id));
            } else {
                row.assign(&emb.row(id));
            }
        }
        m
    }

    /// A short description for titles: "300 most frequent words", ...
    pub fn describe(&self, how: &Selection) -> String {
        match how {
            Selection::Top(_) => format!("{} most frequent words", self.len()),
            Selection::List(p) => format!(
                "{} words from {}",
                self.len(),
                p.file_name().map_or_else(
                    || p.display().to_string(),
                    |f| f.to_string_lossy().into_owned()
                )
            ),
            Selection::Around { word, .. } => {
                format!(
                    "'{word}' and its {} nearest neighbours",
                    self.len().saturating_sub(1)
                )
            }
        }
    }
}

/// Picks words from `emb`. Fails when nothing is left to show.
pub fn select(emb: &Embedding, how: &Selection) -> Result<Selected> {
    let selected = match how {
        Selection::Top(n) => {
            let n = (*n).min(emb.len());
            Selected {
                ids: (0..n as u32).collect(),
                words: (0..n as u32)
                    .map(|i| emb.words().word(i).to_string())
                    .collect(),
                groups: None,
                missing: Vec::new(),
            }
        }
        Selection::List(path) => from_list(emb, path)?,
        Selection::Around { word, count } => {
            let id = emb
                .id(word)
                .ok_or_else(|| Error::UnknownWord(word.clone()))?;
            let mut ids = vec![id];
            ids.extend(
                emb.neighbors(word, NeighborParams::k(*count))?
                    .iter()
                    .map(|n| n.id),
            );
            Selected {
                words: ids
                    .iter()
                    .map(|&i| emb.words().word(i).to_string())
                    .collect(),
                ids,
                groups: None,
                missing: Vec::new(),
            }
        }
    };
    if selected.is_empty() {
        return Err(Error::param("words", "no words selected"));
    }
    Ok(selected)
}

/// Reads a word list and keeps the words the embedding has (each once).
fn from_list(emb: &Embedding, path: &Path) -> Result<Selected> {
    let entries = read_word_list(path)?;
    let any_group = entries.iter().any(|e| e.1.is_some());
    let mut seen = std::collections::HashSet::new();
    let (mut ids, mut words, mut groups, mut missing) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (word, group) in entries {
        match emb.id(&word) {
            Some(id) if seen.insert(id) => {
                ids.push(id);
                words.push(word);
                groups.push(group.unwrap_or_else(|| "other".to_string()));
            }
            Some(_) => {}
            None => missing.push(word),
        }
    }
    if ids.is_empty() {
        return Err(Error::format(
            path,
            format!(
                "none of the {} listed words is in the embedding",
                missing.len()
            ),
        ));
    }
    Ok(Selected {
        ids,
        words,
        groups: any_group.then_some(groups),
        missing,
    })
}

/// Parses a word list: one `word [group]` per line (whitespace separated; a
/// group name may contain spaces); blank lines and lines starting with `#` are skipped.
pub fn read_word_list(path: &Path) -> Result<Vec<(String, Option<String>)>> {
    crate::corpus::source::check_regular(path)?;
    let text = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let text = String::from_utf8(text).map_err(|e| {
        Error::format(
            path,
            format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to()),
        )
    })?;
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut parts = line.split_whitespace();
        let word = parts.next().unwrap_or_default().to_string();
        let group: Vec<&str> = parts.collect();
        out.push((word, (!group.is_empty()).then(|| group.join(" "))));
    }
    Ok(out)
}

/// Colour groups: a label per word and the groups' names.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Groups {
    /// Group index of each word.
    pub labels: Vec<usize>,
    /// Name of each group (for the legend).
    pub names: Vec<String>,
    /// Whether the names mean something (word-list groups) or are just cluster numbers.
    pub named: bool,
}

impl Groups {
    /// Groups from per-word names, numbered by first appearance.
    pub fn from_names(names: &[String]) -> Groups {
        let mut order: Vec<String> = Vec::new();
        let labels = names
            .iter()
            .map(|n| match order.iter().position(|o| o == n) {
                Some(p) => p,
                None => {
                    order.push(n.clone());
                    order.len() - 1
                }
            })
            .collect();
        Groups {
            labels,
            names: order,
            named: true,
        }
    }

    /// `k` k-means clusters of `vectors` (rows as given; pass unit rows for cosine).
    pub fn from_kmeans(vectors: &Array2<f32>, k: usize, seed: u64) -> Groups {
        let labels = kmeans(vectors.view(), k, seed);
        let count = labels.iter().max().map_or(0, |m| m + 1);
        Groups {
            labels,
            names: (1..=count).map(|c| format!("cluster {c}")).collect(),
            named: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::words::WordIndex;
    use ndarray::array;

    fn emb() -> Embedding {
        let words = ["the", "cat", "dog", "car", "bus"]
            .map(String::from)
            .to_vec();
        Embedding::new(
            WordIndex::from_words(words),
            array![
                [1.0f32, 1.0],
                [1.0, 0.1],
                [1.0, 0.2],
                [-1.0, 0.1],
                [-1.0, 0.2]
            ],
        )
        .unwrap()
    }

    #[test]
    fn top_and_around() {
        let e = emb();
        let s = select(&e, &Selection::Top(3)).unwrap();
        assert_eq!(s.words, vec!["the", "cat", "dog"]);
        let s = select(&e, &Selection::Top(99)).unwrap();
        assert_eq!(s.len(), 5);
        let around = Selection::Around {
            word: "cat".into(),
            count: 1,
        };
        let s = select(&e, &around).unwrap();
        assert_eq!(s.words, vec!["cat", "dog"]);
        assert_eq!(s.describe(&around), "'cat' and its 1 nearest neighbours");
        let bad = Selection::Around {
            word: "zebra".into(),
            count: 3,
        };
        assert!(matches!(select(&e, &bad), Err(Error::UnknownWord(_))));
        let v = s.vectors(&e, true);
        assert!((v.row(0).dot(&v.row(0)) - 1.0).abs() < 1e-6);
    }

    #[test]
    fn word_list_with_groups_and_missing_words() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("words.txt");
        std::fs::write(&path, "# animals and vehicles\ncat animal\ndog animal\n\nzebra animal\ncar vehicle\ncat animal\nbus\n").unwrap();
        let s = select(&emb(), &Selection::List(path.clone())).unwrap();
        assert_eq!(s.words, vec!["cat", "dog", "car", "bus"]);
        assert_eq!(s.missing, vec!["zebra"]);
        let g = Groups::from_names(s.groups.as_ref().unwrap());
        assert_eq!(g.labels, vec![0, 0, 1, 2]);
        assert_eq!(g.names, vec!["animal", "vehicle", "other"]);
        std::fs::write(&path, "zebra\nlion\n").unwrap();
        let e = select(&emb(), &Selection::List(path.clone()))
            .unwrap_err()
            .to_string();
        assert!(
            e.ends_with("none of the 2 listed words is in the embedding"),
            "{e}"
        );
        assert!(read_word_list(&dir.path().join("nope.txt")).is_err());
    }

    #[test]
    fn kmeans_groups_follow_the_vectors() {
        let e = emb();
        let s = select(&e, &Selection::Top(5)).unwrap();
        let g = Groups::from_kmeans(&s.vectors(&e, true), 2, 1);
        assert_eq!(g.labels[1], g.labels[2]);
        assert_eq!(g.labels[3], g.labels[4]);
        assert_ne!(g.labels[1], g.labels[3]);
        assert!(!g.named);
    }
}
