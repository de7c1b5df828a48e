//! The counters as record parameters: numastat deltas and perf counts in
//! the shapes `docs/results.md` describes, the same for applications and
//! `numabench run`.

use super::{NodeNumastat, PerfReport};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// numastat deltas as `{"<node>": {counter: pages}}`.
pub fn numastat_json(delta: &BTreeMap<u32, NodeNumastat>) -> Value {
    Value::Object(
        delta
            .iter()
            .map(|(node, counters)| (node.to_string(), json!(counters)))
            .collect(),
    )
}

/// `perf`, `perf_unavailable` and (when not empty) `perf_multiplexed`.
pub fn perf_params(report: &PerfReport) -> Map<String, Value> {
    let mut params = Map::new();
    params.insert("perf".into(), json!(report.counts));
    params.insert("perf_unavailable".into(), json!(report.unavailable));
    if !report.multiplexed.is_empty() {
        params.insert("perf_multiplexed".into(), json!(report.multiplexed));
    }
    params
}
