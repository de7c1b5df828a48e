//! CSV that `pandas.read_csv(path)` loads with no options: a header, then
//! one row per record, with the run metadata as `run.<field>` columns on
//! every row and nested fields flattened as `pandas.json_normalize`
//! flattens the JSON Lines ([`super::flatten`]), so both give one table.
//!
//! The columns are only known as records arrive (each benchmark has its
//! own params). A row is appended and flushed while the columns stay the
//! same; a record that brings new columns rewrites a regular file with the
//! wider header (the safe replace of [`numabench_schema::output_file`]:
//! an unguessable temporary beside it, its mode and owner kept, synced,
//! renamed over it), so a crash keeps every finished record and the file
//! always parses. Anything else the path names (a symbolic link, a pipe,
//! `/dev/stdout`, `/proc/self/fd/1`) is written through, the whole table at
//! the end, and a link stays a link.

use super::flatten::flatten;
use super::jsonl_sink::{record_with_run, run_object};
use super::metadata::RunMetadata;
use super::record::Record;
use super::sink::Sink;
use numabench_schema::output_file::{self, Output};
use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why a CSV delimiter was refused.
///
/// Always the user's fault (the `--delimiter` given).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DelimiterError {
    #[error("invalid delimiter '{text}': give exactly one ASCII character other than a quote, '#', a letter, a digit or a line break")]
    Invalid { text: String },
}

crate::error::all_faulty!(Usage: DelimiterError);

/// Parses `--delimiter`: one ASCII punctuation or whitespace character
/// (`\t` is accepted for a tab).
pub fn parse_delimiter(text: &str) -> Result<u8, DelimiterError> {
    let byte = match text {
        "\\t" | "tab" => b'\t',
        _ if text.len() == 1 => text.as_bytes()[0],
        _ => {
            return Err(DelimiterError::Invalid {
                text: text.to_string(),
            })
        }
    };
    let usable = byte.is_ascii()
        && !byte.is_ascii_alphanumeric()
        && !matches!(byte, b'"' | b'#' | b'\n' | b'\r');
    if usable {
        Ok(byte)
    } else {
        Err(DelimiterError::Invalid {
            text: text.to_string(),
        })
    }
}

/// The columns every record has before its nested fields.
const PLAIN_COLUMNS: [&str; 4] = ["benchmark", "metric", "value", "unit"];

/// Where the table goes.
#[derive(Debug)]
enum Target {
    /// A regular file: appended to, replaced when the header widens
    /// (`file` is `None` until the first rewrite).
    File { path: PathBuf, file: Option<File> },
    /// Anything else the path names: the table is written through, once,
    /// at the end ([`output_file::Stream::write_whole`]).
    Through(output_file::Stream),
    /// A writer given by the caller: the table is written once, at the end.
    Stream(Box<dyn WriteDebug>),
}

/// A writer that can be shown in `Debug` output.
trait WriteDebug: Write + std::fmt::Debug {}
impl<W: Write + std::fmt::Debug> WriteDebug for W {}

/// Writes the CSV table; see the module documentation.
#[derive(Debug)]
pub struct CsvSink {
    target: Target,
    delimiter: u8,
    run: serde_json::Map<String, serde_json::Value>,
    columns: Vec<String>,
    position: HashMap<String, usize>,
    /// Every row so far, as wide as `columns` was when it was written.
    rows: Vec<Vec<String>>,
}

impl CsvSink {
    /// Opens the CSV output at `path` ([`output_file::open`]: a path that
    /// cannot be written fails now, before anything is measured).
    pub fn create(path: &Path, delimiter: u8) -> io::Result<Self> {
        let target = match output_file::open(path)? {
            Output::Regular(path) => Target::File { path, file: None },
            Output::Stream(stream) => Target::Through(stream),
        };
        Ok(Self::with_target(target, delimiter))
    }

    /// A CSV table written to `writer` at the end (it cannot be rewritten).
    pub fn to_writer(writer: impl Write + std::fmt::Debug + 'static, delimiter: u8) -> Self {
        Self::with_target(Target::Stream(Box::new(writer)), delimiter)
    }

    fn with_target(target: Target, delimiter: u8) -> Self {
        Self {
            target,
            delimiter,
            run: serde_json::Map::new(),
            columns: Vec::new(),
            position: HashMap::new(),
            rows: Vec::new(),
        }
    }

