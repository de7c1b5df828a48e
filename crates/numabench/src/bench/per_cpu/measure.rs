//! Every CPU measured on its own: one pinned thread on each CPU in turn
//! (`latency --each-cpu`, `bandwidth --each-cpu`, characterize's `per-cpu`
//! steps). One CPU whose latency or bandwidth differs from the rest of its
//! node (a slow core, a misbehaving cache slice) is invisible in per-node
//! figures; here it gets a record of its own and a ratio to its node's
//! median.

use crate::bench::bandwidth::{run_bandwidth, BandwidthConfig};
use crate::bench::context::Context;
use crate::bench::error::BenchError;
use crate::bench::latency::{emit_latency, measure_latency, LatencyConfig};
use crate::bench::placed::working_set_for;
use crate::interrupt::interrupted;
use crate::kernels::{ChaseOrder, KernelSpec};
use crate::memory::MemoryPlacement;
use crate::output::{Pipeline, Placement, Record, Unit};
use crate::stats::Sample;
use crate::threads::CpuOrder;
use crate::topology::Machine;
use numabench_schema::params::{
    to_labelled_params, EachCpuFigureParams, EachCpuParams, NodeMedianDeviation, NODE_MEDIAN_SUFFIX,
};
use serde_json::{Map, Value};

/// The order characterize's per-CPU sample is measured in: tree order.
pub const PER_CPU_ORDER: CpuOrder = CpuOrder::Compact;

/// The rule characterize's per-CPU steps start from: every allowed CPU.
pub const RULE_EVERY_CPU: &str = "every allowed CPU";

/// The CPUs characterize measures one by one, in tree order, and the rule
/// that chose them (recorded as `params.sample_rule`): every allowed CPU,
/// so a slow CPU is found wherever it is. On a large machine the time
/// budget halves each node's share (spread evenly, at least two per node)
/// and the plan says which CPUs a slow one would hide among; `--budget`
/// buys them back. CPUs this process may not use are never picked.
pub fn per_cpu_sample(topology: &Machine) -> (Vec<u32>, &'static str) {
    (PER_CPU_ORDER.all_allowed(topology), RULE_EVERY_CPU)
}

/// Where one CPU's memory goes: bound to `mem_node`, or placed by the
/// CPU's own first touch on its node.
pub fn each_cpu_memory(topology: &Machine, cpu: u32, mem_node: Option<u32>) -> MemoryPlacement {
    match mem_node {
        Some(node) => MemoryPlacement::bind(node),
        None => MemoryPlacement::FirstTouch {
            nodes: topology.node_of_cpu(cpu).into_iter().collect(),
        },
    }
}

/// The DRAM-sized working set of one thread on `cpu` with its memory
/// placed as [`each_cpu_memory`] places it.
pub fn each_cpu_dram_bytes(topology: &Machine, cpu: u32, mem_node: Option<u32>) -> u64 {
    let nodes = each_cpu_memory(topology, cpu, mem_node).expected_nodes();
    working_set_for(topology, &[cpu], &nodes).bytes
}

/// What one thread on each CPU measures: latency (chased in an order), or
/// the bandwidth of each of some kernels.
#[derive(Debug, Clone)]
pub enum PerCpuMeasure {
    Latency(ChaseOrder),
    Bandwidth(Vec<&'static KernelSpec>),
}

/// One thread on each of `cpus` in turn: what they run and how records
/// are filed. [`EachCpu::steps`] makes one [`OneCpu`] per CPU: the plan
/// shows each, the run measures each.
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

/// One CPU's share of an [`EachCpu`] run: its sizes resolved, its
/// records' params; the last CPU of the run also emits every CPU's ratio
/// to its node's median.
#[derive(Debug, Clone)]
pub struct OneCpu {
    pub cpu: u32,
    pub mem_node: Option<u32>,
    /// The working sets measured, in order (the CPU's own DRAM working
    /// set unless sizes were given).
    pub sizes: Vec<u64>,
    pub max_repeat: Option<usize>,
    pub benchmark: &'static str,
    /// Every record's params: the run's labels, `each_cpu: true`, `cpu`,
    /// `cpu_node` and `mem_node` (`null`: the CPU's own).
    pub labels: Map<String, Value>,
    pub measure: PerCpuMeasure,
    /// After measuring, emit the node-median ratios of every CPU of the run.
    pub last: bool,
}

impl EachCpu {
    /// One [`OneCpu`] per CPU, in order, measuring `measure`.
    pub fn split(&self, topology: &Machine, measure: &PerCpuMeasure) -> Vec<OneCpu> {
        let count = self.cpus.len();
        self.cpus
            .iter()
            .enumerate()
            .map(|(index, &cpu)| {
                let each = EachCpuParams {
                    sample_rule: None,
                    each_cpu: Some(true),
                    cpu: Some(cpu),
                    cpu_node: topology.node_of_cpu(cpu),
                    mem_node: self.mem_node,
                };
                let labels = to_labelled_params(&self.labels, &each);
                OneCpu {
                    cpu,
                    mem_node: self.mem_node,
                    sizes: if self.sizes.is_empty() {
                        vec![each_cpu_dram_bytes(topology, cpu, self.mem_node)]
                    } else {
                        self.sizes.clone()
                    },
                    max_repeat: self.max_repeat,
                    benchmark: self.benchmark,
                    labels,
                    measure: measure.clone(),
                    last: index + 1 == count,
                }
            })
            .collect()
    }
}

impl OneCpu {
    /// The repetitions this CPU's measurements make in `context`.
    pub fn repeat(&self, context: &Context) -> usize {
        match self.max_repeat {
            Some(limit) => context.repeat.min(limit).max(1),
            None => context.repeat,
        }
    }

