//! Reading results files of any numabench command, from any machine: JSON
//! Lines (`--jsonl`, the MPI monitor's files), JSON documents (`--json`), and
//! `topo --json` / `doctor --json` outputs. Results files go through the one
//! reader ([`crate::output::read`]). Nothing here looks at the current
//! machine.

use crate::output::{read_results, Mode, ReadRecord};
use serde_json::{Map, Value};

/// Everything read from the inputs.
#[derive(Debug, Clone, Default)]
pub struct Dataset {
    /// Run metadata of each file (`file`, the metadata object).
    pub metadata: Vec<(String, Map<String, Value>)>,
    pub records: Vec<ReadRecord>,
    /// `topo --json` documents (`file`, document).
    pub topologies: Vec<(String, Value)>,
    /// `doctor --json` documents (`file`, document).
    pub doctors: Vec<(String, Value)>,
    /// What could not be read or was skipped, one sentence each.
    pub notes: Vec<String>,
}

impl Dataset {
    /// Records of one benchmark.
    pub fn of<'a>(&'a self, benchmark: &'a str) -> impl Iterator<Item = &'a ReadRecord> + 'a {
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
    /// files through the one reader in lenient mode (what it skips becomes
    /// a note naming `file:line`).
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
        match read_results(file, text, Mode::Lenient) {
            Ok(results) => {
                self.metadata.extend(results.metadata);
                self.records.extend(results.records);
                self.notes.extend(results.notes);
            }
            Err(error) => self.notes.push(error.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RECORD: &str = r#"{"type":"record","benchmark":"latency","metric":"latency","value":80.5,"unit":"ns","params":{"size_bytes":65536},"placement":{"requested":{"memory":"bind:0"},"verified":null},"stats":{"n":3,"min":80,"median":80.5,"mean":80.5,"max":81,"stddev":0.5,"cv":0.01,"p90":81,"p99":81}}"#;

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
    fn an_empty_file_has_nothing() {
        let mut data = Dataset::default();
        data.load("e.jsonl", "\n");
        assert!(data.is_empty());
        assert_eq!(data.notes, ["e.jsonl: empty file"]);
    }
}
