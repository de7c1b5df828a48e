//! `scaling`'s parameters: a bandwidth measurement (`bench/bandwidth`'s
//! params) at one thread count, after the curve's labels.

use super::{BandwidthParams, BenchmarkParams};
use crate::benchmark;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The params of a `scaling` record: the curve's labels, then the
/// bandwidth measurement's. Each field reads as `None` where a record
/// lacks it; the schema requires what numabench always writes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ScalingParams {
    #[serde(flatten)]
    pub labels: ScalingLabels,
    #[serde(flatten)]
    pub bandwidth: BandwidthParams,
}

/// A scaling curve's labels, written before the bandwidth's params.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ScalingLabels {
    /// The step between thread counts, when above 1 (a time budget's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thread_stride: Option<u64>,
    /// The node of the reading threads.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub cpu_node: Option<u32>,
    /// The node the memory is bound to.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub mem_node: Option<u32>,
    /// `local` or `remote`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub locality: Option<String>,
    /// The order threads are added in (`cores-first`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub cpu_order: Option<String>,
}

impl BenchmarkParams for ScalingParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::SCALING];
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::to_params;
    use serde_json::{json, Value};

    /// Written params read back and written again are the same text.
    #[test]
    fn written_params_round_trip() {
        let params = json!({"thread_stride": 2, "cpu_node": 0, "mem_node": 1,
            "locality": "remote", "cpu_order": "cores-first", "kernel": "read", "threads": 2,
            "size_bytes": 65536, "cache_bytes_in_front": 1024, "cache_affected": false,
            "cache_level": "memory", "simd": "avx2", "simd_chosen_by": "calibration",
            "simd_calibration": null, "hugepages": false, "bytes_per_element": 8,
            "per_thread_gbs": [10.5, 11.0], "convergence": {"repetitions": 3, "max_repetitions": 5, "ci95_rel": null, "ci95_target_rel": 0.01, "stopped_by": "maximum"}});
        let typed: ScalingParams = serde_json::from_value(params.clone()).unwrap();
        assert_eq!(typed.bandwidth.threads, Some(2));
        assert_eq!(typed.labels.locality.as_deref(), Some("remote"));
        assert_eq!(
            Value::Object(to_params(&typed)).to_string(),
            params.to_string()
        );
    }
}
