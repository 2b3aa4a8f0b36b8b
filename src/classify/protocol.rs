//! The evaluation protocol of Lucas ch.2 §2.3: tasks (one-vs-rest per label,
//! or one multi-class task), labelled sets drawn with a seed (the smaller
//! sets are prefixes of the largest), both classifiers fitted on each, scores
//! on the test documents, averaged over tasks and then over resamples.

use std::borrow::Cow;
use std::time::Instant;

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

use super::counts::ClassCounts;
use super::dataset::{Document, Labels};
use super::fm::{self, FitReport};
use super::marginals::Marginals;
use super::metrics::{self, Scores};
use super::nb::{self, argmax, NaiveBayes};
use crate::{Error, Result};

/// A classifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Method {
    /// Multinomial naive Bayes with add-one smoothing.
    #[serde(rename = "mnb")]
    Mnb,
    /// MNB with feature marginals.
    #[serde(rename = "mnb-fm")]
    MnbFm,
}

impl Method {
    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Method::Mnb => "mnb",
            Method::MnbFm => "mnb-fm",
        }
    }

    /// Parses `mnb` or `mnb-fm`.
    pub fn parse(text: &str) -> Result<Method> {
        match text {
            "mnb" => Ok(Method::Mnb),
            "mnb-fm" => Ok(Method::MnbFm),
            _ => Err(Error::param(
                "method",
                format!("'{text}' (expected mnb or mnb-fm)"),
            )),
        }
    }
}

/// What the classifiers are asked to tell apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tasks {
    /// One binary task per label: documents with it against the rest.
    OneVsRest(Vec<u32>),
    /// One task over these labels; a document's class is the first of its
    /// labels among them, and documents with none are left out.
    Multiclass(Vec<u32>),
}

/// Where the word marginals come from.
#[derive(Debug, Clone, PartialEq)]
pub enum MarginalSource {
    /// The test documents (the paper's transductive protocol).
    Test,
    /// Every document read (labelled pool, test, the rest of the training file).
    All,
    /// A corpus counted beforehand.
    Corpus(Marginals),
}

/// The words MNB's add-one smoothing counts (`|V|` in its denominator).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MnbVocabulary {
    /// The labelled documents' words and the unlabelled corpus' (the
    /// vocabulary MNB-FM needs; the same for both classifiers).
    #[default]
    Shared,
    /// The labelled documents' words only (scikit-learn's `MultinomialNB`
    /// on features counted from the labelled set); test words outside it
    /// are skipped. MNB-FM keeps the shared vocabulary.
    Labelled,
}

/// How the labelled sets of one resample are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Draw {
    /// One draw serves every task (as if one annotator labelled the
    /// documents for every category).
    #[default]
    Shared,
    /// Each one-vs-rest task draws its own labelled set (seeded by the
    /// resample and the label), as the paper drew per class; without a test
    /// file each task then tests on the rest of its own draw.
    PerTask,
}

/// The settings of one evaluation.
#[derive(Debug, Clone, PartialEq)]
pub struct Protocol {
    /// Labelled set sizes, ascending.
    pub labelled: Vec<usize>,
    /// Seeded draws per size.
    pub resamples: usize,
    /// Seed of the first draw (draw `r` uses `seed + r`).
    pub seed: u64,
    /// Classifiers to fit.
    pub methods: Vec<Method>,
    /// Tasks.
    pub tasks: Tasks,
    /// Marginals for MNB-FM (and the vocabulary of both).
    pub marginals: MarginalSource,
    /// MNB's vocabulary.
    pub mnb_vocabulary: MnbVocabulary,
    /// One draw for all tasks or one per task.
    pub draw: Draw,
}

/// One fit and its scores.
#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    /// Labelled documents.
    pub labelled: usize,
    /// Draw number.
    pub resample: usize,
    /// Classifier.
    pub method: Method,
    /// The task's label (or `multiclass`).
    pub task: String,
    /// Test scores.
    pub scores: Scores,
    /// Words in the vocabulary.
    pub vocabulary: usize,
    /// MNB-FM's fallbacks to add-one (summed over one-vs-rest fits in
    /// multi-class mode); 0 for MNB.
    pub fallbacks: usize,
    /// Seconds spent fitting (counting the labelled set and estimating the
    /// parameters; not scoring the test set).
    pub fit_seconds: f64,
}

