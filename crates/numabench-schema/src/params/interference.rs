//! `interference`'s parameters: each measurement of a victim node
//! (`victim_latency`, `victim_bandwidth`: alone or under an aggressor's
//! load, in one round) and each cell of the degradation matrix
//! (`latency_ratio`, `bandwidth_ratio`: loaded over alone, with the
//! figures of the metric's kind).

use super::{BenchmarkParams, Metrics};
use crate::benchmark;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The suffix of a matrix cell's metric.
pub const INTERFERENCE_CELL_SUFFIX: &str = "_ratio";

/// The params of a `victim_latency` or `victim_bandwidth` record. Each
/// field reads as `None` where a record lacks it; the schema requires
/// what numabench always writes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct InterferenceParams {
    /// The node measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub victim_node: Option<u32>,
    /// The CPU that measured it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub victim_cpu: Option<u32>,
    /// The node whose threads loaded it; null alone.
    pub aggressor_node: Option<u32>,
    /// The aggressor's threads (0 alone).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub aggressor_threads: Option<u64>,
    /// The aggressor's traffic (`none` alone, `reads`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub load: Option<String>,
    /// The round.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub round: Option<u64>,
    /// The aggressor's bandwidth meanwhile, GB/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub traffic_gbs: Option<f64>,
    /// The victim's working set, bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub size_bytes: Option<u64>,
    /// The aggressor's buffers together, bytes (0 alone).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub aggressor_bytes: Option<u64>,
}

impl BenchmarkParams for InterferenceParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::INTERFERENCE];
}

/// The params of a matrix cell's `latency_ratio` or `bandwidth_ratio`:
/// the pair and its load, then the figures of the metric's kind (a
/// latency's in ns, a bandwidth's in GB/s) and the rank test's p-value.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct InterferenceCellParams {
    /// The node measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub victim_node: Option<u32>,
    /// The node whose threads loaded it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aggressor_node: Option<u32>,
    /// The aggressor's traffic (`reads`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub load: Option<String>,
    /// The aggressor's median bandwidth, GB/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub traffic_gbs: Option<f64>,
    /// Rounds measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub rounds: Option<u64>,
    /// The victim's working set, bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub size_bytes: Option<u64>,
    /// The latency alone, ns (`latency_ratio`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alone_ns: Option<f64>,
    /// The latency under load, ns (`latency_ratio`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loaded_ns: Option<f64>,
    /// Loaded over alone, minus one, in percent (`latency_ratio`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub increase_pct: Option<f64>,
    /// The bandwidth alone, GB/s (`bandwidth_ratio`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alone_gbs: Option<f64>,
    /// The bandwidth under load, GB/s (`bandwidth_ratio`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loaded_gbs: Option<f64>,
    /// One minus loaded over alone, in percent (`bandwidth_ratio`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loss_pct: Option<f64>,
    /// Mann-Whitney p of loaded against alone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p_value: Option<f64>,
}

impl BenchmarkParams for InterferenceCellParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::INTERFERENCE];
    const METRICS: Metrics = Metrics::EndingWith(INTERFERENCE_CELL_SUFFIX);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::typed::assert_round_trips as round_trips;
    use serde_json::json;

    /// Each kind's written params read back and written again are the
    /// same text, nulls kept.
    #[test]
    fn every_kind_round_trips() {
        round_trips::<InterferenceParams>(json!({"victim_node": 0, "victim_cpu": 0,
            "aggressor_node": null, "aggressor_threads": 0, "load": "none", "round": 1,
            "traffic_gbs": 0.0, "size_bytes": 65536, "aggressor_bytes": 0}));
        let cell = json!({"victim_node": 0, "aggressor_node": 1, "load": "reads",
            "traffic_gbs": 12.5, "rounds": 3, "size_bytes": 65536});
        for figures in [
            json!({"alone_ns": 90.0, "loaded_ns": 120.5, "increase_pct": 33.9, "p_value": 0.01}),
            json!({"alone_gbs": 9.0, "loaded_gbs": 6.5, "loss_pct": 27.8, "p_value": 0.5}),
        ] {
            let mut params = cell.clone();
            let map = params.as_object_mut().unwrap();
            map.extend(figures.as_object().unwrap().clone());
            round_trips::<InterferenceCellParams>(params);
        }
    }
}
