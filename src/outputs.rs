//! The rule every command and dialog that writes follows, checked before
//! any work starts (the list of writers and their checks is in
//! `docs/writes.md`):
//!
//! - an output never lands on an input of the same command: not the file
//!   itself, not through a link, not through a companion file (the
//!   `.vocab.txt` of a `.npy`, the `.metadata.tsv` of a Projector `.tsv`,
//!   the `.senses` sidecar of vectors), and never inside an input folder
//!   (the next import would read it);
//! - two outputs of one command never share a file;
//! - an existing file is replaced only by one of its own kind (vectors
//!   over vectors, a counts file over a counts file, ...) or when empty: a
//!   file that is not ours is never replaced by one of ours.
//!
//! [`Guard`] collects a command's inputs, then checks each output against
//! them, the outputs before it, and what is on disk. What it cannot see
//! (another process writing the same file later) is the atomic writer's
//! and the session file's business ([`crate::atomic`], [`crate::session::guard`]).

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::atomic;
use crate::embedding::format::detect_bytes;
use crate::embedding::paired::{npy_vocab_path, projector_metadata_path};
use crate::embedding::senses::sidecar_path;
use crate::embedding::VectorFormat;
use crate::{Error, Result};

/// Bytes of an existing file looked at to tell its kind.
const SNIFF_BYTES: usize = 1 << 16;

/// What an output is: an existing file is replaced only by one of its kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Word vectors in this format (with the format's companion files and
    /// a `.senses` sidecar).
    Vectors(VectorFormat),
    /// A counts file of `wordbench counts`.
    Counts,
    /// A session file.
    Session,
    /// A CSV table whose header line starts with this text (`word,`, `step,`).
    Csv(&'static str),
    /// A PNG or SVG image.
    Image,
    /// Key latencies appended by the workbench (one number a line).
    KeyTrace,
}

/// A file written beside an output, and what it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    /// The output itself, of its kind.
    Main(Kind),
    /// One word a line: a `.npy`'s vocabulary, the Projector's labels.
    WordList,
    /// A sense inventory sidecar.
    Senses,
}

impl Kind {
    /// The files an output at `path` consists of: itself, then its
    /// companions, each with what it holds and how messages name it.
    fn parts(self, path: &Path) -> Vec<(PathBuf, Part, &'static str)> {
        let mut parts = vec![(path.to_path_buf(), Part::Main(self), "")];
        if let Kind::Vectors(format) = self {
            match format {
                VectorFormat::Npy => {
                    parts.push((npy_vocab_path(path), Part::WordList, "its vocabulary file"))
                }
                VectorFormat::ProjectorTsv => parts.push((
                    projector_metadata_path(path),
                    Part::WordList,
                    "its metadata file",
                )),
                _ => {}
            }
            parts.push((sidecar_path(path), Part::Senses, "its senses file"));
        }
        parts
    }

    /// "a vectors file", "a counts file", ...: what an existing file must be.
    fn noun(self) -> String {
        match self {
            Kind::Vectors(_) => "a vectors file".into(),
            Kind::Counts => "a counts file".into(),
            Kind::Session => "a wordbench session".into(),
            Kind::Csv(header) => format!("a CSV table starting `{header}`"),
            Kind::Image => "a PNG or SVG image".into(),
            Kind::KeyTrace => "a key trace (one number a line)".into(),
        }
    }
}

/// An input of a command.
#[derive(Debug, Clone)]
struct Input {
    /// How messages name it ("the training corpus").
    what: String,
    path: PathBuf,
    /// A folder: nothing may be written inside it.
    folder: bool,
}

/// What checking an output found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    /// Existing files (the output or its companions) it would replace.
    pub replaces: Vec<PathBuf>,
}

/// One command's inputs and the outputs checked so far.
#[derive(Debug, Clone, Default)]
pub struct Guard {
    inputs: Vec<Input>,
    outputs: Vec<(String, PathBuf)>,
}

impl Guard {
    /// No inputs yet.
    pub fn new() -> Guard {
        Guard::default()
    }

    /// An input file, named in messages as `what` ("the training corpus").
    pub fn input(&mut self, what: impl Into<String>, path: &Path) -> &mut Guard {
        self.inputs.push(Input {
            what: what.into(),
            path: path.to_path_buf(),
            folder: false,
        });
        self
    }