/// The documents an evaluation reads: the training file, and the test file
/// when there is one (without it, what is not drawn as labelled is the test).
#[derive(Debug, Clone, Copy)]
pub struct Data<'a> {
    /// Documents labelled sets are drawn from.
    pub train: &'a [Document],
    /// Test documents, if a test file was given.
    pub test: Option<&'a [Document]>,
    /// Lexicon size (word ids are below it).
    pub n_words: usize,
}

/// The labels by document frequency in `docs`, most frequent first (ties by
/// first appearance).
pub fn largest_labels(docs: &[Document], labels: &Labels) -> Vec<u32> {
    let mut freq = vec![0usize; labels.names().len()];
    for d in docs {
        for &l in &d.labels {
            freq[l as usize] += 1;
        }
    }
    let mut ids: Vec<u32> = (0..freq.len() as u32).collect();
    ids.sort_by(|&a, &b| freq[b as usize].cmp(&freq[a as usize]).then(a.cmp(&b)));
    ids
}

/// A seeded draw of the largest labelled set: a permutation prefix.
pub(crate) fn draw(n: usize, take: usize, seed: u64) -> Vec<usize> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x6d6e_625f_666d_0001);
    let mut idx: Vec<usize> = (0..n).collect();
    for i in 0..take.min(n) {
        let j = rng.random_range(i..n);
        idx.swap(i, j);
    }
    idx.truncate(take.min(n));
    idx
}

/// Runs the protocol, calling `progress` after each fit.
pub fn run(
    data: Data<'_>,
    protocol: &Protocol,
    labels: &Labels,
    mut progress: impl FnMut(&Cell),
) -> Result<Vec<Cell>> {
    let largest = *protocol
        .labelled
        .last()
        .ok_or_else(|| Error::param("labelled", "no labelled set size given"))?;
    let pool_limit = if data.test.is_some() {
        data.train.len()
    } else {
        data.train.len().saturating_sub(1)
    };
    if largest > pool_limit {
        return Err(Error::param(
            "labelled",
            format!(
                "{largest} documents asked for, but the training data has {}{}",
                data.train.len(),
                if data.test.is_some() {
                    ""
                } else {
                    " (one must be left to test on)"
                }
            ),
        ));
    }
    let mut cells = Vec::new();
    for r in 0..protocol.resamples {
        let seed = protocol.seed.wrapping_add(r as u64);
        for (tasks, seed) in task_draws(&protocol.tasks, protocol.draw, seed) {
            let pool = draw(data.train.len(), largest, seed);
            let test: Vec<&Document> = match data.test {
                Some(t) => t.iter().collect(),
                None => rest(data.train, &pool),
            };
            let marginals = match &protocol.marginals {
                MarginalSource::Test => Cow::Owned(Marginals::from_documents(test.iter().copied())),
                MarginalSource::All => Cow::Owned(Marginals::from_documents(
                    data.train.iter().chain(data.test.unwrap_or(&[])),
                )),
                MarginalSource::Corpus(m) => Cow::Borrowed(m),
            };
            for &n in &protocol.labelled {
                let labelled: Vec<&Document> = pool[..n].iter().map(|&i| &data.train[i]).collect();
                let vocab = vocabulary(&labelled, &marginals, data.n_words);
                let labelled_only;
                let mnb_vocab: &[bool] = match protocol.mnb_vocabulary {
                    MnbVocabulary::Shared => &vocab,
                    MnbVocabulary::Labelled => {
                        labelled_only = labelled_vocabulary(&labelled, data.n_words);
                        &labelled_only
                    }
                };
                let fit = Fit {
                    labelled: &labelled,
                    test: &test,
                    marginals: &marginals,
                    vocab: &vocab,
                    mnb_vocab,
                };
                for &method in &protocol.methods {
                    let used = match method {
                        Method::Mnb => mnb_vocab,
                        Method::MnbFm => &vocab[..],
                    };
                    for (task, scores, fallbacks, fit_seconds) in fit.tasks(&tasks, method, labels)
                    {
                        let cell = Cell {
                            labelled: n,
                            resample: r,
                            method,
                            task,
                            scores,
                            vocabulary: used.iter().filter(|&&b| b).count(),
                            fallbacks,
                            fit_seconds,
                        };
                        progress(&cell);
                        cells.push(cell);
                    }
                }
            }
        }
    }
    Ok(cells)
}

