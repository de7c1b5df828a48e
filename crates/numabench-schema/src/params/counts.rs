//! What a counted run adds to its record's params (`run`'s runs, and the
//! applications' records with what was observed while they ran): each
//! thread's CPU time and switches, thread-level parallelism, the
//! numastat and vmstat deltas over the run, and perf's counts. Written
//! after the record's own params.

use super::node_keyed::node_keyed;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The counts of a run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CountsParams {
    /// The workers (the program's threads, or an application's team), in
    /// thread-id order (`worker` their position).
    pub threads_usage: Vec<WorkerUsageParams>,
    /// `run`: how many distinct threads of the process tree were seen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threads_seen: Option<u64>,
    /// An application's other threads (not of its team).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub other_threads_usage: Option<Vec<ThreadUsageParams>>,
    /// The kernel's CPU-time tick, s.
    pub threads_usage_resolution_seconds: f64,
    /// Thread-level parallelism; null where it was not sampled.
    pub tlp: Option<TlpParams>,
    /// Pages per node and numastat counter over the run (`numastat_scope`
    /// says whose).
    #[serde(deserialize_with = "node_keyed")]
    pub numastat_delta: BTreeMap<u32, BTreeMap<String, u64>>,
    /// `system`: numastat counts every process's pages.
    pub numastat_scope: String,
    /// vmstat counters that changed (machines with several nodes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vmstat_delta: Option<BTreeMap<String, u64>>,
    #[serde(flatten)]
    pub perf: PerfParams,
    /// An application's counts per worker, in `threads_usage`'s order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub perf_per_worker: Option<Vec<BTreeMap<String, u64>>>,
}

/// One worker's [`ThreadUsageParams`] and its position.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WorkerUsageParams {
    /// Its position among the workers, from 0.
    pub worker: u64,
    #[serde(flatten)]
    pub usage: ThreadUsageParams,
}

/// One thread's CPU time and context switches over the run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ThreadUsageParams {
    pub tid: u32,
    /// The CPU it last ran on.
    pub cpu: u32,
    pub user_seconds: f64,
    pub system_seconds: f64,
    pub voluntary_switches: u64,
    pub involuntary_switches: u64,
}

/// TLP_1..TLP_4 (the share of samples with at least 1..4 cores busy,
/// as ratios), over how many samples and cores.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TlpParams {
    pub tlp_1: f64,
    pub tlp_2: f64,
    pub tlp_3: f64,
    pub tlp_4: f64,
    pub samples: u64,
    pub cores: u64,
    /// The mean time between samples, ms; null where not measured.
    pub mean_interval_ms: Option<f64>,
}

/// perf's counts: each event's, why an event was not counted, and the
/// share of its time a multiplexed event counted (its count raw).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PerfParams {
    pub perf: BTreeMap<String, u64>,
    pub perf_unavailable: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub perf_multiplexed: BTreeMap<String, f64>,
}
