//! The vectors a session keeps: one file per run in a folder beside the
//! session file (`work.ron` keeps its runs' vectors in `work.vectors/`), so a
//! reopened session browses, evaluates and projects its runs without
//! training them again.
//!
//! A kept file holds everything a run's [`Embedding`] carries that training
//! made: the words, the word vectors, the context vectors and the sense
//! inventory where the run has them. Files are named by a hash of their
//! content, so a session file never names a file whose bytes changed, saving
//! again writes nothing new, and two runs with equal vectors share one file.
//! Every file is written atomically before the session file that names it;
//! files no run of the saved session names any more are removed after it
//! ([`sweep`]).
//!
//! The layout is made to be memory-mapped and checked before a byte of it is
//! trusted:
//!
//! ```text
//! wordbench-vectors 1\n
//! rows=R dim=D context=0|1 words=W senses=S\n
//! W bytes: the words, each followed by \n
//! S bytes: the sense inventory's text (the `.senses` sidecar format)
//! zero bytes up to a multiple of 4 from the start of the file
//! R*D little-endian f32: the word vectors, row by row
//! R*D little-endian f32: the context vectors, when context=1
//! ```
// Unsafe code is denied crate-wide (src/lib.rs) and allowed here: memory-maps a session's kept vectors.
#![allow(unsafe_code)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use ndarray::Array2;
use serde::{Deserialize, Serialize};

use super::guard::{self, Blocked, Expect, Fingerprint};
use super::Session;
use crate::embedding::{Embedding, SenseTable};
use crate::words::WordIndex;
use crate::{atomic, Error, Result};

/// The first line of a kept file.
const MAGIC: &str = "wordbench-vectors 1";
/// The extension of kept files.
const EXTENSION: &str = "wbv";

/// Where a run's vectors are kept, as its session record names them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeptVectors {
    /// The kept file, relative to the session file's folder once saved.
    pub file: PathBuf,
    /// Its size in bytes (checked when it is read back).
    pub bytes: u64,
    /// Words (rows).
    pub words: usize,
    /// Dimension.
    pub dim: usize,
}

/// The folder that keeps the vectors of `session_file`'s runs:
/// `NAME.vectors` beside it, `NAME` being the file name without its extension.
pub fn folder(session_file: &Path) -> PathBuf {
    let stem = session_file
        .file_stem()
        .map_or_else(|| "session".into(), |s| s.to_string_lossy().into_owned());
    session_file.with_file_name(format!("{stem}.vectors"))
}

/// What a session save wrote: the session file, and the kept record of
/// each run whose vectors it kept (by index in the session's runs).
pub type Saved = (Fingerprint, Vec<(usize, KeptVectors)>);

/// Saves `session` (paths usable from the working directory) to `path`,
/// keeping the vectors of runs beside it: `vectors` pairs a run's index in
/// `session.runs` with its vectors. Runs whose kept file lies in another
/// session's folder (a session saved under a new name) get a copy in this
/// one. Kept files are written before the session file that names them;
/// files of this session's folder that no run names any more are removed
/// after it. The session file is written only when it is what `expect`
/// says ([`guard::save`]); returns the file as written and the kept record
/// of each run in `vectors`, or why it was not written.
pub fn save_keeping(
    mut session: Session,
    path: &Path,
    expect: &Expect,
    vectors: &[(usize, &Embedding)],
) -> Result<std::result::Result<Saved, Blocked>> {
    let folder = folder(path);
    let mut made = Vec::with_capacity(vectors.len());
    for &(run, embedding) in vectors {
        let kept = keep(embedding, &folder)?;
        if let Some(r) = session.runs.get_mut(run) {
            r.kept = Some(kept.clone());
        }
        made.push((run, kept));
    }
    for run in &mut session.runs {
        if let Some(kept) = &mut run.kept {
            if !in_folder(&kept.file, &folder) {
                *kept = adopt(kept, &folder)?;
            }
        }
    }
    let names: BTreeSet<PathBuf> = session
        .runs
        .iter()
        .filter_map(|r| r.kept.as_ref().map(|k| k.file.clone()))
        .collect();
    match guard::save(&session.anchor(path), path, expect)? {
        Ok(written) => {
            sweep(&folder, &names);
            Ok(Ok((written, made)))
        }
        Err(blocked) => Ok(Err(blocked)),
    }
}

