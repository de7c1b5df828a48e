//! JSON Lines back into records: the metadata line is skipped, every
//! `{"type":"record",...}` line becomes a [`Record`].

use crate::output::Record;
use serde_json::Value;
use thiserror::Error;

/// A line that is not a record of the results schema.
#[derive(Debug, Error)]
pub enum ReadError {
    #[error("line {line}: not JSON: {source}")]
    Json {
        line: usize,
        source: serde_json::Error,
    },
    #[error("line {line}: not a record of the results schema: {source}")]
    Record {
        line: usize,
        source: serde_json::Error,
    },
    #[error("line {line}: no \"type\" (metadata or record)")]
    Untyped { line: usize },
}

/// The records of a JSON Lines results file, in file order.
pub fn read_records(text: &str) -> Result<Vec<Record>, ReadError> {
    let mut records = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line_number = index + 1;
        if line.trim().is_empty() {
            continue;
        }
        let mut value: Value = serde_json::from_str(line).map_err(|source| ReadError::Json {
            line: line_number,
            source,
        })?;
        let kind = value
            .as_object_mut()
            .and_then(|object| object.remove("type"))
            .ok_or(ReadError::Untyped { line: line_number })?;
        if kind == "record" {
            records.push(
                serde_json::from_value(value).map_err(|source| ReadError::Record {
                    line: line_number,
                    source,
                })?,
            );
        }
    }
    Ok(records)
}
