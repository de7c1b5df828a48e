//! A short calibration of the estimate's rates on this machine, before a
//! run: the real benchmark code (placement, verification, calibration of
//! the SIMD level, the stopping rule) measured at a tiny size (its fixed
//! cost) and at one thread's DRAM working set (its rates), so the
//! estimate of every step is this machine's rather than an assumption.
//! About half a second on a desktop; `--plan` never runs it.

use super::bandwidth::{measure_bandwidth, BandwidthConfig};
use super::context::Context;
use super::error::BenchError;
use super::estimate::{estimate, Cost, CostModel, CALIBRATION_PASSES, MIN_SAMPLE_SECONDS};
use super::latency::{measure_latency, LatencyConfig};
use super::placed::{working_set_for, CACHE_MULTIPLE};
use super::registry::registry;
use crate::kernels::{kernel_by_name, ChaseOrder};
use crate::memory::MemoryPlacement;
use std::time::Instant;

/// The size whose measurement is all fixed cost (threads, pinning,
/// verification, SIMD calibration), its bytes a rounding error.
const TINY: u64 = 1 << 20;
/// The largest bandwidth buffer the calibration builds: this machine's
/// DRAM working set for one thread, capped here.
const MAX_SIZE: u64 = 512 << 20;
/// The largest chase measured (chains are slow to lay; its rate per byte does not
/// depend on the size).
const CHASE: u64 = 64 << 20;

/// Bounds a calibration's rates are kept within (a noisy or disturbed
/// calibration must not make a plan of hours look like seconds). The
/// lower one is 10 MB/s: an emulated guest (QEMU TCG) builds and reads
/// memory below 100 MB/s, and a bound of 100 MB/s there made the estimate
/// of a two-socket guest's characterize 231 s against the 413 s it took.
const MIN_RATE: f64 = 0.01e9;
const MAX_RATE: f64 = 100e9;
const MAX_FIXED_SECONDS: f64 = 0.5;

/// One bandwidth measurement's wall time, the rate it measured (bytes per
/// second, median) and the repetitions it took.
fn timed_read(
    context: &Context,
    cpus: &[u32],
    node: u32,
    size: u64,
) -> Result<(f64, f64, usize), BenchError> {
    let kernel = kernel_by_name("read").expect("read kernel is registered");
    let config = BandwidthConfig::new(
        kernel,
        cpus.to_vec(),
        size,
        MemoryPlacement::FirstTouch { nodes: vec![node] },
    );
    let start = Instant::now();
    let result = measure_bandwidth(context, &config)?;
    Ok((
        start.elapsed().as_secs_f64(),
        result.gigabytes_per_second.median() * 1e9,
        result.convergence.repetitions as usize,
    ))
}

/// What [`calibrate_cost_model`] is estimated to take on `context`'s
/// machine with its rates (the assumed ones for `--plan`): the same
/// measurements costed as a plan's (a tiny read, one thread's and all
/// threads' reads of one thread's DRAM working set, one chase, then what
/// each registry entry's own calibration measures: a cache-to-cache
/// pair). A budget is cut to what is left after it.
pub fn calibration_estimate_seconds(context: &Context) -> f64 {
    let topology = &context.topology;
    let Some(&cpu) = topology.allowed.cpus.first() else {
        return 0.0;
    };
    let node = topology.node_of_cpu(cpu).unwrap_or(0);
    let size = working_set_for(topology, &[cpu], &[node])
        .bytes
        .clamp(TINY, MAX_SIZE);
    let all = topology.allowed.cpus.len();
    let model = &context.cost_model;
    let repeat = context.repeat;
    let mut costs = vec![
        Cost::Stream {
            bytes: TINY,
            threads: 1,
            count: 1,
        },
        Cost::Stream {
            bytes: size,
            threads: 1,
            count: 1,
        },
        Cost::Chase {
            bytes: CHASE.min(size),
            count: 1,
        },
    ];
    if all > 1 {
        costs.push(Cost::Stream {
            bytes: size,
            threads: all,
            count: 1,
        });
    }
    for calibration in registry().iter().filter_map(|info| info.calibration) {
        costs.extend((calibration.costs)(context));
    }
    costs
        .into_iter()
        .map(|cost| estimate(cost, repeat, model))
        .sum()
}

