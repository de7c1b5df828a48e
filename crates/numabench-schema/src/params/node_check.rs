//! What a node health check (`check`, and `cluster`'s check part) plans
//! and compares: the node's fingerprint (its type, and what must not change
//! on a healthy node of that type) and the check's plan (its items, their
//! sizes, the repetitions and the estimate). A cluster rank's plan record
//! carries both ([`super::CheckPlanParams`]); a baseline file keys each
//! entry by its fingerprint and keeps its plan. The library (`check`)
//! builds them from the topology and `doctor`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A node's fingerprint.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Fingerprint {
    /// `/proc/cpuinfo`'s first model name.
    pub cpu_model: String,
    pub packages: usize,
    pub numa_nodes: usize,
    /// CPUs of each NUMA node, keyed `node0`, `node1`, ...
    pub cpus_per_node: BTreeMap<String, usize>,
    /// Memory of each NUMA node, bytes.
    pub memory_per_node_bytes: BTreeMap<String, u64>,
    /// `doctor` check → `severity: found`, for the node's settings.
    pub settings: BTreeMap<String, String>,
}

impl Fingerprint {
    /// True when `other` is a node of the same type: the same CPU model,
    /// packages and NUMA nodes. Only such a baseline applies.
    pub fn same_type(&self, other: &Fingerprint) -> bool {
        self.cpu_model == other.cpu_model
            && self.packages == other.packages
            && self.numa_nodes == other.numa_nodes
    }

    /// The node type in words, for "no baseline for this node type".
    pub fn node_type(&self) -> String {
        format!(
            "{}, {} package(s), {} NUMA node(s)",
            self.cpu_model, self.packages, self.numa_nodes
        )
    }
}

/// What one check item measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CheckQuantity {
    /// Read bandwidth of every CPU given (GB/s, fastest repetition).
    ReadBandwidth,
    /// STREAM triad bandwidth of every CPU given (GB/s, fastest repetition).
    TriadBandwidth,
    /// Idle load-to-use latency from the first CPU given (ns, fastest sample).
    Latency,
}

impl CheckQuantity {
    /// True for bandwidths (higher is better), false for latency.
    pub fn higher_is_better(self) -> bool {
        !matches!(self, CheckQuantity::Latency)
    }

    /// The unit its figures are in.
    pub fn unit(self) -> &'static str {
        if self.higher_is_better() {
            "GB/s"
        } else {
            "ns"
        }
    }
}

/// One measurement of the check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CheckItem {
    /// The metric's key in baselines and records: `node1.triad_bandwidth`,
    /// `node0.latency_local`, `node0.latency_to_node3`.
    pub key: String,
    pub quantity: CheckQuantity,
    /// The node whose CPUs measure.
    pub cpu_node: u32,
    /// The node whose memory is measured.
    pub memory_node: u32,
    /// The measuring CPUs (all of `cpu_node`'s usable CPUs for a
    /// bandwidth, its first for a latency).
    pub cpus: Vec<u32>,
    /// Working set, bytes.
    pub size: u64,
    /// The working set is under twice the caches in front of the memory
    /// (a memory-side cache too large for the budget): the figure is
    /// partly that cache's.
    #[serde(default)]
    pub cache_affected: bool,
}

impl CheckItem {
    /// The item in words, as the problem lines name it.
    pub fn label(&self) -> String {
        let what = match self.quantity {
            CheckQuantity::ReadBandwidth => "read bandwidth",
            CheckQuantity::TriadBandwidth => "triad bandwidth",
            CheckQuantity::Latency => "latency",
        };
        match self.quantity {
            CheckQuantity::Latency if self.cpu_node == self.memory_node => {
                format!("node {} latency local", self.cpu_node)
            }
            CheckQuantity::Latency => format!(
                "node {} latency to node {}",
                self.cpu_node, self.memory_node
            ),
            _ if self.cpu_node == self.memory_node => format!("node {} {what}", self.memory_node),
            _ => format!(
                "node {} {what} from node {}'s CPUs",
                self.memory_node, self.cpu_node
            ),
        }
    }
}

/// The check's plan: every item, the repetitions, the estimate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CheckPlan {
    pub items: Vec<CheckItem>,
    /// Timed repetitions per bandwidth item.
    pub repeat: usize,
    /// Samples per latency item.
    pub latency_samples: usize,
    /// Estimated seconds at assumed rates.
    pub estimated_seconds: f64,
    /// The budget the sizes were fitted to, seconds.
    pub budget_seconds: f64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_plan_and_a_fingerprint_read_back_as_written() {
        let plan = json!({"items": [{"key": "node1.latency_to_node0", "quantity": "latency",
            "cpu_node": 1, "memory_node": 0, "cpus": [4], "size": 67108864,
            "cache_affected": false}],
            "repeat": 11, "latency_samples": 5, "estimated_seconds": 1.5, "budget_seconds": 30.0});
        let read: CheckPlan = serde_json::from_value(plan.clone()).unwrap();
        assert_eq!(read.items[0].label(), "node 1 latency to node 0");
        assert!(!read.items[0].quantity.higher_is_better());
        assert_eq!(serde_json::to_value(&read).unwrap(), plan);
        let fingerprint = json!({"cpu_model": "Xeon", "packages": 2, "numa_nodes": 2,
            "cpus_per_node": {"node0": 4, "node1": 4},
            "memory_per_node_bytes": {"node0": 1073741824u64, "node1": 1073741824u64},
            "settings": {"thp": "ok: always"}});
        let read: Fingerprint = serde_json::from_value(fingerprint.clone()).unwrap();
        assert_eq!(read.node_type(), "Xeon, 2 package(s), 2 NUMA node(s)");
        assert_eq!(serde_json::to_value(&read).unwrap(), fingerprint);
    }

    #[test]
    fn an_unknown_quantity_is_refused_by_name() {
        let error = serde_json::from_value::<CheckQuantity>(json!("write_bandwidth")).unwrap_err();
        assert!(error.to_string().contains("write_bandwidth"), "{error}");
    }
}
