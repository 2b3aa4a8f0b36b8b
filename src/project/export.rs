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

/// Reads coordinates written by [`write_csv`] (or any `word,x,y[,z...][,group]`
/// file with that header): the words and the coordinate columns.
pub fn read_csv(path: &Path) -> Result<(Vec<String>, ndarray::Array2<f64>)> {
    use crate::corpus::source::BoundedLines;
    let reader = crate::corpus::source::open(path)?;
    let mut lines = reader.bounded_lines();
    let header = match lines.next() {
        Some(l) => l.map_err(|e| Error::io(path, e))?,
        None => {
            return Err(Error::parse(
                path,
                1,
                "empty file (expected a header word,x,y,...)",
            ))
        }
    };
    let names = split_csv(&header);
    if names.first().map(String::as_str) != Some("word") || names.len() < 2 {
        return Err(Error::parse(
            path,
            1,
            format!("header '{header}' (expected word,x,y,...)"),
        ));
    }
    let cols = names.iter().skip(1).take_while(|n| *n != "group").count();
    let (mut words, mut values) = (Vec::new(), Vec::new());
    for (no, line) in lines.enumerate() {
        let line = line.map_err(|e| Error::io(path, e))?;
        if line.trim().is_empty() {
            continue;
        }
        let fields = split_csv(&line);
        if fields.len() < 1 + cols {
            return Err(Error::parse(
                path,
                no + 2,
                format!("{} fields (expected {})", fields.len(), names.len()),
            ));
        }
        for f in &fields[1..=cols] {
            let v: f64 = f
                .trim()
                .parse()
                .ok()
                .filter(|v: &f64| v.is_finite())
                .ok_or_else(|| {
                    Error::parse(path, no + 2, format!("'{f}' is not a finite number"))
                })?;
            values.push(v);
        }
        words.push(fields[0].clone());
    }
    let coords = ndarray::Array2::from_shape_vec((words.len(), cols), values)
        .expect("one value per word and column");
    Ok((words, coords))
}

/// The fields of one CSV line (RFC 4180 quoting).
fn split_csv(line: &str) -> Vec<String> {
    let (mut out, mut field, mut quoted) = (Vec::new(), String::new(), false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut field)),
            _ => field.push(c),
        }
    }
    out.push(field);
    out
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
        let (back, c) = read_csv(&path).unwrap();
        assert_eq!(back, words);
        assert_eq!(c, coords);
        std::fs::write(&path, "word,x,y,z\na,1,2,3\nb,4,x,6\n").unwrap();
        let e = read_csv(&path).unwrap_err().to_string();
        assert!(e.contains(":3") && e.contains("'x'"), "{e}");
    }
}
