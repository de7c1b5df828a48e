//! `run`'s derived records: each policy's (or scan configuration's)
//! summary of its runs (metric `wall_time`), and a scan's speedup and
//! parallel efficiency against its smallest worker count.

use super::{BenchmarkParams, Metrics};
use crate::benchmark;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The metric of a policy's or configuration's summary record.
pub const RUN_SUMMARY: &str = "wall_time";
/// The metrics of a scan's ratio records.
pub const SCAN_RATIOS: [&str; 2] = ["speedup", "parallel_efficiency"];

/// The summary of one policy's (`run --policies`) or one scan
/// configuration's (`run --scan`) runs; the two are told apart by a
/// scan's `scan` key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum RunSummaryParams {
    /// A scan configuration's.
    Scan(ScanSummaryParams),
    /// A policy's, in a comparison.
    Policies(PolicySummaryParams),
}

impl Default for RunSummaryParams {
    fn default() -> Self {
        RunSummaryParams::Policies(PolicySummaryParams::default())
    }
}

impl RunSummaryParams {
    /// What both shapes say: the speedup against the baseline, its
    /// p-values and whether it is significant.
    pub fn comparison(&self) -> &Comparison {
        match self {
            RunSummaryParams::Scan(scan) => &scan.comparison,
            RunSummaryParams::Policies(policies) => &policies.comparison,
        }
    }

    /// How many runs failed.
    pub fn failures(&self) -> Option<u64> {
        match self {
            RunSummaryParams::Scan(scan) => scan.failures,
            RunSummaryParams::Policies(policies) => policies.failures,
        }
    }
}

impl BenchmarkParams for RunSummaryParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::RUN];
    const METRICS: Metrics = Metrics::Named(&[RUN_SUMMARY]);
}

/// A speedup against the baseline and how sure it is (two-sided
/// Mann-Whitney U over the runs); each null where there is no baseline to
/// compare with.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Comparison {
    /// The baseline's median wall time over this one's.
    pub speedup: Option<f64>,
    /// The test's p-value.
    pub p_value: Option<f64>,
    /// The p-value adjusted by Holm's method for every policy compared.
    pub p_value_holm: Option<f64>,
    /// Whether the adjusted p-value is below 0.05.
    pub significant: Option<bool>,
}

/// One policy's summary in a comparison (`run --policies`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PolicySummaryParams {
    /// The policy, as the user wrote it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub policy: Option<String>,
    /// The command line, words joined by spaces.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub command: Option<String>,
    /// The policy the speedups are against (`as-is` where compared, else
    /// the first).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub baseline: Option<String>,
    /// The speedup against the baseline.
    #[serde(flatten)]
    pub comparison: Comparison,
    /// How many runs failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub failures: Option<u64>,
    /// The median count of threads seen in the policy's well-sampled runs;
    /// null where no run was counted.
    pub threads_seen: Option<u64>,
    /// The median team (threads running at once) of those runs; null as
    /// `threads_seen`.
    pub team_threads: Option<u64>,
    /// One line naming each policy's team where the policies' teams
    /// differ; null where they agree.
    pub thread_count_warning: Option<String>,
    /// The means over the successful runs.
    #[serde(flatten)]
    pub means: RunMeans,
    /// With `--observe`: the observed figures' means.
    #[serde(flatten)]
    pub observed: Option<ObservedMeans>,
}

/// One scan configuration's summary (`run --scan`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ScanSummaryParams {
    /// Which configuration.
    #[serde(flatten)]
    pub labels: ScanLabels,
    /// How many runs failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub failures: Option<u64>,
    /// The means over the successful runs.
    #[serde(flatten)]
    pub means: RunMeans,
    /// The speedup against the configuration with the smallest worker
    /// count, same policy.
    #[serde(flatten)]
    pub comparison: Comparison,
}

