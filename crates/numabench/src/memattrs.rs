//! `export-memattrs`: the measured initiator x target latencies and read
//! bandwidths of `matrix` records, written into the machine's hwloc XML as
//! two custom memory attributes, so hwloc-based tools and schedulers can
//! use measured figures where the firmware declares none (or wrong ones).
//!
//! The attributes (in hwloc's units for its own Latency and Bandwidth):
//! - `NumabenchLatency`: idle load-to-use latency in ns, lower is best;
//! - `NumabenchReadBandwidth`: read bandwidth of one thread in MiB/s,
//!   higher is best.
//!
//! Each needs an initiator: the CPU set of the measuring node. hwloc keeps
//! integer values, so figures are rounded to the nearest unit.

use crate::output::Record;
use hwlocality::bitmap::BitmapCow;
use hwlocality::memory::attribute::{Initiator, MemoryAttributeFlags};
use hwlocality::object::types::ObjectType;
use hwlocality::object::TopologyObject;
use hwlocality::topology::export::xml::XMLExportFlags;
use hwlocality::Topology;
use numabench_schema::benchmark::{MATRIX_BANDWIDTH, MATRIX_LATENCY};
use std::collections::BTreeMap;
use std::path::Path;
use thiserror::Error;

/// The custom attribute holding measured latencies (ns).
pub const LATENCY_ATTRIBUTE: &str = "NumabenchLatency";
/// The custom attribute holding measured read bandwidths (MiB/s).
pub const BANDWIDTH_ATTRIBUTE: &str = "NumabenchReadBandwidth";

/// Why the attributes could not be exported.
///
/// Fault: the user's for the results given (no matrix records, a node this
/// topology lacks, values hwloc refuses); the system's when the topology
/// does not load or the XML cannot be written.
#[derive(Debug, Error)]
pub enum MemattrsError {
    #[error("no matrix latency or bandwidth records in {inputs} (run `numabench matrix latency` or `matrix bandwidth` with --json or --jsonl)")]
    NoMatrixRecords { inputs: String },
    #[error("the results name node {node} as {role}, which {topology} does not have{why}")]
    UnknownNode {
        node: u32,
        role: &'static str,
        topology: String,
        why: &'static str,
    },
    #[error("cannot load the topology: {0}")]
    Topology(String),
    #[error("hwloc refused the attribute values: {0}")]
    Values(String),
    #[error("cannot write {path}: {reason}")]
    Write { path: String, reason: String },
}

impl crate::error::Faulty for MemattrsError {
    fn fault(&self) -> crate::error::Fault {
        use crate::error::Fault;
        match self {
            MemattrsError::Topology(_) | MemattrsError::Write { .. } => Fault::System,
            MemattrsError::NoMatrixRecords { .. }
            | MemattrsError::UnknownNode { .. }
            | MemattrsError::Values(_) => Fault::Usage,
        }
    }
}

/// The measured figures of one initiator x target pair.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct MeasuredPair {
    /// The node whose CPU measured (its CPU set is the initiator).
    pub initiator: u32,
    /// The memory node measured.
    pub target: u32,
    /// Idle latency, ns.
    pub latency_ns: Option<f64>,
    /// Read bandwidth, MiB/s.
    pub bandwidth_mib_s: Option<f64>,
}

