//! An application configuration's run records: what ran and how, then the
//! kernel's own keys, the observation's, the workers' CPUs and the
//! one-node baseline.

use super::AppConfiguration;
use crate::benchmark;
use crate::params::node_keyed::node_keyed;
use crate::params::{BenchmarkParams, Metrics};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The params of an app's run records (`time`, `mops`,
/// `first_iteration_time`, STREAM's `<loop>_bandwidth`), as a reader sees
/// them. On the wire the observation's keys (`threads_usage`, `tlp`,
/// `numastat_delta`, `perf`, ...) sit between the kernel's and the
/// workers' CPUs; they are not typed here. Each field reads as `None`
/// where a record lacks it; the schema requires what numabench always
/// writes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AppParams {
    #[serde(flatten)]
    pub run: AppRunParams,
    /// STREAM's SIMD choice per loop.
    #[serde(flatten)]
    pub simd: Option<StreamSimdParams>,
    /// CG's sparse product variant.
    #[serde(flatten)]
    pub spmv: Option<SpmvParams>,
    #[serde(flatten)]
    pub split: SplitParams,
    /// The one-node baseline (`--baseline one-node`).
    #[serde(flatten)]
    pub one_node: Option<OneNodeParams>,
}

impl BenchmarkParams for AppParams {
    const BENCHMARKS: &'static [&'static str] = &benchmark::APP_KERNELS;
    const METRICS: Metrics = Metrics::Others;
}

/// An app run record's first keys: the configuration, then the median
/// run's figures and the runs' means.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AppRunParams {
    #[serde(flatten)]
    pub configuration: AppConfiguration,
    /// The order the scheme gave CPUs in; absent with explicit CPUs (a
    /// scaling run names its order after the kernel's keys).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_order: Option<String>,
    /// The kernel's own check of its result.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub verification: Option<AppVerification>,
    /// The median run's iteration times, s.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub iteration_seconds: Option<Vec<f64>>,
    /// Every repetition's run time, s, in run order.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub run_seconds: Option<Vec<f64>>,
    /// Mean CPU time in user mode over the runs, s.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub user_seconds: Option<f64>,
    /// Mean CPU time in the kernel over the runs, s.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub system_seconds: Option<f64>,
    /// Mean voluntary context switches over the runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub voluntary_switches: Option<f64>,
    /// Mean involuntary context switches over the runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub involuntary_switches: Option<f64>,
    /// Pages the median run's scheme moved.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub migrated_pages: Option<u64>,
    /// Whether huge pages were asked for (absent from older records).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hugepages: Option<bool>,
    /// Huge pages moved as huge pages; null when not asked for or not
    /// readable.
    pub huge_pages_migrated: Option<u64>,
    /// First iteration minus a steady one, less the prologue, s; null
    /// when there are too few iterations.
    pub migration_cost_seconds: Option<f64>,
    /// The first iteration's one-off work timed again (NPB MG), s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prologue_seconds: Option<f64>,
    /// The CPU each worker of the median run was on when it ended.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub worker_cpus_after_run: Option<Vec<u32>>,
    /// Whether every pinned worker stayed on its CPU in every run; null
    /// when none was pinned.
    pub workers_stayed_pinned: Option<bool>,
    /// Where the median run's pages were after placement.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub pages_after_placement: Option<PagesParams>,
    /// Where they were after the run.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub pages_after_run: Option<PagesParams>,
    /// Next-touch: pages left in place when it gave up on an array.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_touch_unprotected_pages: Option<u64>,
    /// A scheme that could not be applied as asked, in a sentence.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A kernel's verification. A reader takes what an object has (a part
/// that is absent reads as its default).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct AppVerification {
    /// What is compared (`zeta`, `rnm2`, `max relative error`).
    pub quantity: String,
    /// The computed value.
    pub computed: f64,
    /// The class's reference value; null when it has none.
    pub reference: Option<f64>,
    /// The tolerance.
    pub epsilon: f64,
    /// Whether every run passed.
    pub passed: bool,
}

/// Where an app's pages were.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PagesParams {
    /// Resident pages per node.
    #[serde(deserialize_with = "node_keyed")]
    pub pages_per_node: BTreeMap<u32, u64>,
    /// Pages not present when read.
    pub not_present: u64,
    /// The share of resident pages away from their owner's node; null when
    /// the workers are unpinned.
    pub remote_share: Option<f64>,
}

