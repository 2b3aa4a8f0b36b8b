//! Reading `(word, context, count)` rows from a Parquet part file, as a
//! Spark job writes them with `df.write.parquet(dir)`.
//!
//! Uses the `parquet` crate of Apache Arrow's Rust implementation without
//! its Arrow layer (default features off: only snappy, Spark's default
//! page compression, and gzip): the three columns are read in lockstep,
//! a batch of values at a time, straight from the column chunks. The
//! columns are found by name (`word`, `context`, `count`), or are the
//! file's only three columns; the count may be any integer or float column.

use std::fs::File;
use std::path::Path;

use parquet::basic::Type as PhysicalType;
use parquet::column::reader::{ColumnReader, ColumnReaderImpl};
use parquet::data_type::{ByteArray, DataType, DoubleType, FloatType, Int32Type, Int64Type};
use parquet::errors::ParquetError;
use parquet::file::reader::{FileReader, RowGroupReader, SerializedFileReader};
use parquet::schema::types::SchemaDescriptor;

use crate::{Error, Result};

/// Rows decoded per column per step.
const BATCH: usize = 1 << 15;

/// The first four bytes of every Parquet file.
pub(super) const MAGIC: &[u8; 4] = b"PAR1";

/// The column names a Spark job writes (see examples/spark/).
const NAMES: [&str; 3] = ["word", "context", "count"];

/// A Parquet library error as a one-line error naming the file.
fn parquet_error(path: &Path, e: ParquetError) -> Error {
    let text = e.to_string().replace('\n', " ");
    Error::format(path, format!("not a readable Parquet file: {text}"))
}

/// Calls `row(word, context, count)` for every row of the Parquet file at
/// `path`, in file order.
pub(super) fn read(path: &Path, mut row: impl FnMut(&str, &str, f64) -> Result<()>) -> Result<()> {
    // The reader checks its input, but a malformed file must never abort
    // an import; a panic deep in a decoder becomes this file's error.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| read_file(path, &mut row)))
        .unwrap_or_else(|_| {
            Err(Error::format(
                path,
                "not a readable Parquet file: the decoder failed (corrupt file?)",
            ))
        })
}

fn read_file(path: &Path, row: &mut dyn FnMut(&str, &str, f64) -> Result<()>) -> Result<()> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let reader = SerializedFileReader::new(file).map_err(|e| parquet_error(path, e))?;
    let columns = find_columns(path, reader.metadata().file_metadata().schema_descr())?;
    for g in 0..reader.num_row_groups() {
        let group = reader
            .get_row_group(g)
            .map_err(|e| parquet_error(path, e))?;
        read_group(path, &*group, columns, row)?;
    }
    Ok(())
}

/// The indices of the word, context and count columns.
fn find_columns(path: &Path, schema: &SchemaDescriptor) -> Result<[usize; 3]> {
    let names: Vec<&str> = schema.columns().iter().map(|c| c.name()).collect();
    let by_name = NAMES.map(|n| names.iter().position(|c| c.eq_ignore_ascii_case(n)));
    let columns = match by_name {
        [Some(w), Some(c), Some(n)] => [w, c, n],
        _ if names.len() == 3 => [0, 1, 2],
        _ => {
            return Err(Error::format(
                path,
                format!(
                    "expected Parquet columns (word, context, count), found ({})",
                    names.join(", ")
                ),
            ))
        }
    };
    for (k, &i) in columns.iter().enumerate() {
        let column = schema.column(i);
        let is_text = column.physical_type() == PhysicalType::BYTE_ARRAY;
        let is_number = matches!(
            column.physical_type(),
            PhysicalType::INT32 | PhysicalType::INT64 | PhysicalType::FLOAT | PhysicalType::DOUBLE
        );
        if column.max_rep_level() > 0 || (k < 2 && !is_text) || (k == 2 && !is_number) {
            let want = if k < 2 { "a string" } else { "a number" };
            return Err(Error::format(
                path,
                format!(
                    "Parquet column '{}' ({}) is not {want}",
                    column.name(),
                    column.physical_type()
                ),
            ));
        }
    }
    Ok(columns)
}

/// A string column, read a batch at a time.
struct Words {
    reader: ColumnReaderImpl<parquet::data_type::ByteArrayType>,
    values: Vec<ByteArray>,
    levels: Vec<i16>,
}

