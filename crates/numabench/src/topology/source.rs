//! Which machine a topology describes, and which topology a command gets.
//!
//! numabench describes any machine hwloc can load (an hwloc XML file, e.g.
//! from `lstopo --of xml` on a server), but measures only the one it runs
//! on: a measurement pins threads by CPU numbers and binds memory by node
//! numbers, which mean other CPUs and nodes (or none) here. hwloc itself
//! loads another topology instead of this machine's when `HWLOC_XMLFILE` or
//! `HWLOC_SYNTHETIC` is set: describing honours them (labelled as not this
//! machine), measuring refuses them.

use super::discover::{discover_this_system, keep_memory_side_caches, report_with, TopologyError};
use super::machine::Machine;
use hwlocality::topology::builder::BuildFlags;
use hwlocality::Topology;
use std::fs;
use std::path::Path;

/// The `source` of a topology that hwloc built from something other than
/// this machine, when numabench does not know from what (e.g. `HWLOC_FSROOT`).
pub(crate) const OTHER_MACHINE: &str = "hwloc's input";

/// hwloc builds this synthetic description instead of this machine.
const SYNTHETIC_VARIABLE: &str = "HWLOC_SYNTHETIC";
/// hwloc loads this XML file instead of this machine.
const XML_VARIABLE: &str = "HWLOC_XMLFILE";

/// What a command needs the topology for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// Describing it (`topo`, `doctor`, `list`, and later plans): any
    /// machine's topology will do.
    Describe,
    /// Measuring on it: it must be this machine's.
    Measure,
}

/// The topology a command works on: the hwloc XML `file` when given, else
/// this machine's. To measure, anything but this machine is refused: a
/// file, `HWLOC_XMLFILE` or `HWLOC_SYNTHETIC` in the environment, or
/// anything else that leads hwloc away from this machine. To describe,
/// those variables are honoured as hwloc honours them (the synthetic
/// description first), and the report says it is not this machine.
pub fn discover(file: Option<&Path>, purpose: Purpose) -> Result<Machine, TopologyError> {
    match (purpose, file, foreign_topology_variable()) {
        (Purpose::Measure, _, _) => {
            check_measurable(file)?;
            let report = discover_this_system()?;
            if report.this_system {
                Ok(report)
            } else {
                Err(TopologyError::OtherMachine {
                    origin: report.source,
                })
            }
        }
        (Purpose::Describe, Some(path), _) => discover_from_xml(path),
        (Purpose::Describe, None, Some((variable, value))) => from_environment(variable, &value),
        (Purpose::Describe, None, None) => discover_this_system(),
    }
}

/// Refuses, before hwloc is asked anything, what a measurement may not run
/// on: a topology file, or an hwloc variable that would replace this
/// machine's topology.
pub fn check_measurable(file: Option<&Path>) -> Result<(), TopologyError> {
    if let Some(path) = file {
        return Err(TopologyError::OtherMachine {
            origin: format!("topology file '{}'", path.display()),
        });
    }
    match foreign_topology_variable() {
        Some((variable, value)) => Err(TopologyError::ForeignEnvironment { variable, value }),
        None => Ok(()),
    }
}

/// The hwloc environment variable that makes hwloc load another topology
/// instead of this machine's, and its value; the first in the order hwloc
/// honours them. An empty value counts as unset (hwloc then falls back to
/// this machine).
pub fn foreign_topology_variable() -> Option<(&'static str, String)> {
    [SYNTHETIC_VARIABLE, XML_VARIABLE]
        .into_iter()
        .find_map(|variable| {
            let value = std::env::var_os(variable)?;
            (!value.is_empty()).then(|| (variable, value.to_string_lossy().into_owned()))
        })
}

/// The topology in an hwloc XML file, as another machine's: nothing is
/// asked of this kernel, and `source` is the path. A file that cannot be
/// loaded is named with the reason: missing, unreadable, not a regular
/// file, not XML, or XML hwloc rejects.
pub fn discover_from_xml(path: &Path) -> Result<Machine, TopologyError> {
    let fail = |reason: String| TopologyError::Load {
        what: format!("topology file '{}'", path.display()),
        reason,
    };
    let metadata = fs::metadata(path).map_err(|error| fail(io_reason(&error)))?;
    if metadata.is_dir() {
        return Err(fail("it is a directory".into()));
    }
    if !metadata.is_file() {
        return Err(fail("not a regular file".into()));
    }
    let bytes = fs::read(path).map_err(|error| fail(io_reason(&error)))?;
    let text = String::from_utf8(bytes).map_err(|_| fail("not an XML file (not text)".into()))?;
    if !text
        .trim_start_matches('\u{feff}')
        .trim_start()
        .starts_with('<')
    {
        return Err(fail("not an XML file".into()));
    }
    // hwloc takes the text as it is and parses it when building; either
    // step failing means the same, and hwloc's errno says nothing more.
    let rejected = || fail("hwloc rejects it: not an hwloc XML topology, or a damaged one".into());
    let topology = keep_memory_side_caches(Topology::builder())
        .map_err(|error| fail(error.to_string()))?
        .with_flags(BuildFlags::INCLUDE_DISALLOWED)
        .map_err(|error| fail(error.to_string()))?
        .from_xml(&text)
        .map_err(|_| rejected())?
        .build()
        .map_err(|_| rejected())?;
    let mut report = report_with(&topology, false);
    report.source = path.display().to_string();
    Ok(report)
}

/// The topology an hwloc environment variable names, labelled with it.
fn from_environment(variable: &'static str, value: &str) -> Result<Machine, TopologyError> {
    let mut report = if variable == SYNTHETIC_VARIABLE {
        let fail = |reason: String| TopologyError::Load {
            what: format!("synthetic topology '{value}' ({variable})"),
            reason,
        };
        let topology = keep_memory_side_caches(Topology::builder())
            .map_err(|error| fail(error.to_string()))?
            .from_synthetic(value)
            .map_err(|error| fail(error.to_string()))?
            .build()
            .map_err(|error| fail(error.to_string()))?;
        report_with(&topology, false)
    } else {
        discover_from_xml(Path::new(value)).map_err(|error| match error {
            TopologyError::Load { what, reason } => TopologyError::Load {
                what: format!("{what} ({variable})"),
                reason,
            },
            other => other,
        })?
    };
    report.source = format!("{value} ({variable})");
    Ok(report)
}

/// The system's reason without Rust's " (os error N)" suffix.
fn io_reason(error: &std::io::Error) -> String {
    let text = error.to_string();
    match text.find(" (os error") {
        Some(end) => text[..end].to_string(),
        None => text,
    }
}

#[cfg(test)]
mod tests;
