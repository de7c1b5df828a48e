//! `mlp`'s parameters: independent chases in one thread (`ns_per_load`,
//! `mlp`), and with `--threads` every thread chasing (`aggregate_loads`,
//! `load_latency`) and the pinned-over-unpinned verdict. One type for the
//! three kinds of record: each writes the fields it has, in this order.

use super::{BenchmarkParams, ChaseOrderParams, ConvergenceParams, WorkingSetParams};
use crate::benchmark;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The params of an `mlp` record. Each field reads as `None` where a
/// record lacks it; the schema requires `chains`, which every kind writes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MlpParams {
    /// Threads chasing at once (`--threads`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threads: Option<u64>,
    /// Independent chains each thread follows (k).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub chains: Option<u64>,
    /// Whether the threads were pinned (`--threads`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pinned: Option<bool>,
    /// The working set (each thread's buffer with `--threads`, which
    /// writes `size_bytes` alone); absent on the verdict.
    #[serde(flatten)]
    pub working_set: Option<WorkingSetParams>,
    /// Where each thread's buffer is (`local`, `node N`; `--threads`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
    /// Each thread's buffer's node (`--threads`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buffer_nodes: Option<Vec<u32>>,
    /// Per repetition, each thread's CPU at its start and end (`--threads`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpus_seen: Option<Vec<Vec<[u32; 2]>>>,
    /// The chasing CPU (one thread).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu: Option<u32>,
    #[serde(flatten)]
    pub chase: Option<ChaseOrderParams>,
    /// Whether the buffers were backed by 2 MiB pages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hugepages: Option<bool>,
    /// Rounds over every chain per timed sample.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rounds_per_sample: Option<u64>,
    /// How many samples the stopping rule took (one thread; the library's
    /// `Convergence`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub convergence: Option<ConvergenceParams>,
    /// Which of pinned and unpinned ran first in each repetition
    /// (`--threads`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_per_repetition: Option<Vec<String>>,
    /// The verdict's Mann-Whitney p-value over the repetitions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p_value: Option<f64>,
    /// Whether p < 0.05.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub significant: Option<bool>,
}

impl BenchmarkParams for MlpParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::MLP];
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::to_params;
    use serde_json::json;
    use serde_json::Value;

    /// Each kind's written params read back and written again are the
    /// same text.
    #[test]
    fn every_kind_round_trips() {
        let order = json!({"order": "tlb-block", "order_measures": "m", "block_bytes": 4096,
            "block_source": "s"});
        let mut one = json!({"chains": 2, "size_bytes": 65536, "cache_bytes_in_front": 1024,
            "cache_affected": false, "cache_level": "memory", "cpu": 0});
        let mut threads = json!({"threads": 2, "chains": 4, "pinned": true,
            "size_bytes": 65536, "memory": "local", "buffer_nodes": [0, 0],
            "cpus_seen": [[[0, 0], [1, 1]]]});
        for (params, tail) in [
            (
                &mut one,
                json!({"hugepages": false, "rounds_per_sample": 10,
                "convergence": {"repetitions": 3, "max_repetitions": 5, "ci95_rel": null, "ci95_target_rel": 0.01, "stopped_by": "maximum"}}),
            ),
            (
                &mut threads,
                json!({"hugepages": false, "rounds_per_sample": 10,
                "first_per_repetition": ["pinned", "unpinned"]}),
            ),
        ] {
            let map = params.as_object_mut().unwrap();
            map.extend(order.as_object().unwrap().clone());
            map.extend(tail.as_object().unwrap().clone());
        }
        let verdict = json!({"threads": 2, "chains": 4, "p_value": 0.03, "significant": true});
        for params in [one, threads, verdict] {
            let typed: MlpParams = serde_json::from_value(params.clone()).unwrap();
            assert_eq!(
                Value::Object(to_params(&typed)).to_string(),
                params.to_string()
            );
        }
    }
}
