//! bandwidth's plan: its `characterize` steps, the steps of its command,
//! and what `--plan` and a time budget read of its work ([`Planned`]).

use super::measure::*;
use crate::bench::characterize::{Defaults, Steps, CHARACTERIZE_ORDER};
use crate::bench::context::Context;
use crate::bench::estimate::Cost;
use crate::bench::plan::Facts;
use crate::bench::step::{Planned, Step};
use crate::kernels::KERNELS;
use crate::memory::MemoryPlacement;
use crate::units::format_bytes;

/// `bandwidth`: every kernel on every allowed CPU, first-touch placement.
pub(in crate::bench) fn characterize(d: &Defaults, steps: &mut Steps) {
    for kernel in KERNELS {
        let nodes: Vec<u32> = {
            let mut nodes: Vec<u32> = d
                .all_cpus
                .iter()
                .filter_map(|&cpu| d.topology.node_of_cpu(cpu))
                .collect();
            nodes.sort_unstable();
            nodes.dedup();
            nodes
        };
        let mut labels = serde_json::Map::new();
        labels.insert(
            "cpu_order".into(),
            serde_json::json!(CHARACTERIZE_ORDER.name()),
        );
        let config = BandwidthConfig::new(
            kernel,
            d.all_cpus.clone(),
            d.dram,
            MemoryPlacement::FirstTouch { nodes },
        )
        .labelled("bandwidth", labels);
        steps.push(
            format!("bandwidth {} x{}", kernel.name, d.all_cpus.len()),
            config,
            CHARACTERIZE_ORDER,
        );
    }
}

impl Step {
    /// A bandwidth run of one kernel, CPU set and size.
    pub fn bandwidth(config: BandwidthConfig) -> Self {
        let label = format!(
            "{} {} x{} {}",
            config.benchmark,
            config.kernel.name,
            config.cpus.len(),
            format_bytes(config.size)
        );
        Self::of(config.benchmark, label, config)
    }
}

impl Planned for BandwidthConfig {
    fn facts(&self, _: &crate::topology::Machine, _: &Context) -> Facts {
        Facts::new(
            self.cpus.len(),
            self.cpus.clone(),
            self.memory.expected_nodes(),
            vec![self.size],
            vec![Cost::Stream {
                bytes: self.size,
                threads: self.cpus.len(),
                count: 1,
            }],
        )
    }

    fn working_sets(&mut self) -> Vec<&mut u64> {
        vec![&mut self.size]
    }
}
