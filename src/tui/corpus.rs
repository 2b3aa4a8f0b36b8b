//! The Corpus screen's state: the file, the preprocessing options (a form
//! generated from the corpus options' schema, [`OPTIONS`], like the methods'
//! forms), and the loaded
//! corpus with its statistics. Loading runs in the background; a newer load
//! overtakes an older one.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::action::{Action, EditOp};
use super::app::{App, Level};
use super::form::Form;
use super::input::LineInput;
use super::msg::{Effect, OpenedCorpus};
use super::ui::format::thousands;
use crate::corpus::options::{OPTIONS, OWNER};
use crate::corpus::{Corpus, CorpusConfig, Format};
use crate::session::CorpusRef;
use crate::train::Params;

/// A loaded corpus and what the screen shows about it.
#[derive(Debug, Clone)]
pub struct LoadedCorpus {
    /// The corpus.
    pub corpus: Arc<Corpus>,
    /// What session files record of it (path, size, hash, settings).
    pub reference: CorpusRef,
    /// Seconds the load took.
    pub seconds: f64,
    /// Vocabulary words per count band: (`"10-99"`, words).
    pub histogram: Vec<(String, u64)>,
}

/// The Corpus screen.
#[derive(Debug, Clone)]
pub struct CorpusView {
    /// The file path.
    pub path: LineInput,
    /// Preprocessing options.
    pub options: Form,
    /// Selected row: 0 is the path, then the options.
    pub selected: usize,
    /// The path is being typed.
    pub editing_path: bool,
    /// Path completion candidates.
    pub completions: Vec<String>,
    /// A load in progress: request id, file, tick it started.
    pub loading: Option<(u64, PathBuf, u64)>,
    /// The corpus in use.
    pub loaded: Option<LoadedCorpus>,
    /// Why the last load failed.
    pub error: Option<String>,
}

impl CorpusView {
    /// The screen for `path` with default options.
    pub fn new(path: &Path) -> Self {
        CorpusView {
            path: LineInput::new(path.display().to_string()),
            options: Form::new(OPTIONS.to_vec()),
            selected: 0,
            editing_path: false,
            completions: Vec::new(),
            loading: None,
            loaded: None,
            error: None,
        }
    }

    /// Whether a line is being typed.
    pub fn typing(&self) -> bool {
        self.editing_path || self.options.editing().is_some()
    }

    /// The configuration the options describe (they are valid: the form
    /// keeps invalid text out of `config` by reporting it first).
    pub fn config(&self) -> Result<CorpusConfig, String> {
        let assignments = self.options.assignments()?;
        let params = Params::parse(OPTIONS, OWNER, assignments).map_err(|e| e.to_string())?;
        Ok(CorpusConfig::from_params(&params))
    }

    /// Sets the options from a configuration (a session's).
    pub fn set_config(&mut self, config: &CorpusConfig) {
        for (name, value) in config.to_params().iter() {
            let _ = self.options.set(name, &value.to_string());
        }
    }

    /// Whether the options or path differ from the loaded corpus.
    pub fn stale(&self) -> bool {
        let Some(l) = &self.loaded else {
            return false;
        };
        let same_path = Path::new(self.path.text()) == l.corpus.path();
        let same_config = self.config().is_ok_and(|c| {
            let loaded = l.corpus.config();
            c.vocab == loaded.vocab
                && c.read.tokenizer == loaded.read.tokenizer
                && c.read.heldout == loaded.read.heldout
                && (c.read.format == Format::Auto || c.read.format == loaded.read.format)
        });
        !(same_path && same_config)
    }
}

/// Vocabulary words per count band (powers of ten; the first band starts at
/// the smallest count present).
pub fn histogram(counts: &[u64]) -> Vec<(String, u64)> {
    let smallest = counts.iter().copied().min().unwrap_or(1).max(1);
    let mut bands: Vec<u64> = Vec::new();
    for &c in counts {
        let band = (c.max(1) as f64).log10().floor() as usize;
        if bands.len() <= band {
            bands.resize(band + 1, 0);
        }
        bands[band] += 1;
    }
    let first = (smallest as f64).log10().floor() as usize;
    bands
        .into_iter()
        .enumerate()
        .skip(first)
        .map(|(i, n)| {
            let low = 10u64.pow(i as u32).max(smallest);
            (format!("{}+", round_label(low)), n)
        })
        .collect()
}

