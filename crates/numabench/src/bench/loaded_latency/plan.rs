//! loaded-latency's plan: its `characterize` steps, the steps of its command,
//! and what `--plan` and a time budget read of its work ([`Planned`]).

use super::measure::*;
use crate::bench::characterize::{Defaults, Steps, CHARACTERIZE_ORDER};
use crate::bench::context::Context;
use crate::bench::estimate::Cost;
use crate::bench::placed::working_set_of_buffers;
use crate::bench::plan::Facts;
use crate::bench::step::{Planned, Step};
use crate::memory::MemoryPlacement;

/// `loaded-latency`: the first CPU chases, every other one generates traffic.
pub(in crate::bench) fn characterize(d: &Defaults, steps: &mut Steps) {
    let generators: Vec<u32> = d
        .all_cpus
        .iter()
        .copied()
        .filter(|&cpu| cpu != d.first_cpu)
        .collect();
    // The chase and every generator each hold a buffer of this size.
    let size = working_set_of_buffers(
        d.topology,
        &[d.first_cpu],
        &[d.first_node],
        1 + generators.len() as u64,
    )
    .bytes;
    let config = LoadedLatencyConfig {
        chaser_cpu: d.first_cpu,
        generator_cpus: generators,
        memory: MemoryPlacement::bind(d.first_node),
        size,
        delays: vec![1000, 250, 60, 0],
        mix: TrafficMix::AllReads,
    };
    steps.push("loaded latency".to_string(), config, CHARACTERIZE_ORDER);
}

impl Step {
    /// A loaded-latency run.
    pub fn loaded_latency(config: LoadedLatencyConfig) -> Self {
        let label = format!(
            "loaded latency, mix {}, memory {}",
            config.mix.name(),
            config.memory.label()
        );
        Self::of("loaded-latency", label, config)
    }
}

impl Planned for LoadedLatencyConfig {
    fn facts(&self, _: &crate::topology::Machine, _: &Context) -> Facts {
        let mut cpus = vec![self.chaser_cpu];
        cpus.extend(&self.generator_cpus);
        let generators = self.generator_cpus.len() as u64;
        // The chase at idle and at every delay; the generators' buffers built once.
        let costs = vec![
            Cost::Chase {
                bytes: self.size,
                count: 1 + self.delays.len(),
            },
            Cost::Setup {
                bytes: self.size * generators,
            },
        ];
        Facts::new(
            cpus.len(),
            cpus,
            self.memory.expected_nodes(),
            vec![self.size],
            costs,
        )
    }

    fn working_sets(&mut self) -> Vec<&mut u64> {
        vec![&mut self.size]
    }
}
