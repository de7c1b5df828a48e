//! A thread-scaling point's ratios (`speedup`, `parallel_efficiency`)
//! against the first thread count.

use super::AppConfiguration;
use crate::benchmark;
use crate::params::{BenchmarkParams, Metrics};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The metrics of a scaling point's ratios.
pub const APP_SCALING_METRICS: &[&str] = &["speedup", "parallel_efficiency"];

/// The params of an app's `speedup` and `parallel_efficiency` records.
/// Each field reads as `None` where a record lacks it; the schema requires
/// what numabench always writes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AppScalingParams {
    #[serde(flatten)]
    pub configuration: AppConfiguration,
    /// The order threads were added in; null when unpinned.
    pub cpu_order: Option<String>,
    /// The reference configuration's thread count (per CPU).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub relative_to_threads: Option<u64>,
    /// The reference's median time, s.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub relative_to_seconds: Option<f64>,
    /// This point's median time, s.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub time_seconds: Option<f64>,
}

impl BenchmarkParams for AppScalingParams {
    const BENCHMARKS: &'static [&'static str] = &benchmark::APP_KERNELS;
    const METRICS: Metrics = Metrics::Named(APP_SCALING_METRICS);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::typed::assert_round_trips;
    use serde_json::json;

    #[test]
    fn scaling_params_round_trip() {
        assert_round_trips::<AppScalingParams>(json!({"class": "S", "threads": 2,
            "threads_per_cpu": 1, "nodes_used": null, "placement": "first-touch",
            "threads_placement": "unpinned", "cpu_order": null, "relative_to_threads": 2,
            "relative_to_seconds": 1.0, "time_seconds": 1.0}));
    }
}
