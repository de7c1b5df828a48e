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
use super::matrix::{matrix_cpus, MatrixKind, MatrixMode, MatrixSample};
use super::mlp::MAX_CHAINS;
use super::per_cpu::PerCpuMeasure;
use super::placed::CACHE_MULTIPLE;
use super::scaling::{reader_nodes, scaling_counts, scaling_cpus};
use crate::threads::CpuOrder;
use crate::topology::Machine;
use crate::topology::{cpu_nodes, memory_nodes};
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
    /// How the step's CPU was sampled, on characterize's per-CPU steps
    /// (also `params.sample_rule` of their records); absent elsewhere.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sample_rule: Option<String>,
}

/// The facts of a step before the cache and estimate fields are filled in.
struct Facts {
    threads: usize,
    cpus: Vec<u32>,
    mem_nodes: Vec<u32>,
    sizes: Vec<u64>,
    costs: Vec<Cost>,
    /// The step's own repetitions where it caps the run's.
    repeat: Option<usize>,
}

impl Facts {
    fn new(
        threads: usize,
        cpus: Vec<u32>,
        mem_nodes: Vec<u32>,
        sizes: Vec<u64>,
        costs: Vec<Cost>,
    ) -> Self {
        Self {
            threads,
            cpus,
            mem_nodes,
            sizes,
            costs,
            repeat: None,
        }
    }
}

/// The CPUs of a matrix's rows, each row's in [`MATRIX_ORDER`].
fn matrix_rows(topology: &Machine, kind: MatrixKind) -> Vec<Vec<u32>> {
    let mode = match kind {
        MatrixKind::Latency => MatrixMode::Serial,
        MatrixKind::Bandwidth(mode) => mode,
    };
    cpu_nodes(topology)
        .into_iter()
        .filter_map(|node| matrix_cpus(topology, node, mode).ok())
        .collect()
}

/// One matrix row's cells: a chase, or a read by the row's threads, per
/// memory node.
fn row_cost(kind: MatrixKind, bytes: u64, threads: usize, count: usize) -> Cost {
    match kind {
        MatrixKind::Latency => Cost::Chase { bytes, count },
        MatrixKind::Bandwidth(_) => Cost::Stream {
            bytes,
            threads,
            count,
        },
    }
}

