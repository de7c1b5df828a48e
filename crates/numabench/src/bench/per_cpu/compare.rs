//! per-cpu's roles for `numabench compare`: the median of the CPUs alone.

use crate::compare::roles::{bandwidth_metric, level, RoleSet};
use crate::output::Record;

/// `DRAM latency, CPUs alone (median)`, ...
pub(super) fn roles(record: &Record, _set: &RoleSet) -> Vec<String> {
    (|| {
        let metric = match record.metric.as_str() {
            "latency" => "latency".to_string(),
            _ => bandwidth_metric(record)?,
        };
        let level = level(record)?;
        Some(format!("{level} {metric}, CPUs alone (median)"))
    })()
    .into_iter()
    .collect()
}
