//! mlp's plan: its `characterize` steps, the steps of its command,
//! and what `--plan` and a time budget read of its work ([`Planned`]).

use super::measure::*;
use super::threads::*;
use crate::bench::characterize::{Defaults, Steps, CHARACTERIZE_ORDER};
use crate::bench::context::Context;
use crate::bench::estimate::Cost;
use crate::bench::plan::Facts;
use crate::bench::step::{Planned, Step};
use crate::kernels::ChaseOrder;
use crate::memory::MemoryPlacement;
use crate::topology::Machine;

/// `mlp`: on the first CPU, memory on its node.
pub(in crate::bench) fn characterize(d: &Defaults, steps: &mut Steps) {
    steps.push(
        "memory-level parallelism".to_string(),
        MlpConfig {
            cpu: d.first_cpu,
            memory: MemoryPlacement::bind(d.first_node),
            size: d.dram,
            order: ChaseOrder::default(),
        },
        CHARACTERIZE_ORDER,
    );
}

impl Step {
    /// Many threads chasing at once, pinned and/or unpinned.
    pub fn mlp_threads(config: MlpThreadsConfig) -> Self {
        Self::of(
            "mlp",
            format!(
                "memory-level parallelism, {} threads ({})",
                config.cpus.len(),
                match config.pinning {
                    Pinning::Pinned => "pinned",
                    Pinning::Unpinned => "unpinned",
                    Pinning::Both => "pinned against unpinned",
                }
            ),
            config,
        )
    }

    /// Memory-level parallelism.
    pub fn mlp(config: MlpConfig) -> Self {
        Self::of("mlp", "memory-level parallelism".to_string(), config)
    }
}

impl Planned for MlpConfig {
    fn facts(&self, _: &crate::topology::Machine, _: &Context) -> Facts {
        Facts::new(
            1,
            vec![self.cpu],
            self.memory.expected_nodes(),
            vec![self.size],
            vec![Cost::Chains {
                bytes: self.size,
                chains: MAX_CHAINS,
            }],
        )
    }

    fn working_sets(&mut self) -> Vec<&mut u64> {
        vec![&mut self.size]
    }
}

impl Planned for MlpThreadsConfig {
    fn facts(&self, topology: &Machine, _: &Context) -> Facts {
        let mut nodes = self.buffer_nodes_of(topology);
        nodes.sort_unstable();
        nodes.dedup();
        Facts::new(
            self.cpus.len(),
            self.cpus.clone(),
            nodes,
            vec![self.size],
            vec![Cost::Chase {
                bytes: self.size,
                count: self.chains.len() * self.pinning_count(),
            }],
        )
    }

    fn working_sets(&mut self) -> Vec<&mut u64> {
        vec![&mut self.size]
    }
}