/// The count column, read a batch at a time whatever its number type.
enum Numbers {
    I32(ColumnReaderImpl<Int32Type>, Vec<i32>),
    I64(ColumnReaderImpl<Int64Type>, Vec<i64>),
    F32(ColumnReaderImpl<FloatType>, Vec<f32>),
    F64(ColumnReaderImpl<DoubleType>, Vec<f64>),
}

/// Reads up to [`BATCH`] records of `reader` into `values`; the number of
/// records, which must all be non-null.
fn batch<T: DataType>(
    path: &Path,
    name: &str,
    reader: &mut ColumnReaderImpl<T>,
    values: &mut Vec<T::T>,
    levels: &mut Vec<i16>,
) -> Result<usize> {
    values.clear();
    levels.clear();
    let (records, _, _) = reader
        .read_records(BATCH, Some(levels), None, values)
        .map_err(|e| parquet_error(path, e))?;
    if values.len() != records {
        return Err(Error::format(
            path,
            format!("Parquet column '{name}' has a null value"),
        ));
    }
    Ok(records)
}

impl Words {
    fn new(path: &Path, reader: ColumnReader) -> Result<Self> {
        match reader {
            ColumnReader::ByteArrayColumnReader(reader) => Ok(Words {
                reader,
                values: Vec::new(),
                levels: Vec::new(),
            }),
            _ => Err(Error::format(path, "a Parquet word column is not a string")),
        }
    }

    fn next(&mut self, path: &Path, name: &str) -> Result<usize> {
        batch(
            path,
            name,
            &mut self.reader,
            &mut self.values,
            &mut self.levels,
        )
    }

    fn get(&self, path: &Path, i: usize) -> Result<&str> {
        self.values[i]
            .as_utf8()
            .map_err(|_| Error::format(path, "a Parquet word is not UTF-8"))
    }
}

impl Numbers {
    fn new(path: &Path, reader: ColumnReader) -> Result<Self> {
        Ok(match reader {
            ColumnReader::Int32ColumnReader(r) => Numbers::I32(r, Vec::new()),
            ColumnReader::Int64ColumnReader(r) => Numbers::I64(r, Vec::new()),
            ColumnReader::FloatColumnReader(r) => Numbers::F32(r, Vec::new()),
            ColumnReader::DoubleColumnReader(r) => Numbers::F64(r, Vec::new()),
            _ => {
                return Err(Error::format(
                    path,
                    "the Parquet count column is not a number",
                ))
            }
        })
    }

    fn next(&mut self, path: &Path, levels: &mut Vec<i16>) -> Result<usize> {
        let name = NAMES[2];
        match self {
            Numbers::I32(r, v) => batch(path, name, r, v, levels),
            Numbers::I64(r, v) => batch(path, name, r, v, levels),
            Numbers::F32(r, v) => batch(path, name, r, v, levels),
            Numbers::F64(r, v) => batch(path, name, r, v, levels),
        }
    }

    fn get(&self, i: usize) -> f64 {
        match self {
            Numbers::I32(_, v) => f64::from(v[i]),
            Numbers::I64(_, v) => v[i] as f64,
            Numbers::F32(_, v) => f64::from(v[i]),
            Numbers::F64(_, v) => v[i],
        }
    }
}

/// Reads one row group's rows, the three columns a batch at a time.
fn read_group(
    path: &Path,
    group: &dyn RowGroupReader,
    columns: [usize; 3],
    row: &mut dyn FnMut(&str, &str, f64) -> Result<()>,
) -> Result<()> {
    let column = |i: usize| {
        group
            .get_column_reader(columns[i])
            .map_err(|e| parquet_error(path, e))
    };
    let mut words = Words::new(path, column(0)?)?;
    let mut contexts = Words::new(path, column(1)?)?;
    let mut counts = Numbers::new(path, column(2)?)?;
    let mut levels = Vec::new();
    loop {
        let n = words.next(path, NAMES[0])?;
        let (m, k) = (
            contexts.next(path, NAMES[1])?,
            counts.next(path, &mut levels)?,
        );
        if n != m || n != k {
            return Err(Error::format(
                path,
                "Parquet columns of one row group have different lengths",
            ));
        }
        if n == 0 {
            return Ok(());
        }
        for i in 0..n {
            row(words.get(path, i)?, contexts.get(path, i)?, counts.get(i))?;
        }
    }
}