fn facts(topology: &Machine, work: &Work, context: &Context) -> Facts {
    match work {
        Work::OneCpu(one) => {
            let costs = one
                .sizes
                .iter()
                .map(|&bytes| match &one.measure {
                    PerCpuMeasure::Bandwidth(kernels) => Cost::Stream {
                        bytes,
                        threads: 1,
                        count: kernels.len(),
                    },
                    PerCpuMeasure::Latency(_) => Cost::Chase { bytes, count: 1 },
                })
                .collect();
            Facts {
                repeat: Some(one.repeat(context)),
                ..Facts::new(
                    1,
                    vec![one.cpu],
                    one.memory(topology).expected_nodes(),
                    one.sizes.clone(),
                    costs,
                )
            }
        }
        Work::Matrix(kind, size, sample) => {
            let mem_nodes = memory_nodes(topology);
            let rows = matrix_rows(topology, *kind);
            // Sampled: each row's cells of the classes' samples only.
            let sampled = sample.as_ref().map(MatrixSample::cells);
            let costs = cpu_nodes(topology)
                .iter()
                .zip(&rows)
                .map(|(node, cpus)| {
                    let cells = sampled.as_ref().map_or(mem_nodes.len(), |cells| {
                        cells.iter().filter(|(row, _)| row == node).count()
                    });
                    row_cost(*kind, *size, cpus.len(), cells)
                })
                .collect();
            Facts::new(
                rows.iter().map(Vec::len).max().unwrap_or(0),
                rows.concat(),
                mem_nodes,
                vec![*size],
                costs,
            )
        }
        Work::CpuRow { cpu, kind, size } => {
            let mem_nodes = memory_nodes(topology);
            let cost = row_cost(*kind, *size, 1, mem_nodes.len());
            Facts::new(1, vec![*cpu], mem_nodes, vec![*size], vec![cost])
        }
        Work::Latency(config) => Facts::new(
            1,
            vec![config.cpu],
            config.memory.expected_nodes(),
            config.sizes.clone(),
            config
                .sizes
                .iter()
                .map(|&bytes| Cost::Chase { bytes, count: 1 })
                .collect(),
        ),
        Work::Bandwidth(config) => Facts::new(
            config.cpus.len(),
            config.cpus.clone(),
            config.memory.expected_nodes(),
            vec![config.size],
            vec![Cost::Stream {
                bytes: config.size,
                threads: config.cpus.len(),
                count: 1,
            }],
        ),
        Work::Contention {
            cpus,
            alone,
            node,
            size,
        } => {
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
                count: alone.len(),
            };
            let together = Cost::Stream {
                bytes: *size,
                threads: cpus.len(),
                count: 2,
            };
            Facts::new(
                cpus.len(),
                cpus.clone(),
                mem_nodes,
                vec![*size],
                vec![alone, together],
            )
        }
        Work::Scaling {
            node,
            size,
            order,
            stride,
            ..
        } => {
            let per_node: Vec<Vec<u32>> = reader_nodes(topology, *node)
                .into_iter()
                .filter_map(|reader| scaling_cpus(topology, reader, *order).ok())
                .collect();
            let costs = per_node
                .iter()
                .flat_map(|cpus| {
                    scaling_counts(cpus.len(), *stride)
                        .into_iter()
                        .map(|threads| Cost::Stream {
                            bytes: *size,
                            threads,
                            count: 1,
                        })
                })
                .collect();
            Facts::new(
                per_node.iter().map(Vec::len).max().unwrap_or(0),
                per_node.concat(),
                vec![*node],
                vec![*size],
                costs,
            )
        }
        Work::LoadedLatency(config) => {
            let mut cpus = vec![config.chaser_cpu];
            cpus.extend(&config.generator_cpus);
            let generators = config.generator_cpus.len() as u64;
            // The chase at idle and at every delay; the generators' buffers built once.
            let costs = vec![
                Cost::Chase {
                    bytes: config.size,
                    count: 1 + config.delays.len(),
                },
                Cost::Setup {
                    bytes: config.size * generators,
                },
            ];
            Facts::new(
                cpus.len(),
                cpus,
                config.memory.expected_nodes(),
                vec![config.size],
                costs,
            )
        }
        Work::Cache(config) => {
            let mut cpus: Vec<u32> = std::iter::once(config.owner)
                .chain(config.measurers.iter().map(|m| m.cpu))
                .collect();
            cpus.sort_unstable();
            cpus.dedup();
            let sizes: Vec<u64> = config.levels.iter().map(|l| l.bytes as u64).collect();
            let count = config.measurers.len() * (config.states.len() + 1);
            Facts::new(
                3.min(cpus.len()),
                cpus,
                topology.node_of_cpu(config.owner).into_iter().collect(),
                sizes.clone(),
                sizes
                    .iter()
                    .map(|&bytes| Cost::Chase { bytes, count })
                    .collect(),
            )
        }
        Work::MlpThreads(config) => {
            let mut nodes = config.buffer_nodes_of(topology);
            nodes.sort_unstable();
            nodes.dedup();
            Facts::new(
                config.cpus.len(),
                config.cpus.clone(),
                nodes,
                vec![config.size],
                vec![Cost::Chase {
                    bytes: config.size,
                    count: config.chains.len() * config.pinning_count(),
                }],
            )
        }
        Work::Mlp(config) => Facts::new(
            1,
            vec![config.cpu],
            config.memory.expected_nodes(),
            vec![config.size],
            vec![Cost::Chains {
                bytes: config.size,
                chains: MAX_CHAINS,
            }],
        ),
        Work::C2c => {
            let pairs = c2c_pairs(topology);
            let mut cpus: Vec<u32> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
            cpus.sort_unstable();
            cpus.dedup();
            Facts::new(
                2,
                cpus,
                Vec::new(),
                vec![64],
                vec![Cost::PingPong { pairs: pairs.len() }],
            )
        }
    }
}

