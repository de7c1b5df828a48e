//! per-cpu's plan: its `characterize` steps, the steps of its command,
//! and what `--plan` and a time budget read of its work ([`Planned`]).

use super::measure::*;
use crate::bench::characterize::{Defaults, Steps};
use crate::bench::context::Context;
use crate::bench::estimate::Cost;
use crate::bench::plan::Facts;
use crate::bench::step::{Planned, Step};
use crate::kernels::{kernel_by_name, ChaseOrder};
use crate::topology::Machine;

/// Timed repetitions of characterize's per-CPU steps: few, since they
/// run once per sampled CPU.
pub(in crate::bench) const PER_CPU_REPEAT: usize = 3;

/// `per-cpu`: local latency on each CPU [`per_cpu_sample`] picks, then
/// local read bandwidth on each, one step per CPU at its own one-thread
/// DRAM working set, at most [`PER_CPU_REPEAT`] repetitions; the rule is
/// named in every record (`params.sample_rule`) and in the plan.
pub(in crate::bench) fn characterize(d: &Defaults, steps: &mut Steps) {
    let (cpus, rule) = per_cpu_sample(d.topology);
    let mut labels = serde_json::Map::new();
    labels.insert("sample_rule".into(), serde_json::json!(rule));
    let each = EachCpu {
        cpus,
        mem_node: None,
        sizes: Vec::new(),
        max_repeat: Some(PER_CPU_REPEAT),
        benchmark: "per-cpu",
        labels,
    };
    let read = kernel_by_name("read").expect("read kernel is registered");
    for (what, measure) in [
        ("latency", PerCpuMeasure::Latency(ChaseOrder::default())),
        ("read bandwidth", PerCpuMeasure::Bandwidth(vec![read])),
    ] {
        for one in each.split(d.topology, &measure) {
            steps.push(one_cpu_label(what, &one), one, PER_CPU_ORDER);
        }
    }
}

/// The label of one CPU's step: what, where, and on the last CPU the
/// ratios that follow.
pub(in crate::bench) fn one_cpu_label(what: &str, one: &OneCpu) -> String {
    let mut label = format!("per-CPU {what}, CPU {}", one.cpu);
    if one.last {
        label.push_str(", then every CPU's ratio to its node's median");
    }
    label
}

impl Step {
    /// One step per CPU of `each`, in its order, measuring `measure`; the
    /// last also emits every CPU's ratio to its node's median.
    pub fn each_cpu(topology: &Machine, each: &EachCpu, measure: &PerCpuMeasure) -> Vec<Self> {
        let what = match measure {
            PerCpuMeasure::Latency(_) => "latency",
            PerCpuMeasure::Bandwidth(_) => "bandwidth",
        };
        each.split(topology, measure)
            .into_iter()
            .map(|one| Self::of(each.benchmark, one_cpu_label(what, &one), one))
            .collect()
    }
}

impl Planned for OneCpu {
    fn facts(&self, topology: &Machine, context: &Context) -> Facts {
        use Cost;
        let costs = self
            .sizes
            .iter()
            .map(|&bytes| match &self.measure {
                PerCpuMeasure::Bandwidth(kernels) => Cost::Stream {
                    bytes,
                    threads: 1,
                    count: kernels.len(),
                },
                PerCpuMeasure::Latency(_) => Cost::Chase { bytes, count: 1 },
            })
            .collect();
        Facts {
            repeat: Some(self.repeat(context)),
            ..Facts::new(
                1,
                vec![self.cpu],
                self.memory(topology).expected_nodes(),
                self.sizes.clone(),
                costs,
            )
        }
    }

    fn sample_rule(&self) -> Option<String> {
        self.labels
            .get("sample_rule")
            .and_then(|rule| rule.as_str())
            .map(str::to_string)
    }

    fn working_sets(&mut self) -> Vec<&mut u64> {
        self.sizes.iter_mut().collect()
    }
}