/// Whether `file` lies directly in `folder`.
fn in_folder(file: &Path, folder: &Path) -> bool {
    file.parent()
        .is_some_and(|p| atomic::same_file(p, folder) || p == folder)
}

/// A copy of a kept file in `folder` (the same name: its content's hash).
fn adopt(kept: &KeptVectors, folder: &Path) -> Result<KeptVectors> {
    let name = kept
        .file
        .file_name()
        .ok_or_else(|| Error::format(&kept.file, "is not a kept vectors file"))?;
    let file = folder.join(name);
    let present =
        std::fs::symlink_metadata(&file).is_ok_and(|m| m.is_file() && m.len() == kept.bytes);
    if !present {
        let bytes = std::fs::read(&kept.file).map_err(|e| Error::io(&kept.file, e))?;
        std::fs::create_dir_all(folder).map_err(|e| Error::io(folder, e))?;
        atomic::write_bytes(&file, &bytes)?;
    }
    Ok(KeptVectors {
        file,
        ..kept.clone()
    })
}

/// `FILE#N` read as run `#N` of session `FILE` (the number the workbench
/// shows): when `spec` names no file itself, ends in `#` and a number, and
/// what comes before names one.
pub fn run_reference(spec: &Path) -> Option<(PathBuf, u32)> {
    if spec.exists() {
        return None;
    }
    let text = spec.to_str()?;
    let (file, n) = text.rsplit_once('#')?;
    let n: u32 = n.parse().ok()?;
    let file = PathBuf::from(file);
    file.is_file().then_some((file, n))
}

/// The vectors of run `#n` of the session saved at `file`: the vectors it
/// keeps, or for an imported run the file it was read from.
pub fn run_vectors(file: &Path, n: u32) -> Result<Embedding> {
    let session = super::load(file)?.resolve(file);
    let named = || format!("{}#{n}", file.display());
    let run = session
        .run_index(n)
        .map(|i| &session.runs[i])
        .ok_or_else(|| {
            let has = match session.runs.len() {
                0 => "no runs".to_string(),
                _ => format!("runs {}", session.run_numbers()),
            };
            Error::param("run", format!("{}: the session has {has}", named()))
        })?;
    if let Some(kept) = &run.kept {
        return read(kept);
    }
    if let Some(source) = &run.source {
        let options = crate::embedding::format::ReadOptions {
            format: Some(source.format),
            limit: source.limit,
        };
        return crate::embedding::format::read_with(&source.path, options).map(|(e, _)| e);
    }
    Err(Error::param(
        "run",
        format!(
            "{}: run {n} ({}, {}) keeps no vectors; `wordbench replay {} --run {n} --out DIR` trains them again",
            named(),
            run.method,
            run.end(),
            file.display()
        ),
    ))
}

