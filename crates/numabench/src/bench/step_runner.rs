//! Runs the steps a command built, in order: the very steps `--plan`
//! shows. Steps are independent except an each-CPU run's, whose last CPU
//! emits every CPU's ratio to its node's median: the runner keeps their
//! figures until then.

use super::bandwidth::run_bandwidth;
use super::c2c::run_c2c;
use super::characterize::{Step, Work};
use super::contention::run_contention;
use super::context::Context;
use super::error::BenchError;
use super::latency::run_latency;
use super::loaded_latency::run_loaded_latency;
use super::matrix::{run_cpu_row, run_node_matrix, run_sampled_matrix, NodeMatrix};
use super::mlp::run_mlp;
use super::per_cpu::{emit_node_median_ratios, measure_one_cpu, Figure};
use super::scaling::run_scaling;
use crate::interrupt::interrupted;
use crate::output::Pipeline;
use serde_json::{json, Map};

/// Runs steps one after the other, carrying the per-CPU figures of an
/// each-CPU run from its first CPU's step to its last's.
#[derive(Debug, Default)]
pub struct StepRunner {
    figures: Vec<Figure>,
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
        let result = self.run_work(context, &step.work, pipeline);
        pipeline.set_common_params(Map::new());
        result
    }

    fn run_work(
        &mut self,
        context: &Context,
        work: &Work,
        pipeline: &mut Pipeline,
    ) -> Result<Option<NodeMatrix>, BenchError> {
        match work {
            Work::Latency(config) => run_latency(context, config, pipeline).map(|()| None),
            Work::Matrix(kind, size, None) => {
                run_node_matrix(context, *kind, *size, pipeline).map(Some)
            }
            Work::Matrix(kind, size, Some(sample)) => {
                run_sampled_matrix(context, *kind, *size, sample, pipeline).map(Some)
            }
            Work::CpuRow { cpu, kind, size } => {
                run_cpu_row(context, *cpu, *kind, *size, pipeline).map(Some)
            }
            Work::Bandwidth(config) => run_bandwidth(context, config, pipeline).map(|_| None),
            Work::Contention {
                cpus,
                alone,
                node,
                size,
            } => run_contention(context, cpus, alone, *node, *size, pipeline).map(|_| None),
            Work::Scaling {
                kernel,
                node,
                size,
                order,
                stride,
            } => {
                run_scaling(context, kernel, *node, *size, *order, *stride, pipeline).map(|_| None)
            }
            Work::LoadedLatency(config) => {
                run_loaded_latency(context, config, pipeline).map(|_| None)
            }
            Work::Mlp(config) => run_mlp(context, config, pipeline).map(|()| None),
            Work::Cache(config) => super::cache::run_cache(context, config, pipeline).map(|_| None),
            Work::MlpThreads(config) => {
                super::mlp_threads::run_mlp_threads(context, config, pipeline).map(|()| None)
            }
            Work::C2c => run_c2c(context, pipeline).map(|_| None),
            Work::OneCpu(one) => {
                self.figures
                    .extend(measure_one_cpu(context, one, pipeline)?);
                if one.last && !interrupted() {
                    let figures = std::mem::take(&mut self.figures);
                    emit_node_median_ratios(one.benchmark, &figures, pipeline)?;
                }
                Ok(None)
            }
        }
    }
}