/// The measured pairs of `matrix` records (`matrix-latency` `latency` and
/// `matrix-bandwidth` `read_bandwidth`, `params.cpu_node` x
/// `params.mem_node`), in node order. A pair measured several times (several
/// runs in one file) gets the median of the records' values.
pub fn measured_pairs(records: &[Record]) -> Vec<MeasuredPair> {
    let mut latencies: BTreeMap<(u32, u32), Vec<f64>> = BTreeMap::new();
    let mut bandwidths: BTreeMap<(u32, u32), Vec<f64>> = BTreeMap::new();
    for record in records {
        let node = |key: &str| {
            record
                .params
                .get(key)
                .and_then(|value| value.as_u64())
                .and_then(|n| u32::try_from(n).ok())
        };
        let (Some(initiator), Some(target)) = (node("cpu_node"), node("mem_node")) else {
            continue;
        };
        if !record.value.is_finite() {
            continue;
        }
        match (record.benchmark.as_str(), record.metric.as_str()) {
            (MATRIX_LATENCY, "latency") => latencies
                .entry((initiator, target))
                .or_default()
                .push(record.value),
            // GB/s (10^9 bytes per second) to hwloc's MiB/s.
            (MATRIX_BANDWIDTH, "read_bandwidth") => bandwidths
                .entry((initiator, target))
                .or_default()
                .push(record.value * 1e9 / (1u64 << 20) as f64),
            _ => {}
        }
    }
    let mut pairs: BTreeMap<(u32, u32), MeasuredPair> = BTreeMap::new();
    for (figures, is_latency) in [(latencies, true), (bandwidths, false)] {
        for ((initiator, target), values) in figures {
            let pair = pairs.entry((initiator, target)).or_insert(MeasuredPair {
                initiator,
                target,
                ..MeasuredPair::default()
            });
            let slot = match is_latency {
                true => &mut pair.latency_ns,
                false => &mut pair.bandwidth_mib_s,
            };
            *slot = Some(median(values));
        }
    }
    pairs.into_values().collect()
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let middle = values.len() / 2;
    match values.len() % 2 {
        1 => values[middle],
        _ => (values[middle - 1] + values[middle]) / 2.0,
    }
}

/// What was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportSummary {
    /// Pairs with a latency value.
    pub latency_values: usize,
    /// Pairs with a bandwidth value.
    pub bandwidth_values: usize,
}

/// Loads the topology (this machine's, or the hwloc XML `xml`), adds the
/// measured `pairs` as the two custom attributes and writes the XML to
/// `out`. Every initiator must be a node with CPUs and every target a NUMA
/// node of that topology.
pub fn export_memattrs(
    xml: Option<&Path>,
    pairs: &[MeasuredPair],
    source_name: &str,
    out: &Path,
) -> Result<ExportSummary, MemattrsError> {
    if pairs.is_empty() {
        return Err(MemattrsError::NoMatrixRecords {
            inputs: source_name.to_string(),
        });
    }
    let mut topology = load(xml)?;
    let topology_name = match xml {
        Some(path) => path.display().to_string(),
        None => "this machine".to_string(),
    };
    for pair in pairs {
        let initiator = numa_node(&topology, pair.initiator).ok_or(MemattrsError::UnknownNode {
            node: pair.initiator,
            role: "an initiator",
            topology: topology_name.clone(),
            why: "",
        })?;
        if initiator.cpuset().is_none_or(|set| set.weight() == Some(0)) {
            return Err(MemattrsError::UnknownNode {
                node: pair.initiator,
                role: "an initiator",
                topology: topology_name.clone(),
                why: " as a node with CPUs",
            });
        }
        if numa_node(&topology, pair.target).is_none() {
            return Err(MemattrsError::UnknownNode {
                node: pair.target,
                role: "a target",
                topology: topology_name.clone(),
                why: "",
            });
        }
    }
    let summary = ExportSummary {
        latency_values: pairs.iter().filter(|p| p.latency_ns.is_some()).count(),
        bandwidth_values: pairs.iter().filter(|p| p.bandwidth_mib_s.is_some()).count(),
    };
    let pairs = pairs.to_vec();
    topology.edit(move |editor| -> Result<(), MemattrsError> {
        for (name, flags, value_of) in [
            (
                LATENCY_ATTRIBUTE,
                MemoryAttributeFlags::LOWER_IS_BEST,
                (|pair: &MeasuredPair| pair.latency_ns) as fn(&MeasuredPair) -> Option<f64>,
            ),
            (
                BANDWIDTH_ATTRIBUTE,
                MemoryAttributeFlags::HIGHER_IS_BEST,
                |pair: &MeasuredPair| pair.bandwidth_mib_s,
            ),
        ] {
            let measured: Vec<(u32, u32, u64)> = pairs
                .iter()
                .filter_map(|pair| {
                    value_of(pair)
                        .map(|value| (pair.initiator, pair.target, value.round().max(0.0) as u64))
                })
                .collect();
            if measured.is_empty() {
                continue;
            }
            let mut attribute = editor
                .register_memory_attribute(name, flags | MemoryAttributeFlags::NEED_INITIATOR)
                .map_err(|error| MemattrsError::Values(error.to_string()))?;
            attribute
                .set_values(|topology| {
                    let mut initiators = Vec::new();
                    let mut targets = Vec::new();
                    for &(initiator, target, value) in &measured {
                        let cpus = numa_node(topology, initiator)
                            .and_then(TopologyObject::cpuset)
                            .expect("checked above: the initiator node has CPUs");
                        initiators.push(Initiator::CpuSet(BitmapCow::Borrowed(cpus)));
                        targets.push((numa_node(topology, target).expect("checked above"), value));
                    }
                    (Some(initiators), targets)
                })
                .map_err(|error| MemattrsError::Values(error.to_string()))?;
        }
        Ok(())
    })?;
    // Written as every output file is (a regular file replaced whole, its
    // mode kept; a link written through), not by hwloc's own fopen.
    let xml = topology
        .export_xml(XMLExportFlags::empty())
        .map_err(|error| error.to_string())
        .and_then(|xml| {
            crate::output::output_file::write_whole(out, xml.as_bytes())
                .map_err(|error| error.to_string())
        });
    xml.map_err(|reason| MemattrsError::Write {
        path: out.display().to_string(),
        reason,
    })?;
    Ok(summary)
}

