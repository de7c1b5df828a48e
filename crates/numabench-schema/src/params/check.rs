//! `numabench check`'s parameters (the per-NUMA-node health check; its
//! records are also what `cluster`'s check part sends): one record per
//! measured item, with its verdict when compared with a baseline; one for
//! the node type's differences from the baseline's fingerprint; and, in a
//! cluster run, one plan record per measuring rank. The fingerprint and
//! the plan are numabench's own types (`check::Fingerprint`,
//! `check::CheckPlan`), kept as JSON here. Each field reads as `None`
//! where a record lacks it; the schema requires what numabench always
//! writes.

use super::{BenchmarkParams, CheckPlan, ClusterLabels, Fingerprint, Metrics};
use crate::benchmark;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The metric of a cluster rank's plan record.
pub const CHECK_PLAN: &str = "check_plan";
/// The metric of the node type's record.
pub const NODE_TYPE_DIFFERENCES: &str = "node_type_differences";

/// A measured item's record (`read_bandwidth`, `triad_bandwidth`,
/// `latency`): what and where; with a baseline, the comparison; in a
/// cluster run, what the cluster compares it by and the rank's labels.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CheckItemParams {
    /// The item's key in baselines: `node1.triad_bandwidth`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub key: Option<String>,
    /// The item in words (`node 0 latency local`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub check: Option<String>,
    /// The node whose memory is measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub node: Option<u32>,
    /// The node whose CPUs measure.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub cpu_node: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub threads: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub size_bytes: Option<u64>,
    /// The comparison with the baseline (`check`, not a baseline run's
    /// or a cluster's records).
    #[serde(flatten)]
    pub outcome: Option<CheckOutcomeParams>,
    /// The quantity (`read_bandwidth`, `triad_bandwidth`, `latency`): a
    /// cluster's check part's records.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quantity: Option<String>,
    /// The working set is under twice the caches in front of the memory:
    /// a cluster's check part's records.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_affected: Option<bool>,
    #[serde(flatten)]
    pub labels: ClusterLabels,
}

impl BenchmarkParams for CheckItemParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::CHECK];
}

/// An item's comparison with its reference. Bounds and ratio are `null`
/// where there are none (no bound on that side, a reference of 0).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CheckOutcomeParams {
    /// The reference figure.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub reference: Option<f64>,
    /// The lower bound, as a share of the reference (signed).
    pub lower: Option<f64>,
    /// The upper bound, as a share of the reference (signed).
    pub upper: Option<f64>,
    /// The bounds in words (`-5%`, `no bound`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub tolerance: Option<String>,
    /// `ok`, `fail` or `misplaced`: what tells an outcome's record.
    pub verdict: String,
    /// Every attempt's figure.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub attempts: Option<Vec<f64>>,
    /// The reported figure over the reference.
    pub ratio: Option<f64>,
}

/// The node type's record: how it differs from its baseline's
/// fingerprint (value: how many ways).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NodeTypeParams {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub differences: Option<Vec<FingerprintDifference>>,
}

impl BenchmarkParams for NodeTypeParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::CHECK];
    const METRICS: Metrics = Metrics::Named(&[NODE_TYPE_DIFFERENCES]);
}

/// One way a node differs from a fingerprint of its type.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FingerprintDifference {
    /// What differs: `node 1 memory`, `node 0 CPUs`, `setting smt`.
    pub what: String,
    pub measured: String,
    pub reference: String,
    /// The tolerance in words (`±2%`, `must match`).
    pub tolerance: String,
}

/// A cluster rank's plan record (value: the plan's items): its node's
/// fingerprint and type, the plan, whether the plan is its baseline
/// entry's; then the rank's labels.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CheckPlanParams {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub fingerprint: Option<Fingerprint>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub node_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub plan: Option<CheckPlan>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub plan_from_baseline: Option<bool>,
    #[serde(flatten)]
    pub labels: ClusterLabels,
}

impl BenchmarkParams for CheckPlanParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::CHECK];
    const METRICS: Metrics = Metrics::Named(&[CHECK_PLAN]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::typed::assert_round_trips;
    use serde_json::json;

    /// Written params read back and written again are the same text: an
    /// item's, an outcome's (nulls kept), a cluster item's, the node
    /// type's, a plan's.
    #[test]
    fn written_params_round_trip() {
        let item = json!({"key": "node0.latency_local", "check": "node 0 latency local",
            "node": 0, "cpu_node": 0, "threads": 1, "size_bytes": 67108864});
        assert_round_trips::<CheckItemParams>(item.clone());
        let mut outcome = item.clone();
        outcome.as_object_mut().unwrap().extend(
            json!({"reference": 0.0, "lower": null, "upper": null, "tolerance": "no bound",
                "verdict": "misplaced", "attempts": [1.0], "ratio": null})
            .as_object()
            .unwrap()
            .clone(),
        );
        assert_round_trips::<CheckItemParams>(outcome);
        let mut cluster = item;
        cluster.as_object_mut().unwrap().extend(
            json!({"quantity": "latency", "cache_affected": false, "host": "h0", "rank": 0,
                "unit": "h0", "part": "check", "cluster_key": "node0.latency_local"})
            .as_object()
            .unwrap()
            .clone(),
        );
        assert_round_trips::<CheckItemParams>(cluster);
        assert_round_trips::<NodeTypeParams>(json!({"differences": [{"what": "node 1 memory",
            "measured": "30 GiB", "reference": "32 GiB", "tolerance": "±2%"}]}));
        assert_round_trips::<CheckPlanParams>(json!({"fingerprint": {"cpu_model": "cpu",
                "packages": 1, "numa_nodes": 1, "cpus_per_node": {"node0": 2},
                "memory_per_node_bytes": {"node0": 1024}, "settings": {}},
            "node_type": "cpu, 1 package(s)", "plan": {"items": [], "repeat": 11,
                "latency_samples": 5, "estimated_seconds": 0.0, "budget_seconds": 30.0},
            "plan_from_baseline": false, "host": "h0", "rank": 0, "unit": "h0",
            "part": "check"}));
    }
}
