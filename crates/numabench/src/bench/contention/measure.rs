//! `contention`: what a serially initialised program does to bandwidth.
//! Every allowed CPU reads memory placed on one node — first each thread
//! alone in turn (serial), then all at once (contended) — against every
//! thread reading memory on its own node (local). Reports aggregate and
//! per-thread bandwidth and the ratios.

use crate::bench::bandwidth::{
    bandwidth_record, measure_bandwidth, BandwidthConfig, BandwidthResult,
};
use crate::bench::context::Context;
use crate::bench::error::BenchError;
use crate::bench::placed::working_set_params;
use crate::kernels::kernel_by_name;
use crate::memory::MemoryPlacement;
use crate::output::{Pipeline, Placement, Record, Unit};
use crate::stats::Sample;
use crate::topology::Machine;
use numabench_schema::benchmark;
use numabench_schema::params::{to_params, ContentionParams, ContentionRatioParams};

/// The three scenarios' aggregate bandwidths, GB/s.
#[derive(Debug, Clone, PartialEq)]
pub struct ContentionSummary {
    /// Each thread alone, in turn, on the target node (sum of their rates).
    pub serial_per_thread: Vec<f64>,
    pub contended: f64,
    pub contended_per_thread: Vec<f64>,
    pub local: f64,
    pub local_per_thread: Vec<f64>,
}

fn emit(
    topology: &Machine,
    pipeline: &mut Pipeline,
    config: &BandwidthConfig,
    result: &BandwidthResult,
    metric: &str,
    scenario: &str,
    alone_sampled: Option<String>,
) -> Result<(), BenchError> {
    // No declared figure: a contention record carries no
    // `measured_over_declared` (the matrix cells alone do).
    let params = ContentionParams {
        alone_sampled,
        scenario: Some(scenario.to_string()),
        kernel: Some(config.kernel.name.to_string()),
        threads: Some(config.cpus.len() as u64),
        working_set: working_set_params(
            topology,
            config.size,
            &config.cpus,
            &config.memory.expected_nodes(),
        ),
        per_thread_gbs: Some(result.per_thread.clone()),
        simd: result.simd.params(),
        convergence: Some(result.convergence),
    };
    pipeline.emit(&bandwidth_record(
        benchmark::CONTENTION,
        metric,
        config,
        result,
        to_params(&params),
    ))?;
    Ok(())
}

fn emit_ratio(
    pipeline: &mut Pipeline,
    metric: &str,
    value: f64,
    meaning: &str,
) -> Result<(), BenchError> {
    let params = ContentionRatioParams {
        meaning: Some(meaning.to_string()),
    };
    pipeline.emit(&Record {
        benchmark: benchmark::CONTENTION.into(),
        metric: metric.into(),
        value,
        unit: Unit::Ratio,
        params: to_params(&params),
        placement: Placement::default(),
        stats: Sample::new([value]).expect("finite ratio").summary(),
    })?;
    Ok(())
}

/// Runs the three scenarios with memory of the contended scenarios on
/// `target_node`, on `cpus`, working set `size` (per scenario). `alone`
/// names the CPUs measured alone in turn: every one of `cpus`, or a sample
/// a time budget chose (each such record says so in `params.alone_sampled`).
pub fn run_contention(
    context: &Context,
    cpus: &[u32],
    alone: &[u32],
    target_node: u32,
    size: u64,
    pipeline: &mut Pipeline,
) -> Result<ContentionSummary, BenchError> {
    let read = kernel_by_name("read").expect("read kernel is registered");
    let on_target = MemoryPlacement::bind(target_node);
    let mut serial_per_thread = Vec::new();
    let sampled = (alone.len() < cpus.len()).then(|| {
        format!(
            "{} of the {} CPUs, spread evenly (time budget)",
            alone.len(),
            cpus.len()
        )
    });
    for &cpu in alone {
        let config = BandwidthConfig::new(read, vec![cpu], size, on_target.clone());
        let result = measure_bandwidth(context, &config)?;
        emit(
            &context.topology,
            pipeline,
            &config,
            &result,
            "serial_bandwidth",
            &format!("cpu {cpu} alone, memory on node {target_node}"),
            sampled.clone(),
        )?;
        serial_per_thread.push(result.gigabytes_per_second.max());
    }
    let contended_config = BandwidthConfig::new(read, cpus.to_vec(), size, on_target);
    let contended = measure_bandwidth(context, &contended_config)?;
    emit(
        &context.topology,
        pipeline,
        &contended_config,
        &contended,
        "contended_bandwidth",
        &format!("all threads at once, memory on node {target_node}"),
        None,
    )?;
    let mut local_nodes: Vec<u32> = cpus
        .iter()
        .filter_map(|&cpu| context.topology.node_of_cpu(cpu))
        .collect();
    local_nodes.sort_unstable();
    local_nodes.dedup();
    let local_config = BandwidthConfig::new(
        read,
        cpus.to_vec(),
        size,
        MemoryPlacement::FirstTouch { nodes: local_nodes },
    );
    let local = measure_bandwidth(context, &local_config)?;
    emit(
        &context.topology,
        pipeline,
        &local_config,
        &local,
        "local_bandwidth",
        "all threads at once, each on its own node",
        None,
    )?;
    let summary = ContentionSummary {
        serial_per_thread,
        contended: contended.gigabytes_per_second.max(),
        contended_per_thread: contended.per_thread.clone(),
        local: local.gigabytes_per_second.max(),
        local_per_thread: local.per_thread.clone(),
    };
    if summary.contended > 0.0 {
        emit_ratio(
            pipeline,
            "local_over_contended",
            summary.local / summary.contended,
            "aggregate bandwidth gained by placing each thread's data on its own node",
        )?;
    }
    let serial_mean = summary.serial_per_thread.iter().sum::<f64>()
        / summary.serial_per_thread.len().max(1) as f64;
    let contended_mean = summary.contended_per_thread.iter().sum::<f64>()
        / summary.contended_per_thread.len().max(1) as f64;
    if contended_mean > 0.0 {
        emit_ratio(
            pipeline,
            "serial_over_contended_per_thread",
            serial_mean / contended_mean,
            "how much slower each thread reads when all threads share one node's memory",
        )?;
    }
    Ok(summary)
}