    /// Where this CPU's memory goes ([`each_cpu_memory`]).
    pub fn memory(&self, topology: &Machine) -> MemoryPlacement {
        each_cpu_memory(topology, self.cpu, self.mem_node)
    }
}

/// One measured figure of one CPU, for the node-median ratios.
#[derive(Debug, Clone, PartialEq)]
pub(in crate::bench) struct Figure {
    cpu: u32,
    node: Option<u32>,
    size: u64,
    /// `chase` for latency, else the bandwidth kernel.
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
/// over its node's median (`latency_vs_node_median`, or
/// `<kernel>_bandwidth_vs_node_median`), with the CPU's params and
/// `deviation_from_node_median`.
pub(in crate::bench) fn emit_node_median_ratios(
    benchmark: &str,
    figures: &[Figure],
    pipeline: &mut Pipeline,
) -> Result<(), BenchError> {
    for (figure, ratio) in figures.iter().zip(node_median_ratios(figures)) {
        let deviation = NodeMedianDeviation {
            deviation_from_node_median: Some(ratio - 1.0),
        };
        let params = to_labelled_params(&figure.params, &deviation);
        let metric = match figure.kernel {
            "chase" => format!("latency{NODE_MEDIAN_SUFFIX}"),
            kernel => format!("{kernel}_bandwidth{NODE_MEDIAN_SUFFIX}"),
        };
        pipeline.emit(&Record {
            benchmark: benchmark.into(),
            metric,
            value: ratio,
            unit: Unit::Ratio,
            params,
            placement: Placement::default(),
            stats: Sample::new([ratio]).expect("finite ratio").summary(),
        })?;
    }
    Ok(())
}

/// Measures one CPU: latency of each size, or bandwidth of each size and
/// kernel, one pinned thread, each record flushed as measured. Returns
/// the figures for the node-median ratios.
pub(in crate::bench) fn measure_one_cpu(
    context: &Context,
    one: &OneCpu,
    pipeline: &mut Pipeline,
) -> Result<Vec<Figure>, BenchError> {
    let mut context = context.clone();
    context.repeat = one.repeat(&context);
    let context = &context;
    let cpu = one.cpu;
    let node = context.topology.node_of_cpu(cpu);
    let mut figures = Vec::new();
    for &size in &one.sizes {
        let figure_params = |kernel: Option<&str>| {
            let figure = EachCpuFigureParams {
                size_bytes: Some(size),
                kernel: kernel.map(str::to_string),
            };
            to_labelled_params(&one.labels, &figure)
        };
        match &one.measure {
            PerCpuMeasure::Latency(order) => {
                if interrupted() {
                    break;
                }
                let config = LatencyConfig {
                    sizes: vec![size],
                    cpu,
                    memory: one.memory(&context.topology),
                    order: *order,
                    writer_cpu: None,
                };
                let measured = measure_latency(context, &config, size)?;
                let median = emit_latency(
                    context,
                    &config,
                    size,
                    &measured,
                    one.benchmark,
                    &one.labels,
                    pipeline,
                )?;
                if let Some(value) = median {
                    figures.push(Figure {
                        cpu,
                        node,
                        size,
                        kernel: "chase",
                        value,
                        params: figure_params(None),
                    });
                }
            }
            PerCpuMeasure::Bandwidth(kernels) => {
                for &kernel in kernels {
                    if interrupted() {
                        return Ok(figures);
                    }
                    let config = BandwidthConfig::new(
                        kernel,
                        vec![cpu],
                        size,
                        one.memory(&context.topology),
                    )
                    .labelled(one.benchmark, one.labels.clone());
                    let result = run_bandwidth(context, &config, pipeline)?;
                    figures.push(Figure {
                        cpu,
                        node,
                        size,
                        kernel: kernel.name,
                        value: result.gigabytes_per_second.max(),
                        params: figure_params(Some(kernel.name)),
                    });
                }
            }
        }
    }
    Ok(figures)
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
