//! Reading results files of any numabench command, from any machine: JSON
//! Lines (`--jsonl`, the MPI monitor's files), JSON documents (`--json`), and
//! `topo --json` / `doctor --json` outputs. Nothing here looks at the current
//! machine.

use crate::output::{read_results_lenient, Record, ResultsError};
use serde_json::{Map, Value};

/// One record as read back: the schema's fields, kept loose so that records
/// of every command (and of later schema additions) load.
#[derive(Debug, Clone, PartialEq)]
pub struct Rec {
    /// The file it came from (as named on the command line).
    pub file: String,
    pub benchmark: String,
    pub metric: String,
    pub value: f64,
    pub unit: String,
    pub params: Map<String, Value>,
    /// `placement.requested`.
    pub requested: Map<String, Value>,
    /// `stats` (`n`, `min`, `median`, `mean`, `max`, ...).
    pub stats: Map<String, Value>,
}

impl Rec {
    /// A parameter as a number.
    pub fn num(&self, key: &str) -> Option<f64> {
        self.params.get(key).and_then(Value::as_f64)
    }

    /// A parameter as text (strings as they are, other values as JSON).
    pub fn text(&self, key: &str) -> Option<String> {
        match self.params.get(key)? {
            Value::Null => None,
            Value::String(text) => Some(text.clone()),
            other => Some(other.to_string()),
        }
    }

    /// A statistic (`min`, `median`, `max`, `n`, ...).
    pub fn stat(&self, key: &str) -> Option<f64> {
        self.stats.get(key).and_then(Value::as_f64)
    }

    /// A record of the results schema as read from `file`.
    pub fn from_record(file: &str, record: Record) -> Self {
        let stats = match serde_json::to_value(record.stats) {
            Ok(Value::Object(stats)) => stats,
            _ => Map::new(),
        };
        Self {
            file: file.to_string(),
            benchmark: record.benchmark,
            metric: record.metric,
            value: record.value,
            unit: record.unit.as_str().to_string(),
            params: record.params,
            requested: record.placement.requested,
            stats,
        }
    }
}

/// Everything read from the inputs.
#[derive(Debug, Clone, Default)]
pub struct Dataset {
    /// Run metadata of each file (`file`, the metadata object).
    pub metadata: Vec<(String, Map<String, Value>)>,
    pub records: Vec<Rec>,
    /// `topo --json` documents (`file`, document).
    pub topologies: Vec<(String, Value)>,
    /// `doctor --json` documents (`file`, document).
    pub doctors: Vec<(String, Value)>,
    /// What could not be read or was skipped, one sentence each.
    pub notes: Vec<String>,
}

impl Dataset {
    /// Records of one benchmark.
    pub fn of<'a>(&'a self, benchmark: &'a str) -> impl Iterator<Item = &'a Rec> + 'a {
        self.records
            .iter()
            .filter(move |r| r.benchmark == benchmark)
    }

    /// Whether anything that a report can show was read.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
            && self.topologies.is_empty()
            && self.doctors.is_empty()
            && self.metadata.is_empty()
    }

    /// Adds the content of one file, named `file`, to the dataset:
    /// `topo --json` and `doctor --json` documents as they are, results
    /// files through [`read_results_lenient`] (what it skips becomes a note
    /// naming `file:line`).
    pub fn load(&mut self, file: &str, text: &str) {
        if let Ok(Value::Object(document)) = serde_json::from_str::<Value>(text) {
            if document.contains_key("findings") {
                self.doctors
                    .push((file.to_string(), Value::Object(document)));
                return;
            }
            if document.contains_key("nodes") && document.contains_key("cpu_count") {
                self.topologies
                    .push((file.to_string(), Value::Object(document)));
                return;
            }
        }
        match read_results_lenient(text) {
            Ok(results) => {
                self.metadata.extend(
                    results
                        .metadata
                        .into_iter()
                        .map(|metadata| (file.to_string(), metadata)),
                );
                self.records.extend(
                    results
                        .records
                        .into_iter()
                        .map(|record| Rec::from_record(file, record)),
                );
                self.notes
                    .extend(results.notes.iter().map(|note| placed(file, note)));
            }
            Err(ResultsError::Empty) => self.notes.push(format!("{file}: empty file")),
            Err(ResultsError::NoRecordList) => self.notes.push(format!(
                "{file}: a JSON document numabench does not write (skipped)"
            )),
            Err(error) => self.notes.push(format!("{file}: {error} (skipped)")),
        }
    }
}

