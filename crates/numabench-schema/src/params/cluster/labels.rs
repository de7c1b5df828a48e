//! What a cluster run adds to each record a rank makes: where it was
//! measured and what it is compared with (docs/results.md, "cluster").
//! Appended after the benchmark's own params, in this order; a `--per
//! numa` remote latency's target comes first (it is named before the
//! record is tagged), a retest's attempt last.

use super::super::BenchmarkParams;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A cluster rank's labels. Each field reads as `None` where a record
/// lacks it (a record of a run on one host has none).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ClusterLabels {
    /// What tells a record from its unit's other records of the same key
    /// (`--per numa` remote latencies: `memory node N`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster_target: Option<String>,
    /// The host name (gethostname) of the rank that measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// The MPI_COMM_WORLD rank that measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank: Option<i64>,
    /// The compared unit: `HOST`, `HOST/node N` (`--per numa`) or
    /// `HOST/rank R` (`--per rank`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    /// The part that made the record.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub part: Option<String>,
    /// What the record's value is compared with across units; records
    /// without it are kept but not compared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster_key: Option<String>,
    /// A retest's attempt (2); first attempts carry none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attempt: Option<u32>,
}

/// The labels of the `stream` part's triad records, before the
/// bandwidth's params: the order its threads took the node's CPUs in, and
/// the node.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ClusterStreamLabels {
    pub cpu_order: String,
    pub node: u32,
}

/// The labels ride on any benchmark's records, after its own params:
/// they claim no benchmark's records (the schema leaves them to each
/// benchmark's open params).
impl BenchmarkParams for ClusterLabels {
    const BENCHMARKS: &'static [&'static str] = &[];
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::to_params;
    use serde_json::{json, Value};

    /// Labels read back and written again are the same text.
    #[test]
    fn labels_round_trip() {
        let params = json!({"cluster_target": "memory node 2", "host": "h1", "rank": 3,
            "unit": "h1/node 0", "part": "latency", "cluster_key": "latency local",
            "attempt": 2});
        let typed: ClusterLabels = serde_json::from_value(params.clone()).unwrap();
        assert_eq!(typed.rank, Some(3));
        assert_eq!(
            Value::Object(to_params(&typed)).to_string(),
            params.to_string()
        );
    }
}
