//! `cache`'s parameters: one line state (modified, exclusive, shared,
//! ...) set up by an owner CPU in one cache level, then read by a
//! measuring CPU (`latency` and `read_bandwidth` records alike).

use super::{BenchmarkParams, ChaseOrderParams};
use crate::benchmark;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The params of a `cache` record. Each field reads as `None` where a
/// record lacks it; the schema requires what numabench always writes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CacheStateParams {
    /// The CPU that wrote the lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub owner_cpu: Option<u32>,
    /// The CPU that read them, timed.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub measurer_cpu: Option<u32>,
    /// The CPU that read them too (a shared state); null for the others.
    pub sharer_cpu: Option<u32>,
    /// Why that sharer was chosen, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sharer_reason: Option<String>,
    /// The lines' state (`modified`, `exclusive`, `shared`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub state: Option<String>,
    /// The cache level the working set was sized for (`L1`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub level: Option<String>,
    /// How the measurer relates to the owner (`same-core`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub relation: Option<String>,
    /// The firmware's distance between their nodes; null where unknown.
    pub distance: Option<u64>,
    /// The working set, bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub size_bytes: Option<u64>,
    #[serde(flatten)]
    pub chase: ChaseOrderParams,
    /// That level's size, bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub cache_bytes: Option<u64>,
    /// The CPU the owner ran on (sched_getcpu).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub owner_cpu_seen: Option<u32>,
    /// The CPU the measurer ran on (sched_getcpu).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub measurer_cpu_seen: Option<u32>,
    /// The CPU the sharer ran on; null without one.
    pub sharer_cpu_seen: Option<u32>,
}

impl BenchmarkParams for CacheStateParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::CACHE];
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::to_params;
    use serde_json::{json, Value};

    /// Written params read back and written again are the same text,
    /// nulls kept.
    #[test]
    fn written_params_round_trip() {
        for (sharer, reason) in [
            (json!(2), json!({"sharer_reason": "same core"})),
            (json!(null), json!({})),
        ] {
            let mut params = json!({"owner_cpu": 0, "measurer_cpu": 1, "sharer_cpu": sharer});
            let tail = json!({"state": "shared", "level": "L2", "relation": "same-node",
                "distance": null, "size_bytes": 65536, "order": "tlb-block",
                "order_measures": "m", "block_bytes": 4096, "block_source": "s",
                "cache_bytes": 1048576, "owner_cpu_seen": 0, "measurer_cpu_seen": 1,
                "sharer_cpu_seen": sharer});
            let map = params.as_object_mut().unwrap();
            map.extend(reason.as_object().unwrap().clone());
            map.extend(tail.as_object().unwrap().clone());
            let typed: CacheStateParams = serde_json::from_value(params.clone()).unwrap();
            assert_eq!(
                Value::Object(to_params(&typed)).to_string(),
                params.to_string()
            );
        }
    }
}
