//! tiers' work: what its step runs.

use super::config::TiersConfig;
use crate::bench::step::{Ran, StepRun, Work};

impl Work for TiersConfig {
    fn run(&self, run: &mut StepRun) -> Ran {
        super::measure::run_tiers(run.context, self, run.pipeline).map(|_| None)
    }
}
