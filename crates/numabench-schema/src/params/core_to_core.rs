//! `c2c`'s parameters: one pair of CPUs passing a modified line.

use super::BenchmarkParams;
use crate::benchmark;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The params of a `c2c_latency` record. Each field reads as `None` where
/// a record lacks it; the schema requires what numabench always writes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct C2cParams {
    /// The CPU that starts each round trip.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub cpu_a: Option<u32>,
    /// The CPU that answers.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub cpu_b: Option<u32>,
    /// `cpu_a`'s node; written as null when the topology places it on none.
    pub node_a: Option<u32>,
    /// `cpu_b`'s node; written as null when the topology places it on none.
    pub node_b: Option<u32>,
    /// `same-node` or `other-node`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub relation: Option<String>,
    /// The smallest cache the two CPUs share (`L2`, ...); written as null
    /// when they share none.
    pub shared_cache: Option<String>,
    /// Whether both CPUs are in one package.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub same_package: Option<bool>,
}

impl BenchmarkParams for C2cParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::C2C];
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::to_params;
    use serde_json::{json, Value};

    /// Written params read back and written again are the same text,
    /// nulls kept.
    #[test]
    fn written_params_round_trip() {
        let params = json!({"cpu_a": 0, "cpu_b": 3, "node_a": 0, "node_b": null,
            "relation": "other-node", "shared_cache": null, "same_package": false});
        let typed: C2cParams = serde_json::from_value(params.clone()).unwrap();
        assert_eq!(
            Value::Object(to_params(&typed)).to_string(),
            params.to_string()
        );
    }
}
