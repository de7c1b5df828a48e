//! contention's work: what a step of it runs (the step runner calls
//! [`Work::run`]).

use super::measure::*;
use crate::bench::step::{Ran, StepRun, Work};

/// A contention step: `cpus` against memory on `node`, working set `size`.
#[derive(Debug, Clone)]
pub(in crate::bench) struct ContentionWork {
    pub(in crate::bench) cpus: Vec<u32>,
    /// The CPUs measured alone in turn: `cpus`, or a time budget's sample.
    pub(in crate::bench) alone: Vec<u32>,
    pub(in crate::bench) node: u32,
    pub(in crate::bench) size: u64,
}

impl Work for ContentionWork {
    fn run(&self, run: &mut StepRun) -> Ran {
        run_contention(
            run.context,
            &self.cpus,
            &self.alone,
            self.node,
            self.size,
            run.pipeline,
        )
        .map(|_| None)
    }
}
