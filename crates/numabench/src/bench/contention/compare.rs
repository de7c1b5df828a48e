//! contention's roles for `numabench compare`: one per metric.

use crate::compare::roles::RoleSet;
use crate::output::Record;

/// `contention: one node bandwidth`, ...
pub(super) fn roles(record: &Record, _set: &RoleSet) -> Vec<String> {
    vec![format!("contention: {}", record.metric.replace('_', " "))]
}