/// A scan configuration's speedup or parallel efficiency against the
/// configuration with the smallest worker count, same policy (metrics
/// `speedup`, `parallel_efficiency`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ScanRatioParams {
    /// Which configuration.
    #[serde(flatten)]
    pub labels: ScanLabels,
    /// The scanned parameter taken as the worker count.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub parameter: Option<String>,
    /// This configuration's worker count.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub workers: Option<f64>,
    /// The baseline configuration's worker count.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub baseline_workers: Option<f64>,
    /// The baseline's median wall time, s.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub baseline_median_seconds: Option<f64>,
    /// This configuration's median wall time, s.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub median_seconds: Option<f64>,
}

impl BenchmarkParams for ScanRatioParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::RUN];
    const METRICS: Metrics = Metrics::Named(&SCAN_RATIOS);
}

/// Which scan configuration a record is about.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ScanLabels {
    /// Each scanned parameter's value at this configuration, by name.
    pub scan: Value,
    /// The configuration's label (`t=4`, or `t=4 | pin-compact` with
    /// several policies).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub configuration: Option<String>,
    /// Its policy.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub policy: Option<String>,
    /// The order pinned threads got CPUs in, when pinning.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_order: Option<String>,
    /// The command line at this configuration, words joined by spaces.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub command: Option<String>,
}

/// The means over a policy's or configuration's successful runs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunMeans {
    /// CPU time in user mode, s.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub user_seconds: Option<f64>,
    /// CPU time in the kernel, s.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub system_seconds: Option<f64>,
    /// The largest peak resident set of any run, KiB (not a mean).
    pub max_rss_kib: Option<i64>,
    /// Voluntary context switches.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub voluntary_switches: Option<f64>,
    /// Involuntary context switches.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub involuntary_switches: Option<f64>,
}

/// With `--observe`, the means over the successful runs of what the
/// observation counted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ObservedMeans {
    /// Threads moved between CPUs.
    pub thread_migrations: f64,
    /// Where the count came from (`kernel`, or
    /// `cpu-changes-between-samples` where any run lacked the kernel's);
    /// null where no run was observed.
    pub thread_migrations_source: Option<String>,
    /// Changes of a thread's CPU between two samples.
    pub cpu_changes_between_samples: f64,
    /// Changes of a thread's node between two samples.
    pub node_changes_between_samples: f64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::typed::assert_round_trips;
    use serde_json::json;

    /// Both shapes read back as themselves and are written as they were.
    #[test]
    fn a_policy_summary_and_a_scan_summary_round_trip() {
        assert_round_trips::<RunSummaryParams>(json!({"policy": "as-is", "command": "prog",
            "baseline": "as-is", "speedup": 1.0, "p_value": null, "p_value_holm": null,
            "significant": null, "failures": 0, "threads_seen": 4, "team_threads": null,
            "thread_count_warning": null, "user_seconds": 2.5, "system_seconds": 0.25,
            "max_rss_kib": 1003, "voluntary_switches": 3.0, "involuntary_switches": 2.0,
            "thread_migrations": 0.0, "thread_migrations_source": "kernel",
            "cpu_changes_between_samples": 1.0, "node_changes_between_samples": 0.0}));
        let scan = json!({"scan": {"t": "4"}, "configuration": "t=4 | pin-compact",
            "policy": "pin-compact", "cpu_order": "compact", "command": "prog 4",
            "failures": 0, "user_seconds": 0.0, "system_seconds": 0.0, "max_rss_kib": 0,
            "voluntary_switches": 0.0, "involuntary_switches": 0.0, "speedup": 2.0,
            "p_value": 0.19, "p_value_holm": 0.38, "significant": false});
        assert_round_trips::<RunSummaryParams>(scan.clone());
        let read: RunSummaryParams = serde_json::from_value(scan).unwrap();
        assert!(matches!(read, RunSummaryParams::Scan(_)));
        assert_eq!(read.comparison().speedup, Some(2.0));
        assert_round_trips::<ScanRatioParams>(json!({"scan": {"t": "4"},
            "configuration": "t=4", "policy": "as-is", "command": "prog 4",
            "parameter": "t", "workers": 4.0, "baseline_workers": 1.0,
            "baseline_median_seconds": 1.0, "median_seconds": 0.5}));
    }
}
