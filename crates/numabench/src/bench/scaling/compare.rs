//! scaling's roles for `numabench compare`: one thread or all of a node,
//! local or remote.

use crate::compare::roles::{bandwidth_metric, level, RoleSet};
use crate::output::Record;
use numabench_schema::params::ScalingParams;

/// `scaling: read bandwidth, all threads of a node, DRAM local`, ...
pub(super) fn roles(record: &Record, set: &RoleSet) -> Vec<String> {
    (|| {
        let kernel = bandwidth_metric(record)?;
        let level = level(record)?;
        let threads = set.threads.of_node(record)?;
        let locality = record
            .params_or_default::<ScalingParams>()
            .labels
            .locality
            .unwrap_or_else(|| "local".into());
        Some(format!("scaling: {kernel}, {threads}, {level} {locality}"))
    })()
    .into_iter()
    .collect()
}