/// `5`, `100`, `1k`, `10k`, `1M`.
fn round_label(n: u64) -> String {
    match n {
        n if n >= 1_000_000 && n % 1_000_000 == 0 => format!("{}M", n / 1_000_000),
        n if n >= 1000 && n % 1000 == 0 => format!("{}k", n / 1000),
        n => n.to_string(),
    }
}

/// Completes `text` as a path: the candidates in its directory that start
/// with its last component, and the text extended by their common prefix.
pub fn complete_path(text: &str) -> (String, Vec<String>) {
    let (dir, prefix) = match text.rfind('/') {
        Some(i) => (&text[..=i], &text[i + 1..]),
        None => ("", text),
    };
    let read_dir = if dir.is_empty() { "." } else { dir };
    let Ok(entries) = std::fs::read_dir(read_dir) else {
        return (text.to_string(), Vec::new());
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let hidden = name.starts_with('.') && !prefix.starts_with('.');
            (name.starts_with(prefix) && !hidden).then(|| {
                let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
                if is_dir {
                    format!("{name}/")
                } else {
                    name
                }
            })
        })
        .collect();
    names.sort();
    let common = names
        .iter()
        .skip(1)
        .fold(names.first().cloned().unwrap_or_default(), |acc, n| {
            acc.chars()
                .zip(n.chars())
                .take_while(|(a, b)| a == b)
                .map(|(a, _)| a)
                .collect()
        });
    let completed = if common.len() > prefix.len() {
        format!("{dir}{common}")
    } else {
        text.to_string()
    };
    if names.len() == 1 {
        names.clear();
    }
    (completed, names)
}

/// Sets an option (or `path`) from text.
pub fn set_option(app: &mut App, name: &str, text: &str) -> Vec<Effect> {
    if name == "path" {
        app.corpus.path.set(text.trim());
        return Vec::new();
    }
    if let Err(e) = app.corpus.options.set(name, text) {
        app.set_status(Level::Error, e);
    }
    Vec::new()
}

/// Loads the corpus with the current path and options.
pub fn load(app: &mut App) -> Vec<Effect> {
    let config = match app.corpus.config() {
        Ok(c) => c,
        Err(e) => {
            app.set_status(Level::Error, e);
            return Vec::new();
        }
    };
    let path = PathBuf::from(app.corpus.path.text().trim());
    if path.as_os_str().is_empty() {
        app.set_status(Level::Error, "type a corpus path first (Enter on the path)");
        return Vec::new();
    }
    let request = app.next_id();
    app.corpus.loading = Some((request, path.clone(), app.tick));
    app.corpus.error = None;
    app.set_status(Level::Info, format!("reading {}…", path.display()));
    vec![Effect::LoadCorpus {
        request,
        path,
        config,
    }]
}

/// A load finished (stale answers are dropped).
pub fn loaded(app: &mut App, request: u64, result: Result<OpenedCorpus, String>) {
    if app.corpus.loading.as_ref().map(|l| l.0) != Some(request) {
        return;
    }
    app.corpus.loading = None;
    match result {
        Ok(OpenedCorpus {
            corpus,
            reference,
            seconds,
        }) => {
            let s = corpus.stats();
            // After a session opens, its runs are the next thing to see; a
            // warning from opening it (changed corpus) stays on the line.
            let next = match app.runs.len() {
                0 => "Next: 2 Train".to_string(),
                n => format!("{n} run(s) from the session: 3 Runs"),
            };
            let session_warning =
                app.status.level == Level::Warn && app.status.text.starts_with("session ");
            if !session_warning {
                app.set_status(
                    Level::Info,
                    format!(
                        "corpus ready: {} tokens, {} words in the vocabulary ({seconds:.1}s). {next}",
                        thousands(s.tokens),
                        thousands(s.vocabulary as u64)
                    ),
                );
            }
            app.corpus.loaded = Some(LoadedCorpus {
                histogram: histogram(corpus.vocab().counts()),
                corpus,
                reference,
                seconds,
            });
        }
        Err(e) => {
            app.set_status(Level::Error, e.clone());
            app.corpus.error = Some(e);
        }
    }
}

