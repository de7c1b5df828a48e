//! c2c's roles for `numabench compare`: one per CPU relation.

use crate::compare::roles::RoleSet;
use crate::output::Record;
use numabench_schema::params::C2cParams;

/// `core-to-core latency, same-node`, ...
pub(super) fn roles(record: &Record, _set: &RoleSet) -> Vec<String> {
    record
        .params_or_default::<C2cParams>()
        .relation
        .map(|relation| format!("core-to-core latency, {relation}"))
        .into_iter()
        .collect()
}
