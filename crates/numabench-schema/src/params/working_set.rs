//! Where a measurement's working set sat: its size and the caches in front
//! of its memory, shared by every benchmark that sizes a buffer (latency,
//! bandwidth, mlp, loaded-latency, contention, scaling, per-cpu, matrix)
//! and flattened into their parameters, so `size_bytes`, `cache_level`
//! and `cache_affected` are one field each for every reader.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A working set's size and the caches in front of it. Like every typed
/// parameter, each field reads as `None` where a record lacks it (files
/// of older versions, records written by hand); the schema requires what
/// numabench always writes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WorkingSetParams {
    /// Working-set size in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub size_bytes: Option<u64>,
    #[serde(flatten)]
    pub cache: CacheParams,
}

/// The caches in front of a working set and the level it falls in (a
/// part of its own: `loaded-latency` writes it after other keys than
/// `size_bytes`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CacheParams {
    /// The caches in front of the memory, bytes (the CPUs' share of every
    /// level, L1 to the last).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub cache_bytes_in_front: Option<u64>,
    /// Whether the caches hold a noticeable part of the working set
    /// (smaller than 4x `cache_bytes_in_front`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub cache_affected: Option<bool>,
    /// The smallest level holding the working set (`L1`, ..., `memory`);
    /// absent in files of versions before it was written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_level: Option<String>,
    /// That level's size in bytes; absent for `memory`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_level_bytes: Option<u64>,
}
