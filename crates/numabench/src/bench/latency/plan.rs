//! latency's plan: its `characterize` steps, the steps of its command,
//! and what `--plan` and a time budget read of its work ([`Planned`]).

use super::measure::*;
use crate::bench::characterize::{Defaults, Steps, CHARACTERIZE_ORDER};
use crate::bench::context::Context;
use crate::bench::estimate::Cost;
use crate::bench::plan::Facts;
use crate::bench::step::{Planned, Step};
use crate::kernels::ChaseOrder;
use crate::memory::MemoryPlacement;
use crate::topology::Machine;
use crate::units::format_bytes;

/// Latency sizes for characterize: x4 steps from half the L1 to the DRAM
/// working set.
fn latency_sizes(topology: &Machine, dram: u64) -> Vec<u64> {
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

/// `latency`: one step per size, x4 apart, from half the L1 to DRAM.
pub(in crate::bench) fn characterize(d: &Defaults, steps: &mut Steps) {
    for size in latency_sizes(d.topology, d.dram) {
        let config = LatencyConfig {
            sizes: vec![size],
            cpu: d.first_cpu,
            memory: MemoryPlacement::bind(d.first_node),
            order: ChaseOrder::default(),
            writer_cpu: None,
        };
        steps.push(
            format!("latency {}", crate::units::format_bytes(size)),
            config,
            CHARACTERIZE_ORDER,
        );
    }
}

impl Step {
    /// A latency run of every size of `config`, in order.
    pub fn latency(config: LatencyConfig) -> Self {
        let sizes: Vec<String> = config.sizes.iter().map(|&s| format_bytes(s)).collect();
        let label = format!("latency {}", sizes.join(", "));
        Self::of("latency", label, config)
    }
}

impl Planned for LatencyConfig {
    fn facts(&self, _: &Machine, _: &Context) -> Facts {
        Facts::new(
            1,
            vec![self.cpu],
            self.memory.expected_nodes(),
            self.sizes.clone(),
            self.sizes
                .iter()
                .map(|&bytes| Cost::Chase { bytes, count: 1 })
                .collect(),
        )
    }

    fn working_sets(&mut self) -> Vec<&mut u64> {
        self.sizes.iter_mut().collect()
    }
}
