//! `--plan`: what a run would do, read off the very steps the run executes
//! (one code path builds both), with a rough duration estimate. Nothing is
//! allocated, pinned or measured, so a plan can be made for a topology that
//! is not this machine's (`--topology FILE`).

use super::context::Context;
use super::estimate::{
    estimate, Cost, ASSUMED_APP_PASSES, ASSUMED_SETUP_BYTES_PER_SECOND,
    ASSUMED_THREAD_BYTES_PER_SECOND,
};
use super::placed::CACHE_MULTIPLE;
use super::step::Step;
use crate::threads::CpuOrder;
use crate::topology::Machine;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// The facts of one step of a plan, as `--plan` prints them
/// (schema in docs/plan.md). Read back as well as written, so what reads a
/// plan document ([`super::PlanDocument`]) reads it through this type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanStep {
    /// The benchmark whose records the step emits (a name of the
    /// registry's, borrowed where the plan is made; owned where read back).
    pub benchmark: Cow<'static, str>,
    /// What the step measures, e.g. `latency 64 KiB`.
    pub label: String,
    /// Most threads measuring at once.
    pub threads: usize,
    /// Every CPU a thread of the step is pinned to, in the order taken.
    pub cpus: Vec<u32>,
    /// The order the CPUs were taken in (`compact`, `cores-first`, ...),
    /// where the step chose them from the topology.
    pub cpu_order: Option<Cow<'static, str>>,
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_rule: Option<String>,
}

/// The facts of a step before the cache and estimate fields are filled
/// in: what each benchmark's work says of itself
/// ([`super::step::Work::facts`]).
pub(super) struct Facts {
    pub(super) threads: usize,
    pub(super) cpus: Vec<u32>,
    pub(super) mem_nodes: Vec<u32>,
    pub(super) sizes: Vec<u64>,
    pub(super) costs: Vec<Cost>,
    /// The step's own repetitions where it caps the run's.
    pub(super) repeat: Option<usize>,
    /// The caches in front of one measurement, where a step's
    /// measurements each use part of its CPUs and nodes (a matrix cell:
    /// one row's CPUs, one node); `None`: those of all its CPUs and nodes.
    pub(super) caches_in_front: Option<u64>,
}

impl Facts {
    pub(super) fn new(
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
            caches_in_front: None,
        }
    }
}

impl Step {
    /// What this step would do on `context`'s topology, and how long it is
    /// estimated to take. Allocates and measures nothing.
    pub fn plan(&self, context: &Context) -> PlanStep {
        let topology = &context.topology;
        let facts = self.work.facts(topology, context);
        let size_bytes = facts.sizes.iter().copied().max().unwrap_or(0);
        let repeat = facts.repeat.unwrap_or(context.repeat);
        let sample_rule = self.work.sample_rule();
        let cache_bytes_in_front = facts
            .caches_in_front
            .unwrap_or_else(|| topology.cache_bytes_in_front(&facts.cpus, &facts.mem_nodes));
        let measurements = facts
            .costs
            .iter()
            .map(|cost| match cost {
                Cost::Chase { count, .. }
                | Cost::Stream { count, .. }
                | Cost::RemoteChase { count, .. }
                | Cost::RemoteStream { count, .. }
                | Cost::SampledChase { count, .. } => *count,
                Cost::Chains { chains, .. } => *chains,
                Cost::PingPong { pairs } => *pairs,
                Cost::Setup { .. } => 0,
            })
            .sum();
        PlanStep {
            benchmark: Cow::Borrowed(self.benchmark),
            label: self.label.clone(),
            threads: facts.threads,
            cpus: facts.cpus,
            cpu_order: self.cpu_order.map(|order| Cow::Borrowed(order.name())),
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
        benchmark: Cow::Borrowed(benchmark),
        label,
        threads,
        cpus,
        cpu_order: cpu_order.map(|order| Cow::Borrowed(order.name())),
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
    use crate::bench::bandwidth::BandwidthConfig;
    use crate::bench::matrix::MatrixWork;
    use crate::bench::per_cpu::OneCpu;
    use crate::bench::scaling::{scaling_cpus, ScalingWork};
    use crate::bench::{characterize_plan, registry, CostModel};
    use crate::topology::{cpu_nodes, memory_nodes};

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
                if step.work::<MatrixWork>().is_some() {
                    assert_eq!(plan.mem_nodes, memory_nodes(topology));
                    assert_eq!(
                        plan.measurements,
                        cpu_nodes(topology).len() * memory_nodes(topology).len()
                    );
                } else if let Some(work) = step.work::<ScalingWork>() {
                    let first = scaling_cpus(topology, work.node, work.order).unwrap();
                    assert_eq!(plan.cpus[..first.len()], first);
                    assert_eq!(
                        plan.cpu_order.as_deref(),
                        Some(crate::bench::SCALING_ORDER.name())
                    );
                } else if let Some(config) = step.work::<BandwidthConfig>() {
                    assert_eq!(plan.cpus, config.cpus);
                    assert_eq!(plan.size_bytes, config.size);
                    assert_eq!(plan.cpu_order.as_deref(), Some("compact"));
                } else if let Some(one) = step.work::<OneCpu>() {
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
                        Some(crate::bench::RULE_EVERY_CPU)
                    );
                } else {
                    assert_eq!(plan.repeat, context.repeat);
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
