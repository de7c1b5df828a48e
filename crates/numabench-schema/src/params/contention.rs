//! `contention`'s parameters: the three scenarios' bandwidth records
//! (`serial_bandwidth`, `contended_bandwidth`, `local_bandwidth`) and the
//! ratios between them, which carry only what they mean.

use super::{BenchmarkParams, ConvergenceParams, Metrics, SimdParams, WorkingSetParams};
use crate::benchmark;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The suffix of a scenario record's metric.
pub const CONTENTION_BANDWIDTH_SUFFIX: &str = "_bandwidth";

/// The params of a scenario's `*_bandwidth` record. Each field reads as
/// `None` where a record lacks it; the schema requires what numabench
/// always writes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ContentionParams {
    /// The rule that chose the CPUs measured alone (a time budget's
    /// sample); absent when every CPU was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alone_sampled: Option<String>,
    /// The scenario, in words (`cpu 3 alone, memory on node 0`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub scenario: Option<String>,
    /// The kernel (`read`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub kernel: Option<String>,
    /// Threads that read, one per CPU.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub threads: Option<u64>,
    #[serde(flatten)]
    pub working_set: WorkingSetParams,
    /// Each thread's rate in the best repetition, GB/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub per_thread_gbs: Option<Vec<f64>>,
    #[serde(flatten)]
    pub simd: SimdParams,
    /// How many repetitions the stopping rule took and the interval
    /// reached ([`ConvergenceParams`]); absent in files of versions
    /// before it was written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub convergence: Option<ConvergenceParams>,
}

impl BenchmarkParams for ContentionParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::CONTENTION];
    const METRICS: Metrics = Metrics::EndingWith(CONTENTION_BANDWIDTH_SUFFIX);
}

/// The params of a ratio between the scenarios (`local_over_contended`,
/// `serial_over_contended_per_thread`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ContentionRatioParams {
    /// What the ratio means, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub meaning: Option<String>,
}

impl BenchmarkParams for ContentionRatioParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::CONTENTION];
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::to_params;
    use serde_json::json;
    use serde_json::Value;

    /// Written params read back and written again are the same text.
    #[test]
    fn written_params_round_trip() {
        let scenario = json!({"alone_sampled": "2 of the 4 CPUs", "scenario": "cpu 0 alone",
            "kernel": "read", "threads": 1, "size_bytes": 65536, "cache_bytes_in_front": 1024,
            "cache_affected": false, "cache_level": "memory", "per_thread_gbs": [10.5],
            "simd": "avx2", "simd_chosen_by": "calibration", "simd_calibration": null,
            "convergence": {"repetitions": 3, "max_repetitions": 5, "ci95_rel": null, "ci95_target_rel": 0.01, "stopped_by": "maximum"}});
        let typed: ContentionParams = serde_json::from_value(scenario.clone()).unwrap();
        assert_eq!(
            Value::Object(to_params(&typed)).to_string(),
            scenario.to_string()
        );
        let ratio = json!({"meaning": "gained"});
        let typed: ContentionRatioParams = serde_json::from_value(ratio.clone()).unwrap();
        assert_eq!(
            Value::Object(to_params(&typed)).to_string(),
            ratio.to_string()
        );
    }
}
