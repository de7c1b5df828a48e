//! c2c's plan: its step (in `characterize` and in `numabench c2c`), the
//! facts `--plan` shows of it and what a budget may cut (nothing).

use super::measure::{c2c_pairs, C2C_ORDER};
use super::run::C2cWork;
use crate::bench::characterize::{Defaults, Steps};
use crate::bench::context::Context;
use crate::bench::estimate::Cost;
use crate::bench::plan::Facts;
use crate::bench::step::{Planned, Step};
use crate::topology::Machine;

/// The label of c2c's one step.
const LABEL: &str = "cache-to-cache latency";

/// `characterize`: every pair (or a sample of them) in one step.
pub(in crate::bench) fn characterize(_: &Defaults, steps: &mut Steps) {
    steps.push(LABEL.to_string(), C2cWork, C2C_ORDER);
}

impl Step {
    /// Cache-to-cache latency of every pair (or a sample).
    pub fn c2c() -> Self {
        Self::of("c2c", LABEL.to_string(), C2cWork).in_order(C2C_ORDER)
    }
}

impl Planned for C2cWork {
    /// Two threads at a time over the pairs' CPUs, one ping-pong per
    /// pair; no memory is placed.
    fn facts(&self, topology: &Machine, _: &Context) -> Facts {
        let pairs = c2c_pairs(topology);
        let mut cpus: Vec<u32> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
        cpus.sort_unstable();
        cpus.dedup();
        Facts::new(
            2,
            cpus,
            Vec::new(),
            vec![64],
            vec![Cost::PingPong { pairs: pairs.len() }],
        )
    }

    /// One cache line, not a working set: nothing to cut.
    fn working_sets(&mut self) -> Vec<&mut u64> {
        Vec::new()
    }
}