    /// Adds the columns not seen before; true when there were some.
    fn widen<'a>(&mut self, columns: impl Iterator<Item = &'a String>) -> bool {
        let before = self.columns.len();
        for column in columns {
            if !self.position.contains_key(column) {
                self.position.insert(column.clone(), self.columns.len());
                self.columns.push(column.clone());
            }
        }
        self.columns.len() > before
    }

    /// CSV text of some rows (each padded to the header's width).
    fn text<'a>(&self, rows: impl Iterator<Item = &'a Vec<String>>) -> io::Result<Vec<u8>> {
        let mut writer = csv::WriterBuilder::new()
            .delimiter(self.delimiter)
            .from_writer(Vec::new());
        for row in rows {
            let padding = self.columns.len().saturating_sub(row.len());
            let cells = row
                .iter()
                .map(String::as_str)
                .chain(std::iter::repeat_n("", padding));
            writer.write_record(cells).map_err(io::Error::other)?;
        }
        writer.into_inner().map_err(|error| error.into_error())
    }

    /// The whole table: the header, then every row.
    fn table(&self) -> io::Result<Vec<u8>> {
        let header = self.columns.clone();
        self.text(std::iter::once(&header).chain(&self.rows))
    }

    /// Replaces the file with the whole table, atomically
    /// ([`output_file::rewrite`]); rows are then appended to the new file.
    fn rewrite(&mut self) -> io::Result<()> {
        let table = self.table()?;
        let Target::File { path, file } = &mut self.target else {
            return Ok(());
        };
        *file = Some(output_file::rewrite(path, &table)?);
        Ok(())
    }

    /// Appends the last row to the file and flushes it.
    fn append_last(&mut self) -> io::Result<()> {
        let text = self.text(self.rows.last().into_iter())?;
        if let Target::File {
            file: Some(file), ..
        } = &mut self.target
        {
            file.write_all(&text)?;
            file.flush()?;
        }
        Ok(())
    }
}

impl Sink for CsvSink {
    /// Writes the header of the columns known now (the plain fields and
    /// `run.*`): a run that stops before its first record leaves a CSV
    /// with no rows, which still parses.
    fn begin(&mut self, metadata: &RunMetadata) -> io::Result<()> {
        self.run = run_object(metadata)?;
        let mut known: Vec<String> = PLAIN_COLUMNS.iter().map(|c| c.to_string()).collect();
        known.extend(self.run.keys().map(|key| format!("run.{key}")));
        self.widen(known.iter());
        self.rewrite()
    }

    fn record(&mut self, record: &Record) -> io::Result<()> {
        let cells = flatten(&record_with_run(record, &self.run)?);
        let widened = self.widen(cells.iter().map(|(column, _)| column));
        let mut row = vec![String::new(); self.columns.len()];
        for (column, cell) in cells {
            row[self.position[&column]] = cell;
        }
        self.rows.push(row);
        if widened {
            self.rewrite()
        } else {
            self.append_last()
        }
    }

    fn finish(&mut self) -> io::Result<()> {
        let at_end = matches!(self.target, Target::Stream(_) | Target::Through(_));
        if at_end && !self.columns.is_empty() {
            let table = self.table()?;
            // Written once: a second finish writes nothing.
            self.columns.clear();
            self.rows.clear();
            match &mut self.target {
                Target::Stream(writer) => writer.write_all(&table)?,
                Target::Through(stream) => stream.write_whole(&table)?,
                Target::File { .. } => {}
            }
        }
        match &mut self.target {
            Target::Stream(writer) => writer.flush(),
            Target::Through(_) => Ok(()),
            Target::File { file: None, .. } => Ok(()),
            Target::File {
                file: Some(file), ..
            } => file.sync_all(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delimiters() {
        assert_eq!(parse_delimiter(","), Ok(b','));
        assert_eq!(parse_delimiter(";"), Ok(b';'));
        assert_eq!(parse_delimiter("\\t"), Ok(b'\t'));
        for bad in ["", ",,", "a", "\"", "#", "é"] {
            assert!(parse_delimiter(bad).is_err(), "{bad:?}");
        }
    }
}
