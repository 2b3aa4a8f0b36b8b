//! Vector file formats: detection, reading and atomic writing.
//!
//! Three formats cover what gensim, word2vec, GloVe and fastText exchange:
//! word2vec text (`n d` header), word2vec binary (same header, raw `f32`s) and
//! GloVe text (no header); besides them NumPy `.npy` and fastText's binary
//! model (read with its subword n-grams, [`super::subwords`]). [`detect`] tells them apart from the first bytes, so
//! users never have to say which one they have; gzip is undone transparently
//! (by [`crate::corpus::source::open`]). Plain binary files (word2vec binary,
//! `.npy`, fastText `.bin`) are read through a memory map. Writing goes to a temporary file in the
//! target's directory that is renamed over the target only once complete, so
//! an interrupted export never leaves a partial file behind. A text or
//! word2vec binary target ending in `.gz`, `.bz2` or `.xz` is written
//! compressed so; the two-file formats are refused under such a name rather
//! than written plain under it ([`check_output`]).

use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::progress::{Counted, LoadProgress};
use super::{fasttext_bin, glove_text, mapped, paired, word2vec_binary, word2vec_text, Embedding};
use crate::corpus::source;
use crate::{atomic, Error, Result};

/// A word-vector file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum VectorFormat {
    /// `n d` header, then `word v1 .. vd` lines.
    #[serde(rename = "word2vec-text")]
    Word2VecText,
    /// `n d` header line, then `word ` + `d` little-endian `f32` (+ optional `\n`) per word.
    #[serde(rename = "word2vec-binary")]
    Word2VecBinary,
    /// `word v1 .. vd` lines, no header.
    #[serde(rename = "glove-text")]
    GloveText,
    /// NumPy `.npy` matrix (`f32`, row-major) plus `name.vocab.txt`, one word a line.
    #[serde(rename = "npy")]
    Npy,
    /// TensorBoard Embedding Projector: tensor TSV plus `name.metadata.tsv` (written only).
    #[serde(rename = "projector-tsv")]
    ProjectorTsv,
    /// fastText binary model (`.bin`) with its subword n-gram vectors (read only).
    #[serde(rename = "fasttext-bin")]
    FastTextBin,
}

impl VectorFormat {
    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            VectorFormat::Word2VecText => "word2vec-text",
            VectorFormat::Word2VecBinary => "word2vec-binary",
            VectorFormat::GloveText => "glove-text",
            VectorFormat::Npy => "npy",
            VectorFormat::ProjectorTsv => "projector-tsv",
            VectorFormat::FastTextBin => "fasttext-bin",
        }
    }

    /// The format a file name asks for when writing: `.npy` NumPy (+ vocabulary
    /// file), `.tsv` the Projector pair, `.bin` word2vec binary, `.glove` (or a
    /// name containing `glove`) GloVe text, anything else word2vec text.
    pub fn for_path(path: &Path) -> VectorFormat {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_lowercase())
            .unwrap_or_default();
        let name = [".gz", ".bz2", ".xz"]
            .iter()
            .find_map(|ext| name.strip_suffix(ext))
            .unwrap_or(&name);
        if name.ends_with(".npy") {
            VectorFormat::Npy
        } else if name.ends_with(".tsv") {
            VectorFormat::ProjectorTsv
        } else if name.ends_with(".bin") {
            VectorFormat::Word2VecBinary
        } else if name.contains("glove") {
            VectorFormat::GloveText
        } else {
            VectorFormat::Word2VecText
        }
    }
}

impl std::str::FromStr for VectorFormat {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        match s {
            "word2vec-text" | "w2v-text" | "text" => Ok(VectorFormat::Word2VecText),
            "word2vec-binary" | "w2v-binary" | "w2v-bin" | "binary" | "bin" => {
                Ok(VectorFormat::Word2VecBinary)
            }
            "glove-text" | "glove" => Ok(VectorFormat::GloveText),
            "npy" | "numpy" => Ok(VectorFormat::Npy),
            "projector-tsv" | "projector" | "tsv" => Ok(VectorFormat::ProjectorTsv),
            "fasttext-bin" | "fasttext" => Ok(VectorFormat::FastTextBin),
            _ => Err(Error::param(
                "format",
                format!(
                    "unknown vector format '{s}'; use word2vec-text, word2vec-binary, glove-text, npy, projector-tsv or fasttext-bin"
                ),
            )),
        }
    }
}