/// The tasks of one resample with the seed of their labelled draw: all of
/// them on `seed` (a shared draw, or one multi-class task), or each
/// one-vs-rest task on its own seed mixed from `seed` and its label.
pub(crate) fn task_draws(tasks: &Tasks, how: Draw, seed: u64) -> Vec<(Tasks, u64)> {
    match (tasks, how) {
        (Tasks::OneVsRest(ids), Draw::PerTask) => ids
            .iter()
            .map(|&l| {
                let mixed = seed ^ (u64::from(l) + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                (Tasks::OneVsRest(vec![l]), mixed)
            })
            .collect(),
        _ => vec![(tasks.clone(), seed)],
    }
}

/// The documents of `docs` not in `taken`.
pub(crate) fn rest<'a>(docs: &'a [Document], taken: &[usize]) -> Vec<&'a Document> {
    let mut is_taken = vec![false; docs.len()];
    for &i in taken {
        is_taken[i] = true;
    }
    docs.iter()
        .zip(is_taken)
        .filter_map(|(d, t)| (!t).then_some(d))
        .collect()
}

/// The vocabulary: words of the labelled documents and of the unlabelled
/// corpus (no pruning: MNB-FM's gains are on rare and unseen words).
pub fn vocabulary(labelled: &[&Document], marginals: &Marginals, n_words: usize) -> Vec<bool> {
    let mut v: Vec<bool> = (0..n_words).map(|w| marginals.has(w as u32)).collect();
    for d in labelled {
        for &(w, _) in &d.bag {
            v[w as usize] = true;
        }
    }
    v
}

/// The words of the labelled documents only ([`MnbVocabulary::Labelled`]).
pub fn labelled_vocabulary(labelled: &[&Document], n_words: usize) -> Vec<bool> {
    let mut v = vec![false; n_words];
    for d in labelled {
        for &(w, _) in &d.bag {
            v[w as usize] = true;
        }
    }
    v
}

/// One labelled set against one test set.
struct Fit<'a> {
    labelled: &'a [&'a Document],
    test: &'a [&'a Document],
    marginals: &'a Marginals,
    /// MNB-FM's vocabulary (labelled and unlabelled words).
    vocab: &'a [bool],
    /// MNB's vocabulary.
    mnb_vocab: &'a [bool],
}

impl Fit<'_> {
    /// `(task name, scores, fallbacks, fit seconds)` of every task.
    fn tasks(
        &self,
        tasks: &Tasks,
        method: Method,
        labels: &Labels,
    ) -> Vec<(String, Scores, usize, f64)> {
        match tasks {
            Tasks::OneVsRest(ids) => ids
                .iter()
                .map(|&l| {
                    let start = Instant::now();
                    let (model, report) = self.binary(l, method);
                    let seconds = start.elapsed().as_secs_f64();
                    let scores = self.score_binary(&model, l);
                    (
                        labels.name(l).to_string(),
                        scores,
                        report.fallbacks,
                        seconds,
                    )
                })
                .collect(),
            Tasks::Multiclass(ids) => {
                let (scores, fallbacks, seconds) = self.multiclass(ids, method);
                vec![("multiclass".to_string(), scores, fallbacks, seconds)]
            }
        }
    }

    /// Label `l` against the rest.
    fn binary(&self, l: u32, method: Method) -> (NaiveBayes, FitReport) {
        let counts = ClassCounts::new(2, self.vocab.len(), self.labelled.iter().copied(), |d| {
            usize::from(!d.has(l))
        });
        match method {
            Method::Mnb => (
                nb::fit_add_one(&counts, self.mnb_vocab.to_vec()),
                FitReport::default(),
            ),
            Method::MnbFm => fm::fit(&counts, self.marginals, self.vocab.to_vec()),
        }
    }

    fn score_binary(&self, model: &NaiveBayes, l: u32) -> Scores {
        let mut s = Vec::with_capacity(2);
        let mut truth = Vec::with_capacity(self.test.len());
        let mut pred = Vec::with_capacity(self.test.len());
        let mut margin = Vec::with_capacity(self.test.len());
        for d in self.test {
            model.scores(d, &mut s);
            truth.push(usize::from(!d.has(l)));
            pred.push(argmax(&s));
            margin.push(s[0] - s[1]);
        }
        metrics::binary(&truth, &pred, &margin)
    }

    /// One multi-class task. MNB is the usual multi-class model; MNB-FM's
    /// constraint is binary, so it fits one-vs-rest and picks the class
    /// with the largest log-odds.
    fn multiclass(&self, ids: &[u32], method: Method) -> (Scores, usize, f64) {
        let class_of = |d: &Document| {
            d.labels
                .iter()
                .find_map(|l| ids.iter().position(|x| x == l))
        };
        let train: Vec<&Document> = self
            .labelled
            .iter()
            .copied()
            .filter(|d| class_of(d).is_some())
            .collect();
        let test: Vec<&Document> = self
            .test
            .iter()
            .copied()
            .filter(|d| class_of(d).is_some())
            .collect();
        let truth: Vec<usize> = test.iter().map(|d| class_of(d).unwrap_or(0)).collect();
        let mut s = Vec::new();
        let start = Instant::now();
        let (pred, fallbacks, seconds) = match method {
            Method::Mnb => {
                let counts =
                    ClassCounts::new(ids.len(), self.vocab.len(), train.iter().copied(), |d| {
                        class_of(d).unwrap_or(0)
                    });
                let model = nb::fit_add_one(&counts, self.mnb_vocab.to_vec());
                let seconds = start.elapsed().as_secs_f64();
                (
                    test.iter().map(|d| model.predict(d)).collect::<Vec<_>>(),
                    0,
                    seconds,
                )
            }
            Method::MnbFm => {
                let fits: Vec<(NaiveBayes, FitReport)> = ids
                    .iter()
                    .map(|&l| {
                        let sub = Fit {
                            labelled: &train,
                            ..*self
                        };
                        sub.binary(l, Method::MnbFm)
                    })
                    .collect();
                let seconds = start.elapsed().as_secs_f64();
                let mut odds = vec![0.0; ids.len()];
                let pred = test
                    .iter()
                    .map(|d| {
                        for (o, (m, _)) in odds.iter_mut().zip(&fits) {
                            m.scores(d, &mut s);
                            *o = s[0] - s[1];
                        }
                        argmax(&odds)
                    })
                    .collect();
                (pred, fits.iter().map(|(_, r)| r.fallbacks).sum(), seconds)
            }
        };
        (
            metrics::multiclass(&truth, &pred, ids.len()),
            fallbacks,
            seconds,
        )
    }
}

