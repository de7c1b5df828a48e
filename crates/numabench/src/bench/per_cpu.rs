//! Every CPU measured on its own: one pinned thread on each CPU in turn
//! (`latency --each-cpu`, `bandwidth --each-cpu`, characterize's `per-cpu`
//! steps). One CPU whose latency or bandwidth differs from the rest of its
//! node (a slow core, a misbehaving cache slice) is invisible in per-node
//! figures; here it gets a record of its own and a ratio to its node's
//! median.

use super::bandwidth::{run_bandwidth, BandwidthConfig};
use super::context::Context;
use super::error::BenchError;
use super::latency::{emit_latency, measure_latency, LatencyConfig};
use super::placed::working_set_for;
use crate::interrupt::interrupted;
use crate::kernels::{ChaseOrder, KernelSpec};
use crate::memory::MemoryPlacement;
use crate::output::{Pipeline, Placement, Record, Unit};
use crate::stats::Sample;
use crate::threads::CpuOrder;
use crate::topology::TopologyReport;
use serde_json::{json, Map, Value};

/// Machines with at most this many allowed CPUs have every one measured
/// by characterize; larger ones are sampled ([`per_cpu_sample`]).
pub const EVERY_CPU_LIMIT: usize = 32;

/// The rule on machines with at most [`EVERY_CPU_LIMIT`] allowed CPUs.
pub const RULE_EVERY_CPU: &str = "every allowed CPU (at most 32 allowed)";

/// The rule on larger machines.
pub const RULE_SAMPLED: &str =
    "first CPU of every last-level-cache domain, plus the first and last CPU of every node (tree order)";

/// The CPUs characterize measures one by one, in tree order, and the rule
/// that chose them (recorded as `params.sample_rule`): every allowed CPU
/// on machines with at most [`EVERY_CPU_LIMIT`]; on larger ones the first
/// CPU of every last-level (L3) cache domain, which covers every core
/// complex, plus the first and last CPU of every node, so each node is
/// seen at both ends of its numbering. CPUs this process may not use are
/// never picked.
pub fn per_cpu_sample(topology: &TopologyReport) -> (Vec<u32>, &'static str) {
    let order = CpuOrder::Compact;
    let allowed = order.all_allowed(topology);
    if allowed.len() <= EVERY_CPU_LIMIT {
        return (allowed, RULE_EVERY_CPU);
    }
    let mut picked: Vec<u32> = Vec::new();
    let last_level = topology
        .caches
        .iter()
        .filter(|cache| cache.cache_type != "instruction")
        .map(|cache| cache.level)
        .max();
    for cache in topology
        .caches
        .iter()
        .filter(|cache| Some(cache.level) == last_level && cache.cache_type != "instruction")
    {
        for group in &cache.cpu_groups {
            picked.extend(order.arrange(topology, group).first());
        }
    }
    for node in &topology.nodes {
        let cpus = order.arrange(topology, &node.cpus);
        picked.extend(cpus.first());
        picked.extend(cpus.last());
    }
    picked.sort_unstable();
    picked.dedup();
    (order.arrange(topology, &picked), RULE_SAMPLED)
}

/// Where one CPU's memory goes: bound to `mem_node`, or placed by the
/// CPU's own first touch on its node.
pub fn each_cpu_memory(
    topology: &TopologyReport,
    cpu: u32,
    mem_node: Option<u32>,
) -> MemoryPlacement {
    match mem_node {
        Some(node) => MemoryPlacement::bind(node),
        None => MemoryPlacement::FirstTouch {
            nodes: topology.node_of_cpu(cpu).into_iter().collect(),
        },
    }
}

/// The DRAM-sized working set of one thread on `cpu` with its memory
/// placed as [`each_cpu_memory`] places it.
pub fn each_cpu_dram_bytes(topology: &TopologyReport, cpu: u32, mem_node: Option<u32>) -> u64 {
    let nodes = each_cpu_memory(topology, cpu, mem_node).expected_nodes();
    working_set_for(topology, &[cpu], &nodes).bytes
}

/// One thread on each of `cpus` in turn: what they run and how records
/// are filed.
#[derive(Debug, Clone)]
pub struct EachCpu {
    /// The CPUs, measured in this order.
    pub cpus: Vec<u32>,
    /// Memory bound here; `None`: on each CPU's own node (first touch).
    pub mem_node: Option<u32>,
    /// Working sets; empty: each CPU's DRAM working set ([`each_cpu_dram_bytes`]).
    pub sizes: Vec<u64>,
    /// At most this many timed repetitions (characterize keeps them few).
    pub max_repeat: Option<usize>,
    /// The benchmark records are filed under.
    pub benchmark: &'static str,
    /// Extra params of every record (e.g. `sample_rule`).
    pub labels: Map<String, Value>,
}

impl EachCpu {
    /// Every record's params: the labels, `each_cpu: true`, the CPU's node
    /// and the memory node asked for (`null`: the CPU's own).
    fn params(&self, context: &Context, cpu: u32) -> Map<String, Value> {
        let mut params = self.labels.clone();
        params.insert("each_cpu".into(), json!(true));
        params.insert("cpu".into(), json!(cpu));
        params.insert("cpu_node".into(), json!(context.topology.node_of_cpu(cpu)));
        params.insert("mem_node".into(), json!(self.mem_node));
        params
    }

    fn sizes_for(&self, context: &Context, cpu: u32) -> Vec<u64> {
        if self.sizes.is_empty() {
            vec![each_cpu_dram_bytes(&context.topology, cpu, self.mem_node)]
        } else {
            self.sizes.clone()
        }
    }

