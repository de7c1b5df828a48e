//! Results files read leniently, for readers that show what they can (the
//! report): the same formats as [`super::read_results`] (JSON Lines, a
//! `--json` document), but a bad line, an unknown kind of line or a record
//! outside the schema is skipped with a note naming its line, and a
//! `--json` document cut short keeps its whole records.

use super::read::ResultsError;
use super::record::Record;
use serde_json::{Map, Value};

/// What a results text holds, read leniently.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResultsFile {
    /// The run metadata objects (without their `type`), in file order.
    pub metadata: Vec<Map<String, Value>>,
    /// The records, in file order.
    pub records: Vec<Record>,
    /// What was skipped, one sentence each, starting with `line N: ` where
    /// a line is to blame (without the file name: the caller knows it).
    pub notes: Vec<String>,
}

/// Reads a results text leniently. Errors only when there is nothing to
/// read (an empty text) or the text is a JSON document other than a results
/// document (no `records` list); a text of metadata only is not an error.
pub fn read_results_lenient(text: &str) -> Result<ResultsFile, ResultsError> {
    if text.trim().is_empty() {
        return Err(ResultsError::Empty);
    }
    let mut file = ResultsFile::default();
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(document)) if document.get("type").is_none() => {
            file.read_document(document)?
        }
        Err(error) if is_document_start(text) => file.read_cut_document(text, &error),
        _ => file.read_lines(text),
    }
    Ok(file)
}

/// A `--json` document starts with `{` and its `"metadata"` key; a JSON
/// Lines file starts with `{"type"`.
fn is_document_start(text: &str) -> bool {
    let mut rest = text.trim_start();
    rest = rest.strip_prefix('{').unwrap_or("");
    rest.trim_start().starts_with("\"metadata\"") || rest.trim_start().starts_with("\"records\"")
}

impl ResultsFile {
    fn read_document(&mut self, mut document: Map<String, Value>) -> Result<(), ResultsError> {
        let Some(Value::Array(list)) = document.remove("records") else {
            return Err(ResultsError::NoRecordList);
        };
        if let Some(Value::Object(metadata)) = document.remove("metadata") {
            self.metadata.push(metadata);
        }
        for (index, value) in list.into_iter().enumerate() {
            match serde_json::from_value::<Record>(value) {
                Ok(record) => self.records.push(record),
                Err(error) => self.notes.push(format!(
                    "record {}: not a record of the results schema ({error}); skipped",
                    index + 1
                )),
            }
        }
        Ok(())
    }

    /// A `--json` document cut short (the run was killed before closing
    /// it): the JSON sink writes one record per line, so the whole lines
    /// before the cut are its whole records.
    fn read_cut_document(&mut self, text: &str, error: &serde_json::Error) {
        let mut whole = 0;
        for line in text.lines() {
            let line = line.trim().trim_end_matches(',');
            if !line.starts_with("{\"benchmark\"") {
                continue;
            }
            if let Ok(record) = serde_json::from_str::<Record>(line) {
                self.records.push(record);
                whole += 1;
            }
        }
        self.notes.push(format!(
            "line {}: the JSON document is not complete ({error}); its {whole} whole record(s) are shown",
            error.line()
        ));
    }

