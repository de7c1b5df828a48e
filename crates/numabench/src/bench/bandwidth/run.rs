//! bandwidth's work: what a step of it runs (the step runner calls
//! [`Work::run`]).

use super::measure::*;
use crate::bench::step::{Ran, StepRun, Work};

impl Work for BandwidthConfig {
    fn run(&self, run: &mut StepRun) -> Ran {
        run_bandwidth(run.context, self, run.pipeline).map(|_| None)
    }
}
