//! scan's work: what its step runs.

use super::config::ScanConfig;
use crate::bench::step::{Ran, StepRun, Work};

impl Work for ScanConfig {
    fn run(&self, run: &mut StepRun) -> Ran {
        super::measure::run_scan(run.context, self, run.pipeline).map(|_| None)
    }
}
