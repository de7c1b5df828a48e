//! `scaling`: bandwidth of one node's memory as 1, 2, ... all cores of a
//! CPU node read it, from the local node and from the most distant one:
//! where the memory controller and the interconnect saturate.

use super::bandwidth::{run_bandwidth, BandwidthConfig};
use super::context::Context;
use super::error::BenchError;
use super::placed::{cpu_nodes, cpus_of_node};
use crate::interrupt::interrupted;
use crate::kernels::KernelSpec;
use crate::memory::MemoryPlacement;
use crate::output::Pipeline;
use crate::topology::TopologyReport;
use serde_json::{json, Map};

/// One point of a scaling curve.
#[derive(Debug, Clone, PartialEq)]
pub struct ScalingPoint {
    pub cpu_node: u32,
    pub threads: usize,
    pub gigabytes_per_second: f64,
}

/// The CPUs of a node ordered one per core first, then the SMT siblings,
/// so `n` threads use `n` distinct cores when the node has them.
pub fn cores_first(topology: &TopologyReport, cpus: &[u32]) -> Vec<u32> {
    let per_core = topology.threads_per_core().max(1);
    let mut ordered: Vec<u32> = cpus.iter().copied().step_by(per_core).collect();
    ordered.extend(
        cpus.iter()
            .copied()
            .filter(|cpu| !ordered.contains(cpu))
            .collect::<Vec<_>>(),
    );
    ordered
}

/// The CPU nodes to read `memory_node` from: the local one (if it has CPUs)
/// and the farthest by SLIT distance.
pub fn reader_nodes(topology: &TopologyReport, memory_node: u32) -> Vec<u32> {
    let candidates = cpu_nodes(topology);
    let mut readers = Vec::new();
    if candidates.contains(&memory_node) {
        readers.push(memory_node);
    }
    let farthest = candidates
        .iter()
        .copied()
        .filter(|node| *node != memory_node)
        .max_by_key(|node| topology.distance(*node, memory_node).unwrap_or(0));
    if let Some(node) = farthest {
        readers.push(node);
    }
    if readers.is_empty() {
        readers.extend(candidates.first());
    }
    readers
}

/// Runs the scaling curves of `kernel` for memory bound to `memory_node`.
pub fn run_scaling(
    context: &Context,
    kernel: &'static KernelSpec,
    memory_node: u32,
    size: u64,
    pipeline: &mut Pipeline,
) -> Result<Vec<ScalingPoint>, BenchError> {
    let mut points = Vec::new();
    for cpu_node in reader_nodes(&context.topology, memory_node) {
        let cpus = cores_first(
            &context.topology,
            &cpus_of_node(&context.topology, cpu_node)?,
        );
        let locality = if cpu_node == memory_node {
            "local"
        } else {
            "remote"
        };
        for threads in 1..=cpus.len() {
            if interrupted() {
                return Ok(points);
            }
            let mut labels = Map::new();
            labels.insert("cpu_node".into(), json!(cpu_node));
            labels.insert("mem_node".into(), json!(memory_node));
            labels.insert("locality".into(), json!(locality));
            let config = BandwidthConfig::new(
                kernel,
                cpus[..threads].to_vec(),
                size,
                MemoryPlacement::bind(memory_node),
            )
            .labelled("scaling", labels);
            let result = run_bandwidth(context, &config, pipeline)?;
            points.push(ScalingPoint {
                cpu_node,
                threads,
                gigabytes_per_second: result.gigabytes_per_second.max(),
            });
        }
    }
    Ok(points)
}
