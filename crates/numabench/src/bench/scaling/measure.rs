//! `scaling`: bandwidth of one node's memory as 1, 2, ... all cores of a
//! CPU node read it, from the local node and from the most distant one:
//! where the memory controller and the interconnect saturate. Threads are
//! added in a [`CpuOrder`], by default cores-first ([`SCALING_ORDER`]).

use crate::bench::bandwidth::{run_bandwidth, BandwidthConfig};
use crate::bench::context::Context;
use crate::bench::error::BenchError;
use crate::bench::placed::cpus_of_node;
use crate::interrupt::interrupted;
use crate::kernels::KernelSpec;
use crate::memory::MemoryPlacement;
use crate::output::Pipeline;
use crate::threads::CpuOrder;
use crate::topology::cpu_nodes;
use crate::topology::Machine;
use numabench_schema::params::{to_params, ScalingLabels};

/// One point of a scaling curve.
#[derive(Debug, Clone, PartialEq)]
pub struct ScalingPoint {
    pub cpu_node: u32,
    pub threads: usize,
    pub gigabytes_per_second: f64,
}

/// The order a scaling curve adds threads in by default: one per core,
/// spread over the node's L3 domains, before any SMT sibling.
pub const SCALING_ORDER: CpuOrder = CpuOrder::CoresFirst;

/// The allowed CPUs of `cpu_node` in the order a scaling curve adds them:
/// `n` threads run on the first `n`.
pub fn scaling_cpus(
    topology: &Machine,
    cpu_node: u32,
    order: CpuOrder,
) -> Result<Vec<u32>, BenchError> {
    Ok(order.arrange(topology, &cpus_of_node(topology, cpu_node)?))
}

/// The CPU nodes to read `memory_node` from: the local one (if it has CPUs)
/// and the farthest by SLIT distance.
pub fn reader_nodes(topology: &Machine, memory_node: u32) -> Vec<u32> {
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

/// The thread counts of a curve over `cpus` CPUs measured with `stride`:
/// 1, every multiple of `stride`, and `cpus` (stride 1: every count; a
/// time budget raises it).
pub fn scaling_counts(cpus: usize, stride: usize) -> Vec<usize> {
    let stride = stride.max(1);
    let mut counts: Vec<usize> = (1..=cpus)
        .filter(|&threads| threads == 1 || threads % stride == 0 || threads == cpus)
        .collect();
    counts.dedup();
    counts
}

/// Runs the scaling curves of `kernel` for memory bound to `memory_node`,
/// threads added in `order`, at the counts of [`scaling_counts`] with
/// `stride` (above 1, every record says `thread_stride`).
pub fn run_scaling(
    context: &Context,
    kernel: &'static KernelSpec,
    memory_node: u32,
    size: u64,
    order: CpuOrder,
    stride: usize,
    pipeline: &mut Pipeline,
) -> Result<Vec<ScalingPoint>, BenchError> {
    let mut points = Vec::new();
    for cpu_node in reader_nodes(&context.topology, memory_node) {
        let cpus = scaling_cpus(&context.topology, cpu_node, order)?;
        let locality = if cpu_node == memory_node {
            "local"
        } else {
            "remote"
        };
        for threads in scaling_counts(cpus.len(), stride) {
            if interrupted() {
                return Ok(points);
            }
            let labels = ScalingLabels {
                thread_stride: (stride > 1).then_some(stride as u64),
                cpu_node: Some(cpu_node),
                mem_node: Some(memory_node),
                locality: Some(locality.to_string()),
                cpu_order: Some(order.name().to_string()),
            };
            let config = BandwidthConfig::new(
                kernel,
                cpus[..threads].to_vec(),
                size,
                MemoryPlacement::bind(memory_node),
            )
            .labelled("scaling", to_params(&labels));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::threads::smt_server;

    /// With siblings numbered far apart (PU k and k + 64 share a core), a
    /// curve's first threads take distinct cores over all of the node's L3
    /// domains, and no thread shares a core while another core is idle.
    #[test]
    fn scaling_threads_take_every_core_before_any_sibling() {
        let topology = smt_server(2, 8, 4);
        for node in [0, 1] {
            let cpus = scaling_cpus(&topology, node, SCALING_ORDER).unwrap();
            assert_eq!(cpus, CpuOrder::CoresFirst.arrange(&topology, &cpus));
            let cores_used = |threads: usize| {
                let mut cores: Vec<usize> = cpus[..threads]
                    .iter()
                    .map(|&cpu| topology.core_of_cpu(cpu).unwrap())
                    .collect();
                cores.sort_unstable();
                cores.dedup();
                cores.len()
            };
            let node_cores = topology.nodes[node as usize].cpus.len() / 2;
            for threads in 1..=node_cores {
                assert_eq!(
                    cores_used(threads),
                    threads,
                    "node {node}, {threads} threads"
                );
            }
            assert_eq!(cores_used(cpus.len()), node_cores);
        }
    }
}