    /// A vectors file read: its companions (a `.npy`'s vocabulary, the
    /// `.senses` sidecar) are read too, so they are inputs as well.
    pub fn vectors_input(&mut self, what: impl Into<String>, path: &Path) -> &mut Guard {
        let what = what.into();
        let npy = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("npy"));
        if npy {
            self.input(format!("the vocabulary of {what}"), &npy_vocab_path(path));
        }
        self.input(format!("the senses of {what}"), &sidecar_path(path));
        self.input(what, path)
    }

    /// An input folder: no output may go inside it.
    pub fn folder_input(&mut self, what: impl Into<String>, dir: &Path) -> &mut Guard {
        self.inputs.push(Input {
            what: what.into(),
            path: dir.to_path_buf(),
            folder: true,
        });
        self
    }

    /// Checks the output `path` given by `flag` (`--out`; a dialog's name in
    /// the workbench): it can be written ([`atomic::check_writable`]), it
    /// and its companions are no input and no earlier output, and what it
    /// would replace is of its kind. Refusals are one line naming the flag
    /// and the file; nothing is written.
    pub fn output(&mut self, flag: &str, path: &Path, kind: Kind) -> Result<Checked> {
        let mut replaces = Vec::new();
        for (file, part, role) in kind.parts(path) {
            let shown = |message: String| {
                let own = if role.is_empty() {
                    String::new()
                } else {
                    format!("{role} {} ", file.display())
                };
                refused(format!("{flag} {}: {own}{message}", path.display()))
            };
            let target =
                atomic::check_writable(&file).map_err(|e| refused(format!("{flag}: {e}")))?;
            if let Some(input) = self.inputs.iter().find(|i| hits(i, &file, &target)) {
                let message = if input.folder {
                    format!(
                        "is inside {} {}; the next read of it would take the output for an input; write it elsewhere",
                        input.what,
                        input.path.display()
                    )
                } else {
                    format!("is {}; refusing to overwrite it", input.what)
                };
                return Err(shown(message));
            }
            if let Some((other, _)) = self
                .outputs
                .iter()
                .find(|(_, earlier)| atomic::same_file(&file, earlier))
            {
                return Err(refused(format!(
                    "{other} and {flag} are the same file {}; give each its own path",
                    file.display()
                )));
            }
            if let Some(found) = existing(&file)? {
                if !found.is_empty() && !is_kind(&file, &found, part) {
                    let noun = match part {
                        Part::Main(k) => k.noun(),
                        Part::WordList => "a word list (one word a line)".into(),
                        Part::Senses => "a wordbench senses file".into(),
                    };
                    return Err(shown(format!(
                        "exists and is not {noun}; refusing to replace it (remove it or choose another name)"
                    )));
                }
                replaces.push(file.clone());
            }
        }
        for (file, _, _) in kind.parts(path) {
            self.outputs.push((flag.to_string(), file));
        }
        Ok(Checked { replaces })
    }
}

fn refused(message: String) -> Error {
    Error::Refused(message)
}

/// Whether writing `file` (which will land on `target`) hits `input`.
fn hits(input: &Input, file: &Path, target: &Path) -> bool {
    if !input.folder {
        return atomic::same_file(file, &input.path);
    }
    let dir = input
        .path
        .canonicalize()
        .unwrap_or_else(|_| input.path.clone());
    target.starts_with(&dir)
}

/// The first bytes of `path` when it exists (`None` when it does not);
/// a compressed file is looked at decompressed.
fn existing(path: &Path) -> Result<Option<Vec<u8>>> {
    if !path.exists() {
        return Ok(None);
    }
    let compressed = path.extension().is_some_and(|e| {
        ["gz", "bz2", "xz"]
            .iter()
            .any(|c| e.eq_ignore_ascii_case(c))
    });
    let head = if compressed {
        // A file that does not decompress is nobody's vectors: an empty
        // answer would read as "empty", so give its raw bytes.
        crate::corpus::source::peek(path, SNIFF_BYTES).or_else(|_| raw_head(path))?
    } else {
        raw_head(path)?
    };
    Ok(Some(head))
}

fn raw_head(path: &Path) -> Result<Vec<u8>> {
    let mut head = Vec::with_capacity(SNIFF_BYTES);
    std::fs::File::open(path)
        .and_then(|f| f.take(SNIFF_BYTES as u64).read_to_end(&mut head))
        .map_err(|e| Error::io(path, e))?;
    Ok(head)
}

/// Whether `file`, starting with `head` (not empty), holds what `part` is.
fn is_kind(file: &Path, head: &[u8], part: Part) -> bool {
    match part {
        Part::Main(Kind::Vectors(_)) => looks_like_vectors(head),
        Part::Main(Kind::Counts) => crate::counts::is_counts_file(file),
        Part::Main(Kind::Session) => {
            let text = String::from_utf8_lossy(head);
            text.trim_start().starts_with('(')
                && text.contains("version")
                && crate::session::load(file).is_ok()
        }
        Part::Main(Kind::Csv(header)) => head.starts_with(header.as_bytes()),
        Part::Main(Kind::Image) => {
            head.starts_with(b"\x89PNG\r\n\x1a\n")
                || String::from_utf8_lossy(&head[..head.len().min(4096)]).contains("<svg")
        }
        Part::Main(Kind::KeyTrace) => whole_lines(head).all(|l| l.parse::<u64>().is_ok()),
        Part::WordList => whole_lines(head)
            .take(1000)
            .all(|l| !l.is_empty() && !l.contains(|c: char| c.is_whitespace())),
        Part::Senses => head.starts_with(b"# wordbench senses"),
    }
}

