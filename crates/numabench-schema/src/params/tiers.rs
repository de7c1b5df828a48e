//! `tiers advise`'s parameters: each measurement of a weighting (a
//! bandwidth record, `bench/bandwidth`'s params after the sweep's labels),
//! the `advice` per socket, mix and thread count, and the `weights_check`
//! of the weights measured bandwidth suggests.

use super::{BandwidthParams, BenchmarkParams, Metrics};
use crate::benchmark;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The metric of an advice record.
pub const TIERS_ADVICE_SUFFIX: &str = "advice";
/// The metric of a weights check.
pub const TIERS_WEIGHTS_CHECK_SUFFIX: &str = "weights_check";

/// Interleave weights by node (`{"0": 3, "2": 1}`).
pub type NodeWeights = BTreeMap<String, u32>;

/// The params of one measurement (`<kernel>_bandwidth`): the sweep's
/// labels, then the bandwidth's. Each field reads as `None` where a
/// record lacks it; the schema requires what numabench always writes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TiersParams {
    #[serde(flatten)]
    pub labels: TiersLabels,
    #[serde(flatten)]
    pub bandwidth: BandwidthParams,
}

/// A socket: the node whose CPUs ran the threads, its DRAM and its tier.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TierSocketParams {
    /// The node whose CPUs ran the threads.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub socket: Option<u32>,
    /// Its DRAM node(s).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub dram_nodes: Option<Vec<u32>>,
    /// The tier's node(s).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub tier_nodes: Option<Vec<u32>>,
}

/// A measurement's labels, written before the bandwidth's params.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TiersLabels {
    #[serde(flatten)]
    pub socket: TierSocketParams,
    /// The weighting measured (`3:1`, `kernel`, `check 0=3,2=1`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub weights: Option<String>,
    /// The round.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub round: Option<u64>,
    /// `sweep` or `check`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub phase: Option<String>,
}

impl BenchmarkParams for TiersParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::TIERS];
}

/// The best weighting against another: the other's median, the gain of
/// the best's, the rank test's p-value and whether the best won every
/// round.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TiersComparison {
    /// The other weighting's median, GB/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub gbs: Option<f64>,
    /// The best's median over it, minus one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gain: Option<f64>,
    /// Mann-Whitney p.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p: Option<f64>,
    /// Whether the best won every round both were measured in.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub every_round: Option<bool>,
}

/// The kernel's `auto` weights of a socket's nodes and where they came
/// from, when known.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AutoWeights {
    /// The weights, by node.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub auto_weights: Option<NodeWeights>,
    /// Where they came from, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub auto_source: Option<String>,
}

/// The params of an `advice` record: the fastest ratio of a socket, mix
/// and thread count, against DRAM only, 1:1 and the kernel's weights.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TiersAdviceParams {
    #[serde(flatten)]
    pub socket: TierSocketParams,
    /// How the tier was found, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub tier_source: Option<String>,
    /// The mix (kernel).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub kernel: Option<String>,
    /// Threads that read.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub threads: Option<u64>,
    /// Each thread's working set, bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub size_bytes: Option<u64>,
    /// Rounds measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub rounds: Option<u64>,
    /// The fastest ratio (`3:1`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub best_weights: Option<String>,
    /// Its memory policy, as `run --policy` takes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub best_policy: Option<String>,
    /// Against all memory on DRAM (`1:0`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vs_dram_only: Option<TiersComparison>,
    /// Against 1:1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vs_interleave: Option<TiersComparison>,
    /// Against the kernel's weights.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vs_kernel_weights: Option<TiersComparison>,
    /// The kernel's weights of the socket's nodes, where set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel_weights: Option<NodeWeights>,
    #[serde(flatten)]
    pub auto: AutoWeights,
    /// The weights measured bandwidth suggests (`read`, all threads).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured_weights: Option<NodeWeights>,
    /// The lines that apply them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub apply: Option<Vec<String>>,
}

impl BenchmarkParams for TiersAdviceParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::TIERS];
    const METRICS: Metrics = Metrics::EndingWith(TIERS_ADVICE_SUFFIX);
}

/// The params of a `weights_check` record: the suggested weights
/// measured against the kernel's (and its `auto` weights).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TiersWeightsCheckParams {
    /// The node whose CPUs ran the threads.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub socket: Option<u32>,
    /// The mix (`read`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub kernel: Option<String>,
    /// Threads that read (all the socket's).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub threads: Option<u64>,
    /// The weights measured bandwidth suggests.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub measured_weights: Option<NodeWeights>,
    /// The kernel's weights of the socket's nodes, where set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel_weights: Option<NodeWeights>,
    /// Against the kernel's weights.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vs_kernel_weights: Option<TiersComparison>,
    #[serde(flatten)]
    pub auto: AutoWeights,
    /// Against the kernel's `auto` weights.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vs_auto_weights: Option<TiersComparison>,
}

impl BenchmarkParams for TiersWeightsCheckParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::TIERS];
    const METRICS: Metrics = Metrics::EndingWith(TIERS_WEIGHTS_CHECK_SUFFIX);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::typed::assert_round_trips as round_trips;
    use serde_json::json;

    /// Each kind's written params read back and written again are the
    /// same text.
    #[test]
    fn every_kind_round_trips() {
        let compared = json!({"gbs": 10.0, "gain": 0.25, "p": 0.01, "every_round": true});
        round_trips::<TiersParams>(json!({"socket": 0, "dram_nodes": [0], "tier_nodes": [2],
            "weights": "3:1", "round": 1, "phase": "sweep", "kernel": "read", "threads": 2,
            "size_bytes": 65536, "cache_bytes_in_front": 1024, "cache_affected": false,
            "cache_level": "memory", "simd": "avx2", "simd_chosen_by": "calibration",
            "simd_calibration": null, "hugepages": false, "bytes_per_element": 8,
            "per_thread_gbs": [10.5, 11.0], "convergence": {"repetitions": 3, "max_repetitions": 5, "ci95_rel": null, "ci95_target_rel": 0.01, "stopped_by": "maximum"}}));
        round_trips::<TiersAdviceParams>(json!({"socket": 0, "dram_nodes": [0],
            "tier_nodes": [2], "tier_source": "given", "kernel": "read", "threads": 2,
            "size_bytes": 65536, "rounds": 3, "best_weights": "3:1",
            "best_policy": "weighted:0=3,2=1", "vs_dram_only": compared,
            "vs_interleave": compared, "vs_kernel_weights": compared,
            "kernel_weights": {"0": 1, "2": 1}, "auto_weights": {"0": 2, "2": 1},
            "auto_source": "sysfs", "measured_weights": {"0": 3, "2": 1},
            "apply": ["echo 3"]}));
        round_trips::<TiersWeightsCheckParams>(json!({"socket": 0, "kernel": "read",
            "threads": 2, "measured_weights": {"0": 3, "2": 1}, "kernel_weights": {"0": 1, "2": 1},
            "vs_kernel_weights": compared, "auto_weights": {"0": 2, "2": 1},
            "auto_source": "sysfs", "vs_auto_weights": compared}));
    }
}
