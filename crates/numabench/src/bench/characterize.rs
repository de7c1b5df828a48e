//! `characterize`: the whole machine in one run — every selected benchmark
//! with defaults derived from the topology, sized so a 2-core machine takes
//! about a minute and larger servers grow with their node and core counts.

use super::context::Context;
use super::placed::working_set_for;
use super::registry::BenchmarkInfo;
use super::step::{Step, Work};
use crate::threads::CpuOrder;
use crate::topology::Machine;
use crate::topology::{cpu_nodes, memory_nodes};

/// The order characterize takes the allowed CPUs in: its single-thread
/// steps run on the first, its all-CPU steps on all of them in this order.
/// (`scaling` and the matrices keep their own orders.)
pub const CHARACTERIZE_ORDER: CpuOrder = CpuOrder::Compact;

/// What every benchmark's characterize steps are derived from: the
/// topology and the sizes and places chosen for it.
#[derive(Debug)]
pub struct Defaults<'a> {
    pub(super) topology: &'a Machine,
    pub(super) memory: Vec<u32>,
    pub(super) cpu_nodes: Vec<u32>,
    /// The DRAM-sized working set of every allowed CPU over every memory
    /// node: 4x all their caches and the memory-side caches in front of
    /// any node, so each step's threads and nodes are covered.
    pub(super) dram: u64,
    pub(super) first_cpu: u32,
    pub(super) first_node: u32,
    pub(super) all_cpus: Vec<u32>,
}

impl<'a> Defaults<'a> {
    pub(super) fn new(topology: &'a Machine) -> Self {
        let memory = memory_nodes(topology);
        let all_cpus = CHARACTERIZE_ORDER.all_allowed(topology);
        let first_cpu = all_cpus[0];
        Self {
            topology,
            cpu_nodes: cpu_nodes(topology),
            dram: working_set_for(topology, &topology.allowed.cpus, &memory).bytes,
            memory,
            first_cpu,
            first_node: topology.node_of_cpu(first_cpu).unwrap_or(0),
            all_cpus,
        }
    }
}

/// The steps being planned; each registry entry's planner adds its own,
/// labelled with the entry's name.
#[derive(Debug, Default)]
pub struct Steps {
    benchmark: &'static str,
    steps: Vec<Step>,
}

impl Steps {
    /// A step whose CPUs characterize chose in `order`.
    pub(super) fn push(&mut self, label: String, work: impl Work, order: CpuOrder) {
        self.steps
            .push(Step::of(self.benchmark, label, work).in_order(order));
    }
}

/// The steps of a characterization of the selected benchmarks: each
/// registry entry plans its own, in registry order.
pub fn characterize_plan(context: &Context, selected: &[&BenchmarkInfo]) -> Vec<Step> {
    let defaults = Defaults::new(&context.topology);
    let mut steps = Steps::default();
    for info in selected {
        steps.benchmark = info.name;
        (info.plan)(&defaults, &mut steps);
    }
    steps.steps
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::bandwidth::BandwidthConfig;
    use crate::bench::contention::ContentionWork;
    use crate::bench::latency::LatencyConfig;
    use crate::bench::loaded_latency::LoadedLatencyConfig;
    use crate::bench::per_cpu::{
        per_cpu_sample, OneCpu, PerCpuMeasure, PER_CPU_ORDER, PER_CPU_REPEAT,
    };
    use crate::bench::{registry, select};

    fn context() -> Context {
        Context::new(crate::topology::synthetic(
            "pack:2 [numa(memory=8GiB)] l3:1(size=16MiB) core:2 pu:2",
        ))
    }

    /// Every registry entry plans steps of its own, and a full plan walks
    /// the registry in order: no entry can be selected and then do nothing.
    #[test]
    fn every_registry_entry_plans_its_own_steps() {
        let context = context();
        for info in registry() {
            let steps = characterize_plan(&context, &[info]);
            assert!(!steps.is_empty(), "{} plans no step", info.name);
            assert!(
                steps.iter().all(|step| step.benchmark == info.name),
                "{}",
                info.name
            );
        }
        let mut planned: Vec<&str> = characterize_plan(&context, &select(&[], &[]).unwrap())
            .iter()
            .map(|step| step.benchmark)
            .collect();
        planned.dedup();
        let names: Vec<&str> = registry().iter().map(|info| info.name).collect();
        assert_eq!(planned, names);
    }

    /// With siblings numbered 64 apart, characterize's single-thread steps
    /// run on the tree's first CPU and its all-CPU steps list the CPUs in
    /// compact (tree) order, named in the bandwidth records.
    #[test]
    fn steps_take_cpus_in_tree_order() {
        let context = Context::new(crate::threads::smt_server(2, 8, 4));
        let compact = CpuOrder::Compact.all_allowed(&context.topology);
        assert_eq!(compact[..2], [0, 64]);
        let steps = characterize_plan(&context, &select(&[], &[]).unwrap());
        let mut checked = 0;
        for step in &steps {
            if let Some(config) = step.work::<BandwidthConfig>() {
                assert_eq!(config.cpus, compact);
                assert_eq!(config.labels["cpu_order"], "compact");
                checked += 1;
            }
            if let Some(work) = step.work::<ContentionWork>() {
                assert_eq!(work.cpus, compact);
                checked += 1;
            }
            if let Some(config) = step.work::<LoadedLatencyConfig>() {
                assert_eq!(config.chaser_cpu, compact[0]);
                assert_eq!(config.generator_cpus, compact[1..]);
                checked += 1;
            }
            if let Some(config) = step.work::<LatencyConfig>() {
                assert_eq!(config.cpu, compact[0]);
            }
        }
        assert!(checked >= 3, "{checked}");
    }

    /// The per-CPU steps measure exactly the CPUs of the stated rule, one
    /// step per CPU (latency on each, then read bandwidth on each), their
    /// records naming the rule; only the last of each emits the ratios.
    #[test]
    fn per_cpu_steps_follow_the_sampling_rule() {
        let context = Context::new(crate::threads::smt_server(2, 8, 4));
        let (sample, rule) = per_cpu_sample(&context.topology);
        let steps = characterize_plan(&context, &select(&["per-cpu".into()], &[]).unwrap());
        assert_eq!(steps.len(), 2 * sample.len());
        for (half, steps) in steps.chunks(sample.len()).enumerate() {
            let mut cpus = Vec::new();
            for (index, step) in steps.iter().enumerate() {
                let Some(one) = step.work::<OneCpu>() else {
                    panic!("{}", step.label);
                };
                assert_eq!(one.labels["sample_rule"], rule);
                assert_eq!(one.labels["cpu"], one.cpu);
                assert_eq!(one.last, index + 1 == sample.len());
                assert_eq!(one.max_repeat, Some(PER_CPU_REPEAT));
                assert_eq!(step.cpu_order, Some(PER_CPU_ORDER));
                let latency = matches!(one.measure, PerCpuMeasure::Latency(_));
                assert_eq!(latency, half == 0, "{}", step.label);
                cpus.push(one.cpu);
            }
            assert_eq!(cpus, sample);
        }
    }

    /// Every characterize step names the order its CPUs were taken in,
    /// so every record it emits carries `params.cpu_order`.
    #[test]
    fn every_step_names_its_cpu_order() {
        let context = Context::new(crate::threads::smt_server(2, 2, 2));
        for step in characterize_plan(&context, &select(&[], &[]).unwrap()) {
            assert!(step.cpu_order.is_some(), "{}", step.label);
        }
    }
}
