//! c2c's work: what a step of it runs.

use crate::bench::step::{Ran, StepRun, Work};

/// Every pair of [`super::measure::c2c_pairs`], measured in turn: the pairs come
/// from the topology, so the work holds nothing.
#[derive(Debug, Clone)]
pub(in crate::bench) struct C2cWork;

impl Work for C2cWork {
    fn run(&self, run: &mut StepRun) -> Ran {
        super::measure::run_c2c(run.context, run.pipeline).map(|_| None)
    }
}
