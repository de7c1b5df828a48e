//! interference's plan: its one step, the facts `--plan` shows of it
//! (the victims' and aggressors' CPUs and nodes, every measurement's
//! chase, read pass and aggressor start) and what a budget may cut (the
//! working set).

use super::config::InterferenceConfig;
use super::measure::LOADS_PER_SAMPLE;
use crate::bench::context::Context;
use crate::bench::estimate::Cost;
use crate::bench::plan::Facts;
use crate::bench::step::{Planned, Step};
use crate::topology::Machine;

impl Step {
    /// Every pair, load and round, then the matrix, one step.
    pub fn interference(config: InterferenceConfig) -> Self {
        let label = format!(
            "{} victim(s), {} pair(s) x {} load(s), {} round(s)",
            config.victims.len(),
            config.pairs.len(),
            config.loads.len(),
            config.rounds
        );
        Self::of("interference", label, config)
    }
}

impl Planned for InterferenceConfig {
    fn facts(&self, _: &Machine, context: &Context) -> Facts {
        let repeat = context.repeat.max(1);
        let mut cpus: Vec<u32> = self.victims.iter().map(|victim| victim.cpu).collect();
        cpus.extend(
            self.pairs
                .iter()
                .flat_map(|pair| pair.aggressor.cpus.clone()),
        );
        cpus.sort_unstable();
        cpus.dedup();
        let mut nodes: Vec<u32> = self.victims.iter().map(|victim| victim.node).collect();
        nodes.extend(self.pairs.iter().map(|pair| pair.aggressor.node));
        nodes.sort_unstable();
        nodes.dedup();
        let measurements = self.measurements_per_round() * self.rounds;
        let costs = vec![
            // The victim's chase: its buffer built, warmed and sampled.
            Cost::SampledChase {
                bytes: self.size,
                loads: (1 + repeat as u64) * LOADS_PER_SAMPLE,
                count: measurements,
            },
            // The victim's read passes over the same buffer (counted once:
            // a measurement is one chase and its reads).
            Cost::Setup {
                bytes: self.size * repeat as u64 * measurements as u64,
            },
            // Each aggressor thread's buffer, placed and touched.
            Cost::Setup {
                bytes: self
                    .pairs
                    .iter()
                    .map(|pair| self.aggressors_bytes(&pair.aggressor))
                    .sum::<u64>()
                    * (self.loads.len() * self.rounds) as u64,
            },
        ];
        Facts::new(
            1 + self.most_aggressors(),
            cpus,
            nodes,
            vec![self.size],
            costs,
        )
    }

    fn working_sets(&mut self) -> Vec<&mut u64> {
        vec![&mut self.size]
    }
}