    fn context(&self, context: &Context) -> Context {
        let mut context = context.clone();
        if let Some(limit) = self.max_repeat {
            context.repeat = context.repeat.min(limit).max(1);
        }
        context
    }
}

/// One measured figure of one CPU, for the node-median ratios.
#[derive(Debug, Clone, PartialEq)]
struct Figure {
    cpu: u32,
    node: Option<u32>,
    size: u64,
    kernel: &'static str,
    value: f64,
    params: Map<String, Value>,
}

/// Each figure divided by the median of the figures of the same node,
/// size and kernel (1.0 for a node measured on one CPU only).
fn node_median_ratios(figures: &[Figure]) -> Vec<f64> {
    figures
        .iter()
        .map(|figure| {
            let peers = figures.iter().filter(|other| {
                other.node == figure.node
                    && other.size == figure.size
                    && other.kernel == figure.kernel
            });
            let median = Sample::new(peers.map(|other| other.value))
                .expect("finite figures")
                .summary()
                .median;
            figure.value / median
        })
        .collect()
}

/// After every CPU is measured, one `ratio` record per CPU: its figure
/// over its node's median (`metric` e.g. `latency_vs_node_median`), with
/// the CPU's params and `deviation_from_node_median`.
fn emit_ratios(
    benchmark: &str,
    metric_of: impl Fn(&Figure) -> String,
    figures: &[Figure],
    pipeline: &mut Pipeline,
) -> Result<(), BenchError> {
    for (figure, ratio) in figures.iter().zip(node_median_ratios(figures)) {
        let mut params = figure.params.clone();
        params.insert("deviation_from_node_median".into(), json!(ratio - 1.0));
        pipeline.emit(&Record {
            benchmark: benchmark.into(),
            metric: metric_of(figure),
            value: ratio,
            unit: Unit::Ratio,
            params,
            placement: Placement::default(),
            stats: Sample::new([ratio]).expect("finite ratio").summary(),
        })?;
    }
    Ok(())
}

/// Latency from each CPU in turn (one `latency` record per CPU and size,
/// flushed as measured), then each CPU's `latency_vs_node_median`.
pub fn run_latency_each_cpu(
    context: &Context,
    each: &EachCpu,
    order: ChaseOrder,
    pipeline: &mut Pipeline,
) -> Result<(), BenchError> {
    let context = each.context(context);
    let mut figures = Vec::new();
    for &cpu in &each.cpus {
        let labels = each.params(&context, cpu);
        for size in each.sizes_for(&context, cpu) {
            if interrupted() {
                return Ok(());
            }
            let config = LatencyConfig {
                sizes: vec![size],
                cpu,
                memory: each_cpu_memory(&context.topology, cpu, each.mem_node),
                order,
            };
            let measured = measure_latency(&context, &config, size)?;
            let median = emit_latency(
                &context,
                &config,
                size,
                &measured,
                each.benchmark,
                &labels,
                pipeline,
            )?;
            if let Some(value) = median {
                let mut params = labels.clone();
                params.insert("size_bytes".into(), json!(size));
                figures.push(Figure {
                    cpu,
                    node: context.topology.node_of_cpu(cpu),
                    size,
                    kernel: "chase",
                    value,
                    params,
                });
            }
        }
    }
    emit_ratios(
        each.benchmark,
        |_| "latency_vs_node_median".into(),
        &figures,
        pipeline,
    )
}

/// Bandwidth of each kernel from each CPU in turn, one thread (one record
/// per CPU, size and kernel, flushed as measured), then each CPU's
/// `<kernel>_bandwidth_vs_node_median`.
pub fn run_bandwidth_each_cpu(
    context: &Context,
    each: &EachCpu,
    kernels: &[&'static KernelSpec],
    pipeline: &mut Pipeline,
) -> Result<(), BenchError> {
    let context = each.context(context);
    let mut figures = Vec::new();
    for &cpu in &each.cpus {
        let labels = each.params(&context, cpu);
        for size in each.sizes_for(&context, cpu) {
            for &kernel in kernels {
                if interrupted() {
                    return Ok(());
                }
                let memory = each_cpu_memory(&context.topology, cpu, each.mem_node);
                let config = BandwidthConfig::new(kernel, vec![cpu], size, memory)
                    .labelled(each.benchmark, labels.clone());
                let result = run_bandwidth(&context, &config, pipeline)?;
                let mut params = labels.clone();
                params.insert("size_bytes".into(), json!(size));
                params.insert("kernel".into(), json!(kernel.name));
                figures.push(Figure {
                    cpu,
                    node: context.topology.node_of_cpu(cpu),
                    size,
                    kernel: kernel.name,
                    value: result.gigabytes_per_second.max(),
                    params,
                });
            }
        }
    }
    emit_ratios(
        each.benchmark,
        |figure| format!("{}_bandwidth_vs_node_median", figure.kernel),
        &figures,
        pipeline,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figure(cpu: u32, node: u32, value: f64) -> Figure {
        Figure {
            cpu,
            node: Some(node),
            size: 1 << 30,
            kernel: "chase",
            value,
            params: Map::new(),
        }
    }

    /// A slow CPU stands out against its own node's median, not against
    /// the other node's.
    #[test]
    fn ratios_are_to_the_median_of_the_cpus_own_node() {
        let figures = [
            figure(0, 0, 100.0),
            figure(1, 0, 100.0),
            figure(2, 0, 150.0),
            figure(3, 1, 200.0),
        ];
        let ratios = node_median_ratios(&figures);
        assert_eq!(ratios, vec![1.0, 1.0, 1.5, 1.0]);
    }
}