/// A reader's note with its file: `line 3: ...` becomes `file:3: ...`.
fn placed(file: &str, note: &str) -> String {
    match note
        .strip_prefix("line ")
        .and_then(|rest| rest.split_once(": "))
        .filter(|(number, _)| number.parse::<usize>().is_ok())
    {
        Some((number, rest)) => format!("{file}:{number}: {rest}"),
        None => format!("{file}: {note}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const METADATA: &str = r#"{"type":"metadata","tool":"numabench","host":"h"}"#;
    const RECORD: &str = r#"{"type":"record","benchmark":"latency","metric":"latency","value":80.5,"unit":"ns","params":{"size_bytes":65536},"placement":{"requested":{"memory":"bind:0"},"verified":null},"stats":{"n":3,"min":80,"median":80.5,"mean":80.5,"max":81,"stddev":0.5,"cv":0.01,"p90":81,"p99":81}}"#;

    #[test]
    fn reads_json_lines_and_reports_a_truncated_line() {
        let mut data = Dataset::default();
        let text = format!("{METADATA}\n{RECORD}\n{}", &RECORD[..40]);
        data.load("a.jsonl", &text);
        assert_eq!(data.metadata.len(), 1);
        assert_eq!(data.records.len(), 1);
        assert_eq!(data.records[0].num("size_bytes"), Some(65536.0));
        assert_eq!(data.records[0].stat("median"), Some(80.5));
        assert_eq!(data.notes.len(), 1);
        assert!(data.notes[0].starts_with("a.jsonl:3: "), "{:?}", data.notes);
    }

    #[test]
    fn skips_unknown_kinds_with_a_note() {
        let mut data = Dataset::default();
        data.load(
            "a.jsonl",
            &format!("{METADATA}\n{{\"type\":\"gizmo\"}}\n{RECORD}\n"),
        );
        assert_eq!(data.records.len(), 1);
        assert_eq!(
            data.notes,
            vec!["a.jsonl:2: unknown kind \"gizmo\" skipped"]
        );
    }

    #[test]
    fn reads_json_documents_topology_and_doctor() {
        let mut data = Dataset::default();
        let record = RECORD.replacen("\"type\":\"record\",", "", 1);
        data.load(
            "r.json",
            &format!(
                "{{\n\"metadata\": {{\"tool\":\"numabench\"}},\n\"records\": [\n{record}\n]\n}}\n"
            ),
        );
        data.load("t.json", r#"{"cpu_count": 2, "nodes": []}"#);
        data.load("d.json", r#"{"findings": []}"#);
        assert_eq!(data.records.len(), 1);
        assert_eq!(data.metadata.len(), 1);
        assert_eq!(data.topologies.len(), 1);
        assert_eq!(data.doctors.len(), 1);
        assert!(data.notes.is_empty(), "{:?}", data.notes);
    }

    #[test]
    fn a_cut_json_document_keeps_its_whole_records() {
        let record = RECORD.replacen("\"type\":\"record\",", "", 1);
        let text = format!(
            "{{\n\"metadata\": {{\"tool\":\"numabench\"}},\n\"records\": [\n{record},\n{}",
            &record[..30]
        );
        let mut data = Dataset::default();
        data.load("cut.json", &text);
        assert_eq!(data.records.len(), 1);
        assert_eq!(
            data.notes.len(),
            1,
            "one note, not one per line: {:?}",
            data.notes
        );
        assert!(
            data.notes[0].starts_with("cut.json:5: the JSON document is not complete"),
            "{:?}",
            data.notes
        );
    }

    #[test]
    fn an_empty_file_has_nothing() {
        let mut data = Dataset::default();
        data.load("e.jsonl", "\n");
        assert!(data.is_empty());
    }
}
