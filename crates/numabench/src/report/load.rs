//! Reading results files of any numabench command, from any machine: JSON
//! Lines (`--jsonl`, the MPI monitor's files), JSON documents (`--json`), and
//! `topo --json` / `doctor --json` outputs. Results files go through the one
//! reader ([`crate::output::read`]). Nothing here looks at the current
//! machine.

use crate::doctor::DoctorReport;
use crate::output::{read_results, Mode, ReadRecord, RunMetadata};
use crate::topology::Machine;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// Everything read from the inputs, typed: the report reads no document
/// as untyped JSON.
#[derive(Debug, Clone, Default)]
pub struct Dataset {
    /// Run metadata of each file (`file`, the metadata).
    pub metadata: Vec<(String, RunMetadata)>,
    pub records: Vec<ReadRecord>,
    /// `topo --json` documents (`file`, machine).
    pub topologies: Vec<(String, Machine)>,
    /// `doctor --json` documents (`file`, report).
    pub doctors: Vec<(String, DoctorReport)>,
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
                if let Some(report) = self.document(file, "doctor --json", document) {
                    self.doctors.push((file.to_string(), report));
                }
                return;
            }
            if document.contains_key("nodes") && document.contains_key("cpu_count") {
                if let Some(machine) = self.document(file, "topo --json", document) {
                    self.topologies.push((file.to_string(), machine));
                }
                return;
            }
        }
        match read_results(file, text, Mode::Lenient) {
            Ok(results) => {
                for (file, metadata) in results.metadata {
                    if let Some(metadata) = self.document(&file, "run metadata", metadata) {
                        self.metadata.push((file, metadata));
                    }
                }
                self.records.extend(results.records);
                self.notes.extend(results.notes);
            }
            Err(error) => self.notes.push(error.to_string()),
        }
    }

    /// `document` read as the type of a `what` (`topo --json`, ...), or
    /// a note that names the file and what does not read (a document of
    /// another version, or written by hand).
    fn document<T: DeserializeOwned>(
        &mut self,
        file: &str,
        what: &str,
        document: Map<String, Value>,
    ) -> Option<T> {
        match serde_json::from_value(Value::Object(document)) {
            Ok(typed) => Some(typed),
            Err(error) => {
                self.notes.push(format!(
                    "{file}: skipped, not a {what} document this version reads: {error}"
                ));
                None
            }
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
        let metadata = serde_json::to_string(&RunMetadata::example()).unwrap();
        data.load(
            "r.json",
            &format!("{{\n\"metadata\": {metadata},\n\"records\": [\n{record}\n]\n}}\n"),
        );
        let machine = crate::topology::synthetic("pack:1 [numa(memory=1GiB)] core:2 pu:1");
        data.load("t.json", &serde_json::to_string(&machine).unwrap());
        let doctor = DoctorReport::new(Vec::new());
        data.load("d.json", &serde_json::to_string(&doctor).unwrap());
        assert_eq!(data.records.len(), 1);
        assert_eq!(
            data.metadata,
            [("r.json".to_string(), RunMetadata::example())]
        );
        assert_eq!(data.topologies, [("t.json".to_string(), machine)]);
        assert_eq!(data.doctors, [("d.json".to_string(), doctor)]);
        assert!(data.notes.is_empty(), "{:?}", data.notes);
    }

    /// A document of another version (or written by hand) that does not
    /// read as its type is left out with a note naming the file and why,
    /// never shown half-read.
    #[test]
    fn a_document_that_does_not_read_is_a_note() {
        let mut data = Dataset::default();
        data.load("t.json", r#"{"cpu_count": 2, "nodes": []}"#);
        data.load("d.json", r#"{"findings": [{"check": "no_such_check"}]}"#);
        assert!(data.topologies.is_empty() && data.doctors.is_empty());
        assert_eq!(data.notes.len(), 2, "{:?}", data.notes);
        assert!(
            data.notes[0].starts_with("t.json: skipped, not a topo --json document"),
            "{:?}",
            data.notes
        );
        assert!(data.notes[1].starts_with("d.json: skipped, not a doctor --json document"));
    }

    #[test]
    fn an_empty_file_has_nothing() {
        let mut data = Dataset::default();
        data.load("e.jsonl", "\n");
        assert!(data.is_empty());
        assert_eq!(data.notes, ["e.jsonl: empty file"]);
    }
}
