//! `--plan`: what a run would do, read off the very steps the run executes
//! (one code path builds both), with a rough duration estimate. Nothing is
//! allocated, pinned or measured, so a plan can be made for a topology that
//! is not this machine's (`--topology FILE`).

use super::c2c::c2c_pairs;
use super::characterize::{Step, Work};
use super::context::Context;
use super::estimate::{
    estimate, Cost, ASSUMED_APP_PASSES, ASSUMED_SETUP_BYTES_PER_SECOND,
    ASSUMED_THREAD_BYTES_PER_SECOND,
};
use super::matrix::{matrix_cpus, MatrixMode, MATRIX_ORDER};
use super::mlp::MAX_CHAINS;
use super::per_cpu::{each_cpu_dram_bytes, each_cpu_memory};
use super::placed::{cpu_nodes, memory_nodes, CACHE_MULTIPLE};
use super::scaling::{reader_nodes, scaling_cpus, SCALING_ORDER};
use crate::threads::CpuOrder;
use crate::topology::TopologyReport;
use serde::Serialize;

/// The facts of one step of a plan, as `--plan` prints them
/// (schema in docs/plan.md).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlanStep {
    /// The benchmark whose records the step emits.
    pub benchmark: &'static str,
    /// What the step measures, e.g. `latency 64 KiB`.
    pub label: String,
    /// Most threads measuring at once.
    pub threads: usize,
    /// Every CPU a thread of the step is pinned to, in the order taken.
    pub cpus: Vec<u32>,
    /// The order the CPUs were taken in (`compact`, `cores-first`, ...),
    /// where the step chose them from the topology.
    pub cpu_order: Option<&'static str>,
    /// The nodes the step's memory is placed on (targets, in turn or together).
    pub mem_nodes: Vec<u32>,
    /// Bytes of the working set (the largest, where a step measures several).
    pub size_bytes: u64,
    /// Every working-set size measured, in order.
    pub sizes: Vec<u64>,
    /// Capacity of every distinct cache on the path from `cpus` to
    /// `mem_nodes` (CPU caches and memory-side caches in front).
    pub cache_bytes_in_front: u64,
    /// `size_bytes` is below 4x `cache_bytes_in_front`: caches hold part
    /// of the working set, so the figure is partly a cache's.
    pub cache_affected: bool,
    /// Timed repetitions of each measurement (after one warm-up).
    pub repeat: usize,
    /// Measurements the step makes (matrix cells, scaling points, sizes...).
    pub measurements: usize,
    /// Estimated duration, seconds (see [`super::estimate`] and docs/plan.md).
    pub estimated_seconds: f64,
}

/// The facts of a step before the cache and estimate fields are filled in.
struct Facts {
    threads: usize,
    cpus: Vec<u32>,
    cpu_order: Option<&'static str>,
    mem_nodes: Vec<u32>,
    sizes: Vec<u64>,
    costs: Vec<Cost>,
}

/// Every CPU of `nodes`' measuring CPUs, concatenated.
fn concat<E>(lists: impl Iterator<Item = Result<Vec<u32>, E>>) -> Vec<u32> {
    lists.filter_map(Result::ok).flatten().collect()
}

/// The CPU order a bandwidth step's labels name, if any.
fn labelled_order(labels: &serde_json::Map<String, serde_json::Value>) -> Option<&'static str> {
    let name = labels.get("cpu_order")?.as_str()?;
    [CpuOrder::Compact, CpuOrder::CoresFirst, CpuOrder::Scatter]
        .into_iter()
        .map(CpuOrder::name)
        .find(|known| *known == name)
}