/// Mean and standard deviation of a score over resamples.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// Mean over resamples (each resample averaged over tasks).
    pub mean: f64,
    /// Sample standard deviation over resamples (0 with one resample).
    pub std: f64,
}

/// One point of a learning curve: a method at a labelled set size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Point {
    /// Labelled documents.
    pub labelled: usize,
    /// Classifier.
    pub method: Method,
    /// Accuracy.
    pub accuracy: Spread,
    /// F1 of the minority class (binary tasks).
    pub f1: Option<Spread>,
    /// Macro-F1.
    pub macro_f1: Spread,
    /// R-precision (binary tasks).
    pub r_precision: Option<Spread>,
    /// Mean fallbacks per fit.
    pub fallbacks: f64,
    /// Mean seconds per fit.
    pub fit_seconds: f64,
}

/// Averages cells over tasks, then over resamples, per (size, method).
pub fn curve(cells: &[Cell], protocol: &Protocol) -> Vec<Point> {
    let mut points = Vec::new();
    for &n in &protocol.labelled {
        for &method in &protocol.methods {
            let mine: Vec<&Cell> = cells
                .iter()
                .filter(|c| c.labelled == n && c.method == method)
                .collect();
            if mine.is_empty() {
                continue;
            }
            let per_resample = |get: &dyn Fn(&Scores) -> Option<f64>| -> Option<Spread> {
                let values: Option<Vec<f64>> = (0..protocol.resamples)
                    .map(|r| {
                        let xs: Option<Vec<f64>> = mine
                            .iter()
                            .filter(|c| c.resample == r)
                            .map(|c| get(&c.scores))
                            .collect();
                        xs.map(|xs| xs.iter().sum::<f64>() / xs.len().max(1) as f64)
                    })
                    .collect();
                values.map(|v| spread(&v))
            };
            points.push(Point {
                labelled: n,
                method,
                accuracy: per_resample(&|s| Some(s.accuracy)).unwrap_or_default(),
                f1: per_resample(&|s| s.f1),
                macro_f1: per_resample(&|s| Some(s.macro_f1)).unwrap_or_default(),
                r_precision: per_resample(&|s| s.r_precision),
                fallbacks: mean(mine.iter().map(|c| c.fallbacks as f64)),
                fit_seconds: mean(mine.iter().map(|c| c.fit_seconds)),
            });
        }
    }
    points
}

fn mean(xs: impl ExactSizeIterator<Item = f64>) -> f64 {
    let n = xs.len().max(1) as f64;
    xs.sum::<f64>() / n
}

fn spread(values: &[f64]) -> Spread {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let var = if values.len() > 1 {
        values.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    Spread {
        mean,
        std: var.sqrt(),
    }
}
