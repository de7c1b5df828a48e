//! `characterize`: the whole machine in one run — every selected benchmark
//! with defaults derived from the topology, sized so a 2-core machine takes
//! about a minute and larger servers grow with their node and core counts.

use super::bandwidth::{run_bandwidth, BandwidthConfig};
use super::c2c::run_c2c;
use super::contention::run_contention;
use super::context::Context;
use super::error::BenchError;
use super::latency::{run_latency, LatencyConfig};
use super::loaded_latency::{run_loaded_latency, LoadedLatencyConfig, TrafficMix};
use super::matrix::{run_bandwidth_matrix, run_latency_matrix, MatrixMode};
use super::mlp::{run_mlp, MlpConfig};
use super::placed::{cpu_nodes, dram_working_set, memory_nodes};
use super::registry::BenchmarkInfo;
use super::scaling::run_scaling;
use crate::kernels::{kernel_by_name, ChaseOrder, KERNELS};
use crate::memory::MemoryPlacement;
use crate::output::Pipeline;
use crate::topology::TopologyReport;

/// One unit of work of a characterization, for progress display.
#[derive(Debug, Clone)]
pub struct Step {
    pub benchmark: &'static str,
    /// What this step measures, e.g. `latency 64 KiB`.
    pub label: String,
    work: Work,
}

#[derive(Debug, Clone)]
enum Work {
    Latency(LatencyConfig),
    LatencyMatrix(u64),
    BandwidthMatrix(MatrixMode, u64),
    Bandwidth(BandwidthConfig),
    Contention {
        cpus: Vec<u32>,
        node: u32,
        size: u64,
    },
    Scaling {
        node: u32,
        size: u64,
    },
    LoadedLatency(LoadedLatencyConfig),
    Mlp {
        cpu: u32,
        node: u32,
        size: u64,
    },
    C2c,
}

/// Latency sizes for characterize: x4 steps from half the L1 to the DRAM
/// working set.
fn latency_sizes(topology: &TopologyReport, dram: u64) -> Vec<u64> {
    let l1 = topology
        .caches
        .iter()
        .find(|cache| cache.level == 1 && cache.cache_type != "instruction")
        .map_or(32 << 10, |cache| cache.size_bytes);
    let mut sizes = Vec::new();
    let mut size = (l1 / 2).next_power_of_two().max(4096);
    while size < dram {
        sizes.push(size);
        size *= 4;
    }
    sizes.push(dram);
    sizes
}

/// The steps of a characterization of the selected benchmarks.
pub fn characterize_plan(context: &Context, selected: &[&BenchmarkInfo]) -> Vec<Step> {
    let topology = &context.topology;
    let memory = memory_nodes(topology);
    let cpu_node_list = cpu_nodes(topology);
    let dram = dram_working_set(topology, &memory);
    let first_cpu = topology.allowed.cpus[0];
    let first_node = topology.node_of_cpu(first_cpu).unwrap_or(0);
    let all_cpus = topology.allowed.cpus.clone();
    let mut steps = Vec::new();
    let mut push = |benchmark: &'static str, label: String, work: Work| {
        steps.push(Step {
            benchmark,
            label,
            work,
        })
    };
    for info in selected {
        match info.name {
            "latency" => {
                for size in latency_sizes(topology, dram) {
                    let config = LatencyConfig {
                        sizes: vec![size],
                        cpu: first_cpu,
                        memory: MemoryPlacement::Bind(first_node),
                        order: ChaseOrder::default(),
                    };
                    push(
                        "latency",
                        format!("latency {}", crate::units::format_bytes(size)),
                        Work::Latency(config),
                    );
                }
            }
            "matrix-latency" => push(
                "matrix-latency",
                format!("latency matrix {}x{}", cpu_node_list.len(), memory.len()),
                Work::LatencyMatrix(dram),
            ),
            "matrix-bandwidth" => {
                for mode in [MatrixMode::Serial, MatrixMode::Parallel] {
                    push(
                        "matrix-bandwidth",
                        format!("bandwidth matrix ({})", mode.name()),
                        Work::BandwidthMatrix(mode, dram),
                    );
                }
            }
            "bandwidth" => {
                for kernel in KERNELS {
                    let nodes: Vec<u32> = {
                        let mut nodes: Vec<u32> = all_cpus
                            .iter()
                            .filter_map(|&cpu| topology.node_of_cpu(cpu))
                            .collect();
                        nodes.sort_unstable();
                        nodes.dedup();
                        nodes
                    };
                    let config = BandwidthConfig::new(
                        kernel,
                        all_cpus.clone(),
                        dram,
                        MemoryPlacement::FirstTouch { nodes },
                    );
                    push(
                        "bandwidth",
                        format!("bandwidth {} x{}", kernel.name, all_cpus.len()),
                        Work::Bandwidth(config),
                    );
                }
            }
            "contention" => push(
                "contention",
                format!("contention on node {first_node}"),
                Work::Contention {
                    cpus: all_cpus.clone(),
                    node: first_node,
                    size: dram,
                },
            ),
            "scaling" => push(
                "scaling",
                format!("scaling of node {first_node}"),
                Work::Scaling {
                    node: first_node,
                    size: dram,
                },
            ),
            "loaded-latency" => {
                let generators: Vec<u32> = all_cpus
                    .iter()
                    .copied()
                    .filter(|&cpu| cpu != first_cpu)
                    .collect();
                let config = LoadedLatencyConfig {
                    chaser_cpu: first_cpu,
                    generator_cpus: generators,
                    memory: MemoryPlacement::Bind(first_node),
                    size: dram.min(256 << 20),
                    delays: vec![1000, 250, 60, 0],
                    mix: TrafficMix::AllReads,
                };
                push(
                    "loaded-latency",
                    "loaded latency".to_string(),
                    Work::LoadedLatency(config),
                );
            }
            "mlp" => push(
                "mlp",
                "memory-level parallelism".to_string(),
                Work::Mlp {
                    cpu: first_cpu,
                    node: first_node,
                    size: dram,
                },
            ),
            "c2c" => push("c2c", "cache-to-cache latency".to_string(), Work::C2c),
            _ => {}
        }
    }
    steps
}

/// Runs one step, emitting its records.
pub fn run_step(context: &Context, step: &Step, pipeline: &mut Pipeline) -> Result<(), BenchError> {
    match &step.work {
        Work::Latency(config) => run_latency(context, config, pipeline),
        Work::LatencyMatrix(size) => run_latency_matrix(context, *size, pipeline).map(drop),
        Work::BandwidthMatrix(mode, size) => {
            run_bandwidth_matrix(context, *mode, *size, pipeline).map(drop)
        }
        Work::Bandwidth(config) => run_bandwidth(context, config, pipeline).map(drop),
        Work::Contention { cpus, node, size } => {
            run_contention(context, cpus, *node, *size, pipeline).map(drop)
        }
        Work::Scaling { node, size } => {
            let read = kernel_by_name("read").expect("read kernel is registered");
            run_scaling(context, read, *node, *size, pipeline).map(drop)
        }
        Work::LoadedLatency(config) => run_loaded_latency(context, config, pipeline).map(drop),
        Work::Mlp { cpu, node, size } => {
            let config = MlpConfig {
                cpu: *cpu,
                memory: MemoryPlacement::Bind(*node),
                size: *size,
                order: ChaseOrder::default(),
            };
            run_mlp(context, &config, pipeline)
        }
        Work::C2c => run_c2c(context, pipeline).map(drop),
    }
}
