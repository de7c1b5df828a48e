//! What identifies a measurement across result sets: the benchmark, the
//! metric, the unit and the params that say *what* was measured, without
//! the params that say how one run went or where it ran.
//!
//! The rule (also in README.md and docs/results.md, section "compare"):
//! a param leaves the key when
//! - it says where or when a record was made: `host`, `rank`, `local_rank`,
//!   `cpus_allowed`, `repetition` (records equal but for these are
//!   repetitions of one figure);
//! - it is a measured or machine-derived detail rather than a request:
//!   a name in [`RUN_SPECIFIC`], or one ending in a suffix of
//!   [`RUN_SPECIFIC_SUFFIXES`] (times, counters, sources, explanations);
//! - its value is a JSON object (observations, verification, page counts:
//!   data, not a setting).
//!
//! Every other param stays, so two records match only when they asked for
//! the same working set, CPUs, nodes, kernel, order, huge pages, threads,
//! placement and so on.

use crate::output::Record;
use serde_json::Value;

/// Params that place a record in a run (host, rank, repetition).
pub const WHERE_AND_WHEN: [&str; 5] = ["host", "rank", "local_rank", "cpus_allowed", "repetition"];

/// Params that are outcomes or depend on the machine rather than on what
/// was asked (cache sizes in front, TLB-derived blocks, chosen SIMD level,
/// exit status, p-values against another configuration, ...).
pub const RUN_SPECIFIC: &[&str] = &[
    "pages",
    "checked_records",
    "resident_bytes",
    "significant",
    "loads_per_sample",
    "rounds_per_sample",
    "cache_bytes_in_front",
    "cache_affected",
    "block_bytes",
    "tsc_ghz",
    "core_ghz",
    "simd",
    "spmv",
    "exit_code",
    "signal",
    "interrupted",
    "stop_signal",
    "leftover_processes",
    "leftover_commands",
    "leftovers_killed",
    "observation",
    "pin_warnings",
    "verification",
    "note",
    "meaning",
    "p_value",
    "p_value_holm",
    "speedup",
    "significantly_fastest",
    "workers_stayed_pinned",
    "failures",
    "verified",
    "sentence",
    "threads_usage",
    "cache_level",
    "cache_level_bytes",
    "slit_distance",
    "threads_seen",
    "team_threads",
    // An object, or null where a run was too short for the sampler: a run
    // outcome either way (a 10 ms run of five, null once, matched four).
    "tlp",
    // The MPI monitor's outcomes beside a figure: where a rank ran, the
    // spread over ranks of a call type, where its buffers were (#37).
    "cpus_ran",
    "rank_min",
    "rank_mean",
    "rank_max",
    "ranks_calling",
    "mpi_share",
    "app_share",
    "pages_local",
    "pages_remote",
    "pages_absent",
    "large_buffers",
    "sampled_buffers",
    // A cluster retest's attempt, and whether a host's check plan came
    // from its baseline: the same measurement either way.
    "attempt",
    "plan_from_baseline",
    "other_threads_usage",
    "perf_per_worker",
    "perf_multiplexed",
    "perf_unavailable",
    "numastat_scope",
    // How a sampled matrix came by a cell (measured or inferred, its
    // class): the cell is the same cell whichever way (#34 item 10: two
    // default runs of one machine matched no sampled cell).
    "cell",
    "cell_class",
    "class_cells",
    "class_seed",
    "inferred_from",
    "sample_rule",
];

/// Suffixes of run-specific param names.
pub const RUN_SPECIFIC_SUFFIXES: [&str; 11] = [
    "_seconds",
    "_switches",
    "_kib",
    "_gbs",
    "_source",
    "_measures",
    "_pages",
    "_calibration",
    "_chosen_by",
    "_after_run",
    "_after_placement",
];

/// True when `name = value` identifies the measurement.
pub fn identifies(name: &str, value: &Value) -> bool {
    !(WHERE_AND_WHEN.contains(&name)
        || RUN_SPECIFIC.contains(&name)
        || RUN_SPECIFIC_SUFFIXES
            .iter()
            .any(|suffix| name.ends_with(suffix))
        || value.is_object())
}

/// The identity of one measurement.
#[derive(Debug, Clone, PartialEq)]
pub struct MeasurementKey {
    pub benchmark: String,
    pub metric: String,
    /// The unit as written in records.
    pub unit: String,
    /// Identifying params, sorted by name.
    pub params: Vec<(String, Value)>,
}

impl MeasurementKey {
    /// The key of a record.
    pub fn of(record: &Record) -> Self {
        let mut params: Vec<(String, Value)> = record
            .params
            .iter()
            .filter(|(name, value)| identifies(name, value))
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect();
        params.sort_by(|a, b| a.0.cmp(&b.0));
        Self {
            benchmark: record.benchmark.clone(),
            metric: record.metric.clone(),
            unit: record.unit.as_str().to_string(),
            params,
        }
    }

    /// One string per key, equal exactly when the keys are equal.
    pub fn identity(&self) -> String {
        serde_json::to_string(&(&self.benchmark, &self.metric, &self.unit, &self.params))
            .unwrap_or_default()
    }

    /// The params as `key=value` text, long values summarised as in the
    /// results table ([`crate::output::params_text`]).
    pub fn params_text(&self) -> String {
        crate::output::params_text(&self.params.iter().cloned().collect())
    }
}
