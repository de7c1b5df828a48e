//! What a baseline is keyed by: the node type (CPU model, packages, NUMA
//! nodes) and what must not change on a healthy node of that type (CPUs
//! and memory per NUMA node, the settings `doctor` reads).

use crate::doctor::{CheckId, DoctorReport};
use crate::topology::Machine;
use crate::units::format_bytes;
use std::collections::BTreeMap;

/// Doctor checks left out of the fingerprint: they describe this process
/// (its cgroup, limits, user) or free memory, not the node.
const NOT_NODE_SETTINGS: [CheckId; 4] = [
    CheckId::NodeMemory,
    CheckId::MemoryLimit,
    CheckId::ProcessRestriction,
    CheckId::PerfEventParanoid,
];

/// Memory per node within this share of the baseline's counts as the same
/// (kernels reserve slightly different amounts on identical nodes; one
/// DIMM of 12 is 8%).
pub const MEMORY_TOLERANCE: f64 = 0.02;

/// A node's fingerprint (the schema's type: a cluster rank's plan record
/// and a baseline entry carry it as it is).
pub use numabench_schema::params::Fingerprint;

/// One way a node differs from a fingerprint of its type (the node type
/// record's params hold them as they are).
pub use numabench_schema::params::FingerprintDifference as Difference;

/// The fingerprint of a node of `topology`, with its `doctor` report and
/// CPU model.
pub fn node_fingerprint(topology: &Machine, doctor: &DoctorReport, cpu_model: &str) -> Fingerprint {
    let nodes = &topology.nodes;
    Fingerprint {
        cpu_model: cpu_model.to_string(),
        packages: topology.packages.len(),
        numa_nodes: topology.node_count,
        cpus_per_node: nodes
            .iter()
            .map(|node| (format!("node{}", node.index), node.cpus.len()))
            .collect(),
        memory_per_node_bytes: nodes
            .iter()
            .map(|node| (format!("node{}", node.index), node.memory_total_bytes))
            .collect(),
        settings: doctor
            .findings
            .iter()
            .filter(|finding| !NOT_NODE_SETTINGS.contains(&finding.check))
            .map(|finding| {
                (
                    finding.check.to_string(),
                    finding.severity.with(&finding.found),
                )
            })
            .collect(),
    }
}

/// This node's fingerprint, its CPU model read from `/proc/cpuinfo`.
pub fn this_node_fingerprint(topology: &Machine, doctor: &DoctorReport) -> Fingerprint {
    node_fingerprint(
        topology,
        doctor,
        &numabench_schema::MachineFacts::read().cpu_model,
    )
}

/// How `fingerprint`'s node differs from `reference`, a node of its type:
/// CPUs per node, memory per node beyond [`MEMORY_TOLERANCE`], and
/// every setting (one missing on either side counts).
pub fn differences(fingerprint: &Fingerprint, reference: &Fingerprint) -> Vec<Difference> {
    let mut found = Vec::new();
    for node in node_keys(&fingerprint.cpus_per_node, &reference.cpus_per_node) {
        let measured = fingerprint.cpus_per_node.get(node);
        let expected = reference.cpus_per_node.get(node);
        if measured != expected {
            found.push(Difference {
                what: format!("{} CPUs", spaced(node)),
                measured: count(measured),
                reference: count(expected),
                tolerance: "must match".into(),
            });
        }
    }
    for node in node_keys(
        &fingerprint.memory_per_node_bytes,
        &reference.memory_per_node_bytes,
    ) {
        let measured = fingerprint.memory_per_node_bytes.get(node).copied();
        let expected = reference.memory_per_node_bytes.get(node).copied();
        let same = match (measured, expected) {
            (Some(a), Some(b)) => (a as f64 - b as f64).abs() <= MEMORY_TOLERANCE * b as f64,
            (a, b) => a == b,
        };
        if !same {
            let bytes = |value: Option<u64>| value.map_or("none".into(), format_bytes);
            found.push(Difference {
                what: format!("{} memory", spaced(node)),
                measured: bytes(measured),
                reference: bytes(expected),
                tolerance: format!("±{:.0}%", MEMORY_TOLERANCE * 100.0),
            });
        }
    }
    // A setting the reference does not have is a check newer than the
    // baseline (doctor gained it since): nothing to compare it with.
    for name in reference.settings.keys() {
        let measured = fingerprint.settings.get(name);
        let expected = reference.settings.get(name);
        if measured != expected {
            let text = |value: Option<&String>| value.cloned().unwrap_or("not read".into());
            found.push(Difference {
                what: format!("setting {name}"),
                measured: text(measured),
                reference: text(expected),
                tolerance: "must match".into(),
            });
        }
    }
    found
}

/// The keys of both maps (`node0`, `node1`, ...), each once, by node
/// number.
fn node_keys<'a, A, B>(a: &'a BTreeMap<String, A>, b: &'a BTreeMap<String, B>) -> Vec<&'a String> {
    let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
    keys.sort_by_key(|key| (node_number(key), *key));
    keys.dedup();
    keys
}

/// `node12` → 12 (for ordering; other keys last).
fn node_number(key: &str) -> u32 {
    key.strip_prefix("node")
        .and_then(|number| number.parse().ok())
        .unwrap_or(u32::MAX)
}

/// `node12` → `node 12`.
fn spaced(key: &str) -> String {
    match key.strip_prefix("node") {
        Some(number) => format!("node {number}"),
        None => key.to_string(),
    }
}

fn count(value: Option<&usize>) -> String {
    value.map_or("none".into(), |count| count.to_string())
}
