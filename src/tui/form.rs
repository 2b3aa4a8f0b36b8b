//! Forms generated from a hyperparameter schema: raw text per field, checked
//! against the field's [`ParamSpec`] on every change, so each field shows its
//! own error before anything runs (raw strings → validated, typed values).
//!
//! The Train screen builds one form per method from `method.schema` (plus the
//! run's seed and threads), the Corpus and Projection screens from their own
//! small schemas: no per-method UI code, and a new method's form appears as
//! soon as it is in the registry.

use super::action::{Action, EditOp};
use super::input::LineInput;
use crate::schema::{Kind, ParamSpec, Value};

/// A form over a list of fields.
#[derive(Debug, Clone, PartialEq)]
pub struct Form {
    specs: Vec<ParamSpec>,
    raw: Vec<String>,
    errors: Vec<Option<String>>,
    /// The selected field.
    pub selected: usize,
    editing: Option<LineInput>,
}

/// The text of a default value, as the user would type it (`auto` for a
/// corpus-sized one, [`ParamSpec::default_text`]).
pub fn default_text(spec: &ParamSpec) -> String {
    spec.default_text()
}

impl Form {
    /// A form with every field at its default.
    pub fn new(specs: Vec<ParamSpec>) -> Self {
        let raw: Vec<String> = specs.iter().map(default_text).collect();
        let errors = vec![None; specs.len()];
        Form {
            specs,
            raw,
            errors,
            selected: 0,
            editing: None,
        }
    }

    /// The fields' declarations.
    pub fn specs(&self) -> &[ParamSpec] {
        &self.specs
    }

    /// Number of fields.
    pub fn len(&self) -> usize {
        self.specs.len()
    }

    /// True when the form has no field.
    pub fn is_empty(&self) -> bool {
        self.specs.is_empty()
    }

    /// Position of the field `name`.
    pub fn index(&self, name: &str) -> Option<usize> {
        self.specs.iter().position(|s| s.name == name)
    }

    /// The raw text of field `i`.
    pub fn raw(&self, i: usize) -> &str {
        &self.raw[i]
    }

    /// The raw text of the field `name` (empty when there is none).
    pub fn text(&self, name: &str) -> &str {
        self.index(name).map_or("", |i| &self.raw[i])
    }

    /// The typed value of the integer field `name` (validated against its
    /// spec), or why not: no such field, or its text is invalid.
    pub fn int(&self, name: &str) -> Result<i64, String> {
        let i = self
            .index(name)
            .ok_or_else(|| format!("no field named {name}"))?;
        match self.specs[i].parse(&self.raw[i]) {
            Ok(Value::Int(v)) => Ok(v),
            Ok(v) => Err(format!("{name}: {v} is not an integer")),
            Err(e) => Err(format!("fix {name} first: {e}")),
        }
    }

    /// The error of field `i`, if its text is invalid.
    pub fn error(&self, i: usize) -> Option<&str> {
        self.errors[i].as_deref()
    }

    /// Whether field `i` holds its default.
    pub fn is_default(&self, i: usize) -> bool {
        self.raw[i] == default_text(&self.specs[i])
    }

    /// Sets field `name` from text; keeps the text even when invalid (so the
    /// user sees and fixes it) and returns the parsed value or the reason.
    pub fn set(&mut self, name: &str, text: &str) -> Result<Value, String> {
        let i = self
            .index(name)
            .ok_or_else(|| format!("no field named {name}"))?;
        self.raw[i] = text.trim().to_string();
        let spec = &self.specs[i];
        let parsed = if spec.is_auto_text(text) {
            Ok(spec.default.value())
        } else {
            spec.parse(text).map_err(|e| e.to_string())
        };
        self.errors[i] = parsed.as_ref().err().cloned();
        parsed
    }

    /// Sets (or clears) field `i`'s error from a check its spec alone
    /// cannot make (the sweep form checks a grid against the method).
    pub fn set_error(&mut self, i: usize, error: Option<String>) {
        if let Some(e) = self.errors.get_mut(i) {
            *e = error;
        }
    }

    /// Puts field `i` back to its default.
    pub fn reset(&mut self, i: usize) {
        self.raw[i] = default_text(&self.specs[i]);
        self.errors[i] = None;
    }

