//! Bandwidth findings: local against remote read bandwidth, where
//! bandwidth saturates, and what a serial initialisation costs.

use super::Span;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The metric of [`MemoryBandwidthParams`].
pub const MEMORY_BANDWIDTH: &str = "memory_bandwidth";
/// The metric of [`BandwidthSaturationParams`].
pub const BANDWIDTH_SATURATION: &str = "bandwidth_saturation";
/// The metric of [`SerialInitParams`].
pub const SERIAL_INIT: &str = "serial_init";

/// `memory_bandwidth`: read bandwidth of one thread, local and remote,
/// and of all the threads of a node where scaling measured them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MemoryBandwidthParams {
    /// One thread's local cells' span, GB/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub one_thread_local_gbs: Option<Span>,
    /// One thread's remote cells' span, GB/s; absent on one node.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub one_thread_remote_gbs: Option<Span>,
    /// The span of each remote cell over its own row's local cell (the
    /// ratios the text and the advice quote); absent on one node.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub one_thread_remote_ratio: Option<Span>,
    /// The threads of a node the all-threads figures read with; absent
    /// without a scaling curve of more than one thread.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub all_threads: Option<u64>,
    /// Their local figures' span, GB/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub all_threads_local_gbs: Option<Span>,
}

finding_params!(MemoryBandwidthParams, MEMORY_BANDWIDTH);

/// `bandwidth_saturation`: one scaling curve (value: the fewest threads
/// reaching 90% of its peak).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BandwidthSaturationParams {
    /// The curve's kernel (`read`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub kernel: Option<String>,
    /// The node of its threads.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub cpu_node: Option<u64>,
    /// The node of its memory.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub mem_node: Option<u64>,
    /// The most threads measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub threads_measured: Option<u64>,
    /// Every thread count measured, smallest first (the advice quotes
    /// them); an older numabench did not write it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counts_measured: Option<Vec<u64>>,
    /// The curve's peak, GB/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub peak_gbs: Option<f64>,
    /// One thread's share of the peak; absent where one thread was not
    /// measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub one_thread_share: Option<f64>,
}

finding_params!(BandwidthSaturationParams, BANDWIDTH_SATURATION);

/// `serial_init`: every thread reading one node's memory against each
/// reading its own node's (value: local over contended).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SerialInitParams {
    /// Every thread reading one node's memory, GB/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub contended_gbs: Option<f64>,
    /// Each thread reading its own node's memory, GB/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub local_gbs: Option<f64>,
    /// The threads that read (0 where the record did not say).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub threads: Option<u64>,
    /// The ratio's 95% interval, relative, from the two figures'
    /// repetitions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ci95_rel: Option<f64>,
}

finding_params!(SerialInitParams, SERIAL_INIT);
