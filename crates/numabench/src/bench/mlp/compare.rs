//! mlp's roles for `numabench compare`: none (its figures have no role
//! that holds across machines).

use crate::compare::roles::RoleSet;
use crate::output::Record;

/// No role.
pub(super) fn roles(_record: &Record, _set: &RoleSet) -> Vec<String> {
    Vec::new()
}
