//! Thread-count scaling of the application kernels (`--threads 1,2,4` or
//! `--threads-sweep`): one configuration per thread count, run
//! interleaved ([`Schedule::rotated`]), each with its normal records plus
//! `speedup` and `parallel_efficiency` against the smallest count.
//!
//! CPUs are taken cores-first, as the micro-benchmark `scaling` takes
//! them: one hardware thread of every core before any second one. The
//! thread scheme decides how the nodes fill: `compact` fills them one after
//! another (node 0's cores, then node 1's, ...; then the second threads of
//! each node's cores in the same node order), so the node count grows as
//! the threads do; `scatter` deals CPUs round robin over the nodes
//! ([`CpuOrder::Scatter`], cores-first within each node).

use super::execute::{emit_app_records, run_once, AppRun, AppRunConfig, AppSummary};
use crate::output::{OutputError, Pipeline, Placement, Record, Unit};
use crate::runtime::{TeamError, ThreadScheme};
use crate::stats::Sample;
use crate::study::{run_study, FinishWhen, Schedule};
use crate::threads::CpuOrder;
use crate::topology::Machine;
use crate::workloads::AppChoice;
use numabench_schema::params::{to_params, AppScalingParams, ScalingOrder};
use numabench_schema::{RequestedMemory, RequestedPlacement};
use std::ops::ControlFlow;
use thiserror::Error;

/// The name records and plans give the compact scaling order.
pub const CORES_FIRST_BY_NODE: &str = "cores-first-by-node";

/// Why a scaling run stopped.
///
/// Fault: the team's or the outputs'.
#[derive(Debug, Error)]
pub enum ScalingError {
    #[error(transparent)]
    Team(#[from] TeamError),
    #[error(transparent)]
    Output(#[from] OutputError),
}

impl crate::error::Faulty for ScalingError {
    fn fault(&self) -> crate::error::Fault {
        match self {
            ScalingError::Team(error) => error.fault(),
            ScalingError::Output(error) => error.fault(),
        }
    }
}

/// Why a `--threads` list was refused; `list` is the whole list given.
///
/// Fault: always the user's (the list given).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ThreadCountsError {
    #[error("thread count '{item}' in '{list}' is not a whole number")]
    NotANumber { item: String, list: String },
    #[error("thread count 0 in '{list}': a run needs at least 1 thread")]
    Zero { list: String },
    #[error("thread count {count} is listed twice in '{list}'")]
    Twice { count: usize, list: String },
}

crate::error::all_faulty!(Usage: ThreadCountsError);

/// Reads a `--threads` list, `N` or `N,M,...`: positive counts, none
/// twice; returned ascending (the smallest is the reference of speedup).
pub fn parse_thread_counts(text: &str) -> Result<Vec<usize>, ThreadCountsError> {
    let list = || text.to_string();
    let mut counts = Vec::new();
    for item in text.split(',') {
        let item = item.trim();
        let Ok(count) = item.parse::<usize>() else {
            return Err(ThreadCountsError::NotANumber {
                item: item.to_string(),
                list: list(),
            });
        };
        if count == 0 {
            return Err(ThreadCountsError::Zero { list: list() });
        }
        if counts.contains(&count) {
            return Err(ThreadCountsError::Twice {
                count,
                list: list(),
            });
        }
        counts.push(count);
    }
    counts.sort_unstable();
    Ok(counts)
}

/// `--threads-sweep`: 1, 2, 4, ... up to `allowed`, and `allowed` itself
/// when it is not a power of two.
pub fn sweep_counts(allowed: usize) -> Vec<usize> {
    let mut counts: Vec<usize> = std::iter::successors(Some(1usize), |count| count.checked_mul(2))
        .take_while(|count| *count <= allowed)
        .collect();
    if allowed > 0 && !allowed.is_power_of_two() {
        counts.push(allowed);
    }
    counts
}

/// The name of the order a scaling run takes CPUs in under `scheme`
/// (`None`: unpinned).
pub fn scaling_order_name(scheme: ThreadScheme) -> Option<&'static str> {
    match scheme {
        ThreadScheme::Compact => Some(CORES_FIRST_BY_NODE),
        ThreadScheme::Scatter => Some(CpuOrder::Scatter.name()),
        ThreadScheme::Unpinned => None,
    }
}