impl Step {
    /// What this step would do on `context`'s topology, and how long it is
    /// estimated to take. Allocates and measures nothing.
    pub fn plan(&self, context: &Context) -> PlanStep {
        let topology = &context.topology;
        let facts = facts(topology, &self.work, context);
        let size_bytes = facts.sizes.iter().copied().max().unwrap_or(0);
        let repeat = facts.repeat.unwrap_or(context.repeat);
        let sample_rule = match &self.work {
            Work::OneCpu(one) => one
                .labels
                .get("sample_rule")
                .and_then(|rule| rule.as_str())
                .map(str::to_string),
            Work::Matrix(_, _, Some(sample)) => Some(sample.rule()),
            _ => None,
        };
        let cache_bytes_in_front = topology.cache_bytes_in_front(&facts.cpus, &facts.mem_nodes);
        let measurements = facts
            .costs
            .iter()
            .map(|cost| match cost {
                Cost::Chase { count, .. } | Cost::Stream { count, .. } => *count,
                Cost::Chains { chains, .. } => *chains,
                Cost::PingPong { pairs } => *pairs,
                Cost::Setup { .. } => 0,
            })
            .sum();
        PlanStep {
            benchmark: self.benchmark,
            label: self.label.clone(),
            threads: facts.threads,
            cpus: facts.cpus,
            cpu_order: self.cpu_order.map(CpuOrder::name),
            cache_affected: !facts.mem_nodes.is_empty()
                && size_bytes < CACHE_MULTIPLE.saturating_mul(cache_bytes_in_front),
            mem_nodes: facts.mem_nodes,
            size_bytes,
            sizes: facts.sizes,
            cache_bytes_in_front,
            repeat,
            measurements,
            estimated_seconds: facts
                .costs
                .iter()
                .map(|&cost| estimate(cost, repeat, &context.cost_model))
                .sum(),
            sample_rule,
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
    topology: &Machine,
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
        sample_rule: None,
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
    use crate::bench::{characterize_plan, registry, CostModel};

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
                // characterize chose every step's CPUs, and says in what order.
                assert!(plan.cpu_order.is_some(), "{plan:?}");
                match &step.work {
                    Work::Matrix(..) => {
                        assert_eq!(plan.mem_nodes, memory_nodes(topology));
                        assert_eq!(
                            plan.measurements,
                            cpu_nodes(topology).len() * memory_nodes(topology).len()
                        );
                    }
                    Work::Scaling { node, order, .. } => {
                        let first = scaling_cpus(topology, *node, *order).unwrap();
                        assert_eq!(plan.cpus[..first.len()], first);
                        assert_eq!(plan.cpu_order, Some(crate::bench::SCALING_ORDER.name()));
                    }
                    Work::Bandwidth(config) => {
                        assert_eq!(plan.cpus, config.cpus);
                        assert_eq!(plan.size_bytes, config.size);
                        assert_eq!(plan.cpu_order, Some("compact"));
                    }
                    Work::OneCpu(one) => {
                        // One CPU, its own node, its own one-thread DRAM
                        // working set, at most 3 repetitions, the rule shown.
                        assert_eq!(plan.cpus, [one.cpu]);
                        assert_eq!(plan.threads, 1);
                        assert_eq!(plan.mem_nodes, [topology.node_of_cpu(one.cpu).unwrap()]);
                        assert_eq!(
                            plan.size_bytes,
                            crate::bench::each_cpu_dram_bytes(topology, one.cpu, None)
                        );
                        assert_eq!(
                            plan.cache_bytes_in_front,
                            topology.cache_bytes_in_front(&[one.cpu], &plan.mem_nodes)
                        );
                        assert!(plan.size_bytes >= 4 * plan.cache_bytes_in_front);
                        assert!(!plan.cache_affected);
                        assert_eq!(plan.repeat, context.repeat.min(3));
                        assert_eq!(
                            plan.sample_rule.as_deref(),
                            Some(crate::bench::RULE_SAMPLED)
                        );
                    }
                    _ => assert_eq!(plan.repeat, context.repeat),
                }
            }
        }
    }

    /// More repetitions, more threads' worth of work or bigger buffers cost
    /// more; more threads on the same bytes cost less.
    #[test]
    fn the_estimate_follows_its_model() {
        let model = CostModel::ASSUMED;
        let chase = |bytes, repeat| estimate(Cost::Chase { bytes, count: 1 }, repeat, &model);
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
                &model,
            )
        };
        assert!(stream(8) < stream(1));
        let all: Vec<_> = registry().iter().collect();
        let plan = plan_of(&context(), &characterize_plan(&context(), &all));
        let sum: f64 = plan.iter().map(|step| step.estimated_seconds).sum();
        assert_eq!(total_seconds(&plan), sum);
    }
}