/// The NUMA node of OS index `node`.
fn numa_node(topology: &Topology, node: u32) -> Option<&TopologyObject> {
    topology
        .objects_with_type(ObjectType::NUMANode)
        .find(|object| object.os_index() == Some(node as usize))
}

/// This machine's topology, or the one `xml` describes.
fn load(xml: Option<&Path>) -> Result<Topology, MemattrsError> {
    let fail = |error: &dyn std::fmt::Display| MemattrsError::Topology(error.to_string());
    let builder = crate::topology::keep_memory_side_caches(Topology::builder())
        .map_err(|error| fail(&error))?;
    let builder = match xml {
        Some(path) => builder.from_xml_file(path).map_err(|error| fail(&error))?,
        None => builder,
    };
    builder.build().map_err(|error| fail(&error))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::{Placement, Unit};
    use crate::stats::Sample;
    use serde_json::json;

    fn record(benchmark: &str, metric: &str, initiator: u32, target: u32, value: f64) -> Record {
        let mut params = serde_json::Map::new();
        params.insert("cpu_node".into(), json!(initiator));
        params.insert("mem_node".into(), json!(target));
        Record::of_median(
            benchmark,
            metric,
            Unit::Nanoseconds,
            Sample::new([value]).unwrap().summary(),
            params,
            Placement::default(),
        )
    }

    /// Latencies as measured, bandwidths from GB/s to MiB/s, a pair
    /// measured three times as the median, other records ignored.
    #[test]
    fn pairs_take_matrix_figures_in_hwloc_units() {
        let records = [
            record("matrix-latency", "latency", 0, 1, 130.0),
            record("matrix-latency", "latency", 0, 1, 150.0),
            record("matrix-latency", "latency", 0, 1, 140.0),
            record("matrix-latency", "latency_cycles", 0, 1, 999.0),
            record("matrix-bandwidth", "read_bandwidth", 1, 0, 10.48576),
            record("latency", "latency", 0, 0, 80.0),
        ];
        let pairs = measured_pairs(&records);
        assert_eq!(
            pairs,
            vec![
                MeasuredPair {
                    initiator: 0,
                    target: 1,
                    latency_ns: Some(140.0),
                    bandwidth_mib_s: None,
                },
                MeasuredPair {
                    initiator: 1,
                    target: 0,
                    latency_ns: None,
                    bandwidth_mib_s: Some(10_000.0),
                },
            ]
        );
    }
}