    fn read_lines(&mut self, text: &str) {
        for (index, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let line_number = index + 1;
            let mut value = match serde_json::from_str::<Value>(line) {
                Ok(Value::Object(object)) => object,
                Ok(_) => {
                    self.notes.push(format!(
                        "line {line_number}: not a JSON object; the line is skipped"
                    ));
                    continue;
                }
                Err(error) => {
                    self.notes.push(format!(
                        "line {line_number}: not a JSON line ({error}); the line is skipped"
                    ));
                    continue;
                }
            };
            match value.remove("type") {
                Some(Value::String(kind)) if kind == "metadata" => self.metadata.push(value),
                Some(Value::String(kind)) if kind == "record" => {
                    match serde_json::from_value::<Record>(Value::Object(value)) {
                        Ok(record) => self.records.push(record),
                        Err(error) => self.notes.push(format!(
                            "line {line_number}: not a record of the results schema ({error}); skipped"
                        )),
                    }
                }
                Some(Value::String(kind)) => self.notes.push(format!(
                    "line {line_number}: unknown kind \"{kind}\" skipped"
                )),
                _ => self.notes.push(format!(
                    "line {line_number}: no \"type\" (metadata or record); skipped"
                )),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const METADATA: &str = r#"{"type":"metadata","tool":"numabench","host":"h"}"#;
    const RECORD: &str = r#"{"benchmark":"latency","metric":"latency","value":80.5,"unit":"ns","params":{"size_bytes":65536},"placement":{"requested":{"memory":"bind:0"},"verified":null},"stats":{"n":3,"min":80.0,"median":80.5,"mean":80.5,"max":81.0,"stddev":0.5,"cv":0.006,"p90":81.0,"p99":81.0}}"#;

    fn line(record: &str) -> String {
        record.replacen('{', "{\"type\":\"record\",", 1)
    }

    #[test]
    fn a_truncated_line_is_noted_and_the_rest_kept() {
        let text = format!("{METADATA}\n{}\n{}", line(RECORD), &line(RECORD)[..40]);
        let file = read_results_lenient(&text).unwrap();
        assert_eq!(file.metadata.len(), 1);
        assert_eq!(file.metadata[0].get("type"), None);
        assert_eq!(file.records.len(), 1);
        assert_eq!(file.records[0].stats.median, 80.5);
        assert_eq!(file.notes.len(), 1);
        assert!(
            file.notes[0].starts_with("line 3: not a JSON line"),
            "{:?}",
            file.notes
        );
    }

    #[test]
    fn unknown_kinds_and_records_outside_the_schema_are_skipped_with_notes() {
        let bad_unit = line(RECORD).replace("\"ns\"", "\"furlongs\"");
        let text = format!(
            "{METADATA}\n{{\"type\":\"gizmo\"}}\n{}\n{bad_unit}\n{{\"a\":1}}\n",
            line(RECORD)
        );
        let file = read_results_lenient(&text).unwrap();
        assert_eq!(file.records.len(), 1);
        assert_eq!(file.notes.len(), 3, "{:?}", file.notes);
        assert_eq!(file.notes[0], "line 2: unknown kind \"gizmo\" skipped");
        assert!(file.notes[1].starts_with("line 4: not a record of the results schema"));
        assert!(file.notes[2].starts_with("line 5: no \"type\""));
    }

    #[test]
    fn documents_whole_and_cut() {
        let whole = format!(
            "{{\n\"metadata\": {{\"tool\":\"numabench\"}},\n\"records\": [\n{RECORD}\n]\n}}\n"
        );
        let file = read_results_lenient(&whole).unwrap();
        assert_eq!((file.metadata.len(), file.records.len()), (1, 1));
        assert!(file.notes.is_empty(), "{:?}", file.notes);
        let cut = format!(
            "{{\n\"metadata\": {{\"tool\":\"numabench\"}},\n\"records\": [\n{RECORD},\n{}",
            &RECORD[..30]
        );
        let file = read_results_lenient(&cut).unwrap();
        assert_eq!(file.records.len(), 1);
        assert_eq!(file.notes.len(), 1, "{:?}", file.notes);
        assert!(
            file.notes[0].starts_with("line 5: the JSON document is not complete"),
            "{:?}",
            file.notes
        );
    }

    #[test]
    fn nothing_to_read_is_an_error() {
        assert!(matches!(
            read_results_lenient(" \n"),
            Err(ResultsError::Empty)
        ));
        assert!(matches!(
            read_results_lenient("{\"cpu_count\": 2}"),
            Err(ResultsError::NoRecordList)
        ));
        let file = read_results_lenient(METADATA).unwrap();
        assert_eq!((file.metadata.len(), file.records.len()), (1, 0));
    }
}