    /// For a boolean or choice field, the text of the value `delta` steps
    /// away from the current one (wrapping); `None` for typed fields.
    pub fn cycled(&self, i: usize, delta: isize) -> Option<String> {
        let options: Vec<&str> = match self.specs[i].kind {
            Kind::Bool => vec!["false", "true"],
            Kind::Choice(names) => names.to_vec(),
            _ => return None,
        };
        let at = options.iter().position(|o| *o == self.raw[i]).unwrap_or(0) as isize;
        let n = options.len() as isize;
        Some(options[(at + delta).rem_euclid(n) as usize].to_string())
    }

    /// Moves the selection by `delta`, clamped.
    pub fn select(&mut self, delta: isize) {
        if self.specs.is_empty() {
            return;
        }
        let last = self.specs.len() as isize - 1;
        self.selected = (self.selected as isize + delta).clamp(0, last) as usize;
    }

    /// Starts editing the selected field's text, all of it selected (typing replaces it).
    pub fn begin_edit(&mut self) {
        if let Some(raw) = self.raw.get(self.selected) {
            self.editing = Some(LineInput::selected(raw.clone()));
        }
    }

    /// The line being edited, if any.
    pub fn editing(&self) -> Option<&LineInput> {
        self.editing.as_ref()
    }

    /// Applies an edit to the line being edited.
    pub fn edit(&mut self, op: &EditOp) {
        if let Some(line) = &mut self.editing {
            line.apply(op);
        }
    }

    /// The error the line being edited would have, checked as it is typed.
    pub fn editing_error(&self) -> Option<String> {
        let line = self.editing.as_ref()?;
        let spec = &self.specs[self.selected];
        if spec.is_auto_text(line.text()) {
            return None;
        }
        spec.parse(line.text()).err().map(|e| e.to_string())
    }

    /// Ends editing; returns `(name, text)` to apply.
    pub fn commit(&mut self) -> Option<(String, String)> {
        let line = self.editing.take()?;
        let name = self.specs[self.selected].name.to_string();
        Some((name, line.text().trim().to_string()))
    }

    /// Ends editing without applying.
    pub fn cancel(&mut self) {
        self.editing = None;
    }

    /// A key while the selected field is typed in: editing keys change the
    /// text, Esc cancels, Enter commits and returns `(name, text)` for the
    /// screen to set (every screen's forms type alike).
    pub fn typed(&mut self, action: &Action) -> Option<(String, String)> {
        match action {
            Action::Edit(op) => self.edit(op),
            Action::Cancel => self.cancel(),
            Action::Activate => return self.commit(),
            Action::Complete => self.edit(&EditOp::End),
            _ => {}
        }
        None
    }

    /// Enter, ← or → on field `i`: a choice or switch takes its next (←:
    /// previous) value, returned as `(name, text)` for the screen to set;
    /// Enter on another field starts typing in it.
    pub fn pressed(&mut self, i: usize, action: &Action) -> Option<(String, String)> {
        self.selected = i;
        let delta = if *action == Action::Left { -1 } else { 1 };
        match self.cycled(i, delta) {
            Some(text) => Some((self.specs[i].name.to_string(), text)),
            None => {
                if *action == Action::Activate {
                    self.begin_edit();
                }
                None
            }
        }
    }

    /// `(name, text)` of every field, or the first invalid field's error.
    pub fn assignments(&self) -> Result<Vec<(&'static str, &str)>, String> {
        for (spec, err) in self.specs.iter().zip(&self.errors) {
            if let Some(e) = err {
                return Err(format!("fix {} first: {e}", spec.name));
            }
        }
        Ok(self
            .specs
            .iter()
            .map(|s| s.name)
            .zip(self.raw.iter().map(String::as_str))
            .collect())
    }

