//! The Corpus screen's state: the file, the preprocessing options (a form
//! generated from the corpus options' schema, [`OPTIONS`], like the methods'
//! forms), and the loaded
//! corpus with its statistics. Loading runs in the background; a newer load
//! overtakes an older one.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::corpus::options::{OPTIONS, OWNER};
use crate::corpus::{Corpus, CorpusConfig, Format};
use crate::schema::Params;
use crate::session::CorpusRef;
use crate::tui::form::Form;
use crate::tui::input::LineInput;
use crate::tui::model::cancel::CancelFlag;

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
    /// Stops the load in progress (a newer load cancels it).
    pub(crate) stop: CancelFlag,
    /// The corpus in use.
    pub loaded: Option<LoadedCorpus>,
    /// Why the last load failed.
    pub error: Option<String>,
    /// The corpus file whose session set the format option: the format
    /// read is that file's, so another file is read with `auto` again.
    pub format_for: Option<PathBuf>,
    /// The session's format that a new path put back to `auto`, said when
    /// the load starts.
    pub format_reset: Option<String>,
    /// The status line holds what opening a session said (a file that is
    /// not a session, a changed corpus): the load's answer leaves it there.
    pub keep_status: bool,
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
            stop: CancelFlag::default(),
            loaded: None,
            error: None,
            keep_status: false,
            format_for: None,
            format_reset: None,
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

    /// Sets the options from a configuration (a session's) with which
    /// `path` was read.
    pub fn set_config(&mut self, config: &CorpusConfig, path: &Path) {
        for (name, value) in config.to_params().iter() {
            let _ = self.options.set(name, &value.to_string());
        }
        self.format_for = (config.read.format != Format::Auto).then(|| path.to_path_buf());
    }

    /// The path is now `path`: a format a session set for another file goes
    /// back to `auto`; returns the format that was dropped.
    pub fn set_path(&mut self, path: &str) -> Option<String> {
        self.path.set(path.trim());
        let other = self
            .format_for
            .as_ref()
            .is_some_and(|f| f.as_path() != Path::new(path.trim()));
        if !other {
            return None;
        }
        self.format_for = None;
        let dropped = self.options.text("format").to_string();
        let _ = self.options.set("format", Format::Auto.name());
        (dropped != Format::Auto.name()).then_some(dropped)
    }

    /// Why a loaded corpus has no held-out part, when its options ask for
    /// one: held-out units are whole documents (or pieces of long ones), and
    /// a file read as one short document has none, so no perplexity.
    pub fn no_heldout_warning(corpus: &Corpus) -> Option<String> {
        let c = corpus.config();
        let s = corpus.stats();
        if corpus.counted().is_some() || c.read.heldout.fraction <= 0.0 || s.heldout_tokens > 0 {
            return None;
        }
        Some(format!(
            "{}: no held-out part ({} document(s) read as format {}), so no held-out perplexity; \
             format lines reads one document per line",
            corpus.path().display(),
            s.documents,
            c.read.format.name()
        ))
    }

    /// Marks load `request` as started at `tick` and returns what to read:
    /// the path and the configuration, or why the options cannot be read.
    /// The newest request wins; answers to older ones are dropped.
    /// A load still under way is cancelled (its answer would be dropped);
    /// the returned flag stops this one.
    pub fn start_load(
        &mut self,
        request: u64,
        tick: u64,
    ) -> Result<(PathBuf, CorpusConfig, CancelFlag), String> {
        let config = self.config()?;
        let path = PathBuf::from(self.path.text().trim());
        if path.as_os_str().is_empty() {
            return Err("type a corpus path first (Enter on the path)".into());
        }
        if self.loading.is_some() {
            self.stop.cancel();
        }
        self.stop = CancelFlag::default();
        self.loading = Some((request, path.clone(), tick));
        self.error = None;
        Ok((path, config, self.stop.clone()))
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
    fn a_session_s_format_applies_to_its_file_only() {
        let mut v = CorpusView::new(Path::new("text8"));
        let mut c = CorpusConfig::default();
        c.read.format = Format::Text;
        v.set_config(&c, Path::new("text8"));
        assert_eq!(v.options.text("format"), "text");
        assert_eq!(v.set_path("text8"), None, "the session's own file");
        assert_eq!(v.options.text("format"), "text");
        assert_eq!(v.set_path("lee.txt"), Some("text".to_string()));
        assert_eq!(v.options.text("format"), "auto");
        v.options.set("format", "lines").unwrap();
        assert_eq!(
            v.set_path("other.txt"),
            None,
            "a format the user chose stays"
        );
        assert_eq!(v.options.text("format"), "lines");
    }

    #[test]
    fn a_corpus_read_as_one_short_document_has_no_heldout_part_and_says_so() {
        let lee = "tests/fixtures/corpus/lee_background.txt";
        let lines = Corpus::open(lee, CorpusConfig::default()).unwrap();
        assert!(lines.stats().heldout_tokens > 0);
        assert_eq!(CorpusView::no_heldout_warning(&lines), None);
        let mut c = CorpusConfig::default();
        c.read.format = Format::Text;
        let one = Corpus::open(lee, c).unwrap();
        assert_eq!(one.stats().heldout_tokens, 0);
        assert_eq!(
            CorpusView::no_heldout_warning(&one).unwrap(),
            format!(
                "{lee}: no held-out part (1 document(s) read as format text), so no held-out perplexity; \
                 format lines reads one document per line"
            )
        );
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
        v.set_config(&c, Path::new("x.txt"));
        assert_eq!(v.options.text("min_count"), "2");
        assert_eq!(v.options.text("max_vocab"), "1000");
        assert_eq!(v.config().unwrap(), c);
        v.options.set("heldout", "0.9").unwrap_err();
        assert!(v.config().unwrap_err().contains("heldout"));
    }
}