/// STREAM's SIMD choice, per loop (`copy`, `scale`, `add`, `triad`, in
/// that order).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StreamSimdParams {
    /// Each loop's SIMD level (`libc` for memcpy).
    pub simd: Map<String, Value>,
    /// Each loop's variant: the level, `-nt` for streaming stores, or
    /// `memcpy`.
    pub variant: Map<String, Value>,
    /// `forced` or `calibration`.
    pub simd_chosen_by: String,
    /// Each loop's GB/s per variant; null when forced.
    pub simd_calibration: Option<Map<String, Value>>,
}

/// CG's sparse matrix-vector product variant.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SpmvParams {
    /// The variant that ran.
    pub spmv: String,
    /// GB/s of matrix streamed by each variant in the calibration; null
    /// when forced.
    pub spmv_calibration: Option<Map<String, Value>>,
    /// The variants the calibration left out because their products were
    /// not the scalar loads' bit for bit on this CPU (an emulator's
    /// instruction computed otherwise); absent when every variant agreed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spmv_differing: Option<Vec<String>>,
}

/// A pinned scaling run's CPU order, after the kernel's keys.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ScalingOrder {
    /// `cores-first-by-node` or `scatter`.
    pub cpu_order: String,
}

/// The workers' CPUs, when they are pinned.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SplitParams {
    /// The workers' CPUs, each once, in worker order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpus: Option<Vec<u32>>,
    /// Workers per node in node order (`2/2/0/0`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_split: Option<String>,
}

/// The one-node baseline: where it ran and how this configuration
/// compares, or why it did not run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct OneNodeParams {
    /// `ran on node N`, or why not.
    pub one_node_baseline: String,
    /// The baseline's workers' CPUs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub one_node_cpus: Option<Vec<u32>>,
    /// The baseline's median time, s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub one_node_seconds: Option<f64>,
    /// This configuration's median over the baseline's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relative_to_one_node: Option<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::typed::assert_round_trips;
    use serde_json::json;

    /// A record without the observation's keys round-trips; a STREAM
    /// record's old keys read.
    #[test]
    fn app_params_round_trip_and_old_records_read() {
        assert_round_trips::<AppParams>(json!({"class": "A", "threads": 4,
            "threads_per_cpu": 2, "nodes_used": 2, "placement": "interleave",
            "weighted_mode": "kernel", "threads_placement": "scatter", "cpu_order": "scatter",
            "verification": {"quantity": "zeta", "computed": 1.5, "reference": null,
            "epsilon": 1e-10, "passed": true}, "iteration_seconds": [1.5, 0.5],
            "run_seconds": [2.0], "user_seconds": 2.0, "system_seconds": 0.5,
            "voluntary_switches": 3.0, "involuntary_switches": 4.0, "migrated_pages": 5,
            "hugepages": true, "huge_pages_migrated": null, "migration_cost_seconds": 0.875,
            "prologue_seconds": 0.125, "worker_cpus_after_run": [0, 2],
            "workers_stayed_pinned": false,
            "pages_after_placement": {"pages_per_node": {"0": 3, "1": 1}, "not_present": 2,
            "remote_share": 0.25},
            "pages_after_run": {"pages_per_node": {}, "not_present": 0, "remote_share": null},
            "next_touch_unprotected_pages": 7, "note": "a note",
            "spmv": "avx2", "spmv_calibration": {"avx2": 10.5},
            "cpus": [0, 2], "node_split": "2/2", "one_node_baseline": "ran on node 0",
            "one_node_cpus": [0, 1], "one_node_seconds": 0.5, "relative_to_one_node": 3.0}));
        let old: AppParams = serde_json::from_value(json!({"threads": 1,
            "threads_per_cpu": 1, "placement": "serial", "threads_placement": "compact",
            "run_seconds": [1.0], "simd": {"copy": "avx2"}, "variant": {"copy": "avx2"},
            "simd_chosen_by": "forced", "simd_calibration": null, "tlp": 1.0}))
        .unwrap();
        assert_eq!(old.run.configuration.threads.nodes_used, None);
        assert_eq!(old.simd.unwrap().simd_chosen_by, "forced");
        assert_eq!((old.spmv, old.one_node), (None, None));
    }
}
