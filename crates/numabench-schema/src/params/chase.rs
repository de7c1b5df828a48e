//! How a pointer chase walked its buffer, shared by the benchmarks that
//! chase (latency, per-cpu, matrix-latency, mlp, loaded-latency).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The chase order, what it measures and the block it was random within.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ChaseOrderParams {
    /// The order's name (`tlb-block`, `random`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub order: Option<String>,
    /// What that order measures, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub order_measures: Option<String>,
    /// The block the chase was random within, bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub block_bytes: Option<u64>,
    /// Where that block size came from, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub block_source: Option<String>,
}
