//! Findings about nodes and CPUs: CPU-less nodes, and the node, CPU or
//! node pair slower than its peers beyond the noise.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The metric of [`CpulessNodeParams`].
pub const CPULESS_NODE: &str = "cpuless_node";
/// The metric of [`SlowNodeParams`].
pub const SLOW_NODE: &str = "slow_node";
/// The metric of [`SlowCpuParams`].
pub const SLOW_CPU: &str = "slow_cpu";
/// The metric of [`SlowNodePairParams`].
pub const SLOW_NODE_PAIR: &str = "slow_node_pair";

/// A memory node and the CPU node reading it: a `cpuless_node`'s params
/// (a node with memory and no CPU, read from its nearest CPU node; value:
/// its latency, else bandwidth, over that node's local), and the first
/// of a `slow_node`'s (the same node twice).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CpulessNodeParams {
    /// The memory node (the CPU-less one).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub mem_node: Option<u64>,
    /// The CPU node reading it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub cpu_node: Option<u64>,
}

finding_params!(CpulessNodeParams, CPULESS_NODE);

/// `slow_node`: a node whose own memory is slower than the other nodes'
/// local cells (value: its figure over their median).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SlowNodeParams {
    /// The node, as its memory and its CPUs.
    #[serde(flatten)]
    pub node: CpulessNodeParams,
    /// What is slow, as said (`latency`, `read bandwidth`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub metric: Option<String>,
    /// How much slower than the median, relative.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gap: Option<f64>,
    /// The noise the gap is judged against, relative.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uncertainty: Option<f64>,
    /// The nodes compared.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub nodes_compared: Option<u64>,
}

finding_params!(SlowNodeParams, SLOW_NODE);

/// `slow_cpu`: the slowest CPU of a node against the node's other
/// measured CPUs (value: its figure over their median).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SlowCpuParams {
    /// The CPU.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub cpu: Option<u64>,
    /// Its node.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub cpu_node: Option<u64>,
    /// The per-cpu metric compared (`latency`, `read_bandwidth`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub metric: Option<String>,
    /// The spread of its own repetitions (their coefficient of variation).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spread: Option<f64>,
    /// The median of the node's other measured CPUs, in the metric's unit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peers_median: Option<f64>,
}

finding_params!(SlowCpuParams, SLOW_CPU);

/// `slow_node_pair`: the slowest remote pair of the latency matrix
/// against the measured pairs at its SLIT distance (value: its latency
/// over their median).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SlowNodePairParams {
    /// The pair's CPU node.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub cpu_node: Option<u64>,
    /// Its memory node.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub mem_node: Option<u64>,
    /// The median latency of the pairs compared, ns.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peers_median_ns: Option<f64>,
    /// The pairs compared (its own included).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub pairs_compared: Option<u64>,
}

finding_params!(SlowNodePairParams, SLOW_NODE_PAIR);
