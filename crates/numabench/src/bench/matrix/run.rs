//! The node matrices' work: what a step of it runs (the step runner calls
//! [`Work::run`]).

use super::cell_size::CellSize;
use super::measure::*;
use crate::bench::step::{Ran, StepRun, Work};

/// A node matrix step: every CPU node x every memory node, working set
/// `size`; with a sample, each class of cells measured at its sample and
/// the rest inferred (a budget's cut).
#[derive(Debug, Clone)]
pub(in crate::bench) struct MatrixWork {
    pub(in crate::bench) kind: MatrixKind,
    pub(in crate::bench) size: CellSize,
    pub(in crate::bench) sample: Option<MatrixSample>,
}

/// One row of a per-CPU matrix: one thread on `cpu` x every memory node.
#[derive(Debug, Clone)]
pub(in crate::bench) struct CpuRow {
    pub(in crate::bench) cpu: u32,
    pub(in crate::bench) kind: MatrixKind,
    pub(in crate::bench) size: u64,
}

impl Work for MatrixWork {
    fn run(&self, run: &mut StepRun) -> Ran {
        match &self.sample {
            None => run_node_matrix(run.context, self.kind, self.size, run.pipeline),
            Some(sample) => {
                run_sampled_matrix(run.context, self.kind, self.size, sample, run.pipeline)
            }
        }
        .map(Some)
    }
}

impl Work for CpuRow {
    fn run(&self, run: &mut StepRun) -> Ran {
        run_cpu_row(run.context, self.cpu, self.kind, self.size, run.pipeline).map(Some)
    }
}
