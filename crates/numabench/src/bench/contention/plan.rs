//! contention's plan: its `characterize` steps, the steps of its command,
//! and what `--plan` and a time budget read of its work ([`Planned`]).

use super::run::*;
use crate::bench::characterize::{Defaults, Steps, CHARACTERIZE_ORDER};
use crate::bench::context::Context;
use crate::bench::estimate::Cost;
use crate::bench::plan::Facts;
use crate::bench::step::{Planned, Step};
use crate::topology::Machine;

/// `contention`: every allowed CPU against the first CPU's node.
pub(in crate::bench) fn characterize(d: &Defaults, steps: &mut Steps) {
    steps.push(
        format!("contention on node {}", d.first_node),
        ContentionWork {
            cpus: d.all_cpus.clone(),
            alone: d.all_cpus.clone(),
            node: d.first_node,
            size: d.dram,
        },
        CHARACTERIZE_ORDER,
    );
}

impl Step {
    /// Contention of `cpus` on `node`.
    pub fn contention(cpus: Vec<u32>, node: u32, size: u64) -> Self {
        Self::of(
            "contention",
            format!("contention on node {node}"),
            ContentionWork {
                alone: cpus.clone(),
                cpus,
                node,
                size,
            },
        )
    }
}

impl Planned for ContentionWork {
    fn facts(&self, topology: &Machine, _: &Context) -> Facts {
        use Cost;
        let mut mem_nodes: Vec<u32> = self
            .cpus
            .iter()
            .filter_map(|&cpu| topology.node_of_cpu(cpu))
            .chain([self.node])
            .collect();
        mem_nodes.sort_unstable();
        mem_nodes.dedup();
        let alone = Cost::Stream {
            bytes: self.size,
            threads: 1,
            count: self.alone.len(),
        };
        let together = Cost::Stream {
            bytes: self.size,
            threads: self.cpus.len(),
            count: 2,
        };
        Facts::new(
            self.cpus.len(),
            self.cpus.clone(),
            mem_nodes,
            vec![self.size],
            vec![alone, together],
        )
    }

    fn working_sets(&mut self) -> Vec<&mut u64> {
        vec![&mut self.size]
    }
}
