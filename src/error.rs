//! The library's one error type.
//!
//! Every message is meant to be shown to a user as a single line: it names the
//! file (and line) or the parameter at fault, so the binary can print it as is:
//! whatever of an input a message quotes (and every file name) is escaped by
//! [`crate::quote`], so no message can act on the terminal that shows it.

use std::path::{Path, PathBuf};

use crate::quote;

/// Result alias used throughout the library.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in wordbench's library code.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be opened, read or written.
    #[error("{}: {}", quote::path(path), quote::text(&error.to_string()))]
    Io {
        /// The file involved.
        path: PathBuf,
        /// The underlying I/O error (not a `#[source]`: it is already in the message).
        error: std::io::Error,
    },
    /// A directory was given where a file is expected.
    #[error("{}: is a directory, expected a file", quote::path(path))]
    IsDirectory {
        /// The path given.
        path: PathBuf,
    },
    /// A text input holds binary data (NUL bytes).
    #[error(
        "{}: looks like binary data (NUL byte at offset {offset}), expected text",
        quote::path(path)
    )]
    Binary {
        /// The file involved.
        path: PathBuf,
        /// Byte offset of the first NUL within the decompressed stream.
        offset: u64,
    },
    /// A line of a text file could not be parsed.
    #[error("{}:{line}: {}", quote::path(path), quote::text(message))]
    Parse {
        /// The file involved.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What was wrong with the line.
        message: String,
    },
    /// A file as a whole is malformed (bad header, truncated binary data, ...).
    #[error("{}: {}", quote::path(path), quote::text(message))]
    Format {
        /// The file involved.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The corpus yields no vocabulary (empty, or everything removed by min-count).
    #[error("{}: empty vocabulary: {tokens} tokens of {types} types seen, none kept with min-count {min_count}", quote::path(path))]
    EmptyVocabulary {
        /// The corpus file.
        path: PathBuf,
        /// Tokens read.
        tokens: u64,
        /// Distinct types read.
        types: usize,
        /// The min-count in force.
        min_count: u64,
    },
    /// A parameter has an invalid value.
    #[error("invalid value for {}: {}", quote::text(name), quote::text(message))]
    InvalidParam {
        /// The parameter's name as the user writes it.
        name: String,
        /// Why the value is rejected (and what would be valid).
        message: String,
    },
    /// A word asked for is not in the vocabulary.
    #[error("word not in vocabulary: {}", quote::text(.0))]
    UnknownWord(String),

    /// An output was refused before anything was written: it would land on
    /// an input or another output, or replace a file of another kind. The
    /// message is the whole line and names the flag (or dialog) and file.
    #[error("{0}")]
    Refused(String),

    /// A training job failed (divergence, or an error from its method); the
    /// message came across the job's channel and is already one line.
    #[error("{}", quote::text(.0))]
    Training(String),
}

impl Error {
    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl AsRef<Path>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.as_ref().to_path_buf(),
            error: source,
        }
    }

    /// A parse error at `path:line`.
    pub fn parse(path: impl AsRef<Path>, line: usize, message: impl Into<String>) -> Self {
        Error::Parse {
            path: path.as_ref().to_path_buf(),
            line,
            message: message.into(),
        }
    }

    /// A whole-file format error.
    pub fn format(path: impl AsRef<Path>, message: impl Into<String>) -> Self {
        Error::Format {
            path: path.as_ref().to_path_buf(),
            message: message.into(),
        }
    }

    /// An invalid parameter value.
    pub fn param(name: impl Into<String>, message: impl Into<String>) -> Self {
        Error::InvalidParam {
            name: name.into(),
            message: message.into(),
        }
    }
}