/// Navigation on the Corpus screen.
pub fn navigate(app: &mut App, action: Action) -> Vec<Effect> {
    let v = &mut app.corpus;
    let rows = 1 + v.options.len();
    if v.editing_path {
        return edit_path(app, action);
    }
    if v.options.editing().is_some() {
        return edit_option(app, action);
    }
    match action {
        Action::Up => v.selected = v.selected.saturating_sub(1),
        Action::Down => v.selected = (v.selected + 1).min(rows - 1),
        Action::Activate if v.selected == 0 => {
            v.editing_path = true;
            v.path.select_all();
            v.completions.clear();
        }
        Action::Activate | Action::Left | Action::Right => {
            let i = v.selected - 1;
            v.options.selected = i;
            let delta = if action == Action::Left { -1 } else { 1 };
            match v.options.cycled(i, delta) {
                Some(text) => {
                    let name = v.options.specs()[i].name.to_string();
                    return super::app::act(app, Action::SetCorpusOption(name, text));
                }
                None if action == Action::Activate => v.options.begin_edit(),
                None => {}
            }
        }
        Action::ResetField if v.selected > 0 => v.options.reset(v.selected - 1),
        _ => {}
    }
    Vec::new()
}

fn edit_path(app: &mut App, action: Action) -> Vec<Effect> {
    let v = &mut app.corpus;
    match action {
        Action::Edit(op) => {
            v.path.apply(&op);
            v.completions.clear();
        }
        Action::Complete => {
            let (text, candidates) = complete_path(v.path.text());
            v.path.set(text);
            v.completions = candidates;
        }
        Action::Cancel => {
            v.editing_path = false;
            v.completions.clear();
        }
        Action::Activate => {
            v.editing_path = false;
            v.completions.clear();
            let text = v.path.text().to_string();
            let mut effects = super::app::act(app, Action::SetCorpusOption("path".into(), text));
            effects.extend(super::app::act(app, Action::LoadCorpus));
            return effects;
        }
        _ => {}
    }
    Vec::new()
}

fn edit_option(app: &mut App, action: Action) -> Vec<Effect> {
    let form = &mut app.corpus.options;
    match action {
        Action::Edit(op) => form.edit(&op),
        Action::Cancel => form.cancel(),
        Action::Activate => {
            if let Some((name, text)) = form.commit() {
                return super::app::act(app, Action::SetCorpusOption(name, text));
            }
        }
        Action::Complete => form.edit(&EditOp::End),
        _ => {}
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_counts_words_per_power_of_ten() {
        let h = histogram(&[12_000, 950, 120, 100, 99, 10, 7, 5]);
        let expected: Vec<(String, u64)> =
            [("5+", 2), ("10+", 2), ("100+", 3), ("1k+", 0), ("10k+", 1)]
                .iter()
                .map(|(l, n)| (l.to_string(), *n))
                .collect();
        assert_eq!(h, expected);
    }

    #[test]
    fn options_round_trip_through_a_config() {
        let mut v = CorpusView::new(Path::new("x.txt"));
        let mut c = v.config().unwrap();
        assert_eq!(c, {
            let mut d = CorpusConfig::default();
            d.read.format = Format::Auto;
            d
        });
        c.vocab.min_count = 2;
        c.vocab.max_size = Some(1000);
        c.read.tokenizer.numbers = crate::corpus::Numbers::Map;
        c.read.heldout.fraction = 0.1;
        v.set_config(&c);
        assert_eq!(v.options.text("min_count"), "2");
        assert_eq!(v.options.text("max_vocab"), "1000");
        assert_eq!(v.config().unwrap(), c);
        v.options.set("heldout", "0.9").unwrap_err();
        assert!(v.config().unwrap_err().contains("heldout"));
    }

    #[test]
    fn paths_complete_to_the_common_prefix() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["corpus-a.txt", "corpus-b.txt", "other.txt"] {
            std::fs::write(dir.path().join(name), "x").unwrap();
        }
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let base = format!("{}/", dir.path().display());
        let (text, candidates) = complete_path(&format!("{base}cor"));
        assert_eq!(text, format!("{base}corpus-"));
        assert_eq!(candidates, vec!["corpus-a.txt", "corpus-b.txt"]);
        let (text, candidates) = complete_path(&format!("{base}s"));
        assert_eq!(text, format!("{base}sub/"));
        assert!(candidates.is_empty());
        let (text, _) = complete_path(&format!("{base}zzz"));
        assert_eq!(text, format!("{base}zzz"));
    }
}
