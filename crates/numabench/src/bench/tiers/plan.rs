//! tiers' plan: its one step, the facts `--plan` shows of it (every
//! socket's CPUs and memory nodes, every measurement as a bandwidth run)
//! and what a budget may cut (the working set).

use super::config::TiersConfig;
use crate::bench::context::Context;
use crate::bench::estimate::Cost;
use crate::bench::plan::Facts;
use crate::bench::step::{Planned, Step};
use crate::topology::Machine;

impl Step {
    /// The whole sweep and its advice, one step.
    pub fn tiers(config: TiersConfig) -> Self {
        let label = format!(
            "interleave ratios, {} socket(s), {} round(s)",
            config.sockets.len(),
            config.rounds
        );
        Self::of("tiers", label, config)
    }
}

impl Planned for TiersConfig {
    fn facts(&self, _: &Machine, _: &Context) -> Facts {
        let mut cpus: Vec<u32> = self.sockets.iter().flat_map(|s| s.cpus.clone()).collect();
        cpus.sort_unstable();
        cpus.dedup();
        let mut nodes: Vec<u32> = self
            .sockets
            .iter()
            .flat_map(|s| s.dram.iter().chain(&s.tier).copied())
            .collect();
        nodes.sort_unstable();
        nodes.dedup();
        let weightings = self.weightings().len();
        let mut costs = Vec::new();
        for socket in &self.sockets {
            for threads in self.thread_counts(socket) {
                costs.push(Cost::Stream {
                    bytes: self.size,
                    threads,
                    count: self.rounds * self.kernels.len() * weightings,
                });
            }
            // The suggested weights against the kernel's and auto's: read, all threads.
            let against = self.checked_weightings(socket).len();
            if against > 0 {
                costs.push(Cost::Stream {
                    bytes: self.size,
                    threads: socket.cpus.len(),
                    count: self.rounds * (1 + against),
                });
            }
        }
        let threads = self.sockets.iter().map(|s| s.cpus.len()).max().unwrap_or(1);
        Facts::new(threads, cpus, nodes, vec![self.size], costs)
    }

    fn working_sets(&mut self) -> Vec<&mut u64> {
        vec![&mut self.size]
    }
}