impl std::fmt::Display for VectorFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What a read found besides the vectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadReport {
    /// The format read (detected or given).
    pub format: VectorFormat,
    /// Invalid UTF-8 sequences in words, replaced by U+FFFD.
    pub utf8_replacements: u64,
    /// The header counted one word less than the file holds, the last being
    /// `<unk>`: what Stanford GloVe's `-write-header 1` writes. Accepted.
    #[serde(default)]
    pub unk_after_header: bool,
    /// Only the first words were read (a limit), although more followed.
    #[serde(default)]
    pub limited: bool,
}

impl ReadReport {
    /// One line per thing worth telling the user (nothing for a clean read).
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if self.unk_after_header {
            notes.push(format!(
                "the header counts the words without the last line `{}` (as Stanford GloVe writes it); read it as one more word",
                super::text_rows::GLOVE_UNK
            ));
        }
        if self.utf8_replacements > 0 {
            notes.push(format!(
                "{} invalid UTF-8 sequence(s) in words replaced by U+FFFD",
                self.utf8_replacements
            ));
        }
        if self.limited {
            notes.push("read only the first words (limit); more follow in the file".into());
        }
        notes
    }
}

/// How to read a vector file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// The format; `None` detects it.
    pub format: Option<VectorFormat>,
    /// Keep only the first `limit` words (like gensim's `limit`): the rest of
    /// the file is not parsed.
    pub limit: Option<usize>,
}

/// Bytes looked at by [`detect`].
const SNIFF_BYTES: usize = 1 << 20;

/// How the files a session keeps its runs' vectors in begin (written by
/// `session::store`, read through the session, not as a vector file).
pub const KEPT_MAGIC: &[u8] = b"wordbench-vectors ";

/// Tells the format of `path` from its first (decompressed) bytes.
pub fn detect(path: &Path) -> Result<VectorFormat> {
    Ok(detect_bytes(&source::peek(path, SNIFF_BYTES)?))
}

/// The format of a file starting with `head`.
///
/// A first line of exactly two integers is a word2vec header. The record after
/// it is text when it decodes as UTF-8 without control characters and has a
/// number after the word; otherwise it is binary. Anything else is GloVe text.
pub fn detect_bytes(head: &[u8]) -> VectorFormat {
    if paired::is_npy(head) {
        return VectorFormat::Npy;
    }
    if fasttext_bin::is_fasttext(head) {
        return VectorFormat::FastTextBin;
    }
    let (first, rest) = split_line(head);
    let header = std::str::from_utf8(first)
        .ok()
        .and_then(|h| word2vec_text::parse_header(h.trim()));
    if header.is_none() {
        return VectorFormat::GloveText;
    }
    // Dimension 0 cannot be binary data; the text reader reports it.
    if rest.is_empty() || header.is_some_and(|(_, d)| d == 0) {
        return VectorFormat::Word2VecText;
    }
    let (record, _) = split_line(rest);
    let text = std::str::from_utf8(record)
        .ok()
        .filter(|t| !t.chars().any(|c| c.is_control() && c != '\t' && c != '\r'));
    let numeric_second = text
        .and_then(|t| t.split_ascii_whitespace().nth(1))
        .is_some_and(|v| v.parse::<f32>().is_ok());
    if numeric_second {
        VectorFormat::Word2VecText
    } else {
        VectorFormat::Word2VecBinary
    }
}

fn split_line(bytes: &[u8]) -> (&[u8], &[u8]) {
    match memchr::memchr(b'\n', bytes) {
        Some(i) => (&bytes[..i], &bytes[i + 1..]),
        None => (bytes, &[]),
    }
}

