//! Which topology a command works on: `--topology FILE` or this machine,
//! and the exit status of what goes wrong (a file that does not load, or
//! another machine's topology for a measurement: status 2).

use crate::exit::CliError;
use numabench::topology::{check_measurable, discover, Machine, Purpose, TopologyError};
use std::path::Path;

/// The topology for `purpose`: the hwloc XML `file` when given, else this
/// machine's (see [`numabench::topology::discover`]).
pub fn topology_for(file: Option<&Path>, purpose: Purpose) -> Result<Machine, CliError> {
    discover(file, purpose).map_err(|error| topology_error(error, file))
}

/// Refuses a measurement on another machine's topology before anything is
/// read: a `--topology` file, or HWLOC_XMLFILE / HWLOC_SYNTHETIC set.
pub fn refuse_unless_this_machine(file: Option<&Path>) -> Result<(), CliError> {
    check_measurable(file).map_err(|error| topology_error(error, file))
}

/// Your mistakes (a file, a flag, a variable) are status 2, hwloc failing on
/// this machine status 3 ([`TopologyError`]'s fault); another machine's
/// topology given with `--topology` says what the flag is for.
fn topology_error(error: TopologyError, file: Option<&Path>) -> CliError {
    match error {
        TopologyError::OtherMachine { .. } if file.is_some() => CliError::usage(format!(
            "{error} (--topology is for topo, doctor, list and --plan)"
        )),
        error => error.into(),
    }
}
