//! Reading results files of any numabench command, from any machine: JSON
//! Lines (`--jsonl`, the MPI monitor's files), JSON documents (`--json`), and
//! `topo --json` / `doctor --json` outputs. Nothing here looks at the current
//! machine.

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

    fn from_object(file: &str, object: &Map<String, Value>) -> Option<Self> {
        let text = |key: &str| object.get(key).and_then(Value::as_str).map(str::to_string);
        let map = |value: Option<&Value>| {
            value
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default()
        };
        Some(Self {
            file: file.to_string(),
            benchmark: text("benchmark")?,
            metric: text("metric")?,
            value: object.get("value")?.as_f64()?,
            unit: text("unit").unwrap_or_default(),
            params: map(object.get("params")),
            requested: map(object.get("placement").and_then(|p| p.get("requested"))),
            stats: map(object.get("stats")),
        })
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

    /// Adds the content of one file, named `file`, to the dataset.
    pub fn load(&mut self, file: &str, text: &str) {
        if text.trim().is_empty() {
            self.notes.push(format!("{file}: empty file"));
            return;
        }
        match serde_json::from_str::<Value>(text) {
            Ok(value) if !looks_like_lines(text) => self.load_document(file, value),
            Err(error) if text.trim_start().starts_with("{\n\"metadata\"") => {
                self.load_cut_document(file, text, &error)
            }
            _ => self.load_lines(file, text),
        }
    }

    /// A `--json` document cut short (the run was killed before closing
    /// it): its record lines (one per line, as the JSON sink writes them)
    /// are read up to the cut, the rest is reported.
    fn load_cut_document(&mut self, file: &str, text: &str, error: &serde_json::Error) {
        let mut records = 0;
        for line in text.lines() {
            let line = line.trim().trim_end_matches(',');
            if !line.starts_with("{\"benchmark\"") {
                continue;
            }
            if let Ok(value) = serde_json::from_str::<Value>(line) {
                self.add_record(file, file, &value);
                records += 1;
            }
        }
        self.notes.push(format!(
            "{file}:{}: the JSON document is not complete ({error}); its {records} whole record(s) are shown",
            error.line()
        ));
    }

    fn load_document(&mut self, file: &str, value: Value) {
        let Some(object) = value.as_object() else {
            self.notes.push(format!(
                "{file}: not a numabench results document (skipped)"
            ));
            return;
        };
        if let Some(records) = object.get("records").and_then(Value::as_array) {
            if let Some(metadata) = object.get("metadata").and_then(Value::as_object) {
                self.metadata.push((file.to_string(), metadata.clone()));
            }
            for (index, record) in records.iter().enumerate() {
                self.add_record(&format!("{file}: record {}", index + 1), file, record);
            }
        } else if object.contains_key("findings") {
            self.doctors.push((file.to_string(), value.clone()));
        } else if object.contains_key("nodes") && object.contains_key("cpu_count") {
            self.topologies.push((file.to_string(), value.clone()));
        } else if object.get("type").is_some() {
            // A JSON Lines file holding a single line.
            self.add_line(file, 1, &value);
        } else {
            self.notes.push(format!(
                "{file}: a JSON document numabench does not write (skipped)"
            ));
        }
    }

    fn load_lines(&mut self, file: &str, text: &str) {
        for (index, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<Value>(line) {
                Ok(value) => self.add_line(file, index + 1, &value),
                Err(error) => self.notes.push(format!(
                    "{file}:{}: not a JSON line ({error}); the line is skipped",
                    index + 1
                )),
            }
        }
    }

    fn add_line(&mut self, file: &str, line: usize, value: &Value) {
        let kind = value.get("type").and_then(Value::as_str);
        match (kind, value.as_object()) {
            (Some("metadata"), Some(object)) => {
                let mut metadata = object.clone();
                metadata.remove("type");
                self.metadata.push((file.to_string(), metadata));
            }
            (Some("record"), _) => self.add_record(&format!("{file}:{line}"), file, value),
            (other, _) => self.notes.push(format!(
                "{file}:{line}: unknown kind {} skipped",
                other.map_or_else(|| "(no type)".to_string(), |k| format!("\"{k}\""))
            )),
        }
    }

    fn add_record(&mut self, place: &str, file: &str, value: &Value) {
        match value
            .as_object()
            .and_then(|object| Rec::from_object(file, object))
        {
            Some(record) => self.records.push(record),
            None => self.notes.push(format!(
                "{place}: a record without benchmark, metric or numeric value; skipped"
            )),
        }
    }
}

/// JSON Lines files hold one object per line; a one-line file parses as a
/// document too, so its `type` decides.
fn looks_like_lines(text: &str) -> bool {
    let mut lines = text.lines().filter(|line| !line.trim().is_empty());
    let first = lines.next().unwrap_or("");
    first.trim_start().starts_with("{\"type\"") && lines.next().is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    const METADATA: &str = r#"{"type":"metadata","tool":"numabench","host":"h"}"#;
    const RECORD: &str = r#"{"type":"record","benchmark":"latency","metric":"latency","value":80.5,"unit":"ns","params":{"size_bytes":65536},"placement":{"requested":{"memory":"bind:0"},"verified":null},"stats":{"n":3,"min":80,"median":80.5,"max":81}}"#;

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
