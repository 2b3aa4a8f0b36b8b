//! One classification study from files to learning curve: what
//! `wordbench classify` and the workbench's Classify screen both run.

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::counts::ClassCounts;
use super::dataset::{Document, Lexicon, Part, Reader};
use super::fm;
use super::marginals::Marginals;
use super::nb;
use super::options::Settings;
use super::protocol::{self, largest_labels, Data, MarginalSource, Point, Protocol, Tasks};
use crate::{Error, Result};

/// Where the word marginals come from, as the user names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum MarginalChoice {
    /// The test documents.
    Test,
    /// Every document read.
    All,
    /// A corpus file.
    Corpus(PathBuf),
}

impl MarginalChoice {
    /// `test`, `all`, or a path.
    pub fn parse(text: &str) -> Self {
        match text.trim() {
            "" | "test" => MarginalChoice::Test,
            "all" => MarginalChoice::All,
            path => MarginalChoice::Corpus(PathBuf::from(path)),
        }
    }

    /// As the user writes it.
    pub fn text(&self) -> String {
        match self {
            MarginalChoice::Test => "test".into(),
            MarginalChoice::All => "all".into(),
            MarginalChoice::Corpus(p) => p.display().to_string(),
        }
    }
}

/// What to run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Study {
    /// Training documents.
    pub train: PathBuf,
    /// Test documents (none: what is not drawn as labelled).
    pub test: Option<PathBuf>,
    /// Marginal source.
    pub marginals: MarginalChoice,
    /// Labelled set sizes.
    pub labelled: Vec<usize>,
    /// Task labels (empty: the `top` largest).
    pub labels: Vec<String>,
    /// Keep only documents with this label.
    pub within: Option<String>,
    /// The schema's options.
    #[serde(skip)]
    pub settings: Settings,
}

/// Parses `10,100,1000`.
pub fn parse_sizes(text: &str) -> Result<Vec<usize>> {
    let mut sizes = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.parse::<usize>() {
            Ok(n) if n > 0 => sizes.push(n),
            _ => {
                return Err(Error::param(
                    "labelled",
                    format!("'{part}' (expected sizes of at least 1, comma-separated)"),
                ))
            }
        }
    }
    if sizes.is_empty() {
        return Err(Error::param("labelled", "no size given (e.g. 10,100,1000)"));
    }
    sizes.sort_unstable();
    sizes.dedup();
    Ok(sizes)
}

/// The one streaming pass over a marginal corpus.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CorpusPass {
    /// Documents read.
    pub documents: u64,
    /// Tokens counted.
    pub tokens: u64,
    /// Seconds the pass took.
    pub seconds: f64,
    /// CPU seconds (user + system, every thread) the process spent during
    /// the pass, the figure to compare on a busy machine: the pass is the
    /// only work `wordbench classify` runs meanwhile. To 0.01 s; NaN where
    /// it cannot be read.
    #[serde(default)]
    pub cpu_seconds: f64,
}

/// A word whose target-class probability MNB-FM moved furthest from MNB's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Moved {
    /// The word.
    pub word: String,
    /// MNB's `θ_w^C`.
    pub mnb: f64,
    /// MNB-FM's `θ_w^C`.
    pub mnb_fm: f64,
}

/// What a study found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// Task labels.
    pub tasks: Vec<String>,
    /// Training documents (after `within`).
    pub train_documents: usize,
    /// Test documents, when a test file was given.
    pub test_documents: Option<usize>,
    /// The marginal corpus pass, when there was one.
    pub marginal_corpus: Option<CorpusPass>,
    /// The learning curve.
    pub points: Vec<Point>,
    /// For the first task at the largest size (first draw): the words whose
    /// probability moved most, by `|ln θ_FM − ln θ_MNB|`.
    pub moved: Vec<Moved>,
}

/// How many moved words an outcome lists.
pub const MOVED: usize = 20;

impl Study {
    /// Reads the files, runs the protocol and summarises it.
    pub fn run(&self) -> Result<Outcome> {
        let s = &self.settings;
        let mut reader = Reader::new(s.stop_words);
        let same = |p: &Path| self.test.as_deref() == Some(p);
        let mut train = reader.read(
            &self.train,
            if same(&self.train) {
                Part::Train
            } else {
                Part::All
            },
        )?;
        let mut test = match &self.test {
            Some(t) => Some(reader.read(
                t,
                if t == &self.train {
                    Part::Test
                } else {
                    Part::All
                },
            )?),
            None => None,
        };
        let within = self.apply_within(&reader, &mut train, test.as_mut())?;
        let start = Instant::now();
        let cpu_start = crate::cpu_time::process_seconds();
        let (marginals, pass) = match &self.marginals {
            MarginalChoice::Test => (MarginalSource::Test, None),
            MarginalChoice::All => (MarginalSource::All, None),
            MarginalChoice::Corpus(path) => {
                let m = Marginals::from_corpus(path, &mut reader)?;
                let pass = CorpusPass {
                    documents: m.documents(),
                    tokens: m.tokens() as u64,
                    seconds: start.elapsed().as_secs_f64(),
                    cpu_seconds: crate::cpu_time::process_seconds() - cpu_start,
                };
                (MarginalSource::Corpus(m), Some(pass))
            }
        };
        let ids = self.task_labels(&reader, &train, within)?;
        let protocol = Protocol {
            labelled: self.labelled.clone(),
            resamples: s.resamples,
            seed: s.seed,
            methods: s.methods.clone(),
            tasks: if s.multiclass {
                Tasks::Multiclass(ids.clone())
            } else {
                Tasks::OneVsRest(ids.clone())
            },
            marginals,
            mnb_vocabulary: s.mnb_vocabulary,
            draw: s.draw,
        };
        let data = Data {
            train: &train,
            test: test.as_deref(),
            n_words: reader.lexicon.len(),
        };
        let cells = protocol::run(data, &protocol, &reader.labels, |_| {})?;
        let moved = moved_words(data, &protocol, ids[0], &reader.lexicon, MOVED);
        Ok(Outcome {
            tasks: ids
                .iter()
                .map(|&l| reader.labels.name(l).to_string())
                .collect(),
            train_documents: train.len(),
            test_documents: test.as_ref().map(Vec::len),
            marginal_corpus: pass,
            points: protocol::curve(&cells, &protocol),
            moved,
        })
    }

