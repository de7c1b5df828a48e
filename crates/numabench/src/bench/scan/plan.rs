//! scan's plan: its one step, the facts `--plan` shows of it (every
//! node's CPUs and memory, the bytes allocated and read) and what a budget
//! may cut (each node's size).

use super::config::ScanConfig;
use super::read::MIN_BYTES_PER_READ;
use crate::bench::context::Context;
use crate::bench::estimate::Cost;
use crate::bench::plan::Facts;
use crate::bench::step::{Planned, Step};
use crate::topology::Machine;
use crate::units::format_bytes;

impl Step {
    /// Every node's ranges in interleaved rounds, one step.
    pub fn scan(config: ScanConfig) -> Self {
        let size: u64 = config.nodes.iter().map(|node| node.size).sum();
        let label = format!(
            "{} node(s), {} in {} ranges, {} round(s)",
            config.nodes.len(),
            format_bytes(size),
            format_bytes(config.range_size),
            config.rounds
        );
        Self::of("scan", label, config)
    }
}

impl Planned for ScanConfig {
    fn facts(&self, _: &Machine, _: &Context) -> Facts {
        let mut cpus: Vec<u32> = self.nodes.iter().flat_map(|n| n.cpus.clone()).collect();
        cpus.sort_unstable();
        cpus.dedup();
        let nodes: Vec<u32> = self.nodes.iter().map(|node| node.node).collect();
        // Each node: its buffer built, then every range read once a round,
        // at least MIN_BYTES_PER_READ each (the ranges a buffer spans,
        // estimated as if its pages were contiguous).
        let costs = self
            .nodes
            .iter()
            .map(|node| {
                let ranges = node.size.div_ceil(self.range_size);
                Cost::Stream {
                    bytes: node.size.max(ranges * MIN_BYTES_PER_READ),
                    threads: node.cpus.len(),
                    count: 1,
                }
            })
            .collect();
        let threads = self.nodes.iter().map(|n| n.cpus.len()).max().unwrap_or(1);
        let mut sizes: Vec<u64> = self.nodes.iter().map(|node| node.size).collect();
        sizes.sort_unstable();
        sizes.dedup();
        let mut facts = Facts::new(threads, cpus, nodes, sizes, costs);
        // The rounds are the step's repetitions (the stream estimate reads
        // its bytes repeat + 1 times).
        facts.repeat = Some(self.rounds.saturating_sub(1));
        facts
    }

    fn working_sets(&mut self) -> Vec<&mut u64> {
        self.nodes.iter_mut().map(|node| &mut node.size).collect()
    }
}
