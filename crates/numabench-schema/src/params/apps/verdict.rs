//! A placement study's verdict (`best_median_time`): the fastest eligible
//! configuration, how sure the study is, and what it left out.

use super::AppScheme;
use crate::benchmark;
use crate::params::{BenchmarkParams, Metrics};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The metric of a placement study's verdict.
pub const STUDY_VERDICT: &str = "best_median_time";

/// The params of a `best_median_time` record. Each field reads as `None`
/// where a record lacks it; the schema requires what numabench always
/// writes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StudyVerdictParams {
    /// The NPB class (`cg`, `mg`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// The best configuration's label (`placement + thread scheme`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub configuration: Option<String>,
    #[serde(flatten)]
    pub scheme: AppScheme,
    /// Its thread scheme.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub threads_placement: Option<String>,
    /// Its workers.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub threads: Option<u64>,
    /// Its workers per CPU.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub threads_per_cpu: Option<u64>,
    /// Whether it is significantly faster than every other eligible one.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub significantly_fastest: Option<bool>,
    /// The eligible configuration closest to it; null with fewer than two.
    pub closest: Option<String>,
    /// Mann-Whitney's p against the closest; null with fewer than two.
    pub p_value: Option<f64>,
    /// The configuration whose runs varied least; null with too few runs.
    pub most_repeatable: Option<String>,
    /// Its coefficient of variation.
    pub most_repeatable_cv: Option<f64>,
    /// Configurations in the study.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub configurations: Option<u64>,
    /// The best configuration's node split, in a node-split study.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_split: Option<String>,
    /// A node-split study's slowest configuration.
    #[serde(flatten)]
    pub slowest: Option<SlowestParams>,
    /// The configurations left out of the verdict, and why.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub excluded: Option<Vec<ExcludedConfiguration>>,
}

impl BenchmarkParams for StudyVerdictParams {
    const BENCHMARKS: &'static [&'static str] = &benchmark::APP_KERNELS;
    const METRICS: Metrics = Metrics::Named(&[STUDY_VERDICT]);
}

/// A node-split study's slowest configuration, as the fastest is named.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SlowestParams {
    /// Its label; null when no configuration is eligible.
    pub slowest: Option<String>,
    /// Whether it is significantly slower than every other eligible one.
    pub significantly_slowest: bool,
    /// The eligible configuration closest to it.
    pub slowest_closest: Option<String>,
    /// Mann-Whitney's p against that one.
    pub slowest_p_value: Option<f64>,
}

/// A configuration the verdict left out.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ExcludedConfiguration {
    /// Its label.
    pub configuration: String,
    /// Why (`placement not achieved`, ...).
    pub reason: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::typed::assert_round_trips;
    use serde_json::json;

    #[test]
    fn verdicts_round_trip() {
        assert_round_trips::<StudyVerdictParams>(json!({"class": "A",
            "configuration": "first-touch + compact", "placement": "first-touch",
            "threads_placement": "compact", "threads": 2, "threads_per_cpu": 1,
            "significantly_fastest": true, "closest": "serial + compact", "p_value": 0.004,
            "most_repeatable": null, "most_repeatable_cv": null, "configurations": 3,
            "excluded": [{"configuration": "bind:1 + compact", "reason": "placement not achieved"}]}));
        assert_round_trips::<StudyVerdictParams>(json!({
            "configuration": "first-touch + split 1/1", "placement": "first-touch",
            "threads_placement": "compact", "threads": 2, "threads_per_cpu": 1,
            "significantly_fastest": false, "closest": null, "p_value": null,
            "most_repeatable": "first-touch + split 1/1", "most_repeatable_cv": 0.08,
            "configurations": 1, "node_split": "1/1", "slowest": "first-touch + split 1/1",
            "significantly_slowest": false, "slowest_closest": null, "slowest_p_value": null,
            "excluded": []}));
    }
}