fn facts(topology: &TopologyReport, work: &Work) -> Facts {
    match work {
        Work::EachCpuLatency(each) | Work::EachCpuRead(each) => {
            let sizes: Vec<u64> = if each.sizes.is_empty() {
                each.cpus
                    .iter()
                    .map(|&cpu| each_cpu_dram_bytes(topology, cpu, each.mem_node))
                    .collect()
            } else {
                each.sizes.clone()
            };
            let mut mem_nodes: Vec<u32> = each
                .cpus
                .iter()
                .flat_map(|&cpu| each_cpu_memory(topology, cpu, each.mem_node).expected_nodes())
                .collect();
            mem_nodes.sort_unstable();
            mem_nodes.dedup();
            let per_cpu_sizes: Vec<u64> = if each.sizes.is_empty() {
                sizes.clone()
            } else {
                each.cpus
                    .iter()
                    .flat_map(|_| each.sizes.iter().copied())
                    .collect()
            };
            let costs = per_cpu_sizes
                .iter()
                .map(|&bytes| match work {
                    Work::EachCpuRead(_) => Cost::Stream {
                        bytes,
                        threads: 1,
                        count: 1,
                    },
                    _ => Cost::Chase { bytes, count: 1 },
                })
                .collect();
            let mut distinct = sizes;
            distinct.sort_unstable();
            distinct.dedup();
            Facts {
                threads: 1,
                cpus: each.cpus.clone(),
                cpu_order: Some(CpuOrder::Compact.name()),
                mem_nodes,
                sizes: distinct,
                costs,
            }
        }
        Work::Latency(config) => Facts {
            threads: 1,
            cpus: vec![config.cpu],
            cpu_order: None,
            mem_nodes: config.memory.expected_nodes(),
            sizes: config.sizes.clone(),
            costs: config
                .sizes
                .iter()
                .map(|&bytes| Cost::Chase { bytes, count: 1 })
                .collect(),
        },
        Work::LatencyMatrix(size) => {
            let mem_nodes = memory_nodes(topology);
            let cpus = concat(
                cpu_nodes(topology)
                    .into_iter()
                    .map(|node| matrix_cpus(topology, node, MatrixMode::Serial)),
            );
            let count = cpus.len() * mem_nodes.len();
            Facts {
                threads: 1,
                cpus,
                cpu_order: Some(MATRIX_ORDER.name()),
                mem_nodes,
                sizes: vec![*size],
                costs: vec![Cost::Chase {
                    bytes: *size,
                    count,
                }],
            }
        }
        Work::BandwidthMatrix(mode, size) => {
            let mem_nodes = memory_nodes(topology);
            let per_node: Vec<Vec<u32>> = cpu_nodes(topology)
                .into_iter()
                .filter_map(|node| matrix_cpus(topology, node, *mode).ok())
                .collect();
            let costs = per_node
                .iter()
                .map(|cpus| Cost::Stream {
                    bytes: *size,
                    threads: cpus.len(),
                    count: mem_nodes.len(),
                })
                .collect();
            Facts {
                threads: per_node.iter().map(Vec::len).max().unwrap_or(0),
                cpus: per_node.concat(),
                cpu_order: Some(MATRIX_ORDER.name()),
                mem_nodes,
                sizes: vec![*size],
                costs,
            }
        }
        Work::Bandwidth(config) => Facts {
            threads: config.cpus.len(),
            cpus: config.cpus.clone(),
            cpu_order: labelled_order(&config.labels),
            mem_nodes: config.memory.expected_nodes(),
            sizes: vec![config.size],
            costs: vec![Cost::Stream {
                bytes: config.size,
                threads: config.cpus.len(),
                count: 1,
            }],
        },
        Work::Contention { cpus, node, size } => {
            let mut mem_nodes: Vec<u32> = cpus
                .iter()
                .filter_map(|&cpu| topology.node_of_cpu(cpu))
                .chain([*node])
                .collect();
            mem_nodes.sort_unstable();
            mem_nodes.dedup();
            let alone = Cost::Stream {
                bytes: *size,
                threads: 1,
                count: cpus.len(),
            };
            let together = Cost::Stream {
                bytes: *size,
                threads: cpus.len(),
                count: 2,
            };
            Facts {
                threads: cpus.len(),
                cpus: cpus.clone(),
                cpu_order: None,
                mem_nodes,
                sizes: vec![*size],
                costs: vec![alone, together],
            }
        }
        Work::Scaling { node, size, .. } => {
            let per_node: Vec<Vec<u32>> = reader_nodes(topology, *node)
                .into_iter()
                .filter_map(|reader| scaling_cpus(topology, reader).ok())
                .collect();
            let costs = per_node
                .iter()
                .flat_map(|cpus| {
                    (1..=cpus.len()).map(|threads| Cost::Stream {
                        bytes: *size,
                        threads,
                        count: 1,
                    })
                })
                .collect();
            Facts {
                threads: per_node.iter().map(Vec::len).max().unwrap_or(0),
                cpus: per_node.concat(),
                cpu_order: Some(SCALING_ORDER.name()),
                mem_nodes: vec![*node],
                sizes: vec![*size],
                costs,
            }
        }
        Work::LoadedLatency(config) => {
            let mut cpus = vec![config.chaser_cpu];
            cpus.extend(&config.generator_cpus);
            let generators = config.generator_cpus.len() as u64;
            Facts {
                threads: cpus.len(),
                cpus,
                cpu_order: None,
                mem_nodes: config.memory.expected_nodes(),
                sizes: vec![config.size],
                // The chase at idle and at every delay; the generators' buffers built once.
                costs: vec![
                    Cost::Chase {
                        bytes: config.size,
                        count: 1 + config.delays.len(),
                    },
                    Cost::Setup {
                        bytes: config.size * generators,
                    },
                ],
            }
        }
        Work::Mlp(config) => Facts {
            threads: 1,
            cpus: vec![config.cpu],
            cpu_order: None,
            mem_nodes: config.memory.expected_nodes(),
            sizes: vec![config.size],
            costs: vec![Cost::Chase {
                bytes: config.size,
                count: MAX_CHAINS,
            }],
        },
        Work::C2c => {
            let pairs = c2c_pairs(topology);
            let mut cpus: Vec<u32> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
            cpus.sort_unstable();
            cpus.dedup();
            Facts {
                threads: 2,
                cpus,
                cpu_order: None,
                mem_nodes: Vec::new(),
                sizes: vec![64],
                costs: vec![Cost::PingPong { pairs: pairs.len() }],
            }
        }
    }
}

