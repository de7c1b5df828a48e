//! The cache-state benchmark's work: what a step of it runs (the step
//! runner calls [`Work::run`]).

use super::{run_cache, CacheConfig};
use crate::bench::step::{Ran, StepRun, Work};

impl Work for CacheConfig {
    fn run(&self, run: &mut StepRun) -> Ran {
        run_cache(run.context, self, run.pipeline).map(|_| None)
    }
}