/// Every allowed CPU in the order a scaling run adds them under `scheme`
/// (module doc); `None` when unpinned.
pub fn scaling_cpus(topology: &Machine, scheme: ThreadScheme) -> Option<Vec<u32>> {
    match scheme {
        ThreadScheme::Compact => Some(cores_first_by_node(topology)),
        ThreadScheme::Scatter => Some(CpuOrder::Scatter.all_allowed(topology)),
        ThreadScheme::Unpinned => None,
    }
}

/// For each thread rank within a core (first threads, then second, ...):
/// node after node, each node's CPUs of that rank in cores-first order.
/// CPUs of no node follow, cores-first.
fn cores_first_by_node(topology: &Machine) -> Vec<u32> {
    let rank = |cpu: u32| {
        topology
            .cores
            .iter()
            .find_map(|core| core.iter().position(|&sibling| sibling == cpu))
            .unwrap_or(0)
    };
    let mut per_node: Vec<Vec<u32>> = topology
        .nodes
        .iter()
        .map(|node| CpuOrder::CoresFirst.arrange(topology, &node.cpus))
        .collect();
    let homeless: Vec<u32> = topology
        .allowed
        .cpus
        .iter()
        .copied()
        .filter(|cpu| !per_node.iter().flatten().any(|placed| placed == cpu))
        .collect();
    per_node.push(CpuOrder::CoresFirst.arrange(topology, &homeless));
    let ranks = topology.cores.iter().map(Vec::len).max().unwrap_or(1);
    let mut ordered = Vec::new();
    for wanted in 0..ranks.max(1) {
        for node in &per_node {
            ordered.extend(
                node.iter()
                    .copied()
                    .filter(|&cpu| rank(cpu).min(ranks - 1) == wanted),
            );
        }
    }
    ordered
}

/// The number of distinct nodes the workers are pinned on; `None` when
/// some worker is unpinned (it may run anywhere).
pub fn nodes_used(topology: &Machine, cpus: &[Option<u32>]) -> Option<usize> {
    let mut nodes = Vec::new();
    for cpu in cpus {
        let node = topology.node_of_cpu((*cpu)?);
        if !nodes.contains(&node) {
            nodes.push(node);
        }
    }
    (!nodes.is_empty()).then_some(nodes.len())
}

/// The configurations of a scaling run: `base` with each thread count
/// (before over-decomposition: `base.threads_per_cpu` workers per CPU),
/// its CPUs the first ones of [`scaling_cpus`].
pub fn scaling_configs(
    topology: &Machine,
    base: &AppRunConfig,
    counts: &[usize],
) -> Vec<AppRunConfig> {
    let order = scaling_cpus(topology, base.thread_scheme);
    let per_cpu = base.threads_per_cpu.max(1);
    counts
        .iter()
        .map(|&count| AppRunConfig {
            threads: count * per_cpu,
            cpus: order
                .as_ref()
                .map(|order| order.iter().copied().take(count).collect()),
            ..base.clone()
        })
        .collect()
}

/// One thread count's outcome, for the table.
#[derive(Debug, Clone)]
pub struct ScalingRow {
    pub threads: usize,
    pub nodes_used: Option<usize>,
    pub summary: AppSummary,
    pub speedup: f64,
    pub parallel_efficiency: f64,
}