impl Step {
    /// What this step would do on `context`'s topology, and how long it is
    /// estimated to take. Allocates and measures nothing.
    pub fn plan(&self, context: &Context) -> PlanStep {
        let topology = &context.topology;
        let facts = facts(topology, &self.work);
        let size_bytes = facts.sizes.iter().copied().max().unwrap_or(0);
        let cache_bytes_in_front = topology.cache_bytes_in_front(&facts.cpus, &facts.mem_nodes);
        let measurements = facts
            .costs
            .iter()
            .map(|cost| match cost {
                Cost::Chase { count, .. } | Cost::Stream { count, .. } => *count,
                Cost::PingPong { pairs } => *pairs,
                Cost::Setup { .. } => 0,
            })
            .sum();
        PlanStep {
            benchmark: self.benchmark,
            label: self.label.clone(),
            threads: facts.threads,
            cpus: facts.cpus,
            cpu_order: facts.cpu_order,
            cache_affected: !facts.mem_nodes.is_empty()
                && size_bytes < CACHE_MULTIPLE.saturating_mul(cache_bytes_in_front),
            mem_nodes: facts.mem_nodes,
            size_bytes,
            sizes: facts.sizes,
            cache_bytes_in_front,
            repeat: context.repeat,
            measurements,
            estimated_seconds: facts
                .costs
                .iter()
                .map(|&cost| estimate(cost, context.repeat))
                .sum(),
        }
    }
}

