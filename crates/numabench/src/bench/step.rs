//! A step: one unit of work of a command or a characterization. `--plan`
//! reads its facts, a run executes it ([`super::StepRunner`]), a time
//! budget cuts it. What a step does is its benchmark's [`Work`]: the step
//! runner and the plan call the work's own methods, so nothing outside a
//! benchmark's folder lists every benchmark.

use super::context::Context;
use super::error::BenchError;
use super::matrix::NodeMatrix;
use super::plan::Facts;
use super::step_runner::StepRunner;
use crate::output::Pipeline;
use crate::threads::CpuOrder;
use crate::topology::Machine;
use std::any::Any;
use std::fmt::Debug;

/// One unit of work of a command or a characterization: `--plan` shows
/// it, a run executes it ([`super::StepRunner`]).
#[derive(Debug, Clone)]
pub struct Step {
    pub benchmark: &'static str,
    /// What this step measures, e.g. `latency 64 KiB`.
    pub label: String,
    /// The order numabench took the step's CPUs in; `None` where the user
    /// named them. The plan shows it and every record of the step carries
    /// it (`params.cpu_order`).
    pub cpu_order: Option<CpuOrder>,
    pub(super) work: Box<dyn Work>,
}

/// What a step's run is given: where it runs, where its records go, and
/// the runner that carries what one step leaves for a later one (an
/// each-CPU run's figures).
pub(super) struct StepRun<'a> {
    pub(super) context: &'a Context,
    pub(super) pipeline: &'a mut Pipeline,
    pub(super) runner: &'a mut StepRunner,
}

/// What a step's run returns: a matrix step its matrix (or its row), for
/// the command to print; the others nothing.
pub(super) type Ran = Result<Option<NodeMatrix>, BenchError>;

/// What a step runs, provided by its benchmark (`bench/<name>/run.rs`):
/// the step runner calls [`Work::run`]; `--plan` reads the same value's
/// [`Planned`] facts.
pub(super) trait Work: Debug + Any + CloneWork + Planned {
    /// Measures, emitting records through `run.pipeline`.
    fn run(&self, run: &mut StepRun) -> Ran;
}

/// What `--plan` and a time budget read of a step's work, provided by its
/// benchmark (`bench/<name>/plan.rs`).
pub(super) trait Planned {
    /// What it would do on `topology`: threads, CPUs, memory nodes, sizes
    /// and the costs of the estimate. Allocates and measures nothing.
    fn facts(&self, topology: &Machine, context: &Context) -> Facts;

    /// How its CPUs or cells were sampled, where they were (the plan shows
    /// it; its records carry it as `params.sample_rule`).
    fn sample_rule(&self) -> Option<String> {
        None
    }

    /// Every working-set size it measures, for a budget to cap (none where
    /// the sizes are the caches' own).
    fn working_sets(&mut self) -> Vec<&mut u64>;
}

/// Cloning a boxed [`Work`] (a step is cloned when a plan is cut).
pub(super) trait CloneWork {
    fn clone_work(&self) -> Box<dyn Work>;
}

impl<T: Work + Clone> CloneWork for T {
    fn clone_work(&self) -> Box<dyn Work> {
        Box::new(self.clone())
    }
}

impl Clone for Box<dyn Work> {
    fn clone(&self) -> Self {
        self.clone_work()
    }
}

impl Step {
    /// A step of `benchmark` running `work`, its CPUs named by the user.
    pub(super) fn of(benchmark: &'static str, label: String, work: impl Work) -> Self {
        Step {
            benchmark,
            label,
            cpu_order: None,
            work: Box::new(work),
        }
    }

    /// The same step, its CPUs chosen by numabench in `order` (shown in
    /// the plan, recorded as `params.cpu_order`).
    pub fn in_order(mut self, order: CpuOrder) -> Self {
        self.cpu_order = Some(order);
        self
    }

    /// The step's work if it is a `T` (a budget cuts some kinds of work).
    pub(super) fn work<T: Work>(&self) -> Option<&T> {
        self.work.downcast_ref()
    }

    /// The step's work, mutable, if it is a `T`.
    pub(super) fn work_mut<T: Work>(&mut self) -> Option<&mut T> {
        self.work.downcast_mut()
    }
}

impl dyn Work {
    /// This work if it is a `T`.
    pub(super) fn downcast_ref<T: Work>(&self) -> Option<&T> {
        (self as &dyn Any).downcast_ref()
    }

    /// This work, mutable, if it is a `T`.
    pub(super) fn downcast_mut<T: Work>(&mut self) -> Option<&mut T> {
        (self as &mut dyn Any).downcast_mut()
    }
}
