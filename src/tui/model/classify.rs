//! The Classify screen's state: the study's files and sizes (free text),
//! its options (a form from the classification schema), and the last
//! outcome: learning curve, per-size scores, the words MNB-FM moved most.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::classify::options::{Settings, OPTIONS};
use crate::classify::study::{parse_sizes, MarginalChoice, Outcome, Study};
use crate::schema::Params;
use crate::session::StudyRecord;
use crate::tui::form::Form;
use crate::tui::input::LineInput;

/// The free-text fields, in screen order: `(name, help)`.
pub const TEXT_FIELDS: [(&str, &str); 6] = [
    (
        "train",
        "training documents (fastText or split TSV; .gz ok)",
    ),
    (
        "test",
        "test documents (empty: what is not drawn as labelled)",
    ),
    (
        "marginals",
        "unlabelled text: test, all, corpus (the loaded one) or a file",
    ),
    ("labelled", "labelled set sizes, comma-separated"),
    (
        "labels",
        "task labels, comma-separated (empty: the top ones)",
    ),
    ("within", "keep only documents with this label (empty: all)"),
];

/// The Classify screen.
#[derive(Debug, Clone)]
pub struct ClassifyView {
    /// Text fields, as [`TEXT_FIELDS`].
    pub texts: Vec<LineInput>,
    /// The schema's options.
    pub options: Form,
    /// Selected row: text fields first, then the options.
    pub selected: usize,
    /// A text field is being typed in.
    pub editing_text: bool,
    /// The request being computed.
    pub pending: Option<u64>,
    /// The study of the last outcome.
    pub study: Option<Study>,
    /// The last outcome.
    pub outcome: Option<Outcome>,
    /// The fields of the study being computed.
    pub pending_fields: BTreeMap<String, String>,
    /// Every study of the session, oldest first (saved in session files).
    pub history: Vec<StudyRecord>,
}

impl ClassifyView {
    /// The screen with the bundled labelled sentences as training data.
    pub fn new(train: PathBuf) -> Self {
        let defaults = ["", "", "test", "10,100,1000", "pos", ""];
        let mut texts: Vec<LineInput> = defaults.iter().map(|t| LineInput::new(*t)).collect();
        texts[0].set(train.display().to_string());
        ClassifyView {
            texts,
            options: Form::new(OPTIONS.to_vec()),
            selected: 0,
            editing_text: false,
            pending: None,
            study: None,
            outcome: None,
            pending_fields: BTreeMap::new(),
            history: Vec::new(),
        }
    }

    /// Every field's text, by name (what a session records).
    pub fn fields(&self) -> BTreeMap<String, String> {
        TEXT_FIELDS
            .iter()
            .map(|(n, _)| *n)
            .chain(self.options.specs().iter().map(|s| s.name))
            .map(|n| (n.to_string(), self.text(n).to_string()))
            .collect()
    }

    /// A finished study joins the history and is shown.
    pub fn record(&mut self, outcome: Outcome) {
        let fields = std::mem::take(&mut self.pending_fields);
        self.history.push(StudyRecord {
            fields,
            outcome: outcome.clone(),
        });
        self.outcome = Some(outcome);
    }

    /// The studies of an opened session replace the current ones; the last
    /// is shown with its fields. Fields a session names that this build does
    /// not have are reported.
    pub fn restore(&mut self, studies: Vec<StudyRecord>) -> Vec<String> {
        let mut problems = Vec::new();
        self.history = studies;
        self.outcome = None;
        self.study = None;
        if let Some(last) = self.history.last().cloned() {
            for (name, text) in &last.fields {
                if let Err(e) = self.set(name, text) {
                    problems.push(format!("classify study: {e}"));
                }
            }
            self.study = self.study().ok();
            self.outcome = Some(last.outcome);
        }
        problems
    }

    /// Rows of the form.
    pub fn rows(&self) -> usize {
        TEXT_FIELDS.len() + self.options.len()
    }

    /// True while something is typed.
    pub fn typing(&self) -> bool {
        self.editing_text || self.options.editing().is_some()
    }

    /// The text of field `name` (text fields and options).
    pub fn text(&self, name: &str) -> &str {
        match TEXT_FIELDS.iter().position(|(n, _)| *n == name) {
            Some(i) => self.texts[i].text(),
            None => self.options.text(name),
        }
    }

    /// Sets field `name` from text (options are checked by the schema).
    pub fn set(&mut self, name: &str, text: &str) -> Result<(), String> {
        match TEXT_FIELDS.iter().position(|(n, _)| *n == name) {
            Some(i) => {
                self.texts[i].set(text.trim());
                Ok(())
            }
            None if self.options.index(name).is_some() => self.options.set(name, text).map(|_| ()),
            None => Err(format!("no Classify field named `{name}`")),
        }
    }

    /// The study the fields describe, or the first invalid field's message.
    pub fn study(&self) -> Result<Study, String> {
        let mut params = Params::defaults(OPTIONS);
        for spec in OPTIONS {
            params
                .set_text("classify", spec.name, self.options.text(spec.name))
                .map_err(|e| e.to_string())?;
        }
        let train = self.text("train").trim();
        if train.is_empty() {
            return Err("invalid value for train: no file given".into());
        }
        let optional = |name: &str| {
            let t = self.text(name).trim();
            (!t.is_empty()).then(|| t.to_string())
        };
        Ok(Study {
            train: train.into(),
            test: optional("test").map(PathBuf::from),
            marginals: MarginalChoice::parse(self.text("marginals")),
            labelled: parse_sizes(self.text("labelled")).map_err(|e| e.to_string())?,
            labels: self
                .text("labels")
                .split(',')
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(String::from)
                .collect(),
            within: optional("within"),
            settings: Settings::from_params(&params),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fields_make_a_study_and_bad_values_are_named() {
        let mut v = ClassifyView::new("x.txt".into());
        let s = v.study().unwrap();
        assert_eq!(s.labelled, vec![10, 100, 1000]);
        assert_eq!(s.labels, vec!["pos"]);
        assert_eq!(s.marginals, MarginalChoice::Test);
        assert!(s.test.is_none() && s.within.is_none());
        v.set("labelled", "5, x").unwrap();
        assert!(v.study().unwrap_err().contains("labelled"));
        v.set("labelled", "5").unwrap();
        assert!(v.set("resamples", "0").is_err());
        let refused = v.study().unwrap_err();
        assert!(
            refused.contains("resamples"),
            "the form keeps the refused text: {refused}"
        );
        v.set("resamples", "3").unwrap();
        v.set("method", "mnb-fm").unwrap();
        assert_eq!(v.study().unwrap().settings.methods.len(), 1);
        assert!(v.set("nope", "1").is_err());
    }
}