/// Runs every configuration of `configs` (ascending thread counts)
/// `repeat` times, interleaved, and emits each one's records after its
/// last run: the normal app records, then `speedup` and
/// `parallel_efficiency` against the first configuration. `before_run` is
/// told about each run before it starts. Ctrl-C stops the schedule;
/// configurations with a run still get their records.
pub fn run_thread_scaling(
    topology: &Machine,
    choice: &AppChoice,
    configs: &[AppRunConfig],
    repeat: usize,
    pipeline: &mut Pipeline,
    before_run: &mut dyn FnMut(usize, &AppRunConfig),
) -> Result<Vec<ScalingRow>, ScalingError> {
    let repeat = repeat.max(1);
    // The first count to finish is the reference: configurations finish
    // in grid (ascending count) order.
    let mut reference: Option<(usize, f64)> = None;
    let finished = run_study(
        Schedule::rotated(configs.len(), repeat),
        FinishWhen::InGridOrder,
        |slot, _| {
            let config = &configs[slot.configuration];
            before_run(slot.repetition, config);
            let mut run = run_once(topology, config, choice.make().as_mut())?;
            name_scaling_order(config, &mut run);
            Ok::<_, ScalingError>(ControlFlow::Continue(run))
        },
        |index, runs| {
            Ok(scaling_records(
                topology,
                choice,
                &configs[index],
                runs,
                &mut reference,
                pipeline,
            )?)
        },
    )?;
    Ok(finished.into_results())
}

/// A pinned scaling run's records name the order its CPUs were added in
/// (`cpu_order`, after the kernel's params).
pub(super) fn name_scaling_order(config: &AppRunConfig, run: &mut AppRun) {
    if let Some(order) = scaling_order_name(config.thread_scheme) {
        run.extra_params.extend(to_params(&ScalingOrder {
            cpu_order: order.to_string(),
        }));
    }
}

/// Emits one thread count's records; the first count to finish is the
/// reference (the smallest: configurations finish in ascending order).
pub(super) fn scaling_records(
    topology: &Machine,
    choice: &AppChoice,
    config: &AppRunConfig,
    runs: &[AppRun],
    reference: &mut Option<(usize, f64)>,
    pipeline: &mut Pipeline,
) -> Result<Option<ScalingRow>, OutputError> {
    let class = choice.class().map(|class| class.to_string());
    let Some(summary) = emit_app_records(
        topology,
        choice.name(),
        class.as_deref(),
        config,
        runs,
        pipeline,
    )?
    else {
        return Ok(None);
    };
    let base_threads = config.threads / config.threads_per_cpu.max(1);
    let (reference_threads, reference_seconds) =
        *reference.get_or_insert((base_threads, summary.time.median()));
    let worker_cpus = config.worker_cpus(topology);
    let nodes = nodes_used(topology, &worker_cpus);
    let params = to_params(&AppScalingParams {
        configuration: super::execute::app_configuration(topology, class.as_deref(), config),
        cpu_order: scaling_order_name(config.thread_scheme).map(str::to_string),
        relative_to_threads: Some(reference_threads as u64),
        relative_to_seconds: Some(reference_seconds),
        time_seconds: Some(summary.time.median()),
    });
    let requested = to_params(&RequestedPlacement {
        cpus: Some(worker_cpus),
        memory: Some(RequestedMemory::Label(config.placement.to_string())),
        ..RequestedPlacement::default()
    });
    let placement = Placement {
        requested,
        verified: None,
    };
    let scale = reference_threads as f64 / base_threads as f64;
    let speedup = reference_seconds / summary.time.median();
    let per_run_speedup =
        Sample::new(runs.iter().map(|run| reference_seconds / run.total_seconds)).expect("runs");
    let per_run_efficiency = Sample::new(
        per_run_speedup
            .values()
            .iter()
            .map(|speedup| speedup * scale),
    )
    .expect("runs");
    let record = |metric: &str, value: f64, stats: &Sample| Record {
        benchmark: choice.name().to_string(),
        metric: metric.to_string(),
        value,
        unit: Unit::Ratio,
        params: params.clone(),
        placement: placement.clone(),
        stats: stats.summary(),
    };
    pipeline.emit(&record("speedup", speedup, &per_run_speedup))?;
    pipeline.emit(&record(
        "parallel_efficiency",
        speedup * scale,
        &per_run_efficiency,
    ))?;
    Ok(Some(ScalingRow {
        threads: base_threads,
        nodes_used: nodes,
        summary,
        speedup,
        parallel_efficiency: speedup * scale,
    }))
}

#[cfg(test)]
#[path = "scaling_tests.rs"]
mod tests;
