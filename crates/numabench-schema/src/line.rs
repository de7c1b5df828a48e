//! One line of a JSON Lines results file (`--jsonl`, the MPI monitor's
//! files): the run metadata or a record, told apart by `"type"`. The JSON
//! Schema shipped as `docs/record.schema.json` is this type's.

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
