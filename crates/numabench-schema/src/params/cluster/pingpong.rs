//! `mpi-pingpong`: one record per pair of participants and figure
//! (`latency`, `bandwidth`), tagged with the measuring end's labels, and
//! per participant its best partner's figure (`<metric>_best_partner`),
//! which the outlier rule compares. Each field reads as `None` where a
//! record lacks it; `same_host` is absent from an older run's records.

use super::super::{BenchmarkParams, Metrics};
use super::ClusterLabels;
use crate::benchmark;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The metric suffix of the per-participant summaries.
pub const BEST_PARTNER_SUFFIX: &str = "best_partner";

/// The message size and round trips of a pair's figure.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MessageParams {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub round_trips: Option<u64>,
}

/// A pair's record: its two ends (`a` measures), whether they share a
/// host, the message size and round trips, the rule that chose the
/// pairs, then the measuring end's labels.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PingpongPairParams {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub unit_a: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub unit_b: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub host_a: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub host_b: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub rank_a: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub rank_b: Option<u64>,
    /// Both ends run on one host.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub same_host: Option<bool>,
    #[serde(flatten)]
    pub message: MessageParams,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub pair_rule: Option<String>,
    #[serde(flatten)]
    pub labels: ClusterLabels,
}

impl PingpongPairParams {
    /// Whether the two ends share a host: `same_host`, else (an older
    /// record) their host names compared.
    pub fn on_one_host(&self) -> bool {
        self.same_host.unwrap_or(self.host_a == self.host_b)
    }
}

impl BenchmarkParams for PingpongPairParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::MPI_PINGPONG];
    const METRICS: Metrics = Metrics::Named(&["latency", "bandwidth"]);
}

/// A participant's best partner's figure: its labels (the rank is
/// `null` when its pair records lack it), whether the partners were on
/// its own host, how many partners, the pairs' message size and round
/// trips.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PingpongBestPartnerParams {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub host: Option<String>,
    pub rank: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub unit: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub part: Option<String>,
    /// `pingpong <metric>`, or `pingpong same-host <metric>`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub cluster_key: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub same_host: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub partners: Option<u64>,
    #[serde(flatten)]
    pub message: MessageParams,
}

impl BenchmarkParams for PingpongBestPartnerParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::MPI_PINGPONG];
    const METRICS: Metrics = Metrics::EndingWith(BEST_PARTNER_SUFFIX);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::typed::assert_round_trips;
    use serde_json::json;

    #[test]
    fn written_params_round_trip() {
        assert_round_trips::<PingpongPairParams>(json!({"unit_a": "h0/rank 0",
            "unit_b": "h1/rank 1", "host_a": "h0", "host_b": "h1", "rank_a": 0, "rank_b": 1,
            "same_host": false, "message_bytes": 8, "round_trips": 1000,
            "pair_rule": "every pair of participants", "host": "h0", "rank": 0,
            "unit": "h0/rank 0", "part": "pingpong"}));
        assert_round_trips::<PingpongBestPartnerParams>(json!({"host": "a", "rank": null,
            "unit": "a", "part": "pingpong", "cluster_key": "pingpong bandwidth",
            "same_host": false, "partners": 1}));
    }
}
