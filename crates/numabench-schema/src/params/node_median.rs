//! The ratio records of `--each-cpu` and `per-cpu`: after every CPU is
//! measured, one record per CPU (`latency_vs_node_median`,
//! `<kernel>_bandwidth_vs_node_median`) gives its figure over the median
//! of its node's CPUs. They carry the measured CPU's own params (as its
//! latency or bandwidth record wrote them, or only its labels, size and
//! kernel) and then the deviation.

use super::{BenchmarkParams, Metrics};
use crate::benchmark;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The suffix of a ratio record's metric.
pub const NODE_MEDIAN_SUFFIX: &str = "_vs_node_median";

/// The params of a `*_vs_node_median` record, as read. Each field reads
/// as `None` where a record lacks it; the schema requires what numabench
/// always writes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NodeMedianRatioParams {
    /// The measured CPU.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub cpu: Option<u32>,
    /// Its node; null when the topology places it on none.
    pub cpu_node: Option<u32>,
    /// The working-set size of the figure.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub size_bytes: Option<u64>,
    #[serde(flatten)]
    pub deviation: NodeMedianDeviation,
}

/// The part a ratio record adds after the CPU's params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NodeMedianDeviation {
    /// The CPU's figure over its node's median, minus one.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub deviation_from_node_median: Option<f64>,
}

impl BenchmarkParams for NodeMedianRatioParams {
    const BENCHMARKS: &'static [&'static str] =
        &[benchmark::LATENCY, benchmark::BANDWIDTH, benchmark::PER_CPU];
    const METRICS: Metrics = Metrics::EndingWith(NODE_MEDIAN_SUFFIX);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::to_labelled_params;
    use serde_json::{json, Map, Value};

    /// A CPU's labels then the deviation, read back.
    #[test]
    fn the_deviation_follows_the_cpus_params() {
        let labels: Map<String, Value> = serde_json::from_value(json!({"each_cpu": true,
            "cpu": 3, "cpu_node": 1, "mem_node": null, "size_bytes": 1024, "kernel": "read"}))
        .unwrap();
        let deviation = NodeMedianDeviation {
            deviation_from_node_median: Some(-0.25),
        };
        let params = to_labelled_params(&labels, &deviation);
        assert_eq!(
            Value::Object(params.clone()).to_string(),
            r#"{"each_cpu":true,"cpu":3,"cpu_node":1,"mem_node":null,"size_bytes":1024,"kernel":"read","deviation_from_node_median":-0.25}"#
        );
        let read: NodeMedianRatioParams = serde_json::from_value(Value::Object(params)).unwrap();
        assert_eq!(read.cpu, Some(3));
        assert_eq!(read.cpu_node, Some(1));
        assert_eq!(read.size_bytes, Some(1024));
        assert_eq!(read.deviation, deviation);
    }
}
