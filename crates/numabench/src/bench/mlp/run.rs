//! mlp's work: what a step of it runs (the step runner calls
//! [`Work::run`]).

use super::measure::*;
use super::threads::*;
use crate::bench::step::{Ran, StepRun, Work};

impl Work for MlpConfig {
    fn run(&self, run: &mut StepRun) -> Ran {
        run_mlp(run.context, self, run.pipeline).map(|()| None)
    }
}

impl Work for MlpThreadsConfig {
    fn run(&self, run: &mut StepRun) -> Ran {
        run_mlp_threads(run.context, self, run.pipeline).map(|()| None)
    }
}
