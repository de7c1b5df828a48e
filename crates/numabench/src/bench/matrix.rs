//! `matrix latency` and `matrix bandwidth`: a thread on each CPU node with
//! memory on each memory node (CPU-less ones included as targets).

use super::bandwidth::{run_bandwidth, BandwidthConfig};
use super::context::Context;
use super::error::BenchError;
use super::latency::{emit_latency, measure_latency, LatencyConfig};
use super::placed::{cpu_nodes, cpus_of_node, memory_nodes};
use crate::interrupt::interrupted;
use crate::kernels::{kernel_by_name, ChaseOrder};
use crate::memory::MemoryPlacement;
use crate::output::Pipeline;
use crate::threads::CpuOrder;
use crate::topology::TopologyReport;
use serde_json::{json, Map};

/// Rows are CPU nodes, columns memory nodes; `None` where not measured
/// (interrupted).
#[derive(Debug, Clone, PartialEq)]
pub struct NodeMatrix {
    pub cpu_nodes: Vec<u32>,
    pub memory_nodes: Vec<u32>,
    pub values: Vec<Vec<Option<f64>>>,
    pub unit: &'static str,
}

impl NodeMatrix {
    fn new(context: &Context, unit: &'static str) -> Self {
        let cpu_nodes = cpu_nodes(&context.topology);
        let memory_nodes = memory_nodes(&context.topology);
        let values = vec![vec![None; memory_nodes.len()]; cpu_nodes.len()];
        Self {
            cpu_nodes,
            memory_nodes,
            values,
            unit,
        }
    }

    /// The matrix as text: CPU nodes down, memory nodes across.
    pub fn render(&self, title: &str) -> String {
        let mut out = format!(
            "{title} ({}), CPU node down, memory node across:\n",
            self.unit
        );
        out.push_str(&format!("{:>8}", "cpu\\mem"));
        for node in &self.memory_nodes {
            out.push_str(&format!("{node:>10}"));
        }
        out.push('\n');
        for (row, node) in self.values.iter().zip(&self.cpu_nodes) {
            out.push_str(&format!("{node:>8}"));
            for value in row {
                match value {
                    Some(value) => {
                        out.push_str(&format!("{:>10}", crate::units::format_value(*value)))
                    }
                    None => out.push_str(&format!("{:>10}", "-")),
                }
            }
            out.push('\n');
        }
        out
    }
}

/// The order a node's measuring CPUs are taken in: tree order, so one
/// thread runs on the node's first CPU of the object tree.
pub const MATRIX_ORDER: CpuOrder = CpuOrder::Compact;

/// The CPUs of `cpu_node` that measure in `mode`: the first of the node in
/// [`MATRIX_ORDER`] (serial, and the latency matrix), or all of its allowed
/// CPUs in that order (parallel).
pub fn matrix_cpus(
    topology: &TopologyReport,
    cpu_node: u32,
    mode: MatrixMode,
) -> Result<Vec<u32>, BenchError> {
    let mut cpus = MATRIX_ORDER.arrange(topology, &cpus_of_node(topology, cpu_node)?);
    if mode == MatrixMode::Serial {
        cpus.truncate(1);
    }
    Ok(cpus)
}

fn labels(
    cpu_node: u32,
    memory_node: u32,
    extra: Option<(&str, &str)>,
) -> Map<String, serde_json::Value> {
    let mut labels = Map::new();
    labels.insert("cpu_node".into(), json!(cpu_node));
    labels.insert("mem_node".into(), json!(memory_node));
    labels.insert("cpu_order".into(), json!(MATRIX_ORDER.name()));
    if let Some((key, value)) = extra {
        labels.insert(key.into(), json!(value));
    }
    labels
}

/// Idle latency from the first allowed CPU (in [`MATRIX_ORDER`]) of each
/// CPU node to memory bound on each memory node, working set `size`.
pub fn run_latency_matrix(
    context: &Context,
    size: u64,
    pipeline: &mut Pipeline,
) -> Result<NodeMatrix, BenchError> {
    let mut matrix = NodeMatrix::new(context, "ns");
    for (row, &cpu_node) in matrix.cpu_nodes.clone().iter().enumerate() {
        let cpu = matrix_cpus(&context.topology, cpu_node, MatrixMode::Serial)?[0];
        for (column, &memory_node) in matrix.memory_nodes.clone().iter().enumerate() {
            if interrupted() {
                return Ok(matrix);
            }
            let config = LatencyConfig {
                sizes: vec![size],
                cpu,
                memory: MemoryPlacement::bind(memory_node),
                order: ChaseOrder::default(),
            };
            let measured = measure_latency(context, &config, size)?;
            let labels = labels(cpu_node, memory_node, None);
            matrix.values[row][column] = emit_latency(
                context,
                &config,
                size,
                &measured,
                "matrix-latency",
                &labels,
                pipeline,
            )?;
        }
    }
    Ok(matrix)
}

/// How many threads read in `matrix bandwidth`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatrixMode {
    /// One thread (the CPU node's first allowed CPU in [`MATRIX_ORDER`]).
    Serial,
    /// Every allowed CPU of the CPU node at once, in [`MATRIX_ORDER`].
    Parallel,
}

impl MatrixMode {
    pub fn name(self) -> &'static str {
        match self {
            MatrixMode::Serial => "serial",
            MatrixMode::Parallel => "parallel",
        }
    }
}

/// Read bandwidth from each CPU node to memory bound on each memory node.
pub fn run_bandwidth_matrix(
    context: &Context,
    mode: MatrixMode,
    size: u64,
    pipeline: &mut Pipeline,
) -> Result<NodeMatrix, BenchError> {
    let read = kernel_by_name("read").expect("read kernel is registered");
    let mut matrix = NodeMatrix::new(context, "GB/s");
    for (row, &cpu_node) in matrix.cpu_nodes.clone().iter().enumerate() {
        let cpus = matrix_cpus(&context.topology, cpu_node, mode)?;
        for (column, &memory_node) in matrix.memory_nodes.clone().iter().enumerate() {
            if interrupted() {
                return Ok(matrix);
            }
            let config =
                BandwidthConfig::new(read, cpus.clone(), size, MemoryPlacement::bind(memory_node))
                    .labelled(
                        "matrix-bandwidth",
                        labels(cpu_node, memory_node, Some(("mode", mode.name()))),
                    );
            let result = run_bandwidth(context, &config, pipeline)?;
            matrix.values[row][column] = Some(result.gigabytes_per_second.max());
        }
    }
    Ok(matrix)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::threads::smt_server;

    /// Each node measures from its first CPU of the object tree, and in
    /// parallel from all its CPUs in tree order (siblings together), not in
    /// OS-index order.
    #[test]
    fn each_node_measures_from_its_cpus_in_tree_order() {
        let topology = smt_server(2, 8, 4);
        for node in [0, 1] {
            let all = matrix_cpus(&topology, node, MatrixMode::Parallel).unwrap();
            let node_cpus = cpus_of_node(&topology, node).unwrap();
            assert_eq!(all, CpuOrder::Compact.arrange(&topology, &node_cpus));
            assert_eq!(all[..2], [node * 32, node * 32 + 64]);
            let serial = matrix_cpus(&topology, node, MatrixMode::Serial).unwrap();
            assert_eq!(serial, all[..1]);
        }
    }
}
