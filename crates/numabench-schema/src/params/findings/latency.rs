//! Latency findings: the idle latency of each cache level and of memory,
//! and memory latency local against remote.

use super::Span;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The metric of [`IdleLatencyParams`].
pub const IDLE_LATENCY: &str = "idle_latency";
/// The metric of [`MemoryLatencyParams`].
pub const MEMORY_LATENCY: &str = "memory_latency";

/// `idle_latency`: each level's figure in one CPU's latency sweep.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct IdleLatencyParams {
    /// The CPU whose sweep it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub cpu: Option<u64>,
    /// Per level, smallest first, named as its `cache_level` in snake
    /// case (`l1`, `memory_side_cache`, `memory`): `<level>_ns`, the
    /// latency of the size standing for it, ns, and `<level>_size_bytes`,
    /// that size. Read back, it holds every key the other fields do not
    /// (the record's `sentence` too).
    #[serde(flatten)]
    pub levels: Map<String, Value>,
    /// The CPU cache levels whose latency measured as memory's (their
    /// declared size is not the hardware's); absent when none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured_as_memory: Option<Vec<String>>,
}

finding_params!(IdleLatencyParams, IDLE_LATENCY);

/// `memory_latency`: local against remote over the latency matrix's
/// node pairs (value: the worst remote latency over its row's local).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MemoryLatencyParams {
    /// The local cells' span, ns.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub local_ns: Option<Span>,
    /// The remote cells' span, ns.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub remote_ns: Option<Span>,
    /// The CPU node of the worst remote cell (over its own local one).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub worst_cpu_node: Option<u64>,
    /// Its memory node.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub worst_mem_node: Option<u64>,
    /// What the value is (`worst remote latency over local`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub value_is: Option<String>,
    /// The worst ratio's 95% interval, relative, from its two cells'
    /// repetitions (the advice rests on a ratio beyond it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ci95_rel: Option<f64>,
}

finding_params!(MemoryLatencyParams, MEMORY_LATENCY);
