//! One line of a JSON Lines results file (`--jsonl`, the MPI monitor's
//! files). Schema version 2 (numabench's `--jsonl`): every line is a record
//! carrying the run metadata as `"run"` ([`RecordLine`]). Version 1 (older
//! files, the MPI monitor's): the run metadata or a record, told apart by
//! `"type"` ([`Line`]). The JSON Schema shipped as
//! `docs/record.schema.json` is [`AnyLine`]'s: either of the two.

use crate::{Record, RunMetadata};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A results line: `{"type": "metadata", ...}` once, then
/// `{"type": "record", ...}` per result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Line {
    /// Who ran what, where and when: the first line of a file.
    Metadata(RunMetadata),
    /// One result. Fields a record line carries beyond the record's own
    /// (the run metadata of JSON Lines schema 2, say) are added here, one
    /// field each.
    Record {
        #[serde(flatten)]
        record: Record,
    },
}

/// A version-2 line: the record's fields and its run's metadata.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RecordLine {
    #[serde(flatten)]
    pub record: Record,
    /// Who ran what, where and when (the same on every line of a file).
    pub run: RunMetadata,
}

/// A line of either version: a version-2 record line, or a version-1
/// metadata or record line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum AnyLine {
    /// Schema version 2.
    Version2(Box<RecordLine>),
    /// Schema version 1 (and the MPI monitor's files).
    Version1(Box<Line>),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Placement, Summary, Unit};
    use serde_json::{json, Map};

    #[test]
    fn a_record_line_is_the_record_with_its_type_first() {
        let record = Record {
            benchmark: "latency".into(),
            metric: "latency".into(),
            value: 80.5,
            unit: Unit::Nanoseconds,
            params: Map::new(),
            placement: Placement::default(),
            stats: Summary::single(80.5),
        };
        let text = serde_json::to_string(&Line::Record {
            record: record.clone(),
        })
        .unwrap();
        assert!(
            text.starts_with(r#"{"type":"record","benchmark":"latency","metric":"latency","value":80.5,"unit":"ns","params":{},"placement":{"requested":{},"verified":null},"stats":{"n":1,"#),
            "{text}"
        );
        let back: Line = serde_json::from_str(&text).unwrap();
        assert_eq!(back, Line::Record { record });
        let wrong: Result<Line, _> = serde_json::from_value(json!({"type": "recrod"}));
        assert!(wrong.is_err());
    }
}
