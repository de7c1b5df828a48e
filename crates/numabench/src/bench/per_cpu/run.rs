//! per-cpu's work: what a step of it runs (the step runner calls
//! [`Work::run`]).

use super::measure::*;
use crate::bench::step::{Ran, StepRun, Work};
use crate::interrupt::interrupted;

impl Work for OneCpu {
    fn run(&self, run: &mut StepRun) -> Ran {
        run.runner
            .figures
            .extend(measure_one_cpu(run.context, self, run.pipeline)?);
        if self.last && !interrupted() {
            let figures = std::mem::take(&mut run.runner.figures);
            emit_node_median_ratios(self.benchmark, &figures, run.pipeline)?;
        }
        Ok(None)
    }
}
