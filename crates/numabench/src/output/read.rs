//! Results files back into records: a JSON Lines file (what `--jsonl`
//! writes; its lines are read by [`crate::mpi_monitor::read_records`]) or a
//! JSON document (what `--json` prints: `{"metadata": ..., "records": [...]}`).

use super::record::Record;
use crate::mpi_monitor::{read_records, ReadError};
use serde_json::Value;
use thiserror::Error;

/// Why a results text gave no records.
#[derive(Debug, Error)]
pub enum ResultsError {
    /// Nothing but blanks.
    #[error("empty file")]
    Empty,
    /// A JSON document that is not `{"metadata": ..., "records": [...]}`.
    #[error("a JSON document without a \"records\" list")]
    NoRecordList,
    /// A record of the JSON document that does not follow the schema.
    #[error("record {index}: not a record of the results schema: {source}")]
    Record {
        index: usize,
        source: serde_json::Error,
    },
    /// A bad line of a JSON Lines file.
    #[error(transparent)]
    Line(#[from] ReadError),
    /// Well-formed, but without a single record (only metadata).
    #[error("no records")]
    NoRecords,
}

/// The records of a results file's text, JSON Lines or JSON document
/// (told apart by whether the whole text is one JSON value with a
/// `records` list), in file order. A text without records is an error.
pub fn read_results(text: &str) -> Result<Vec<Record>, ResultsError> {
    if text.trim().is_empty() {
        return Err(ResultsError::Empty);
    }
    let records = match serde_json::from_str::<Value>(text) {
        // One JSON value: a document, unless it is a single JSON Lines line.
        Ok(Value::Object(mut document)) if document.get("type").is_none() => {
            let Some(Value::Array(list)) = document.remove("records") else {
                return Err(ResultsError::NoRecordList);
            };
            list.into_iter()
                .enumerate()
                .map(|(index, value)| {
                    serde_json::from_value(value)
                        .map_err(|source| ResultsError::Record { index, source })
                })
                .collect::<Result<Vec<Record>, _>>()?
        }
        _ => read_records(text)?,
    };
    if records.is_empty() {
        return Err(ResultsError::NoRecords);
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::*;

    const RECORD: &str = r#"{"benchmark":"latency","metric":"latency","value":80.0,"unit":"ns","params":{"size_bytes":65536},"placement":{"requested":{},"verified":null},"stats":{"n":1,"min":80.0,"median":80.0,"mean":80.0,"max":80.0,"stddev":0.0,"cv":0.0,"p90":80.0,"p99":80.0}}"#;

    #[test]
    fn reads_documents_and_lines_alike() {
        let document = format!("{{\"metadata\": {{}},\n\"records\": [\n{RECORD}\n]\n}}\n");
        let lines = format!(
            "{{\"type\":\"metadata\"}}\n{}\n",
            RECORD.replacen('{', "{\"type\":\"record\",", 1)
        );
        for text in [document, lines] {
            let records = read_results(&text).unwrap();
            assert_eq!(records.len(), 1);
            assert_eq!(records[0].value, 80.0);
        }
    }

    #[test]
    fn texts_without_records_are_errors() {
        assert!(matches!(read_results(" \n"), Err(ResultsError::Empty)));
        assert!(matches!(
            read_results("{\"type\":\"metadata\"}\n"),
            Err(ResultsError::NoRecords)
        ));
        assert!(matches!(
            read_results("{\"metadata\": {}}"),
            Err(ResultsError::NoRecordList)
        ));
        let error = read_results("{\"type\":\"metadata\"}\nnot json\n").unwrap_err();
        assert!(error.to_string().starts_with("line 2:"), "{error}");
    }
}
