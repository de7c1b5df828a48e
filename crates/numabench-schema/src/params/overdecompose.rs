//! `overdecompose`'s parameters: the K sweep's point (a target
//! communication share at K ranks per core), as a configuration's summary
//! records carry it ([`OverdecomposeParams`]) and one run's record
//! ([`OverdecomposeRunParams`]), and the calibration's
//! ([`OverdecomposeCalibrationParams`]).

use super::{BenchmarkParams, Metrics};
use crate::benchmark;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The metric of one run's record.
pub const OVERDECOMPOSE_RUN: &str = "run_time";
/// The metrics of the calibration's records.
pub const OVERDECOMPOSE_CALIBRATION: &[&str] = &["compute_per_point", "exchange_per_half_sweep"];

/// A sweep point: the target share, the grid chosen for it and the ranks.
/// Each field reads as `None` where a record lacks it; the schema requires
/// what numabench always writes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SweepPoint {
    /// The communication share the grid was sized for.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub target_comm_share: Option<f64>,
    /// The share the size model predicts for the grid chosen.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub predicted_comm_share: Option<f64>,
    /// Whether the target can hold at every K.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub share_reachable: Option<bool>,
    #[serde(flatten)]
    pub ranks: SweepRanks,
    /// Grid rows.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub ny: Option<u64>,
    /// Grid rows per core.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub rows_per_core: Option<u64>,
    /// SOR iterations.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub iterations: Option<u64>,
    /// The over-relaxation factor.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub omega: Option<f64>,
}

/// Ranks per core, cores, hosts, ranks and the grid's width, as every
/// record of the study (the calibration's too) carries them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SweepRanks {
    /// K, ranks per core.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub ranks_per_core: Option<u64>,
    /// Cores per host.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub cores: Option<u64>,
    /// Hosts, when the ranks run on more than this one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hosts: Option<u64>,
    /// Ranks in all.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub ranks: Option<u64>,
    /// Grid columns.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub nx: Option<u64>,
}

/// The params of a configuration's summary records (`time`, `speedup`,
/// `tlp_1`, `tlp_2`, `system_time`, `context_switches`, `idle_share`,
/// `comm_share`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct OverdecomposeParams {
    #[serde(flatten)]
    pub point: SweepPoint,
    /// Runs summed up.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub repetitions: Option<u64>,
    /// Whether every run's grid was the serial run's.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub verified: Option<bool>,
    /// The most rank threads any run found off their CPU; null when a
    /// run could not tell.
    pub threads_off_cpu: Option<u64>,
    /// The largest difference to the serial grid; null when a run has no
    /// check.
    pub max_abs_diff: Option<f64>,
}

impl BenchmarkParams for OverdecomposeParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::OVERDECOMPOSE];
}

/// The params of one run's record (`run_time`): the summary's, over this
/// run alone, with its repetition in place of the count of runs. The keys
/// after `omega` come in this order (`max_abs_diff` first): the map writer
/// removed `repetitions` by moving the last key into its place.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct OverdecomposeRunParams {
    #[serde(flatten)]
    pub point: SweepPoint,
    /// The difference to the serial grid; null when the run has no check.
    pub max_abs_diff: Option<f64>,
    /// Whether the run's grid was the serial run's.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub verified: Option<bool>,
    /// Rank threads found off their CPU; null when the run could not tell.
    pub threads_off_cpu: Option<u64>,
    /// The repetition, from 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub repetition: Option<u64>,
}

impl BenchmarkParams for OverdecomposeRunParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::OVERDECOMPOSE];
    const METRICS: Metrics = Metrics::Named(&[OVERDECOMPOSE_RUN]);
}

/// The params of the calibration's records (`compute_per_point`,
/// `exchange_per_half_sweep`): the calibration run's ranks and grid.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct OverdecomposeCalibrationParams {
    /// `calibration`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub phase: Option<String>,
    #[serde(flatten)]
    pub ranks: SweepRanks,
    /// Grid rows per rank.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub rows_per_rank: Option<u64>,
    /// SOR iterations.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub iterations: Option<u64>,
}

impl BenchmarkParams for OverdecomposeCalibrationParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::OVERDECOMPOSE];
    const METRICS: Metrics = Metrics::Named(OVERDECOMPOSE_CALIBRATION);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::typed::assert_round_trips;
    use serde_json::json;

    /// The fixture's records, one of each, round-trip.
    #[test]
    fn the_sweeps_records_round_trip() {
        let point = json!({"target_comm_share": 0.25, "predicted_comm_share": 0.2,
            "share_reachable": true, "ranks_per_core": 2, "cores": 2, "hosts": 2,
            "ranks": 8, "nx": 256, "ny": 64, "rows_per_core": 32, "iterations": 5,
            "omega": 1.5});
        let with = |tail: serde_json::Value| {
            let mut params = point.as_object().unwrap().clone();
            params.extend(tail.as_object().unwrap().clone());
            serde_json::Value::Object(params)
        };
        assert_round_trips::<OverdecomposeParams>(with(json!({"repetitions": 3,
            "verified": true, "threads_off_cpu": 0, "max_abs_diff": 0.0})));
        assert_round_trips::<OverdecomposeRunParams>(with(json!({"max_abs_diff": null,
            "verified": false, "threads_off_cpu": null, "repetition": 1})));
        assert_round_trips::<OverdecomposeCalibrationParams>(json!({"phase": "calibration",
            "ranks_per_core": 1, "cores": 2, "ranks": 2, "nx": 256, "rows_per_rank": 64,
            "iterations": 100}));
    }
}