/// The bytes of a kept file for `embedding`.
pub fn encode(embedding: &Embedding) -> Vec<u8> {
    let words = embedding.words();
    let mut word_block = Vec::new();
    for id in 0..words.len() as u32 {
        word_block.extend_from_slice(words.word(id).as_bytes());
        word_block.push(b'\n');
    }
    let senses = embedding
        .senses()
        .map(SenseTable::to_text)
        .unwrap_or_default();
    let context = embedding.context();
    let header = format!(
        "{MAGIC}\nrows={} dim={} context={} words={} senses={}\n",
        embedding.len(),
        embedding.dim(),
        u8::from(context.is_some()),
        word_block.len(),
        senses.len()
    );
    let floats = embedding.len() * embedding.dim() * (1 + usize::from(context.is_some()));
    let mut out =
        Vec::with_capacity(header.len() + word_block.len() + senses.len() + 4 + 4 * floats);
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(&word_block);
    out.extend_from_slice(senses.as_bytes());
    out.resize(out.len().next_multiple_of(4), 0);
    let matrices = std::iter::once(embedding.vectors()).chain(context);
    for m in matrices {
        for v in m.iter() {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    out
}

/// Writes `embedding` into `folder` (created if missing) under the name of
/// its content's hash, unless a file of that name and size is there already;
/// returns what a session record keeps of it (the file as a path from the
/// working directory).
pub fn keep(embedding: &Embedding, folder: &Path) -> Result<KeptVectors> {
    let bytes = encode(embedding);
    let name = format!("{}.{EXTENSION}", super::corpus_ref::fnv_hex(&bytes));
    let file = folder.join(name);
    let present = std::fs::symlink_metadata(&file)
        .is_ok_and(|m| m.is_file() && m.len() == bytes.len() as u64);
    if !present {
        std::fs::create_dir_all(folder).map_err(|e| Error::io(folder, e))?;
        atomic::write_bytes(&file, &bytes)?;
    }
    Ok(KeptVectors {
        file,
        bytes: bytes.len() as u64,
        words: embedding.len(),
        dim: embedding.dim(),
    })
}

/// Reads a kept file back, checking its layout and its size against the
/// record; errors name the file.
pub fn read(kept: &KeptVectors) -> Result<Embedding> {
    let path = &kept.file;
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
    if len != kept.bytes {
        return Err(Error::format(
            path,
            format!(
                "holds {len} bytes, the session recorded {}; the file was changed",
                kept.bytes
            ),
        ));
    }
    if len == 0 {
        return Err(Error::format(path, "is empty, expected kept vectors"));
    }
    // SAFETY: a read-only map of a file this program wrote under a name no
    // other content gets; like every reader of mapped files we rely on
    // nobody truncating it while it is read.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| Error::io(path, e))?;
    decode(&map, path)
}

/// Parses the bytes of a kept file; `path` names it in errors.
pub fn decode(bytes: &[u8], path: &Path) -> Result<Embedding> {
    let bad = |what: String| Error::format(path, what);
    let (header, body) = split_header(bytes).ok_or_else(|| {
        bad(format!(
            "does not start with `{MAGIC}` and a size line: not kept vectors"
        ))
    })?;
    let Header {
        rows,
        dim,
        context,
        words,
        senses,
    } = Header::parse(header).map_err(bad)?;
    let start = bytes.len() - body.len();
    let floats_at = (start + words + senses).next_multiple_of(4);
    let matrices = 1 + usize::from(context);
    let expected = rows
        .checked_mul(dim)
        .and_then(|n| n.checked_mul(4 * matrices))
        .and_then(|n| n.checked_add(floats_at));
    if expected != Some(bytes.len()) {
        return Err(bad(format!(
            "holds {} bytes; its header (rows={rows} dim={dim} context={}) needs {}",
            bytes.len(),
            u8::from(context),
            expected.map_or_else(|| "more than can be addressed".into(), |n| n.to_string())
        )));
    }
    let word_text = std::str::from_utf8(&body[..words])
        .map_err(|e| bad(format!("words are not UTF-8 ({e})")))?;
    let list: Vec<String> = word_text.lines().map(str::to_owned).collect();
    if list.len() != rows {
        return Err(bad(format!("{} words for {rows} rows", list.len())));
    }
    if let Some(w) = first_repeat(&list) {
        return Err(bad(format!("word `{}` appears twice", w.escape_debug())));
    }
    let index = WordIndex::from_words(list);
    let matrix = |k: usize| {
        let at = floats_at + k * rows * dim * 4;
        let data: Vec<f32> = bytes[at..at + rows * dim * 4]
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        Array2::from_shape_vec((rows, dim), data).expect("length checked against the header")
    };
    let mut embedding = Embedding::new(index, matrix(0))?;
    if context {
        embedding = embedding.with_context(matrix(1))?;
    }
    if senses > 0 {
        let text = &body[words..words + senses];
        let table = SenseTable::read(text, path)?;
        embedding = embedding.with_senses(table);
    }
    Ok(embedding)
}

/// The first word of `list` that appeared before it.
fn first_repeat(list: &[String]) -> Option<&str> {
    let mut seen = std::collections::HashSet::with_capacity(list.len());
    list.iter().map(String::as_str).find(|w| !seen.insert(*w))
}

/// Removes the kept files in `folder` that `keep` does not name, and the
/// folder itself once empty; what cannot be removed is left (it only costs
/// disk).
pub fn sweep(folder: &Path, keep: &BTreeSet<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    let kept: BTreeSet<_> = keep.iter().filter_map(|p| p.file_name()).collect();
    for entry in entries.flatten() {
        let path = entry.path();
        let ours = path.extension().is_some_and(|e| e == EXTENSION);
        if ours && !kept.contains(entry.file_name().as_os_str()) {
            let _ = std::fs::remove_file(&path);
        }
    }
    let _ = std::fs::remove_dir(folder);
}

/// The header line and the bytes after it, when `bytes` starts with the magic line.
fn split_header(bytes: &[u8]) -> Option<(&str, &[u8])> {
    let rest = bytes.strip_prefix(MAGIC.as_bytes())?.strip_prefix(b"\n")?;
    let end = rest.iter().take(256).position(|&b| b == b'\n')?;
    let line = std::str::from_utf8(&rest[..end]).ok()?;
    Some((line, &rest[end + 1..]))
}

/// The size line of a kept file.
struct Header {
    rows: usize,
    dim: usize,
    context: bool,
    words: usize,
    senses: usize,
}

impl Header {
    fn parse(line: &str) -> std::result::Result<Header, String> {
        let mut values = [None; 5];
        const KEYS: [&str; 5] = ["rows", "dim", "context", "words", "senses"];
        for item in line.split(' ') {
            let (key, value) = item.split_once('=').ok_or_else(|| {
                format!("size line item `{}` is not key=value", item.escape_debug())
            })?;
            let k = KEYS
                .iter()
                .position(|&name| name == key)
                .ok_or_else(|| format!("size line names `{}`", key.escape_debug()))?;
            let v: usize = value
                .parse()
                .map_err(|_| format!("{key}=`{}` is not a count", value.escape_debug()))?;
            values[k] = Some(v);
        }
        let get = |k: usize| values[k].ok_or_else(|| format!("size line lacks {}=", KEYS[k]));
        let context = match get(2)? {
            0 => false,
            1 => true,
            n => return Err(format!("context={n}, expected 0 or 1")),
        };
        Ok(Header {
            rows: get(0)?,
            dim: get(1)?,
            context,
            words: get(3)?,
            senses: get(4)?,
        })
    }
}

/// Human-readable size: `8.8 MB`.
pub fn size_text(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= 1e9 {
        format!("{:.1} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.1} MB", b / 1e6)
    } else if b >= 1e3 {
        format!("{:.0} kB", b / 1e3)
    } else {
        format!("{bytes} B")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vector_files_know_how_a_kept_file_begins() {
        let prefix = crate::embedding::format::KEPT_MAGIC;
        assert!(MAGIC.as_bytes().starts_with(prefix));
    }
    use crate::embedding::Sense;
    use ndarray::array;

    fn sample() -> Embedding {
        let words = WordIndex::from_words(vec!["king".into(), "queen".into(), "ß#2".into()]);
        Embedding::new(
            words,
            array![[1.0, -2.5], [0.125, 3.0e-8], [f32::MIN_POSITIVE, 7.0]],
        )
        .unwrap()
        .with_context(array![[0.5, 0.25], [-1.0, 2.0], [9.0, -9.0]])
        .unwrap()
        .with_senses(SenseTable::new(vec![Sense {
            name: "ß#2".into(),
            word: "ß".into(),
            mass: 0.5,
            contexts: vec![("street".into(), 1.25)],
        }]))
    }

    #[test]
    fn a_kept_file_reads_back_bit_for_bit_with_context_and_senses() {
        let dir = tempfile::tempdir().unwrap();
        let e = sample();
        let kept = keep(&e, &dir.path().join("s.vectors")).unwrap();
        assert_eq!((kept.words, kept.dim), (3, 2));
        let back = read(&kept).unwrap();
        assert_eq!(back.words().len(), 3);
        assert_eq!(back.words().word(2), "ß#2");
        assert_eq!(back.vectors(), e.vectors());
        assert_eq!(back.context().unwrap(), e.context().unwrap());
        let senses = back.senses().unwrap();
        assert_eq!(
            senses.senses()[0].contexts,
            vec![("street".to_string(), 1.25)]
        );
        // No context, no senses.
        let plain =
            Embedding::new(WordIndex::from_words(vec!["a".into()]), array![[2.0f32]]).unwrap();
        let k = keep(&plain, dir.path()).unwrap();
        let b = read(&k).unwrap();
        assert!(b.context().is_none() && b.senses().is_none());
        assert_eq!(b.vectors(), plain.vectors());
    }

    #[test]
    fn equal_vectors_share_one_file_and_sweeping_removes_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("w.vectors");
        let a = keep(&sample(), &folder).unwrap();
        let again = keep(&sample(), &folder).unwrap();
        assert_eq!(a, again);
        let other =
            Embedding::new(WordIndex::from_words(vec!["a".into()]), array![[2.0f32]]).unwrap();
        let b = keep(&other, &folder).unwrap();
        assert_ne!(a.file, b.file);
        std::fs::write(folder.join("notes.txt"), "mine").unwrap();
        sweep(&folder, &[b.file.clone()].into());
        assert!(!a.file.exists() && b.file.exists());
        assert!(
            folder.join("notes.txt").exists(),
            "only kept files are removed"
        );
        std::fs::remove_file(folder.join("notes.txt")).unwrap();
        sweep(&folder, &BTreeSet::new());
        assert!(!folder.exists(), "an empty folder goes");
    }

    #[test]
    fn damaged_files_are_refused_with_the_file_named() {
        let dir = tempfile::tempdir().unwrap();
        let kept = keep(&sample(), dir.path()).unwrap();
        let bytes = std::fs::read(&kept.file).unwrap();
        let p = dir.path().join("x.wbv");
        let err = |b: &[u8]| decode(b, &p).unwrap_err().to_string();
        assert!(
            err(&bytes[..bytes.len() - 4]).contains("needs"),
            "cut short"
        );
        assert!(err(b"hello").contains("not kept vectors"));
        let swapped = String::from_utf8_lossy(&bytes).replacen("rows=3", "rows=9", 1);
        assert!(err(swapped.as_bytes()).starts_with(&p.display().to_string()));
        let huge = String::from_utf8_lossy(&bytes).replacen(
            "rows=3",
            &format!("rows={}", usize::MAX / 2),
            1,
        );
        assert!(err(huge.as_bytes()).contains("more than can be addressed"));
        // A changed file is noticed by its size before it is parsed.
        let mut longer = bytes.clone();
        longer.extend_from_slice(&[0; 4]);
        std::fs::write(&kept.file, &longer).unwrap();
        let e = read(&kept).unwrap_err().to_string();
        assert!(e.contains("the file was changed"), "{e}");
    }

    #[test]
    fn the_folder_is_named_after_the_session_file() {
        assert_eq!(
            folder(Path::new("a/work.ron")),
            PathBuf::from("a/work.vectors")
        );
        assert_eq!(folder(Path::new("work")), PathBuf::from("work.vectors"));
        assert_eq!(size_text(8_812_345), "8.8 MB");
        assert_eq!(size_text(999), "999 B");
    }
}