    fn apply_within(
        &self,
        reader: &Reader,
        train: &mut Vec<Document>,
        test: Option<&mut Vec<Document>>,
    ) -> Result<Option<u32>> {
        let Some(name) = &self.within else {
            return Ok(None);
        };
        let id = reader
            .labels
            .get(name)
            .ok_or_else(|| Error::param("within", format!("no document is labelled `{name}`")))?;
        train.retain(|d| d.has(id));
        if let Some(t) = test {
            t.retain(|d| d.has(id));
        }
        Ok(Some(id))
    }

    /// The labels the tasks are about: the ones asked for, else the largest.
    fn task_labels(
        &self,
        reader: &Reader,
        train: &[Document],
        within: Option<u32>,
    ) -> Result<Vec<u32>> {
        if !self.labels.is_empty() {
            // A label only test documents carry cannot be learned: its task
            // would score a classifier that never saw it, averaged in.
            return self
                .labels
                .iter()
                .map(|name| {
                    let id = reader.labels.get(name).ok_or_else(|| {
                        Error::param(
                            "label",
                            format!(
                                "no document is labelled `{name}` (labels: {})",
                                reader.labels.names().join(", ")
                            ),
                        )
                    })?;
                    if !train.iter().any(|d| d.has(id)) {
                        return Err(Error::param(
                            "label",
                            format!(
                                "no training document is labelled `{name}` (only test documents are): \
                                 a classifier cannot learn it; leave it out"
                            ),
                        ));
                    }
                    Ok(id)
                })
                .collect();
        }
        let mut ids = largest_labels(train, &reader.labels);
        ids.retain(|&l| Some(l) != within);
        ids.truncate(self.settings.top);
        if ids.is_empty() || (self.settings.multiclass && ids.len() < 2) {
            return Err(Error::param(
                "top",
                "a task needs labels other than --within's (a multi-class task at least 2)",
            ));
        }
        Ok(ids)
    }
}

/// MNB and MNB-FM on the first draw's largest labelled set for `label`
/// against the rest; the words whose `θ^C` differs most between them.
fn moved_words(
    data: Data<'_>,
    protocol: &Protocol,
    label: u32,
    lexicon: &Lexicon,
    k: usize,
) -> Vec<Moved> {
    let Some(&n) = protocol.labelled.last() else {
        return Vec::new();
    };
    let labelled: Vec<&Document> = protocol::draw(data.train.len(), n, protocol.seed)
        .into_iter()
        .map(|i| &data.train[i])
        .collect();
    let test: Vec<&Document> = match data.test {
        Some(t) => t.iter().collect(),
        None => protocol::rest(
            data.train,
            &protocol::draw(data.train.len(), n, protocol.seed),
        ),
    };
    let marginals = match &protocol.marginals {
        MarginalSource::Test => Marginals::from_documents(test.iter().copied()),
        MarginalSource::All => {
            Marginals::from_documents(data.train.iter().chain(data.test.unwrap_or(&[])))
        }
        MarginalSource::Corpus(m) => m.clone(),
    };
    let vocab = protocol::vocabulary(&labelled, &marginals, data.n_words);
    let counts = ClassCounts::new(2, vocab.len(), labelled.iter().copied(), |d| {
        usize::from(!d.has(label))
    });
    let mnb = nb::fit_add_one(&counts, vocab.clone());
    let (fm, _) = fm::fit(&counts, &marginals, vocab);
    let mut words: Vec<Moved> = (0..data.n_words)
        .filter(|&w| mnb.in_vocab[w])
        .map(|w| Moved {
            word: lexicon.word(w as u32).to_string(),
            mnb: mnb.log_theta[0][w].exp(),
            mnb_fm: fm.log_theta[0][w].exp(),
        })
        .collect();
    let shift = |m: &Moved| (m.mnb_fm.ln() - m.mnb.ln()).abs();
    words.sort_by(|a, b| {
        shift(b)
            .total_cmp(&shift(a))
            .then_with(|| a.word.cmp(&b.word))
    });
    words.truncate(k);
    words
}
