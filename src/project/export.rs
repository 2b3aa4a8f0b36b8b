//! Coordinates as CSV: `word,x,y[,z],group`, one row per projected word.
//!
//! Words are quoted when they hold a comma, a quote or a line break (RFC
//! 4180), so any vocabulary round-trips through Python's `csv` module or a
//! spreadsheet. Written atomically.

use std::io::Write;
use std::path::Path;

use ndarray::ArrayView2;

use super::select::Groups;
use crate::atomic;
use crate::{Error, Result};

/// Writes `coords` (`n × 2` or `n × 3`) with their words and group names to `path`.
pub fn write_csv(
    path: &Path,
    words: &[String],
    coords: ArrayView2<'_, f64>,
    groups: Option<&Groups>,
) -> Result<()> {
    if coords.nrows() != words.len() {
        return Err(Error::param(
            "coords",
            format!("{} rows for {} words", coords.nrows(), words.len()),
        ));
    }
    let axes = ["x", "y", "z", "w"];
    atomic::write_with(path, |out| {
        let io = |e| Error::io(path, e);
        let header: Vec<&str> = axes.iter().take(coords.ncols()).copied().collect();
        writeln!(out, "word,{},group", header.join(",")).map_err(io)?;
        for (i, (row, word)) in coords.rows().into_iter().zip(words).enumerate() {
            write!(out, "{}", quote(word)).map_err(io)?;
            for v in row {
                write!(out, ",{v}").map_err(io)?;
            }
            let group = groups.map_or("", |g| g.names[g.labels[i]].as_str());
            writeln!(out, ",{}", quote(group)).map_err(io)?;
        }
        Ok(())
    })
}

/// A CSV field: as is, or quoted with inner quotes doubled.
fn quote(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn rows_header_and_quoting() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("coords.csv");
        let words: Vec<String> = ["plain", "a,b", "say \"hi\""].map(String::from).to_vec();
        let groups = Groups::from_names(&["g1".into(), "g2".into(), "g1".into()]);
        let coords = array![[0.5, -1.0], [2.0, 3.25], [1e-3, 0.0]];
        write_csv(&path, &words, coords.view(), Some(&groups)).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text,
            "word,x,y,group\nplain,0.5,-1,g1\n\"a,b\",2,3.25,g2\n\"say \"\"hi\"\"\",0.001,0,g1\n"
        );
        assert!(write_csv(&path, &words[..1], coords.view(), None).is_err());
    }
}
