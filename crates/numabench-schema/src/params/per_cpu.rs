//! `per-cpu`'s parameters, and those of `latency --each-cpu` and
//! `bandwidth --each-cpu`: the labels of one CPU measured on its own,
//! before the measurement's own params (`bench/latency`'s or
//! `bench/bandwidth`'s, whose `cpu` and `cpu_node` take the labels'
//! places). The schema checks the labels of `per-cpu`'s records; the
//! measurement's params are its benchmark's type, read with
//! [`crate::Record::params_as`] beside these.

use super::BenchmarkParams;
use crate::benchmark;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The labels of a CPU measured on its own. Each field reads as `None`
/// where a record lacks it; the schema requires what numabench always
/// writes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct EachCpuParams {
    /// How characterize chose the CPUs it measures (`per-cpu` sampled).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sample_rule: Option<String>,
    /// Always true: one of every CPU's records.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub each_cpu: Option<bool>,
    /// The measured CPU.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub cpu: Option<u32>,
    /// Its node; written as null when the topology places it on none.
    pub cpu_node: Option<u32>,
    /// The memory's node; written as null for the CPU's own.
    pub mem_node: Option<u32>,
}

/// What a CPU's node-median ratio record carries after its labels: the
/// figure's working set and, for a bandwidth, its kernel (then the
/// deviation, [`super::NodeMedianDeviation`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct EachCpuFigureParams {
    /// The working set of the figure, bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size_bytes: Option<u64>,
    /// The bandwidth kernel; absent for a latency.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel: Option<String>,
}

impl BenchmarkParams for EachCpuParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::PER_CPU];
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::{to_labelled_params, to_params, LatencyParams};
    use serde_json::{json, Value};

    /// The labels, then a latency's params over them: the labels keep
    /// their places, both types read back.
    #[test]
    fn labels_then_a_measurement_round_trip() {
        let labels = EachCpuParams {
            sample_rule: Some("every CPU".into()),
            each_cpu: Some(true),
            cpu: Some(3),
            cpu_node: Some(1),
            mem_node: None,
        };
        let latency = LatencyParams {
            cpu: Some(3),
            cpu_node: Some(1),
            ..LatencyParams::default()
        };
        let params = to_labelled_params(&to_params(&labels), &latency);
        assert_eq!(
            Value::Object(params.clone()).to_string(),
            json!({"sample_rule": "every CPU", "each_cpu": true, "cpu": 3, "cpu_node": 1,
                "mem_node": null})
            .to_string()
        );
        let read: EachCpuParams = serde_json::from_value(Value::Object(params)).unwrap();
        assert_eq!(read, labels);
    }
}
