//! `run`'s parameters: one run of a program under a policy (`numabench
//! run`, its policy comparison and its scans write one record per run,
//! metric `run_wall_time`).

use super::{BenchmarkParams, CountsParams, Metrics, ObservationParams};
use crate::benchmark;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The metric of a `run` record of one run.
pub const RUN_WALL_TIME: &str = "run_wall_time";

/// The params of a `run_wall_time` record (before the counts a counted
/// run adds: `threads_usage`, `tlp`, `numastat_delta`, perf's). Each
/// field reads as `None` where a record lacks it; the schema requires
/// what numabench always writes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunParams {
    /// The policy, as the user wrote it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub policy: Option<String>,
    /// The order pinned threads got CPUs in (`compact`, `scatter`), when
    /// pinning.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_order: Option<String>,
    /// The command line, words joined by spaces.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub command: Option<String>,
    /// The repetition, from 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub repetition: Option<u64>,
    /// The exit status; null when a signal ended the run.
    pub exit_code: Option<i32>,
    /// The signal that killed the program; null when it exited.
    pub signal: Option<i32>,
    /// Whether SIGINT or SIGTERM reached numabench during the run (written
    /// from 2026-11-25 on; older records lack it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<bool>,
    /// The signal that stopped the program (its group was then killed).
    pub stop_signal: Option<i32>,
    /// What the run left running, where numabench looked.
    #[serde(flatten)]
    pub leftovers: Option<LeftoverParams>,
    /// CPU time in user mode, s.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub user_seconds: Option<f64>,
    /// CPU time in the kernel, s.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub system_seconds: Option<f64>,
    /// Peak resident set of the largest process of the tree, KiB.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub max_rss_kib: Option<i64>,
    /// Voluntary context switches.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub voluntary_switches: Option<i64>,
    /// Involuntary context switches.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub involuntary_switches: Option<i64>,
    /// The observation's timeline and totals (`--observe`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observation: Option<ObservationParams>,
    /// What the pinning shim warned about, one line each; absent when the
    /// run did not use the shim.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pin_warnings: Option<Vec<String>>,
    /// What a counted run adds (`threads_usage`, `tlp`, `numastat_delta`,
    /// perf's counts, ...): written after the run's own params.
    #[serde(flatten)]
    pub counts: Option<CountsParams>,
    /// `run --scan`: the configuration's label. A scan adds this and
    /// `scan` after everything else, a counted run's counts included.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub configuration: Option<String>,
    /// `run --scan`: the scanned parameters' values at this configuration.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scan: Option<Value>,
}

impl BenchmarkParams for RunParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::RUN];
    const METRICS: Metrics = Metrics::Named(&[RUN_WALL_TIME]);
}

/// The processes a run left running after its program ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LeftoverParams {
    /// How many were still running.
    pub leftover_processes: u64,
    /// Their distinct command names, sorted.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub leftover_commands: Option<Vec<String>>,
    /// Whether they were ended.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub leftovers_killed: Option<bool>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::to_params;
    use serde_json::json;

    /// Written params read back as the type and written again are the
    /// same text.
    fn round_trips(params: Value) {
        let typed: RunParams = serde_json::from_value(params.clone()).unwrap();
        assert_eq!(
            Value::Object(to_params(&typed)).to_string(),
            params.to_string()
        );
    }

    #[test]
    fn a_plain_run_and_a_stopped_one_round_trip() {
        round_trips(
            json!({"policy": "as-is", "command": "prog -x", "repetition": 2,
            "exit_code": 0, "signal": null, "interrupted": false, "stop_signal": null,
            "user_seconds": 1.0, "system_seconds": 0.25, "max_rss_kib": 2048,
            "voluntary_switches": 3, "involuntary_switches": 4}),
        );
        round_trips(json!({"policy": "pin-scatter", "cpu_order": "scatter",
            "command": "prog", "repetition": 0, "exit_code": null, "signal": 9,
            "interrupted": true, "stop_signal": 19, "leftover_processes": 2,
            "leftover_commands": ["child"], "leftovers_killed": true,
            "user_seconds": 1.0, "system_seconds": 0.25, "max_rss_kib": 2048,
            "voluntary_switches": 3, "involuntary_switches": 4,
            "observation": {"interval_ms": 10, "samples": [{"t": 0.01,
                "bytes_per_node": {"0": 4096}, "thread_cpus": {"4711": 1}}],
                "thread_migrations": 0, "thread_migrations_source": "kernel",
                "cpu_changes_between_samples": 0, "node_changes_between_samples": 0,
                "final_bytes_per_node": {"0": 4096}, "peak_bytes_per_node": {"0": 4096}},
            "pin_warnings": ["a warning"]}));
    }

    /// A record from an older version, or with a counted run's keys after,
    /// reads with what it has.
    #[test]
    fn a_partial_or_counted_record_reads() {
        let typed: RunParams =
            serde_json::from_value(json!({"policy": "as-is", "exit_code": 1, "threads_seen": 4}))
                .unwrap();
        assert_eq!(typed.policy.as_deref(), Some("as-is"));
        assert_eq!((typed.exit_code, typed.leftovers), (Some(1), None));
    }

    /// A counted run's record reads with its counts: the numastat deltas
    /// are keyed by node number, which reach a flattened struct as text.
    #[test]
    fn a_counted_runs_counts_read_back() {
        let typed: RunParams = serde_json::from_value(json!({"policy": "as-is",
            "exit_code": 0, "threads_usage": [{"worker": 0, "tid": 7, "cpu": 1,
            "user_seconds": 0.5, "system_seconds": 0.25, "voluntary_switches": 2,
            "involuntary_switches": 1}], "threads_seen": 3,
            "threads_usage_resolution_seconds": 0.01, "tlp": null,
            "numastat_delta": {"0": {"numa_hit": 5}, "1": {"numa_hit": 0}},
            "numastat_scope": "system", "perf": {"page-faults": 9},
            "perf_unavailable": {}}))
        .unwrap();
        let counts = typed.counts.expect("the counts");
        assert_eq!(counts.threads_seen, Some(3));
        assert_eq!(counts.numastat_delta[&0]["numa_hit"], 5);
        assert_eq!(counts.numastat_delta.len(), 2);
        assert_eq!(counts.perf.perf["page-faults"], 9);
    }
}