impl Embedding {
    /// Reads a vector file, detecting its format.
    pub fn load(path: impl AsRef<Path>) -> Result<Embedding> {
        read(path.as_ref(), None).map(|(e, _)| e)
    }

    /// Writes a vector file atomically (see [`write()`]).
    pub fn save(&self, path: impl AsRef<Path>, format: VectorFormat) -> Result<()> {
        write(self, path.as_ref(), format)
    }
}

/// Reads a vector file; `format` `None` detects it. Words with invalid UTF-8
/// are decoded lossily and counted in the report.
pub fn read(path: &Path, format: Option<VectorFormat>) -> Result<(Embedding, ReadReport)> {
    read_with(
        path,
        ReadOptions {
            format,
            limit: None,
        },
    )
}

/// Reads a vector file as `options` say (format, limit). Compressed files
/// (gzip, bzip2, xz) are decompressed as they are read.
pub fn read_with(path: &Path, options: ReadOptions) -> Result<(Embedding, ReadReport)> {
    read_observed(path, options, &LoadProgress::default())
}

/// [`read_with`], counting its progress into `progress` (input bytes, or the
/// words of a fastText model), for a progress bar drawn by another thread;
/// [`LoadProgress::cancel`] stops it.
pub fn read_observed(
    path: &Path,
    options: ReadOptions,
    progress: &LoadProgress,
) -> Result<(Embedding, ReadReport)> {
    read_within(path, options, progress, crate::memory::default_budget())
}

/// [`read_observed`] with the matrix bounded by `budget` bytes instead of
/// half the machine's memory: a matrix that would need more is refused
/// before it is allocated (from the header of a binary or word2vec text
/// file; a headerless text file once what it has read passes the budget).
pub fn read_within(
    path: &Path,
    options: ReadOptions,
    progress: &LoadProgress,
    budget: u64,
) -> Result<(Embedding, ReadReport)> {
    let format = match options.format {
        Some(f) => f,
        None => {
            let head = source::peek(path, SNIFF_BYTES)?;
            if head.starts_with(KEPT_MAGIC) {
                return Err(Error::format(
                    path,
                    "vectors a session keeps beside it: open them as SESSION.ron#N, \
                     N the run's number (e.g. `wordbench neighbors sweep.ron#3 WORD`)",
                ));
            }
            detect_bytes(&head)
        }
    };
    let limit = options.limit;
    let mut subwords = None;
    if format == VectorFormat::FastTextBin {
        let (parsed, s) = fasttext_bin::read(path, limit, progress, budget)?;
        subwords = Some(s);
        return finish_read(path, format, parsed, subwords);
    }
    let size = source::plain_len(path)?;
    let binary = matches!(format, VectorFormat::Word2VecBinary | VectorFormat::Npy);
    let input: Box<dyn std::io::BufRead + Send> = match size {
        Some(len) if binary && len > 0 => Box::new(mapped::MapReader::open(path)?),
        _ => source::open(path)?,
    };
    progress.start(size);
    let input = Counted::new(input, progress);
    let parsed = match format {
        VectorFormat::Word2VecText => word2vec_text::read(input, path, size, limit, budget)?,
        VectorFormat::Word2VecBinary => word2vec_binary::read(input, path, size, limit, budget)?,
        VectorFormat::GloveText => glove_text::read(input, path, limit, budget)?,
        VectorFormat::Npy => paired::read_npy(input, path, size, limit, budget)?,
        VectorFormat::ProjectorTsv => {
            return Err(Error::format(
                path,
                "the Projector's TSV pair is a format wordbench writes, not one it reads",
            ))
        }
        VectorFormat::FastTextBin => unreachable!("read above"),
    };
    finish_read(path, format, parsed, subwords)
}

