//! The sweep: every socket, thread count, mix and weighting measured once
//! per round, in an order rotated each round (so none is always first or
//! last: the study engine's [`Schedule`]), then the weights measured
//! bandwidth suggests against the kernel's own, also in interleaved
//! rounds.

use super::advise::{advice_records, measured_weights, socket_params, Key, Points};
use super::config::{placement, TierSocket, TiersConfig, Weights};
use crate::bench::bandwidth::{run_bandwidth, BandwidthConfig};
use crate::bench::context::Context;
use crate::bench::error::BenchError;
use crate::interrupt::interrupted;
use crate::kernels::KernelSpec;
use crate::output::Pipeline;
use crate::study::Schedule;
use numabench_schema::benchmark;
use numabench_schema::params::{to_params, TiersLabels};

/// One configuration of a phase: socket, threads, mix and weighting.
type Configuration<'a> = (&'a TierSocket, usize, &'static KernelSpec, Weights);

/// Runs the sweep and emits every measurement, then the advice.
pub fn run_tiers(
    context: &Context,
    config: &TiersConfig,
    pipeline: &mut Pipeline,
) -> Result<(), BenchError> {
    let mut points = Points::new();
    let mut sweep: Vec<Configuration> = Vec::new();
    for socket in &config.sockets {
        for threads in config.thread_counts(socket) {
            for &kernel in &config.kernels {
                for weights in config.weightings() {
                    sweep.push((socket, threads, kernel, weights));
                }
            }
        }
    }
    run_phase(context, config, &sweep, "sweep", &mut points, pipeline)?;
    // The weights measured bandwidth suggests, against the kernel's and
    // those auto mode writes from the firmware's figures: read, every
    // thread of the socket.
    let read = config
        .kernels
        .iter()
        .find(|kernel| kernel.name == "read")
        .copied();
    if let Some(kernel) = read {
        let mut check: Vec<Configuration> = Vec::new();
        for socket in &config.sockets {
            let against = config.checked_weightings(socket);
            if against.is_empty() {
                continue;
            }
            if let Some(weights) = measured_weights(&points, socket, config) {
                let threads = socket.cpus.len();
                check.push((socket, threads, kernel, Weights::Nodes(weights)));
                for weights in against {
                    check.push((socket, threads, kernel, weights));
                }
            }
        }
        if !interrupted() && !check.is_empty() {
            run_phase(context, config, &check, "check", &mut points, pipeline)?;
        }
    }
    for record in advice_records(&points, config) {
        pipeline.emit(&record)?;
    }
    Ok(())
}

/// Every configuration once a round, the order rotated each round (the
/// study engine's schedule); Ctrl-C ends it before the next measurement.
fn run_phase(
    context: &Context,
    config: &TiersConfig,
    configurations: &[Configuration],
    phase: &str,
    points: &mut Points,
    pipeline: &mut Pipeline,
) -> Result<(), BenchError> {
    for slot in Schedule::rotated(configurations.len(), config.rounds).slots() {
        let (socket, threads, kernel, weights) = &configurations[slot.configuration];
        let label = match phase {
            "check" => format!("check {}", weights.label()),
            _ => weights.label(),
        };
        let key = Key {
            socket: socket.node,
            kernel: kernel.name,
            threads: *threads,
            weights: label,
        };
        let samples = measure(
            context,
            config,
            socket,
            *threads,
            kernel,
            weights,
            (slot.repetition, phase),
            pipeline,
        )?;
        points.add(key, slot.repetition, samples);
    }
    Ok(())
}

/// One measurement: its record emitted, its repetitions' GB/s returned.
#[allow(clippy::too_many_arguments)]
fn measure(
    context: &Context,
    config: &TiersConfig,
    socket: &TierSocket,
    threads: usize,
    kernel: &'static KernelSpec,
    weights: &Weights,
    (round, phase): (usize, &str),
    pipeline: &mut Pipeline,
) -> Result<Vec<f64>, BenchError> {
    let labels = TiersLabels {
        socket: socket_params(socket),
        weights: Some(weights.label()),
        round: Some(round as u64),
        phase: Some(phase.to_string()),
    };
    let bandwidth = BandwidthConfig::new(
        kernel,
        socket.cpus[..threads].to_vec(),
        config.size,
        placement(weights, socket),
    )
    .labelled(benchmark::TIERS, to_params(&labels));
    let result = run_bandwidth(context, &bandwidth, pipeline)?;
    Ok(result.gigabytes_per_second.values().to_vec())
}
