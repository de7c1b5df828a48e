//! Runs the steps a command built, in order: the very steps `--plan`
//! shows. Each step's work runs itself (its benchmark's
//! [`super::step::Work::run`]). Steps are independent except an each-CPU
//! run's, whose last CPU emits every CPU's ratio to its node's median: the
//! runner keeps their figures until then.

use super::context::Context;
use super::error::BenchError;
use super::matrix::NodeMatrix;
use super::per_cpu::Figure;
use super::step::{Step, StepRun};
use crate::output::Pipeline;
use serde_json::{json, Map};

/// Runs steps one after the other, carrying the per-CPU figures of an
/// each-CPU run from its first CPU's step to its last's.
#[derive(Debug, Default)]
pub struct StepRunner {
    /// An each-CPU run's figures so far, for its last CPU's ratios.
    pub(super) figures: Vec<Figure>,
}

impl StepRunner {
    pub fn new() -> Self {
        Self::default()
    }

    /// Runs one step, emitting its records (each carrying the step's
    /// `cpu_order` where numabench chose its CPUs). A matrix step returns
    /// its matrix (or its row), for the command to print.
    pub fn run(
        &mut self,
        context: &Context,
        step: &Step,
        pipeline: &mut Pipeline,
    ) -> Result<Option<NodeMatrix>, BenchError> {
        let mut common = Map::new();
        if let Some(order) = step.cpu_order {
            common.insert("cpu_order".into(), json!(order.name()));
        }
        pipeline.set_common_params(common);
        pipeline.mark_vmstat(true);
        let result = step.work.run(&mut StepRun {
            context,
            pipeline,
            runner: self,
        });
        pipeline.set_common_params(Map::new());
        pipeline.mark_vmstat(false);
        result
    }
}
