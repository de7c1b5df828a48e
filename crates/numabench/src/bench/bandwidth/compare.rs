//! bandwidth's roles for `numabench compare`: kernel, threads and level,
//! with memory where the threads first touch it.

use crate::compare::roles::{bandwidth_metric, level, memory, RoleSet};
use crate::output::Record;

/// `read bandwidth, all threads, DRAM`, ...
pub(super) fn roles(record: &Record, set: &RoleSet) -> Vec<String> {
    (|| {
        let kernel = bandwidth_metric(record)?;
        let level = level(record)?;
        let threads = set.threads.of_machine(record)?;
        (memory(record).is_none_or(|m| m == "first-touch"))
            .then(|| format!("{kernel}, {threads}, {level}"))
    })()
    .into_iter()
    .collect()
}