/// The plan of an application run (`stream`, `cg`, `mg`): `repeat` runs of
/// `threads` workers on `cpus` (empty: unpinned) over `bytes` of arrays
/// placed on `mem_nodes`. Each run is estimated as building its arrays at
/// [`ASSUMED_SETUP_BYTES_PER_SECOND`] plus [`ASSUMED_APP_PASSES`] passes
/// over them at [`ASSUMED_THREAD_BYTES_PER_SECOND`] per thread.
#[allow(clippy::too_many_arguments)]
pub fn app_plan_step(
    topology: &TopologyReport,
    benchmark: &'static str,
    label: String,
    threads: usize,
    cpus: Vec<u32>,
    cpu_order: Option<CpuOrder>,
    mem_nodes: Vec<u32>,
    bytes: u64,
    repeat: usize,
) -> PlanStep {
    // Unpinned workers may run on any allowed CPU.
    let cache_cpus = if cpus.is_empty() {
        &topology.allowed.cpus
    } else {
        &cpus
    };
    let cache_bytes_in_front = topology.cache_bytes_in_front(cache_cpus, &mem_nodes);
    let setup = bytes as f64 / ASSUMED_SETUP_BYTES_PER_SECOND;
    let passes = ASSUMED_APP_PASSES * bytes as f64
        / (threads.max(1) as f64 * ASSUMED_THREAD_BYTES_PER_SECOND);
    PlanStep {
        benchmark,
        label,
        threads,
        cpus,
        cpu_order: cpu_order.map(CpuOrder::name),
        cache_affected: bytes < CACHE_MULTIPLE.saturating_mul(cache_bytes_in_front),
        mem_nodes,
        size_bytes: bytes,
        sizes: vec![bytes],
        cache_bytes_in_front,
        repeat,
        measurements: 1,
        estimated_seconds: repeat as f64 * (setup + passes),
    }
}

/// The plan of `steps` on `context`, step by step.
pub fn plan_of(context: &Context, steps: &[Step]) -> Vec<PlanStep> {
    steps.iter().map(|step| step.plan(context)).collect()
}

/// The estimated duration of a whole plan, seconds.
pub fn total_seconds(plan: &[PlanStep]) -> f64 {
    plan.iter().map(|step| step.estimated_seconds).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::{characterize_plan, registry};

    fn context() -> Context {
        Context::new(crate::threads::smt_server(2, 8, 4))
    }

    /// Each registry entry's characterize steps plan the CPUs, nodes and
    /// sizes their work uses, and every step has an estimate.
    #[test]
    fn characterize_steps_plan_their_work() {
        let context = context();
        let topology = &context.topology;
        for info in registry() {
            for step in characterize_plan(&context, &[info]) {
                let plan = step.plan(&context);
                assert_eq!(plan.benchmark, info.name);
                assert!(!plan.cpus.is_empty(), "{plan:?}");
                assert!(plan.threads >= 1 && plan.threads <= plan.cpus.len());
                assert!(plan.estimated_seconds > 0.0, "{plan:?}");
                assert_eq!(plan.repeat, context.repeat);
                match &step.work {
                    Work::LatencyMatrix(_) | Work::BandwidthMatrix(..) => {
                        assert_eq!(plan.mem_nodes, memory_nodes(topology));
                        assert_eq!(
                            plan.measurements,
                            cpu_nodes(topology).len() * memory_nodes(topology).len()
                        );
                    }
                    Work::Scaling { node, .. } => {
                        let first = scaling_cpus(topology, *node).unwrap();
                        assert_eq!(plan.cpus[..first.len()], first);
                        assert_eq!(plan.cpu_order, Some(SCALING_ORDER.name()));
                    }
                    Work::Bandwidth(config) => {
                        assert_eq!(plan.cpus, config.cpus);
                        assert_eq!(plan.size_bytes, config.size);
                        assert_eq!(plan.cpu_order, Some("compact"));
                    }
                    _ => {}
                }
            }
        }
    }

    /// More repetitions, more threads' worth of work or bigger buffers cost
    /// more; more threads on the same bytes cost less.
    #[test]
    fn the_estimate_follows_its_model() {
        let chase = |bytes, repeat| estimate(Cost::Chase { bytes, count: 1 }, repeat);
        assert!(chase(1 << 30, 5) > chase(1 << 20, 5));
        assert!(chase(1 << 20, 10) > chase(1 << 20, 5));
        let stream = |threads| {
            estimate(
                Cost::Stream {
                    bytes: 1 << 30,
                    threads,
                    count: 1,
                },
                5,
            )
        };
        assert!(stream(8) < stream(1));
        let all: Vec<_> = registry().iter().collect();
        let plan = plan_of(&context(), &characterize_plan(&context(), &all));
        let sum: f64 = plan.iter().map(|step| step.estimated_seconds).sum();
        assert_eq!(total_seconds(&plan), sum);
    }
}
