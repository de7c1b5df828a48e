//! scaling's roles for `numabench compare`: one thread or all of a node,
//! local or remote.

use crate::compare::roles::{bandwidth_metric, level, text, RoleSet};
use crate::output::Record;
use numabench_schema::params::key;

/// `scaling: read bandwidth, all threads of a node, DRAM local`, ...
pub(super) fn roles(record: &Record, set: &RoleSet) -> Vec<String> {
    (|| {
        let kernel = bandwidth_metric(record)?;
        let level = level(record)?;
        let threads = set.threads.of_node(record)?;
        let locality = text(record, key::LOCALITY).unwrap_or("local");
        Some(format!("scaling: {kernel}, {threads}, {level} {locality}"))
    })()
    .into_iter()
    .collect()
}