/// The complete lines of `head` (the last one may be cut), `\r` removed.
fn whole_lines(head: &[u8]) -> impl Iterator<Item = String> + '_ {
    let complete = match memchr::memrchr(b'\n', head) {
        Some(i) if head.len() == SNIFF_BYTES => &head[..i],
        _ => head,
    };
    String::from_utf8_lossy(complete)
        .lines()
        .map(|l| l.trim_end_matches('\r').to_string())
        .collect::<Vec<_>>()
        .into_iter()
}

/// Whether a file starting with `head` is word vectors of a format
/// wordbench reads (or the Projector's tensor TSV it writes): a binary
/// magic, a `n d` header followed by a vector, or lines of a word (or
/// none) followed by numbers. A corpus, notes or a CSV table are not.
pub fn looks_like_vectors(head: &[u8]) -> bool {
    let numbers = |fields: &[&str]| fields.iter().all(|f| f.parse::<f32>().is_ok());
    match detect_bytes(head) {
        VectorFormat::Npy | VectorFormat::FastTextBin => true,
        VectorFormat::Word2VecText => {
            let mut lines = whole_lines(head);
            lines.next();
            match lines.next() {
                None => true,
                Some(l) => {
                    let fields: Vec<&str> = l.split_ascii_whitespace().collect();
                    fields.len() >= 2 && numbers(&fields[1..])
                }
            }
        }
        VectorFormat::Word2VecBinary => {
            // After the header: `word ` then raw floats, which are not all
            // printable text (a corpus that starts with two numbers is).
            let body = match memchr::memchr(b'\n', head) {
                Some(i) => &head[i + 1..],
                None => return false,
            };
            let Some(space) = memchr::memchr(b' ', &body[..body.len().min(1024)]) else {
                return false;
            };
            let values = &body[space + 1..body.len().min(space + 1 + 64)];
            values
                .iter()
                .any(|&b| (b < 0x20 && !b"\n\t\r".contains(&b)) || b >= 0x80)
        }
        _ => {
            let lines: Vec<String> = whole_lines(head).take(20).collect();
            !lines.is_empty()
                && lines.iter().all(|l| {
                    let fields: Vec<&str> = l.split_ascii_whitespace().collect();
                    fields.len() >= 2 && numbers(&fields[1..])
                })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vectors_text() -> &'static str {
        "2 3\nthe 0.1 0.2 0.3\nof -1 0 1e-3\n"
    }

    #[test]
    fn the_kinds_of_existing_files_are_told_apart() {
        assert!(looks_like_vectors(vectors_text().as_bytes()));
        assert!(looks_like_vectors(b"the 0.1 0.2\nof 1 2\n"), "GloVe text");
        assert!(looks_like_vectors(b"0.1\t0.2\n1\t2\n"), "Projector tensor");
        let mut binary = b"1 2\nthe ".to_vec();
        binary.extend(0.5f32.to_le_bytes());
        binary.extend((-1.0f32).to_le_bytes());
        assert!(looks_like_vectors(&binary), "word2vec binary");
        assert!(looks_like_vectors(b"\x93NUMPY\x01\x00"), "npy");
        for text in [
            &b"the cat sat on the mat\nand so on\n"[..],
            b"2023 10\nThe meeting opened at ten\n",
            b"word,x,y,group\na,1,2,\n",
            b"old",
            b"notes\n",
        ] {
            assert!(
                !looks_like_vectors(text),
                "{}",
                String::from_utf8_lossy(text)
            );
        }
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x");
        std::fs::write(&p, b"(version: 2)").unwrap();
        assert!(
            !is_kind(&p, b"(version: 2)", Part::Main(Kind::Session)),
            "not a whole session"
        );
        assert!(is_kind(&p, b"a\nb\n", Part::WordList));
        assert!(!is_kind(&p, b"a 12\nb 3\n", Part::WordList), "GloVe vocab");
        assert!(is_kind(
            &p,
            b"step,total_steps\n1,2\n",
            Part::Main(Kind::Csv("step,"))
        ));
        assert!(!is_kind(
            &p,
            b"word,cluster\n",
            Part::Main(Kind::Csv("step,"))
        ));
    }

    #[test]
    fn an_output_on_an_input_or_its_companion_is_refused_naming_both() {
        let dir = tempfile::tempdir().unwrap();
        let d = |n: &str| dir.path().join(n);
        std::fs::write(d("c.txt"), "the cat sat\n").unwrap();
        std::fs::write(d("v.npy"), b"\x93NUMPY").unwrap();
        std::fs::write(d("v.vocab.txt"), "a\nb\n").unwrap();
        let mut g = Guard::new();
        g.input("the corpus", &d("c.txt"))
            .vectors_input("the vectors being converted", &d("v.npy"));
        let vectors = Kind::Vectors(VectorFormat::Word2VecText);
        let e = g.output("--out", &d("c.txt"), vectors).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "--out {}: is the corpus; refusing to overwrite it",
                d("c.txt").display()
            )
        );
        // Through another spelling of the same file.
        let e = g
            .output("--out", &d("sub/../c.txt"), vectors)
            .unwrap_err()
            .to_string();
        assert!(e.contains("directory"), "{e}");
        std::fs::create_dir(d("sub")).unwrap();
        let e = g
            .output("--out", &d("sub/../c.txt"), vectors)
            .unwrap_err()
            .to_string();
        assert!(
            e.ends_with("is the corpus; refusing to overwrite it"),
            "{e}"
        );
        // A companion: `v.vocab.txt` is the input's vocabulary.
        let e = g
            .output("--out", &d("v.vocab.txt"), vectors)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("is the vocabulary of the vectors being converted"),
            "{e}"
        );
        // The output's companion is an input: `c.metadata.tsv`... spelled as the corpus.
        std::fs::write(d("w.metadata.tsv"), "x\n").unwrap();
        let mut g2 = Guard::new();
        g2.input("the corpus", &d("w.metadata.tsv"));
        let e = g2
            .output(
                "--out",
                &d("w.tsv"),
                Kind::Vectors(VectorFormat::ProjectorTsv),
            )
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            format!(
                "--out {}: its metadata file {} is the corpus; refusing to overwrite it",
                d("w.tsv").display(),
                d("w.metadata.tsv").display()
            )
        );
        // Two outputs on one file, also through a companion.
        let mut g3 = Guard::new();
        g3.output("--out", &d("m.npy"), Kind::Vectors(VectorFormat::Npy))
            .unwrap();
        let e = g3
            .output("--metrics-out", &d("m.vocab.txt"), Kind::Csv("step,"))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("--out and --metrics-out are the same file"),
            "{e}"
        );
    }

    #[test]
    fn only_files_of_the_same_kind_or_empty_ones_are_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let d = |n: &str| dir.path().join(n);
        std::fs::write(d("notes.txt"), "my notes\n").unwrap();
        std::fs::write(d("old.txt"), vectors_text()).unwrap();
        std::fs::write(d("empty.txt"), "").unwrap();
        let vectors = Kind::Vectors(VectorFormat::Word2VecText);
        let mut g = Guard::new();
        let e = g.output("--out", &d("notes.txt"), vectors).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "--out {}: exists and is not a vectors file; refusing to replace it (remove it or choose another name)",
                d("notes.txt").display()
            )
        );
        let c = g.output("--out", &d("old.txt"), vectors).unwrap();
        assert_eq!(c.replaces, vec![d("old.txt")]);
        let c = g.output("--also", &d("empty.txt"), vectors).unwrap();
        assert_eq!(c.replaces, vec![d("empty.txt")]);
        let c = g.output("--new", &d("new.txt"), vectors).unwrap();
        assert!(c.replaces.is_empty());
        // A GloVe vocabulary where a `.npy`'s word list would go.
        std::fs::write(d("m.vocab.txt"), "the 120\nof 99\n").unwrap();
        let e = g
            .output("--npy", &d("m.npy"), Kind::Vectors(VectorFormat::Npy))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("its vocabulary file") && e.contains("is not a word list"),
            "{e}"
        );
        std::fs::write(d("t.csv"), "name,age\n").unwrap();
        let e = g
            .output("--metrics-out", &d("t.csv"), Kind::Csv("step,"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("is not a CSV table starting `step,`"), "{e}");
    }

    #[test]
    fn nothing_goes_inside_an_input_folder() {
        let dir = tempfile::tempdir().unwrap();
        let parts = dir.path().join("parts");
        std::fs::create_dir(&parts).unwrap();
        let mut g = Guard::new();
        g.folder_input("--from-parts", &parts);
        let e = g
            .output("--out", &parts.join("c.wbc"), Kind::Counts)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with(&format!(
                "--out {}: is inside --from-parts {}",
                parts.join("c.wbc").display(),
                parts.display()
            )),
            "{e}"
        );
        assert!(g
            .output("--out", &dir.path().join("c.wbc"), Kind::Counts)
            .is_ok());
    }
}
