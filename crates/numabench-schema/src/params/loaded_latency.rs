//! `loaded-latency`'s parameters: one chasing CPU while generator threads
//! load the memory, at one delay between their requests.

use super::{BenchmarkParams, CacheParams, ChaseOrderParams, TailParams};
use crate::benchmark;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The params of a `loaded_latency` record. Each field reads as `None`
/// where a record lacks it; the schema requires what numabench always
/// writes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LoadedLatencyParams {
    /// The generators' delay between requests; written as null for the
    /// idle point (no generator).
    pub delay: Option<u32>,
    /// The generators' traffic (`reads`, `3:1`, ..., `nt-writes`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub mix: Option<String>,
    /// The chasing CPU.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub chaser_cpu: Option<u32>,
    /// Its node; written as null when the topology places it on none.
    pub cpu_node: Option<u32>,
    /// Generator threads that ran (0 for the idle point).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub generators: Option<u64>,
    /// The generators' bandwidth meanwhile, GB/s, from their own count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub traffic_gbs: Option<f64>,
    /// The chased working set, bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub size_bytes: Option<u64>,
    /// The tail of the chase's latency under that load (as `latency`'s).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tail: Option<TailParams>,
    /// What the memory controllers counted over the same window; absent
    /// in files of versions before it was written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_controller: Option<MemoryControllerParams>,
    #[serde(flatten)]
    pub cache: CacheParams,
    #[serde(flatten)]
    pub chase: ChaseOrderParams,
}

impl BenchmarkParams for LoadedLatencyParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::LOADED_LATENCY];
}

/// The memory controllers' count: read, write and total GB/s and their
/// source, or why they could not be counted (`unavailable`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MemoryControllerParams {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_gbs: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_gbs: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_gbs: Option<f64>,
    /// What counted, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Why nothing was counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::to_params;
    use serde_json::json;

    /// Written params read back and written again are the same text.
    #[test]
    fn written_params_round_trip() {
        let counted = json!({"read_gbs": 1.5, "write_gbs": 0.5, "total_gbs": 2.0,
            "source": "uncore"});
        for (delay, controller) in [
            (json!(null), json!({"unavailable": "no PMU"})),
            (json!(0), counted),
        ] {
            let params = json!({"delay": delay, "mix": "reads", "chaser_cpu": 0,
                "cpu_node": 0, "generators": 1, "traffic_gbs": 3.5, "size_bytes": 1024,
                "tail": {"p50": 9.5, "p90": 10.0, "p99": 11.0, "p99_9": 12.0, "max": 20.0, "method": "m", "batch_loads": 8, "batches": 4096, "timer_resolution_ns": 0.5, "timing_overhead_ns": 3.0}, "memory_controller": controller,
                "cache_bytes_in_front": 512, "cache_affected": true, "cache_level": "L2",
                "cache_level_bytes": 2048, "order": "tlb-block", "order_measures": "m",
                "block_bytes": 1024, "block_source": "s"});
            let typed: LoadedLatencyParams = serde_json::from_value(params.clone()).unwrap();
            assert_eq!(
                serde_json::Value::Object(to_params(&typed)).to_string(),
                params.to_string()
            );
        }
    }
}
