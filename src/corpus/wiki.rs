//! Wikipedia XML dumps: streaming article extraction and wiki-markup removal.
//!
//! (Being written: see the foundation issue.)

use std::io::BufRead;
use std::path::Path;

use crate::Result;

/// Calls `f` with the cleaned plain text of every main-namespace article in a
/// MediaWiki XML dump, streaming (one article in memory at a time). `f`
/// returns `Ok(false)` to stop early.
pub fn for_each_article<R: BufRead>(
    _reader: R,
    _path: &Path,
    _f: impl FnMut(&str) -> Result<bool>,
) -> Result<()> {
    Ok(())
}

/// Turns wikitext into plain text.
pub fn strip_markup(wikitext: &str) -> String {
    wikitext.to_string()
}