    /// Fields whose value differs from the default, as `name=value`.
    pub fn changed(&self) -> Vec<String> {
        (0..self.len())
            .filter(|&i| !self.is_default(i))
            .map(|i| format!("{}={}", self.specs[i].name, self.raw[i]))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPECS: &[ParamSpec] = &[
        ParamSpec::int("dim", 1, 1000, 100, "dimension"),
        ParamSpec::float("lr", 0.0, 1.0, 0.025, "learning rate").live(),
        ParamSpec::choice("mode", &["a", "b", "c"], "b", "mode"),
        ParamSpec::flag("flag", false, "flag"),
    ];

    #[test]
    fn defaults_are_shown_as_typed() {
        let f = Form::new(SPECS.to_vec());
        assert_eq!(f.raw(0), "100");
        assert_eq!(f.raw(1), "0.025");
        assert_eq!(f.text("mode"), "b");
        assert_eq!(f.text("flag"), "false");
        assert!(f.changed().is_empty());
    }

    #[test]
    fn invalid_text_is_kept_with_its_error_per_field() {
        let mut f = Form::new(SPECS.to_vec());
        let e = f.set("lr", "2").unwrap_err();
        assert_eq!(e, "invalid value for lr: '2' (expected a number in [0, 1])");
        assert_eq!(f.raw(1), "2");
        assert_eq!(f.error(1), Some(e.as_str()));
        assert_eq!(f.error(0), None);
        assert!(f.assignments().unwrap_err().starts_with("fix lr first"));
        assert_eq!(f.set("lr", "0.5"), Ok(Value::Float(0.5)));
        assert_eq!(f.error(1), None);
        assert_eq!(f.changed(), vec!["lr=0.5".to_string()]);
        let a = f.assignments().unwrap();
        assert_eq!(a[1], ("lr", "0.5"));
    }

    #[test]
    fn integer_fields_are_read_typed_or_refused() {
        let mut f = Form::new(SPECS.to_vec());
        assert_eq!(f.int("dim"), Ok(100));
        f.set("dim", "7").unwrap();
        assert_eq!(f.int("dim"), Ok(7));
        let _ = f.set("dim", "0");
        assert!(f.int("dim").unwrap_err().starts_with("fix dim first"));
        assert!(f.int("lr").unwrap_err().contains("not an integer"));
        assert_eq!(f.int("nope"), Err("no field named nope".to_string()));
    }

    #[test]
    fn choices_and_booleans_cycle() {
        let f = Form::new(SPECS.to_vec());
        assert_eq!(f.cycled(2, 1).as_deref(), Some("c"));
        assert_eq!(f.cycled(2, 2).as_deref(), Some("a"));
        assert_eq!(f.cycled(3, 1).as_deref(), Some("true"));
        assert_eq!(f.cycled(0, 1), None);
    }

    #[test]
    fn editing_validates_as_typed_and_commits_name_and_text() {
        let mut f = Form::new(SPECS.to_vec());
        f.select(10);
        assert_eq!(f.selected, 3);
        f.select(-3);
        f.begin_edit();
        f.edit(&EditOp::Clear);
        f.edit(&EditOp::Insert('x'));
        assert!(f.editing_error().unwrap().contains("expected an integer"));
        f.edit(&EditOp::Backspace);
        f.edit(&EditOp::Insert('5'));
        assert_eq!(f.editing_error(), None);
        assert_eq!(f.commit(), Some(("dim".to_string(), "5".to_string())));
        assert!(f.editing().is_none());
    }

    #[test]
    fn a_corpus_sized_field_shows_auto_and_takes_it_back() {
        use crate::schema::{CorpusSize, Params};
        const SIZED: &[ParamSpec] = &[ParamSpec::int("core", 2, 100_000, 25_000, "core")
            .auto("half the vocabulary", |s: CorpusSize| s.vocab as f64 / 2.0)];
        let mut f = Form::new(SIZED.to_vec());
        assert_eq!(f.raw(0), "auto");
        assert!(f.changed().is_empty());
        assert_eq!(f.set("core", "300"), Ok(Value::Int(300)));
        assert_eq!(f.changed(), vec!["core=300".to_string()]);
        assert_eq!(f.set("core", " auto "), Ok(Value::Int(25_000)));
        assert!(f.is_default(0) && f.error(0).is_none());
        // The form's assignments leave the value to the corpus.
        let mut p = Params::parse(SIZED, "toy", f.assignments().unwrap()).unwrap();
        p.resolve(CorpusSize {
            vocab: 1000,
            tokens: 0,
        });
        assert_eq!(p.usize("core"), 500);
        // `auto` is no value of a field without a rule.
        let mut g = Form::new(SPECS.to_vec());
        assert!(g.set("dim", "auto").is_err());
    }
}
