//! The cache-state benchmark's plan: the step of its command and what
//! `--plan` and a time budget read of its work ([`Planned`]).

use super::CacheConfig;
use crate::bench::context::Context;
use crate::bench::estimate::Cost;
use crate::bench::plan::Facts;
use crate::bench::step::{Planned, Step};
use crate::topology::Machine;

impl Step {
    /// Another core's caches, by state x level x relation.
    pub fn cache(config: CacheConfig) -> Self {
        Self::of(
            "cache",
            format!(
                "another core's caches: owner CPU {}, {} measuring CPUs",
                config.owner,
                config.measurers.len()
            ),
            config,
        )
    }
}

impl Planned for CacheConfig {
    fn facts(&self, topology: &Machine, _: &Context) -> Facts {
        let mut cpus: Vec<u32> = std::iter::once(self.owner)
            .chain(self.measurers.iter().map(|m| m.cpu))
            .collect();
        cpus.sort_unstable();
        cpus.dedup();
        let sizes: Vec<u64> = self.levels.iter().map(|l| l.bytes as u64).collect();
        let count = self.measurers.len() * (self.states.len() + 1);
        Facts::new(
            3.min(cpus.len()),
            cpus,
            topology.node_of_cpu(self.owner).into_iter().collect(),
            sizes.clone(),
            sizes
                .iter()
                .map(|&bytes| Cost::Chase { bytes, count })
                .collect(),
        )
    }

    fn working_sets(&mut self) -> Vec<&mut u64> {
        // The caches' own sizes: nothing a budget may cut.
        Vec::new()
    }
}
