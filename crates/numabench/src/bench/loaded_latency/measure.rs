//! `loaded-latency`: the latency one chasing thread sees while the other
//! CPUs generate memory traffic to the same node with a decreasing delay
//! between requests — the latency-versus-bandwidth curve that MLC's loaded
//! latency and the Mess benchmark draw.

use crate::bench::context::Context;
use crate::bench::error::BenchError;
use crate::bench::latency::{chase_order_params, chase_page_bytes};
use crate::bench::moved::{note_moved, MoveWatch};
use crate::bench::placed::{working_set_params, PlacedBuffer};
use crate::clock::Stopwatch;
use crate::counters::memory_controller::{ControllerCounters, ControllerError};
use crate::interrupt::interrupted;
use crate::kernels::tail::{tail_of, time_batches, TailLatency, TailTimer};
pub use crate::kernels::traffic::TrafficMix;
use crate::kernels::traffic::{generate, wait_for_generators};
use crate::kernels::{build_chase, chase, ChaseBlock, ChaseOrder};
use crate::memory::MemoryPlacement;
use crate::output::{Pipeline, Placement, Record, Unit};
use crate::stats::Sample;
use crate::threads::run_pinned;
use numabench_schema::params::{to_params, LoadedLatencyParams, MemoryControllerParams};
use numabench_schema::RequestedPlacement;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

/// Delays (nop iterations, about one cycle each, between a generator's
/// cache-line requests) from light to full load.
pub const DEFAULT_DELAYS: &[u32] = &[2000, 1000, 500, 250, 120, 60, 30, 0];

/// A full curve (`--curve`), as Mess draws it: 24 delays, about 1.35x
/// apart, from light load to none, so that with the idle point every mix
/// has 25 points from idle to saturation.
pub const CURVE_DELAYS: &[u32] = &[
    4000, 3000, 2200, 1600, 1200, 900, 700, 500, 380, 280, 200, 150, 110, 80, 60, 45, 32, 24, 16,
    10, 6, 3, 1, 0,
];

/// A validated loaded-latency run.
#[derive(Debug, Clone)]
pub struct LoadedLatencyConfig {
    pub chaser_cpu: u32,
    pub generator_cpus: Vec<u32>,
    pub memory: MemoryPlacement,
    /// Working set of the chase and of each generator, bytes.
    pub size: u64,
    pub delays: Vec<u32>,
    pub mix: TrafficMix,
}

/// One point: latency under load and the traffic's bandwidth.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedPoint {
    /// `None` for the idle point (no generators).
    pub delay: Option<u32>,
    pub latency_ns: Sample,
    /// Percentiles of batches timed one by one under the same load.
    pub tail: Option<TailLatency>,
    pub traffic_gigabytes_per_second: f64,
    /// What the memory controllers counted meanwhile (GB/s read, written),
    /// or why they could not be counted.
    pub controller: Result<(f64, f64), ControllerError>,
    /// Where the chased buffer's pages are.
    pub check: crate::output::PlacementCheck,
}

/// Measures the idle point, then one point per delay.
pub fn run_loaded_latency(
    context: &Context,
    config: &LoadedLatencyConfig,
    pipeline: &mut Pipeline,
) -> Result<Vec<LoadedPoint>, BenchError> {
    let mut points = Vec::new();
    let controllers = ControllerCounters::open();
    let steps: Vec<Option<u32>> = std::iter::once(None)
        .chain(config.delays.iter().copied().map(Some))
        .collect();
    for delay in steps {
        if interrupted() {
            break;
        }
        let generators = if delay.is_some() {
            config.generator_cpus.clone()
        } else {
            Vec::new()
        };
        let point = measure_point(context, config, delay, &generators, controllers.as_ref())?;
        emit(context, config, &point, pipeline)?;
        points.push(point);
    }
    Ok(points)
}

/// What the chasing worker found: its samples (ns per load), the tail,
/// the traffic (GB/s), the controllers' (GB/s read, written) and where
/// its pages are.
type ChaserFound = (
    Vec<f64>,
    Option<TailLatency>,
    f64,
    Option<(f64, f64)>,
    crate::output::PlacementCheck,
);

