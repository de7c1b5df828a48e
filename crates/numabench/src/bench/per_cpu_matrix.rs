//! `matrix latency --per-cpu` and `matrix bandwidth --per-cpu`: one thread
//! on every allowed CPU in turn (rows) with memory bound on every memory
//! node (columns, CPU-less ones included), so a CPU that differs from its
//! node shows in its own row.

use super::bandwidth::{run_bandwidth, BandwidthConfig};
use super::context::Context;
use super::error::BenchError;
use super::latency::{emit_latency, measure_latency, LatencyConfig};
use super::matrix::MATRIX_ORDER;
use super::placed::memory_nodes;
use crate::interrupt::interrupted;
use crate::kernels::{kernel_by_name, ChaseOrder};
use crate::memory::MemoryPlacement;
use crate::output::Pipeline;
use serde_json::{json, Map, Value};

/// Rows are CPUs, columns memory nodes; `None` where not measured.
#[derive(Debug, Clone, PartialEq)]
pub struct CpuMatrix {
    pub cpus: Vec<u32>,
    pub memory_nodes: Vec<u32>,
    pub values: Vec<Vec<Option<f64>>>,
    pub unit: &'static str,
}

impl CpuMatrix {
    /// Every allowed CPU in [`MATRIX_ORDER`] against every memory node.
    pub fn new(context: &Context, unit: &'static str) -> Self {
        let cpus = MATRIX_ORDER.all_allowed(&context.topology);
        let memory_nodes = memory_nodes(&context.topology);
        let values = vec![vec![None; memory_nodes.len()]; cpus.len()];
        Self {
            cpus,
            memory_nodes,
            values,
            unit,
        }
    }

    /// The matrix as text: CPUs down, memory nodes across.
    pub fn render(&self, title: &str) -> String {
        let mut out = format!("{title} ({}), CPU down, memory node across:\n", self.unit);
        out.push_str(&format!("{:>8}", "cpu\\mem"));
        for node in &self.memory_nodes {
            out.push_str(&format!("{node:>10}"));
        }
        out.push('\n');
        for (row, cpu) in self.values.iter().zip(&self.cpus) {
            out.push_str(&format!("{cpu:>8}"));
            for value in row {
                let cell = value.map_or("-".to_string(), crate::units::format_value);
                out.push_str(&format!("{cell:>10}"));
            }
            out.push('\n');
        }
        out
    }
}

fn labels(context: &Context, cpu: u32, memory_node: u32) -> Map<String, Value> {
    let mut labels = Map::new();
    labels.insert("per_cpu".into(), json!(true));
    labels.insert("cpu".into(), json!(cpu));
    labels.insert("cpu_node".into(), json!(context.topology.node_of_cpu(cpu)));
    labels.insert("mem_node".into(), json!(memory_node));
    labels.insert("cpu_order".into(), json!(MATRIX_ORDER.name()));
    labels
}

/// Idle latency from every allowed CPU to memory bound on every memory
/// node, working set `size`; records `matrix-latency` with `per_cpu: true`.
pub fn run_latency_matrix_per_cpu(
    context: &Context,
    size: u64,
    pipeline: &mut Pipeline,
) -> Result<CpuMatrix, BenchError> {
    let mut matrix = CpuMatrix::new(context, "ns");
    for (row, &cpu) in matrix.cpus.clone().iter().enumerate() {
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
            matrix.values[row][column] = emit_latency(
                context,
                &config,
                size,
                &measured,
                "matrix-latency",
                &labels(context, cpu, memory_node),
                pipeline,
            )?;
        }
    }
    Ok(matrix)
}

/// Read bandwidth of one thread on every allowed CPU from memory bound on
/// every memory node; records `matrix-bandwidth` with `per_cpu: true`.
pub fn run_bandwidth_matrix_per_cpu(
    context: &Context,
    size: u64,
    pipeline: &mut Pipeline,
) -> Result<CpuMatrix, BenchError> {
    let read = kernel_by_name("read").expect("read kernel is registered");
    let mut matrix = CpuMatrix::new(context, "GB/s");
    for (row, &cpu) in matrix.cpus.clone().iter().enumerate() {
        for (column, &memory_node) in matrix.memory_nodes.clone().iter().enumerate() {
            if interrupted() {
                return Ok(matrix);
            }
            let mut labels = labels(context, cpu, memory_node);
            labels.insert("mode".into(), json!("serial"));
            let config =
                BandwidthConfig::new(read, vec![cpu], size, MemoryPlacement::bind(memory_node))
                    .labelled("matrix-bandwidth", labels);
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

    /// Rows are every allowed CPU in tree order, columns every memory
    /// node; nothing is measured when building the grid.
    #[test]
    fn rows_are_every_allowed_cpu_in_tree_order() {
        let context = Context::new(smt_server(2, 2, 2));
        let matrix = CpuMatrix::new(&context, "ns");
        assert_eq!(matrix.cpus, MATRIX_ORDER.all_allowed(&context.topology));
        assert_eq!(matrix.cpus.len(), context.topology.allowed.cpus.len());
        assert_eq!(matrix.memory_nodes, memory_nodes(&context.topology));
        let text = matrix.render("Idle latency");
        assert_eq!(text.lines().count(), 2 + matrix.cpus.len());
    }
}