/// Measures this machine's rates for the estimate with `context`'s
/// settings, on the first allowed CPU and its node (and all allowed CPUs
/// for the bound on their sum), then each registry entry's own rates, in
/// registry order. Fails only where a measurement fails.
pub fn calibrate_cost_model(context: &Context) -> Result<CostModel, BenchError> {
    let topology = &context.topology;
    let cpu = topology.allowed.cpus[0];
    let node = topology.node_of_cpu(cpu).unwrap_or(0);
    let (fixed, _, _) = timed_read(context, &[cpu], node, TINY)?;
    let fixed = fixed.clamp(0.0, MAX_FIXED_SECONDS);
    let size = working_set_for(topology, &[cpu], &[node])
        .bytes
        .clamp(TINY, MAX_SIZE);
    let (seconds, rate, repetitions) = timed_read(context, &[cpu], node, size)?;
    let thread_rate = rate.clamp(MIN_RATE, MAX_RATE);
    // T = fixed + size x setup per byte + passes x size / rate.
    let passes = (repetitions + 1) as f64 + CALIBRATION_PASSES;
    let setup_seconds = (seconds - fixed - passes * size as f64 / thread_rate).max(0.0);
    let setup_rate = match setup_seconds > 0.0 {
        true => (size as f64 / setup_seconds).clamp(MIN_RATE, MAX_RATE),
        false => MAX_RATE,
    };
    let all = &topology.allowed.cpus;
    let all_rate = match all.len() > 1 {
        true => Some(
            timed_read(context, all, node, size)?
                .1
                .clamp(MIN_RATE, MAX_RATE),
        ),
        false => None,
    };
    // A chase: its load time where the size is past the caches in front,
    // and its build rate from the rest of its time.
    let chase_bytes = CHASE.min(size);
    let config = LatencyConfig {
        sizes: vec![chase_bytes],
        cpu,
        memory: MemoryPlacement::bind(node),
        order: ChaseOrder::default(),
        writer_cpu: None,
    };
    let start = Instant::now();
    let chase = measure_latency(context, &config, chase_bytes)?;
    let chase_seconds = start.elapsed().as_secs_f64();
    let mut nanoseconds = chase.nanoseconds_per_load.clone();
    nanoseconds.sort_by(f64::total_cmp);
    let median = nanoseconds
        .get(nanoseconds.len() / 2)
        .copied()
        .unwrap_or(0.0);
    let past_caches =
        chase_bytes >= CACHE_MULTIPLE * topology.cache_bytes_in_front(&[cpu], &[node]);
    let load_seconds = match past_caches && median > 0.0 {
        true => median * 1e-9,
        false => CostModel::ASSUMED.load_seconds,
    };
    let samples = nanoseconds.len().max(1) as f64;
    let sampling = samples * MIN_SAMPLE_SECONDS.max(chase.loads_per_sample as f64 * median * 1e-9);
    let chase_setup = (chase_seconds - fixed - sampling).max(chase_bytes as f64 / MAX_RATE);
    let mut model = CostModel {
        setup_bytes_per_second: setup_rate,
        chase_setup_bytes_per_second: (chase_bytes as f64 / chase_setup).clamp(MIN_RATE, MAX_RATE),
        thread_bytes_per_second: thread_rate,
        all_threads_bytes_per_second: all_rate,
        load_seconds,
        measurement_seconds: fixed,
        source: "calibrated",
        // The rates of the benchmarks' own kinds of cost, until their
        // calibrations below set them.
        ..CostModel::ASSUMED
    };
    for calibration in registry().iter().filter_map(|info| info.calibration) {
        (calibration.measure)(context, &mut model)?;
    }
    Ok(model)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On this machine the calibration measures rates within their bounds,
    /// and a plan estimated with them differs from the assumed one.
    #[test]
    fn this_machine_calibrates_every_rate() {
        let mut context = Context::new(crate::topology::discover_this_system().unwrap());
        context.repeat = 3;
        let model = calibrate_cost_model(&context).unwrap();
        assert_eq!(model.source, "calibrated");
        for rate in [
            model.setup_bytes_per_second,
            model.chase_setup_bytes_per_second,
            model.thread_bytes_per_second,
        ] {
            assert!((MIN_RATE..=MAX_RATE).contains(&rate), "{model:?}");
        }
        assert!(
            model.load_seconds > 1e-9 && model.load_seconds < 10e-6,
            "{model:?}"
        );
        assert!((0.0..=MAX_FIXED_SECONDS).contains(&model.measurement_seconds));
        assert!(model.c2c_repetition_seconds > 0.0 && model.c2c_repetition_seconds < 10.0);
        assert_ne!(model, CostModel::ASSUMED);
    }
}
