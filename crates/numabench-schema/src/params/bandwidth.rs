//! `bandwidth`'s parameters: one kernel streaming a working set from a set
//! of threads (`bench/bandwidth` writes them; `matrix-bandwidth`,
//! `scaling`, `per-cpu` and `tiers` write the same after labels of their
//! own).

use super::{BenchmarkParams, ConvergenceParams, SimdParams, WorkingSetParams};
use crate::benchmark;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The params of a `<kernel>_bandwidth` record. Each field reads as
/// `None` where a record lacks it; the schema requires what numabench
/// always writes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BandwidthParams {
    /// The kernel (`read`, `copy`, `triad`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub kernel: Option<String>,
    /// Threads that streamed, one per CPU.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub threads: Option<u64>,
    #[serde(flatten)]
    pub working_set: WorkingSetParams,
    #[serde(flatten)]
    pub simd: SimdParams,
    /// Whether the buffers were backed by 2 MiB pages.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub hugepages: Option<bool>,
    /// Bytes the kernel moves per array element (reads and writes).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub bytes_per_element: Option<u64>,
    /// Each thread's rate in the best repetition, GB/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub per_thread_gbs: Option<Vec<f64>>,
    /// The best rate over the firmware's declared bandwidth (a matrix
    /// cell with HMAT figures).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured_over_declared: Option<f64>,
    /// How many repetitions the stopping rule took and the interval
    /// reached ([`ConvergenceParams`]); absent in files of versions
    /// before it was written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub convergence: Option<ConvergenceParams>,
}

impl BenchmarkParams for BandwidthParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::BANDWIDTH];
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
        for calibration in [json!(null), json!({"avx2": 31.0, "sse2": 34.5})] {
            let params = json!({"kernel": "read", "threads": 2, "size_bytes": 65536,
                "cache_bytes_in_front": 1024, "cache_affected": false, "cache_level": "memory",
                "simd": "avx2", "simd_chosen_by": "calibration", "simd_calibration": calibration,
                "hugepages": false, "bytes_per_element": 8, "per_thread_gbs": [10.5, 11.0],
                "measured_over_declared": 0.5,
                "convergence": {"repetitions": 3, "max_repetitions": 5, "ci95_rel": null, "ci95_target_rel": 0.01, "stopped_by": "maximum"}});
            let typed: BandwidthParams = serde_json::from_value(params.clone()).unwrap();
            assert_eq!(
                Value::Object(to_params(&typed)).to_string(),
                params.to_string()
            );
        }
    }

    #[test]
    fn a_partial_record_reads_with_what_it_has() {
        let typed: BandwidthParams =
            serde_json::from_value(json!({"kernel": "copy", "threads": 4})).unwrap();
        assert_eq!(typed.kernel.as_deref(), Some("copy"));
        assert_eq!(
            (typed.threads, typed.working_set.size_bytes),
            (Some(4), None)
        );
    }
}
