//! The records of rank 0's verdict (benchmark `cluster`): one `outlier`
//! per outlying unit and metric, one `differing_setting` per host and
//! setting, one `failed` per failure, one `baseline_problem` per host
//! outside its baseline, then the `verdict`. Each field reads as `None`
//! where a record lacks it; the schema requires what numabench always
//! writes (an older run's outliers lack `target` and the others' median
//! and MAD, its verdict the baseline and retest fields).

use super::super::{BenchmarkParams, Metrics};
use crate::benchmark;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The thresholds of the outlier rule, as every outlier and the verdict
/// carry them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RuleParams {
    /// The robust z above which a unit is flagged (`--mad-k`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub mad_k: Option<f64>,
    /// How far from the others' median a unit must also be
    /// (`--min-deviation`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub min_deviation: Option<f64>,
}

/// An `outlier` record (value: the unit's figure over the others'
/// median). Figures that are not finite are written as `null`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ClusterOutlierParams {
    /// The outlying unit.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub unit: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub host: Option<String>,
    /// The compared metric (its records' `cluster_key`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub key: Option<String>,
    /// The unit of the compared records (`ns`, `GB/s`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub record_unit: Option<String>,
    /// `slower` or `faster` for times and rates, `above`/`below` else.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub direction: Option<String>,
    /// The record's `cluster_target`; `null` when the unit has one record
    /// of the key.
    pub target: Option<String>,
    /// The unit's figure.
    pub value: Option<f64>,
    /// The median of every unit's figure.
    pub median: Option<f64>,
    /// The median of the other units' figures: what the rule compares with.
    pub others_median: Option<f64>,
    /// Their median absolute deviation from `others_median`.
    pub others_mad: Option<f64>,
    /// The unit's robust z; `null` when the others' MAD is 0.
    pub robust_z: Option<f64>,
    /// (value - others_median) / |others_median|; `null` when that median
    /// is 0.
    pub relative: Option<f64>,
    /// How many units the median is over.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub units: Option<u64>,
    #[serde(flatten)]
    pub rule: RuleParams,
}

impl BenchmarkParams for ClusterOutlierParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::CLUSTER];
    const METRICS: Metrics = Metrics::Named(&["outlier"]);
}

/// A `differing_setting` record: a host whose setting differs from the
/// majority's.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DifferingSettingParams {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub host: Option<String>,
    /// The setting's name (`numa_nodes`, `doctor.CHECK`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub setting: Option<String>,
    /// The host's value (`null`: the host lacks the setting).
    #[schemars(required)]
    pub value: Value,
    /// The value most hosts have; `null` when no value is shared by more
    /// hosts than any other.
    pub majority: Option<Value>,
    /// How many hosts have the majority value (0 without one).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub majority_hosts: Option<u64>,
}

impl BenchmarkParams for DifferingSettingParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::CLUSTER];
    const METRICS: Metrics = Metrics::Named(&["differing_setting"]);
}

/// The host and rank a failure or a baseline problem is of.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HostRankParams {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub host: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub rank: Option<i64>,
}

/// A `failed` record: a host (and rank) that did not deliver a part.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ClusterFailureParams {
    #[serde(flatten)]
    pub who: HostRankParams,
    /// The part that failed; `null` when the rank stopped answering.
    pub part: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub error: Option<String>,
}

impl BenchmarkParams for ClusterFailureParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::CLUSTER];
    const METRICS: Metrics = Metrics::Named(&["failed"]);
}

/// A `baseline_problem` record: a host whose check does not pass its
/// baseline (`--baseline`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BaselineProblemParams {
    #[serde(flatten)]
    pub who: HostRankParams,
    /// As `check` says it, or why there is nothing to compare with.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub problem: Option<String>,
}

impl BenchmarkParams for BaselineProblemParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::CLUSTER];
    const METRICS: Metrics = Metrics::Named(&["baseline_problem"]);
}

/// The `verdict` record (value: the problems: outliers, differing
/// settings, failures, baseline problems).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ClusterVerdictParams {
    /// Compared units.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub units: Option<u64>,
    /// Hosts seen.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub hosts: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub outliers: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub differing: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub failed: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline_problems: Option<u64>,
    /// Units measured again before the verdict, with the parts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retested: Option<Vec<String>>,
    /// Ranks that measured nothing, as `host (rank R)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub idle_ranks: Option<Vec<String>>,
    /// Why part of the verdict could not be reached.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub notes: Option<Vec<String>>,
    #[serde(flatten)]
    pub rule: RuleParams,
}

impl BenchmarkParams for ClusterVerdictParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::CLUSTER];
    const METRICS: Metrics = Metrics::Named(&["verdict"]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::typed::assert_round_trips;
    use serde_json::json;

    /// Written params read back and written again are the same text,
    /// nulls included.
    #[test]
    fn written_params_round_trip() {
        assert_round_trips::<ClusterOutlierParams>(json!({"unit": "c", "host": "c",
            "key": "latency local", "record_unit": "ns", "direction": "slower",
            "target": null, "value": 300.0, "median": 90.5, "others_median": 90.0,
            "others_mad": 0.0, "robust_z": null, "relative": 2.3, "units": 4,
            "mad_k": 3.0, "min_deviation": 0.1}));
        assert_round_trips::<DifferingSettingParams>(json!({"host": "c",
            "setting": "numa_nodes", "value": 2, "majority": null, "majority_hosts": 0}));
        assert_round_trips::<ClusterFailureParams>(json!({"host": "f", "rank": 5,
            "part": null, "error": "silent"}));
        assert_round_trips::<BaselineProblemParams>(json!({"host": "c", "rank": 2,
            "problem": "node 0 latency local: 120 ns vs 90 ns (+10%)"}));
        assert_round_trips::<ClusterVerdictParams>(json!({"units": 4, "hosts": 4,
            "outliers": 3, "differing": 2, "failed": 2, "baseline_problems": 1,
            "retested": ["c (stream)"], "idle_ranks": [], "notes": [], "mad_k": 3.0,
            "min_deviation": 0.1}));
    }
}
