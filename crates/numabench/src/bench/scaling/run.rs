//! scaling's work: what a step of it runs (the step runner calls
//! [`Work::run`]).

use super::measure::*;
use crate::bench::step::{Ran, StepRun, Work};
use crate::kernels::KernelSpec;
use crate::threads::CpuOrder;

/// A scaling step: `kernel` over memory on `node`, threads added in
/// `order`.
#[derive(Debug, Clone)]
pub(in crate::bench) struct ScalingWork {
    pub(in crate::bench) kernel: &'static KernelSpec,
    pub(in crate::bench) node: u32,
    pub(in crate::bench) size: u64,
    pub(in crate::bench) order: CpuOrder,
    /// Thread counts measured: see [`scaling_counts`] (1: all).
    pub(in crate::bench) stride: usize,
}

impl Work for ScalingWork {
    fn run(&self, run: &mut StepRun) -> Ran {
        run_scaling(
            run.context,
            self.kernel,
            self.node,
            self.size,
            self.order,
            self.stride,
            run.pipeline,
        )
        .map(|_| None)
    }
}
