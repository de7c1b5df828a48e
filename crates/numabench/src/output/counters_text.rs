//! The table's one-item summary of what a run's threads and the kernel
//! counted ([`crate::counters`]): the params they fill are left out of the
//! row (JSON, JSON Lines and CSV keep them) and one `observed=` item takes
//! their place: the threads' total user and system time, TLP_1, the
//! increase of numastat's other_node over all nodes, and the page faults.

use crate::units::format_value;
use serde_json::{Map, Value};

/// Params the row leaves out; [`observed`] summarises them.
pub const SUMMARISED: &[&str] = &[
    "threads_usage",
    "other_threads_usage",
    "threads_usage_resolution_seconds",
    "tlp",
    "numastat_delta",
    "numastat_scope",
    "perf",
    "perf_per_worker",
    "perf_unavailable",
    "perf_multiplexed",
];

/// `usr 0.280 sys 0.400 s TLP_1 1.00 other_node +0 faults 769` (threads'
/// total user and system seconds first)
/// (each part only when its param is there); `None` without `threads_usage`.
pub fn observed(params: &Map<String, Value>) -> Option<String> {
    let threads = params.get("threads_usage")?.as_array()?;
    let total = |key: &str| -> f64 {
        threads
            .iter()
            .filter_map(|thread| thread.get(key)?.as_f64())
            .sum()
    };
    let mut parts = vec![format!(
        "usr {} sys {} s",
        format_value(total("user_seconds")),
        format_value(total("system_seconds"))
    )];
    if let Some(tlp) = params.get("tlp").and_then(|tlp| tlp.get("tlp_1")?.as_f64()) {
        parts.push(format!("TLP_1 {}", format_value(tlp)));
    }
    if let Some(nodes) = params.get("numastat_delta").and_then(Value::as_object) {
        let other: u64 = nodes
            .values()
            .filter_map(|counters| counters.get("other_node")?.as_u64())
            .sum();
        parts.push(format!("other_node +{other}"));
    }
    if let Some(faults) = params
        .get("perf")
        .and_then(|perf| perf.get("page-faults")?.as_u64())
    {
        parts.push(format!("faults {faults}"));
    }
    Some(parts.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_counters_become_one_short_item() {
        let params = json!({
            "threads_usage": [
                {"worker": 0, "user_seconds": 0.5, "system_seconds": 0.25},
                {"worker": 1, "user_seconds": 0.25, "system_seconds": 0.0}
            ],
            "tlp": {"tlp_1": 1.0, "tlp_2": 0.5, "tlp_3": 0.0, "tlp_4": 0.0, "samples": 10, "cores": 2},
            "numastat_delta": {"0": {"other_node": 6, "numa_miss": 0}, "1": {"other_node": 1034}},
            "perf": {"page-faults": 769, "context-switches": 3}
        });
        assert_eq!(
            observed(params.as_object().unwrap()).unwrap(),
            "usr 0.750 sys 0.250 s TLP_1 1.00 other_node +1040 faults 769"
        );
        assert_eq!(observed(json!({"tlp": null}).as_object().unwrap()), None);
    }
}