fn measure_point(
    context: &Context,
    config: &LoadedLatencyConfig,
    delay: Option<u32>,
    generators: &[u32],
    controllers: Result<&ControllerCounters, &ControllerError>,
) -> Result<LoadedPoint, BenchError> {
    let stop = AtomicBool::new(false);
    let bytes = AtomicU64::new(0);
    let started = AtomicUsize::new(0);
    let mut cpus = vec![config.chaser_cpu];
    cpus.extend_from_slice(generators);
    let repeat = context.repeat.max(1);
    let results = run_pinned(&cpus, |worker| -> Result<Option<ChaserFound>, BenchError> {
        let mut placed = PlacedBuffer::allocate(
            &context.topology,
            config.size as usize,
            config.memory.clone(),
            context.hugepages,
        )?;
        if worker.index == 0 {
            let block = chase_block(context, config).bytes as usize;
            let start = build_chase(placed.buffer.words_mut(), 64, block, 0x10ad);
            let mut check = placed.verify(context.placement_threshold)?;
            let watch = MoveWatch::start();
            let words = placed.buffer.words();
            // SAFETY: `start` indexes the chain just built.
            let mut pointer = unsafe { words.as_ptr().add(start) };
            // SAFETY: following the live chain.
            pointer = unsafe { chase(pointer, (config.size / 64).min(1 << 22)) };
            // Generators are running from here; a failed wait means one of them could not
            // start (its error is reported from its own result).
            if worker.barrier.wait().is_err() {
                return Ok(None);
            }
            // The load is on before the chase is timed: every generator
            // has moved its first batch (a generator's thread may not
            // have been scheduled yet where CPUs are shared), or a
            // second has passed.
            wait_for_generators(&started, generators.len());
            let stopwatch = Stopwatch::start();
            let bytes_before = bytes.load(Ordering::Relaxed);
            let controller_before = controllers.ok().map(ControllerCounters::bytes);
            let loads = 1 << 16;
            let mut samples = Vec::with_capacity(repeat);
            for _ in 0..repeat {
                let sample = Stopwatch::start();
                // SAFETY: as above.
                pointer = unsafe { chase(pointer, loads) };
                samples.push(sample.seconds() * 1e9 / loads as f64);
            }
            // The tail, under the same load.
            let timer = TailTimer::best();
            let per_load = samples.last().map_or(1e-7, |ns| ns * 1e-9);
            // SAFETY: as above.
            let (pointer, batches) = unsafe { time_batches(pointer, per_load, timer) };
            let tail = tail_of(&batches, timer, context.histogram);
            let seconds = stopwatch.seconds();
            let traffic = (bytes.load(Ordering::Relaxed) - bytes_before) as f64 / seconds / 1e9;
            let controller = match (controllers, controller_before) {
                (Ok(counters), Some(before)) => {
                    let after = counters.bytes();
                    Some((
                        (after.read - before.read) / seconds / 1e9,
                        (after.write - before.write) / seconds / 1e9,
                    ))
                }
                _ => None,
            };
            stop.store(true, Ordering::Relaxed);
            std::hint::black_box(pointer);
            note_moved(&watch, &mut check, || {
                placed.inspect(context.placement_threshold)
            })?;
            Ok(Some((samples, tail, traffic, controller, check)))
        } else {
            placed.buffer.touch_pages();
            // Failed: the chaser or another generator left with an error; nothing to load.
            if worker.barrier.wait().is_err() {
                return Ok(None);
            }
            generate(
                placed.buffer.words_mut(),
                delay.unwrap_or(0),
                config.mix,
                &stop,
                &bytes,
                &started,
            );
            Ok(None)
        }
    })?;
    let mut found = None;
    for result in results {
        if let Some(value) = result? {
            found = Some(value);
        }
    }
    let (samples, tail, traffic, controller, check) = found
        .ok_or_else(|| BenchError::Invalid("the chasing worker stopped before measuring".into()))?;
    Ok(LoadedPoint {
        delay,
        latency_ns: Sample::new(samples).map_err(|error| BenchError::Invalid(error.to_string()))?,
        tail,
        traffic_gigabytes_per_second: traffic,
        controller: match (controller, controllers) {
            (Some(figures), _) => Ok(figures),
            (None, Err(reason)) => Err(reason.clone()),
            (None, Ok(_)) => Err(ControllerError::NotRead),
        },
        check,
    })
}

/// The chase's block: `latency`'s default order (random within TLB-sized
/// blocks), so the idle point is the idle latency `latency` reports.
fn chase_block(context: &Context, config: &LoadedLatencyConfig) -> ChaseBlock {
    ChaseOrder::default().block(config.size, chase_page_bytes(context))
}

fn emit(
    context: &Context,
    config: &LoadedLatencyConfig,
    point: &LoadedPoint,
    pipeline: &mut Pipeline,
) -> Result<(), BenchError> {
    // The chaser measures; the generators' buffers only load the memory.
    let working_set = working_set_params(
        &context.topology,
        config.size,
        &[config.chaser_cpu],
        &config.memory.expected_nodes(),
    );
    let params = LoadedLatencyParams {
        delay: point.delay,
        mix: Some(config.mix.name().to_string()),
        chaser_cpu: Some(config.chaser_cpu),
        cpu_node: context.topology.node_of_cpu(config.chaser_cpu),
        generators: Some(match point.delay {
            Some(_) => config.generator_cpus.len() as u64,
            None => 0,
        }),
        traffic_gbs: Some(point.traffic_gigabytes_per_second),
        size_bytes: working_set.size_bytes,
        tail: point.tail.clone(),
        memory_controller: Some(match &point.controller {
            Ok((read, write)) => MemoryControllerParams {
                read_gbs: Some(*read),
                write_gbs: Some(*write),
                total_gbs: Some(read + write),
                source: Some(CONTROLLER_SOURCE.to_string()),
                unavailable: None,
            },
            Err(reason) => MemoryControllerParams {
                unavailable: Some(reason.to_string()),
                ..MemoryControllerParams::default()
            },
        }),
        cache: working_set.cache,
        chase: chase_order_params(ChaseOrder::default(), &chase_block(context, config)),
    };
    let mut cpus = vec![config.chaser_cpu];
    if point.delay.is_some() {
        cpus.extend(&config.generator_cpus);
    }
    let requested = to_params(
        &config
            .memory
            .requested_on(RequestedPlacement::on_cpus(&cpus)),
    );
    let summary = point.latency_ns.summary();
    pipeline.emit(&Record {
        benchmark: "loaded-latency".into(),
        metric: "loaded_latency".into(),
        value: summary.median,
        unit: Unit::Nanoseconds,
        params: to_params(&params),
        placement: Placement {
            requested,
            verified: Some(point.check.clone()),
        },
        stats: summary,
    })?;
    Ok(())
}

/// What `memory_controller.source` says the counters count.
const CONTROLLER_SOURCE: &str = "uncore memory-controller counters (every process's traffic, prefetches and write-backs included)";
