//! The firmware's figures beside the measured ones: a `matrix` cell
//! carries the latency or bandwidth the ACPI HMAT declares for its
//! initiator x target pair (as hwloc reports them, in
//! [`Machine::memory_attributes`]) and the ratio measured/declared.
//! Where the firmware declares nothing for the pair, the fields are absent.

use crate::output::Unit;
use crate::topology::{Machine, MemoryAttributeValue};
use numabench_schema::params::DeclaredParams;
#[cfg(test)]
use serde_json::json;
use serde_json::{Map, Value};

/// Bytes in a MiB (hwloc's bandwidth unit is MiB/s).
const MIB: f64 = (1u64 << 20) as f64;

/// What a matrix cell measured, to pick the declared attribute it compares with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Declared {
    /// A chase: `read_latency`, else `latency` (ns).
    Latency,
    /// Reads: `read_bandwidth`, else `bandwidth` (MiB/s).
    Bandwidth,
}

impl Declared {
    /// The attribute names compared with, in preference order, and their
    /// unit.
    fn fields(self) -> (&'static [&'static str], &'static str) {
        match self {
            Declared::Latency => (&["read_latency", "latency"], "ns"),
            Declared::Bandwidth => (&["read_bandwidth", "bandwidth"], "MiB/s"),
        }
    }
}

/// The value the firmware declares for `cpus` accessing memory of node
/// `target`: the first of `names` that has one, from the narrowest
/// initiator whose CPUs include every one of `cpus`.
fn declared_value<'a>(
    topology: &'a Machine,
    names: &[&str],
    unit: &str,
    cpus: &[u32],
    target: u32,
) -> Option<&'a MemoryAttributeValue> {
    names.iter().find_map(|name| {
        topology
            .memory_attributes
            .iter()
            .filter(|value| {
                value.name == *name
                    && value.unit == unit
                    && value.target_node == target
                    && !cpus.is_empty()
                    && cpus.iter().all(|cpu| value.initiator_cpus.contains(cpu))
            })
            .min_by_key(|value| value.initiator_cpus.len())
    })
}

/// The declared figure of `what` for `cpus` reading node `target`
/// (`declared_latency_ns` and `declared_latency_attribute`, or
/// `declared_bandwidth_mib_s` and `declared_bandwidth_attribute`), when the
/// firmware declares one; none otherwise.
pub(super) fn declared(
    topology: &Machine,
    what: Declared,
    cpus: &[u32],
    target: u32,
) -> DeclaredParams {
    let (names, unit) = what.fields();
    let Some(value) = declared_value(topology, names, unit, cpus, target) else {
        return DeclaredParams::default();
    };
    let (figure, name) = (Some(value.value), Some(value.name.clone()));
    match what {
        Declared::Latency => DeclaredParams {
            declared_latency_ns: figure,
            declared_latency_attribute: name,
            ..DeclaredParams::default()
        },
        Declared::Bandwidth => DeclaredParams {
            declared_bandwidth_mib_s: figure,
            declared_bandwidth_attribute: name,
            ..DeclaredParams::default()
        },
    }
}

/// Adds [`declared`] to `params`.
#[cfg(test)]
fn insert_declared(
    params: &mut Map<String, Value>,
    topology: &Machine,
    what: Declared,
    cpus: &[u32],
    target: u32,
) {
    params.extend(numabench_schema::params::to_params(&declared(
        topology, what, cpus, target,
    )));
}

/// `measured_over_declared` (ratio), when `params` carry a declared
/// figure of the measured quantity: a latency in ns over
/// `declared_latency_ns` (above 1: slower than declared), a bandwidth in
/// GB/s over `declared_bandwidth_mib_s` converted to GB/s (below 1: less
/// than declared).
pub(crate) fn measured_over_declared(
    params: &Map<String, Value>,
    measured: f64,
    unit: Unit,
) -> Option<f64> {
    let declared = |field: &str| {
        params
            .get(field)
            .and_then(Value::as_f64)
            .filter(|value| *value > 0.0)
    };
    let ratio = match unit {
        Unit::Nanoseconds => declared("declared_latency_ns").map(|ns| measured / ns),
        Unit::GigabytesPerSecond => {
            declared("declared_bandwidth_mib_s").map(|mib_s| measured * 1e9 / (mib_s * MIB))
        }
        _ => None,
    };
    ratio.filter(|ratio| ratio.is_finite())
}

/// Adds [`measured_over_declared`] to `params` where there is one (the
/// typed writers set the field themselves).
#[cfg(test)]
pub(crate) fn insert_measured_over_declared(
    params: &mut Map<String, Value>,
    measured: f64,
    unit: Unit,
) {
    if let Some(ratio) = measured_over_declared(params, measured, unit) {
        params.insert("measured_over_declared".into(), json!(ratio));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::fixture_tests::load;

    /// The cxl-hmat fixture declares, from node 0's CPUs: node 0 110 ns,
    /// 204800 MiB/s; the CXL node 1 290 ns, 65536 MiB/s.
    #[test]
    fn cells_carry_the_declared_figure_of_their_pair_and_the_ratio() {
        let topology = load("cxl-hmat");
        let mut latency = Map::new();
        insert_declared(&mut latency, &topology, Declared::Latency, &[0], 1);
        assert_eq!(latency["declared_latency_ns"], json!(290));
        assert_eq!(latency["declared_latency_attribute"], json!("latency"));
        insert_measured_over_declared(&mut latency, 580.0, Unit::Nanoseconds);
        assert_eq!(latency["measured_over_declared"], json!(2.0));
        // The latency_cycles record of the same chase gets no second ratio.
        let mut cycles = latency.clone();
        cycles.remove("measured_over_declared");
        insert_measured_over_declared(&mut cycles, 1500.0, Unit::Cycles);
        assert!(!cycles.contains_key("measured_over_declared"));

        let mut bandwidth = Map::new();
        let all_of_node_0 = topology.nodes[0].cpus.clone();
        insert_declared(
            &mut bandwidth,
            &topology,
            Declared::Bandwidth,
            &all_of_node_0,
            0,
        );
        assert_eq!(bandwidth["declared_bandwidth_mib_s"], json!(204800));
        assert!(!bandwidth.contains_key("declared_latency_ns"));
        // 204800 MiB/s is 214.7483648 GB/s: half of it measured is a ratio of 0.5.
        insert_measured_over_declared(&mut bandwidth, 107.374_182_4, Unit::GigabytesPerSecond);
        let ratio = bandwidth["measured_over_declared"].as_f64().unwrap();
        assert!((ratio - 0.5).abs() < 1e-9, "{ratio}");
    }

    #[test]
    fn nothing_is_declared_where_the_firmware_says_nothing() {
        // No HMAT at all.
        let plain = crate::topology::synthetic("pack:2 [numa(memory=8GiB)] core:2 pu:1");
        assert!(plain.memory_attributes.is_empty());
        let mut params = Map::new();
        insert_declared(&mut params, &plain, Declared::Latency, &[0], 1);
        insert_measured_over_declared(&mut params, 100.0, Unit::Nanoseconds);
        assert!(params.is_empty(), "{params:?}");
        // HMAT, but no initiator holds this CPU (CPU 99 is in no initiator), or no such target.
        let hmat = load("cxl-hmat");
        insert_declared(&mut params, &hmat, Declared::Latency, &[99], 1);
        insert_declared(&mut params, &hmat, Declared::Bandwidth, &[0], 7);
        assert!(params.is_empty(), "{params:?}");
    }
}