/// The embedding of what a reader parsed, with the sense inventory beside
/// the file (if any) and the fastText n-grams (if any).
fn finish_read(
    path: &Path,
    format: VectorFormat,
    parsed: super::text_line::Parsed,
    subwords: Option<super::Subwords>,
) -> Result<(Embedding, ReadReport)> {
    let mut embedding = Embedding::new(parsed.index, parsed.matrix)?;
    if let Some(senses) = super::SenseTable::load_beside(path)? {
        embedding = embedding.with_senses(senses);
    }
    if let Some(subwords) = subwords {
        embedding = embedding.with_subwords(subwords);
    }
    Ok((
        embedding,
        ReadReport {
            format,
            utf8_replacements: parsed.replacements,
            unk_after_header: parsed.unk_after_header,
            limited: parsed.limited,
        },
    ))
}

/// Writes the word vectors (not the context vectors) to `path` in `format`,
/// gzip-compressed when the name ends in `.gz`.
///
/// The write is atomic ([`crate::atomic`]): on any error `path` is untouched.
/// Words that are empty or contain whitespace cannot be stored and are an error.
///
/// A multi-sense embedding also writes its sense inventory beside the
/// vectors (`PATH.senses`, see [`super::senses`]); the files of one output
/// (with a `.npy`'s vocabulary or the Projector's metadata) land together
/// or not at all. An embedding without senses removes an old inventory
/// left beside `path`, which would otherwise be read back with the new
/// vectors.
pub fn write(embedding: &Embedding, path: &Path, format: VectorFormat) -> Result<()> {
    let mut files = vector_files(embedding, path, format)?;
    let sidecar = super::senses::sidecar_path(path);
    match embedding.senses() {
        Some(senses) => {
            let text = senses.to_text();
            let shown = sidecar.clone();
            files.push((
                sidecar,
                Box::new(move |out| {
                    out.write_all(text.as_bytes())
                        .map_err(|e| Error::io(&shown, e))
                }),
            ));
            atomic::write_all_or_none(files)
        }
        None => {
            atomic::write_all_or_none(files)?;
            if super::senses::is_sidecar(&sidecar) {
                std::fs::remove_file(&sidecar).map_err(|e| Error::io(&sidecar, e))?;
            }
            Ok(())
        }
    }
}

/// Checks, before any work, that `path` can be written in `format`: a name
/// asking for compression (`.gz`, `.bz2`, `.xz`) is refused for the formats
/// written uncompressed (`.npy` and the Projector pair, whose readers take
/// plain files) instead of giving plain bytes under a compressed name, and
/// fastText `.bin` is never written.
pub fn check_output(path: &Path, format: VectorFormat) -> Result<()> {
    let compression = source::Compression::of_name(path);
    match format {
        VectorFormat::FastTextBin => Err(Error::format(
            path,
            "fastText .bin is a format wordbench reads, not one it writes; \
             write word2vec text (.vec) instead",
        )),
        VectorFormat::Npy | VectorFormat::ProjectorTsv
            if compression != source::Compression::None =>
        {
            Err(Error::format(
                path,
                format!(
                    "names a {} file, but {format} is written uncompressed (with a second file beside it); \
                     drop the compression suffix",
                    compression.name()
                ),
            ))
        }
        _ => Ok(()),
    }
}

/// The files of the vectors themselves, for [`atomic::write_all_or_none`]:
/// one, compressed as its name asks, or the two of a paired format.
fn vector_files<'a>(
    embedding: &'a Embedding,
    path: &Path,
    format: VectorFormat,
) -> Result<Vec<(std::path::PathBuf, atomic::Fill<'a>)>> {
    check_output(path, format)?;
    match format {
        VectorFormat::Npy => return paired::npy_files(embedding, path),
        VectorFormat::ProjectorTsv => return paired::projector_files(embedding, path),
        VectorFormat::FastTextBin => unreachable!("refused by check_output"),
        _ => {}
    }
    let shown = path.to_path_buf();
    let fill: atomic::Fill<'a> = Box::new(move |out| {
        let io = |e| Error::io(&shown, e);
        match source::Compression::of_name(&shown) {
            source::Compression::Gzip => {
                let mut enc = flate2::write::GzEncoder::new(out, flate2::Compression::default());
                write_body(&mut enc, embedding, &shown, format)?;
                enc.finish().map(drop).map_err(io)
            }
            source::Compression::Bzip2 => {
                let mut enc = bzip2::write::BzEncoder::new(out, bzip2::Compression::default());
                write_body(&mut enc, embedding, &shown, format)?;
                enc.finish().map(drop).map_err(io)
            }
            source::Compression::Xz => {
                let mut enc = xz2::write::XzEncoder::new(out, 6);
                write_body(&mut enc, embedding, &shown, format)?;
                enc.finish().map(drop).map_err(io)
            }
            source::Compression::None => write_body(out, embedding, &shown, format),
        }
    });
    Ok(vec![(path.to_path_buf(), fill)])
}

