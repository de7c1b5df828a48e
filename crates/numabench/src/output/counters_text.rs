//! Table summaries of what a run's threads and the kernel counted
//! ([`crate::counters`]): `threads_usage` as the threads' total user and
//! system time, `tlp` as TLP_1..TLP_4, `numastat_delta` as each node's
//! other_node and numa_miss increase, `perf_unavailable` as the events'
//! names (the reasons are in the JSON).

use crate::units::format_value;
use serde_json::Value;

/// `N threads: user U s, system S s`.
pub fn threads_usage(value: &Value) -> Option<String> {
    let threads = value.as_array()?;
    let total =
        |key: &str| -> Option<f64> { threads.iter().map(|thread| thread.get(key)?.as_f64()).sum() };
    Some(format!(
        "{} threads: user {} s, system {} s",
        threads.len(),
        format_value(total("user_seconds")?),
        format_value(total("system_seconds")?)
    ))
}

/// `1:0.98,2:0.10,3:0,4:0`.
pub fn tlp(value: &Value) -> Option<String> {
    let levels: Vec<String> = (1..=4)
        .map(|n| {
            Some(format!(
                "{n}:{}",
                format_value(value.get(format!("tlp_{n}"))?.as_f64()?)
            ))
        })
        .collect::<Option<_>>()?;
    Some(levels.join(","))
}

/// `other_node 0:+0,1:+1034 numa_miss 0:+0,1:+0`.
pub fn numastat_delta(value: &Value) -> Option<String> {
    let nodes = value.as_object()?;
    let counter = |name: &str| -> Option<String> {
        let per_node: Vec<String> = nodes
            .iter()
            .map(|(node, counters)| Some(format!("{node}:+{}", counters.get(name)?.as_u64()?)))
            .collect::<Option<_>>()?;
        Some(format!("{name} {}", per_node.join(",")))
    };
    Some(format!(
        "{} {}",
        counter("other_node")?,
        counter("numa_miss")?
    ))
}

/// `cycles,instructions (reasons in JSON)`, or `none`.
pub fn perf_unavailable(value: &Value) -> Option<String> {
    let events = value.as_object()?;
    Some(match events.is_empty() {
        true => "none".to_string(),
        false => format!(
            "{} (reasons in JSON)",
            events.keys().cloned().collect::<Vec<_>>().join(",")
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn counters_are_summarised_for_the_table() {
        let usage = json!([
            {"worker": 0, "user_seconds": 0.5, "system_seconds": 0.25},
            {"worker": 1, "user_seconds": 0.25, "system_seconds": 0.0}
        ]);
        assert_eq!(
            threads_usage(&usage).unwrap(),
            "2 threads: user 0.750 s, system 0.250 s"
        );
        let levels = json!({"tlp_1": 1.0, "tlp_2": 0.5, "tlp_3": 0.0, "tlp_4": 0.0, "samples": 10, "cores": 2});
        assert_eq!(tlp(&levels).unwrap(), "1:1.00,2:0.500,3:0,4:0");
        let delta = json!({"0": {"other_node": 0, "numa_miss": 0}, "1": {"other_node": 1034, "numa_miss": 2}});
        assert_eq!(
            numastat_delta(&delta).unwrap(),
            "other_node 0:+0,1:+1034 numa_miss 0:+0,1:+2"
        );
        assert_eq!(perf_unavailable(&json!({})).unwrap(), "none");
        assert_eq!(
            perf_unavailable(&json!({"cycles": "no PMU", "instructions": "no PMU"})).unwrap(),
            "cycles,instructions (reasons in JSON)"
        );
    }
}
