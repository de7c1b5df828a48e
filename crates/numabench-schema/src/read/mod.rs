//! The one reader of results files: numabench's JSON document (`--json`),
//! its JSON Lines (`--jsonl`, schema version 2, and version-1 files with a
//! metadata line first) and the MPI monitor's JSON Lines. Every command
//! that reads results (report, compare, summary, cluster, memattrs export,
//! overdecompose, `run --mpi-monitor`) goes through it.
//!
//! Two modes: [`Mode::Strict`] stops at the first bad line with an error
//! naming `file:line`; [`Mode::Lenient`] turns each bad line into a note
//! naming `file:line` and reads on (the report shows what it can).
//!
//! Depends only on the record and metadata types, serde and serde_json.

mod document;
mod lines;
#[cfg(test)]
mod tests;

use crate::{Record, RESULTS_SCHEMA_VERSION};
use serde_json::{Map, Value};
use std::ops::Deref;
use std::path::Path;
use thiserror::Error;

/// What a bad line does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The first bad line is an error.
    Strict,
    /// A bad line becomes a note; reading goes on.
    Lenient,
}

/// Why a results file could not be read (strict mode), or could not be
/// opened at all.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{}: {reason}", place(file, *line))]
pub struct ReadError {
    /// The file, as its caller named it.
    pub file: String,
    /// The 1-based line to blame, when one is.
    pub line: Option<usize>,
    /// What is wrong, one sentence.
    pub reason: String,
}

/// `file:line` or `file`.
fn place(file: &str, line: Option<usize>) -> String {
    match line {
        Some(line) => format!("{file}:{line}"),
        None => file.to_string(),
    }
}

/// One record as read, with where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadRecord {
    /// The file, as its caller named it.
    pub file: String,
    /// The 1-based line its text starts on.
    pub line: usize,
    pub record: Record,
}

impl Deref for ReadRecord {
    type Target = Record;
    fn deref(&self) -> &Record {
        &self.record
    }
}

impl ReadRecord {
    /// A parameter as a number.
    pub fn num(&self, key: &str) -> Option<f64> {
        self.record.params.get(key).and_then(Value::as_f64)
    }

    /// A parameter as text (strings as they are, other values as JSON).
    pub fn text(&self, key: &str) -> Option<String> {
        match self.record.params.get(key)? {
            Value::Null => None,
            Value::String(text) => Some(text.clone()),
            other => Some(other.to_string()),
        }
    }

    /// A statistic by its name in the schema (`n`, `min`, `median`, `mean`,
    /// `max`, `stddev`, `cv`, `p90`, `p99`).
    pub fn stat(&self, key: &str) -> Option<f64> {
        let stats = &self.record.stats;
        Some(match key {
            "n" => stats.n as f64,
            "min" => stats.min,
            "median" => stats.median,
            "mean" => stats.mean,
            "max" => stats.max,
            "stddev" => stats.stddev,
            "cv" => stats.cv,
            "p90" => stats.p90,
            "p99" => stats.p99,
            _ => return None,
        })
    }
}

/// What one or more results files hold.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Results {
    /// The run metadata objects (without a version-1 `type`), in file order,
    /// each with its file.
    pub metadata: Vec<(String, Map<String, Value>)>,
    /// The records, in file order.
    pub records: Vec<ReadRecord>,
    /// Lenient mode: what was skipped, one sentence each, starting with
    /// `file:line: ` (or `file: `).
    pub notes: Vec<String>,
}

impl Results {
    /// The records without where they came from.
    pub fn into_records(self) -> Vec<Record> {
        self.records.into_iter().map(|read| read.record).collect()
    }

    /// Adds what another read found.
    pub fn extend(&mut self, other: Results) {
        self.metadata.extend(other.metadata);
        self.records.extend(other.records);
        self.notes.extend(other.notes);
    }
}

/// Reads the results text `text` of the file named `file` (the name is
/// only used in notes and errors).
pub fn read_results(file: &str, text: &str, mode: Mode) -> Result<Results, ReadError> {
    let mut reader = Reader {
        file,
        mode,
        results: Results::default(),
    };
    if text.trim().is_empty() {
        reader.problem(None, "empty file".to_string())?;
    } else if document::is_document(text) {
        reader.read_document(text)?;
    } else {
        reader.read_lines(text)?;
    }
    Ok(reader.results)
}

/// Reads the results file at `path` (named as given in notes and errors).
pub fn read_results_file(path: &Path, mode: Mode) -> Result<Results, ReadError> {
    let file = path.display().to_string();
    match std::fs::read_to_string(path) {
        Ok(text) => read_results(&file, &text, mode),
        Err(error) => Err(ReadError {
            file,
            line: None,
            reason: format!("cannot read: {error}"),
        }),
    }
}

/// The state of one read.
struct Reader<'a> {
    file: &'a str,
    mode: Mode,
    results: Results,
}

/// A problem was noted (lenient) and reading may go on.
type Go = Result<(), ReadError>;

impl Reader<'_> {
    /// A bad line or file: an error in strict mode, a note in lenient mode.
    fn problem(&mut self, line: Option<usize>, reason: String) -> Go {
        let error = ReadError {
            file: self.file.to_string(),
            line,
            reason,
        };
        match self.mode {
            Mode::Strict => Err(error),
            Mode::Lenient => {
                self.results.notes.push(error.to_string());
                Ok(())
            }
        }
    }

    /// Keeps a run metadata object after checking its schema version; a
    /// version this numabench does not know is a problem (then the file's
    /// records are not to be trusted, and `false` says to stop).
    fn metadata(&mut self, line: usize, metadata: Map<String, Value>) -> Result<bool, ReadError> {
        if let Some(version) = metadata.get("schema_version") {
            let known = version
                .as_u64()
                .is_some_and(|version| (1..=u64::from(RESULTS_SCHEMA_VERSION)).contains(&version));
            if !known {
                self.problem(
                    Some(line),
                    format!("results schema version {version}, this numabench reads versions 1 to {RESULTS_SCHEMA_VERSION}; the rest of the file is skipped"),
                )?;
                return Ok(false);
            }
        }
        let last = self
            .results
            .metadata
            .last()
            .filter(|(file, _)| file == self.file)
            .map(|(_, last)| last);
        if last != Some(&metadata) {
            self.results
                .metadata
                .push((self.file.to_string(), metadata));
        }
        Ok(true)
    }

    /// Keeps a record's JSON object if it is a record of the schema.
    fn record(&mut self, line: usize, object: Map<String, Value>) -> Go {
        match serde_json::from_value::<Record>(Value::Object(object)) {
            Ok(record) => {
                self.results.records.push(ReadRecord {
                    file: self.file.to_string(),
                    line,
                    record,
                });
                Ok(())
            }
            Err(error) => self.problem(
                Some(line),
                format!("not a record of the results schema ({error}); skipped"),
            ),
        }
    }
}
