//! c2c's roles for `numabench compare`: one per CPU relation.

use crate::compare::roles::{text, RoleSet};
use crate::output::Record;
use numabench_schema::params::key;

/// `core-to-core latency, same-node`, ...
pub(super) fn roles(record: &Record, _set: &RoleSet) -> Vec<String> {
    text(record, key::RELATION)
        .map(|relation| format!("core-to-core latency, {relation}"))
        .into_iter()
        .collect()
}