fn write_body(
    out: &mut impl Write,
    embedding: &Embedding,
    path: &Path,
    format: VectorFormat,
) -> Result<()> {
    let (words, vectors) = (&embedding.words, &embedding.vectors);
    match format {
        VectorFormat::Word2VecText => word2vec_text::write(out, words, vectors, path),
        VectorFormat::Word2VecBinary => word2vec_binary::write(out, words, vectors, path),
        VectorFormat::GloveText => glove_text::write(out, words, vectors, path),
        VectorFormat::Npy | VectorFormat::ProjectorTsv | VectorFormat::FastTextBin => {
            unreachable!("two-file formats are written by `paired`; fastText .bin is refused")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sessions_kept_vectors_file_is_refused_with_the_way_to_open_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("2204f5f6.wbv");
        std::fs::write(
            &path,
            b"wordbench-vectors 1\nrows=2 dim=3 context=0 words=8 senses=0\n",
        )
        .unwrap();
        let e = Embedding::load(&path).unwrap_err().to_string();
        assert!(e.starts_with(&path.display().to_string()), "{e}");
        assert!(e.contains("SESSION.ron#N"), "{e}");
        assert!(!e.contains('\n'), "one line: {e}");
    }
    use crate::words::WordIndex;
    use ndarray::array;

    fn sample() -> Embedding {
        let words = WordIndex::from_words(vec!["the".into(), "naïve".into(), "x".into()]);
        Embedding::new(
            words,
            array![
                [0.1, -0.25, 3.0],
                [1e-8, 2.5e10, -0.0],
                [0.333_333_34, 0.0, 1.0]
            ],
        )
        .unwrap()
    }

    #[test]
    fn detection() {
        assert_eq!(
            detect_bytes(b"2 3\nthe 1 2 3\n"),
            VectorFormat::Word2VecText
        );
        assert_eq!(detect_bytes(b"2 3\n"), VectorFormat::Word2VecText);
        assert_eq!(detect_bytes(b"2 0\na\nb\n"), VectorFormat::Word2VecText);
        assert_eq!(
            detect_bytes(b"the 1 2 3\nof 1 2 3\n"),
            VectorFormat::GloveText
        );
        let mut bin = b"1 2\nthe ".to_vec();
        bin.extend(0.5f32.to_le_bytes());
        bin.extend((-0.25f32).to_le_bytes());
        assert_eq!(detect_bytes(&bin), VectorFormat::Word2VecBinary);
        // A vector whose first byte is '\n' cuts the record right after the word.
        let mut bin = b"1 1\nthe ".to_vec();
        bin.extend(f32::from_le_bytes([b'\n', 0, 0, 0x3f]).to_le_bytes());
        assert_eq!(detect_bytes(&bin), VectorFormat::Word2VecBinary);
    }

    #[test]
    fn round_trip_every_format_plain_and_gz() {
        let dir = tempfile::tempdir().unwrap();
        let e = sample();
        for format in [
            VectorFormat::Word2VecText,
            VectorFormat::Word2VecBinary,
            VectorFormat::GloveText,
        ] {
            for name in ["v.out", "v.out.gz", "v.out.bz2", "v.out.XZ"] {
                let path = dir.path().join(name);
                e.save(&path, format).unwrap();
                let (back, report) = read(&path, None).unwrap();
                assert_eq!(report.format, format, "{name}");
                assert_eq!(back.words(), e.words());
                assert_eq!(
                    back.vectors().mapv(f32::to_bits),
                    e.vectors().mapv(f32::to_bits)
                );
            }
        }
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|d| d.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 4, "no temporary files left: {names:?}");
    }

    #[test]
    fn a_compressed_name_is_compressed_or_refused() {
        let dir = tempfile::tempdir().unwrap();
        let e = sample();
        for (name, magic) in [
            ("v.txt.gz", &[0x1f, 0x8b][..]),
            ("v.txt.bz2", b"BZh"),
            ("v.txt.xz", &[0xfd, b'7', b'z', b'X', b'Z', 0]),
            ("v.bin.xz", &[0xfd, b'7', b'z', b'X', b'Z', 0]),
        ] {
            let path = dir.path().join(name);
            e.save(&path, VectorFormat::for_path(&path)).unwrap();
            let bytes = std::fs::read(&path).unwrap();
            assert!(bytes.starts_with(magic), "{name} is compressed");
            assert_eq!(read(&path, None).unwrap().0.words(), e.words());
        }
        assert_eq!(
            VectorFormat::for_path(Path::new("v.bin.bz2")),
            VectorFormat::Word2VecBinary
        );
        for name in ["v.npy.gz", "v.tsv.xz", "v.npy.bz2"] {
            let path = dir.path().join(name);
            let format = VectorFormat::for_path(&path);
            let err = e.save(&path, format).unwrap_err().to_string();
            assert!(err.contains("written uncompressed"), "{name}: {err}");
            assert!(!path.exists(), "{name}: nothing written");
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 4);
    }

    #[test]
    fn failed_write_leaves_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.txt");
        std::fs::write(&path, "old").unwrap();
        let words = WordIndex::from_words(vec!["ok".into(), "two words".into()]);
        let e = Embedding::new(words, array![[1.0], [2.0]]).unwrap();
        let err = e.save(&path, VectorFormat::GloveText).unwrap_err();
        assert!(err.to_string().contains("contains whitespace"), "{err}");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "old",
            "target untouched"
        );
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "temporary file removed"
        );
        assert!(matches!(
            e.save(dir.path(), VectorFormat::GloveText),
            Err(Error::IsDirectory { .. })
        ));
    }

    #[test]
    fn a_sense_inventory_lands_with_its_vectors_and_a_stale_one_goes() {
        use crate::embedding::senses::{sidecar_path, Sense, SenseTable};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.txt");
        let sense = |name: &str| Sense {
            name: name.into(),
            word: "the".into(),
            mass: 0.5,
            contexts: vec![("x".into(), 1.0)],
        };
        let senses = SenseTable::new(vec![sense("the#1"), sense("the#2")]);
        let with = sample().with_senses(senses);
        with.save(&path, VectorFormat::Word2VecText).unwrap();
        let sidecar = sidecar_path(&path);
        assert!(read(&path, None).unwrap().0.senses().is_some());
        // Plain vectors over them: the old inventory would be read back with
        // vectors it does not describe.
        sample().save(&path, VectorFormat::Word2VecText).unwrap();
        assert!(!sidecar.exists());
        assert!(read(&path, None).unwrap().0.senses().is_none());
        // A file of that name that is not an inventory is left alone.
        std::fs::write(&sidecar, "my notes\n").unwrap();
        sample().save(&path, VectorFormat::Word2VecText).unwrap();
        assert_eq!(std::fs::read_to_string(&sidecar).unwrap(), "my notes\n");
    }

    #[test]
    fn format_names() {
        for f in [
            VectorFormat::Word2VecText,
            VectorFormat::Word2VecBinary,
            VectorFormat::GloveText,
        ] {
            assert_eq!(f.name().parse::<VectorFormat>().unwrap(), f);
        }
        assert!("nope".parse::<VectorFormat>().is_err());
    }
}
