//! The node matrices' roles for `numabench compare`: a cell as local or
//! remote by distance rank.

use crate::bench::latency::latency_metric;
use crate::compare::roles::{bandwidth_metric, level, RoleSet};
use crate::output::Record;

/// One role per distance rank of the cell, worded by `role`; none without
/// a `role`.
fn per_rank(record: &Record, set: &RoleSet, role: Option<impl Fn(&str) -> String>) -> Vec<String> {
    let Some(role) = role else {
        return Vec::new();
    };
    set.distances.ranks(record).into_iter().map(role).collect()
}

/// `DRAM latency local`, `DRAM latency remote (farthest), cycles`, ...
pub(super) fn latency_roles(record: &Record, set: &RoleSet) -> Vec<String> {
    let role = latency_metric(&record.metric)
        .zip(level(record))
        .map(|(metric, level)| move |rank: &str| format!("{level} latency {rank}{metric}"));
    per_rank(record, set, role)
}

/// `read bandwidth, 1 thread, DRAM remote (nearest)`, ...
pub(super) fn bandwidth_roles(record: &Record, set: &RoleSet) -> Vec<String> {
    let role = match (
        bandwidth_metric(record),
        level(record),
        set.threads.of_node(record),
    ) {
        (Some(kernel), Some(level), Some(threads)) => {
            Some(move |rank: &str| format!("{kernel}, {threads}, {level} {rank}"))
        }
        _ => None,
    };
    per_rank(record, set, role)
}
