//! `bandwidth`: pinned threads run one kernel over their own share of the
//! arrays, started together; the best repetition is the headline.

use crate::bench::calibration::TeamCalibration;
use crate::bench::context::Context;
use crate::bench::declared::measured_over_declared;
use crate::bench::error::BenchError;
use crate::bench::moved::{note_moved, MoveWatch};
use crate::bench::placed::{working_set_params, OwnedRange, PlacedBuffer};
use crate::clock::Stopwatch;
use crate::interrupt::interrupted;
use crate::kernels::{run_kernel, KernelSpec, SimdChoice, SimdLevel};
use crate::memory::MemoryPlacement;
use crate::output::{Pipeline, Placement, PlacementCheck, Record, Unit};
use crate::stats::{ConvergenceParams, Sample};
use crate::threads::run_pinned;
use numabench_schema::params::to_params;
use numabench_schema::params::{to_labelled_params, BandwidthParams};
use numabench_schema::RequestedPlacement;
use serde_json::Map;
use std::sync::Mutex;

/// Each repetition moves at least this many bytes, so small (cache-sized)
/// working sets are timed over many passes.
const MIN_BYTES_PER_REPETITION: u64 = 256 << 20;

/// The SIMD calibration runs each level over at least this many bytes per
/// trial (whole passes, at least one), so an in-cache working set is timed
/// over milliseconds, not microseconds: 64 MiB is about 0.3 ms at L1 speed
/// and one pass of a DRAM-sized set.
const CALIBRATION_BYTES_PER_TRIAL: u64 = 64 << 20;

/// Calibration trials (every level once per trial, in turn, each level's
/// best trial counting) when a trial is cheap: up to this many bytes per
/// level and trial. Larger (DRAM-sized) sets calibrate with one trial of
/// one pass per level, and then skip the warm-up the calibration replaces.
const CALIBRATION_TRIALS: usize = 3;
const CHEAP_TRIAL_BYTES: u64 = 256 << 20;

/// Array k starts k times this many bytes into its buffer: 17 cache lines,
/// so the streams' elements of one index do not share their low 12 address
/// bits. With page-aligned arrays the streams march through the same L1/L2
/// sets and, where memory channels interleave on bits below the page, the
/// same channel at the same moment; STREAM offsets its arrays for the same
/// reason. Chosen by measurement (docs/benchmarks.md): +1% on copy, triad
/// and copy-nt against page-aligned arrays here, 17 and 33 lines alike.
const ARRAY_STAGGER_BYTES: usize = 17 * 64;

/// A validated bandwidth run.
#[derive(Debug, Clone)]
pub struct BandwidthConfig {
    pub kernel: &'static KernelSpec,
    /// One worker per entry, pinned there.
    pub cpus: Vec<u32>,
    /// The whole working set (all arrays together), in bytes.
    pub size: u64,
    /// Where the arrays' pages go.
    pub memory: MemoryPlacement,
    /// Name of the benchmark the records are filed under (`bandwidth`, or a
    /// benchmark built on this one such as `contention`).
    pub benchmark: &'static str,
    /// Extra parameters recorded with the result (e.g. `cpu_node`, `mode`).
    pub labels: Map<String, serde_json::Value>,
}

impl BandwidthConfig {
    /// A `bandwidth` run of `kernel` on `cpus` with `memory` placement.
    pub fn new(
        kernel: &'static KernelSpec,
        cpus: Vec<u32>,
        size: u64,
        memory: MemoryPlacement,
    ) -> Self {
        Self {
            kernel,
            cpus,
            size,
            memory,
            benchmark: "bandwidth",
            labels: Map::new(),
        }
    }

    /// Files the records under another benchmark name, with labels.
    pub fn labelled(
        mut self,
        benchmark: &'static str,
        labels: Map<String, serde_json::Value>,
    ) -> Self {
        self.benchmark = benchmark;
        self.labels = labels;
        self
    }
}

/// What one bandwidth run measured.
#[derive(Debug, Clone)]
pub struct BandwidthResult {
    /// Aggregate GB/s per repetition.
    pub gigabytes_per_second: Sample,
    /// Per-thread GB/s in the best repetition, in plan order.
    pub per_thread: Vec<f64>,
    pub check: PlacementCheck,
    /// The SIMD level that ran, and how it was chosen.
    pub simd: SimdChoice,
    /// How many repetitions were taken and the median's interval reached
    /// ([`StoppingRule`], fed each repetition's time).
    pub convergence: ConvergenceParams,
}

/// Runs the kernel after one warm-up, at least 3 and at most
/// `context.repeat` times until the median's 95% interval is within ±1%
/// ([`StoppingRule`]), and returns
/// what it measured (no record emitted). Without `context.simd`, a short
/// calibration on the placed arrays first picks the fastest SIMD level
/// (remembered in the context for the same kernel, CPUs and size).
pub fn measure_bandwidth(
    context: &Context,
    config: &BandwidthConfig,
) -> Result<BandwidthResult, BenchError> {
    if let Some(backend) = &context.backend {
        return backend.bandwidth(context, config);
    }
    let kernel = config.kernel;
    let threads = config.cpus.len();
    let arrays = kernel.arrays();
    // Each thread's share of each array, a whole number of 64-byte lines.
    let elements_per_thread =
        ((config.size / arrays as u64 / threads as u64) / 8 / 8 * 8).max(8) as usize;
    let elements = elements_per_thread * threads;
    let buffers: Vec<PlacedBuffer> = (0..arrays)
        .map(|array| {
            PlacedBuffer::allocate(
                &context.topology,
                elements * 8 + array * ARRAY_STAGGER_BYTES,
                config.memory.clone(),
                context.hugepages,
            )
        })
        .collect::<Result<_, _>>()?;
    let bytes_per_pass = kernel.bytes_per_element() * elements as u64;
    let passes = MIN_BYTES_PER_REPETITION.div_ceil(bytes_per_pass).max(1);
    let rule = context.stopping_rule();
    let repeat = rule.max;
    let repetitions = Mutex::new(rule.start());
    // SIMD level: forced, calibrated earlier in this run, or calibrated below.
    let known = context
        .simd
        .map(SimdChoice::Forced)
        .or_else(|| context.calibration(kernel.name, &config.cpus, config.size));
    let calibration = known
        .is_none()
        .then(|| TeamCalibration::new(SimdLevel::supported()));
    let calibration_passes = CALIBRATION_BYTES_PER_TRIAL.div_ceil(bytes_per_pass).max(1);
    let calibration_trials = if bytes_per_pass * calibration_passes <= CHEAP_TRIAL_BYTES {
        CALIBRATION_TRIALS
    } else {
        1
    };
    // Raw addresses: each worker touches only its own disjoint share.
    let bases: Vec<usize> = buffers
        .iter()
        .enumerate()
        .map(|(array, placed)| placed.buffer.as_ptr() as usize + array * ARRAY_STAGGER_BYTES)
        .collect();
    let timings: Mutex<Vec<Vec<f64>>> = Mutex::new(vec![vec![0.0; threads]; repeat]);
    let wall: Mutex<Vec<f64>> = Mutex::new(Vec::new());
    let placement_checks: Mutex<Option<Result<Vec<PlacementCheck>, BenchError>>> = Mutex::new(None);
    // Where an array's pages are; with first touch, each share on its own
    // thread's node.
    let inspect_array = |array: usize, placed: &PlacedBuffer| match &config.memory {
        MemoryPlacement::FirstTouch { .. } => placed.inspect_owned(
            context.placement_threshold,
            &owned_shares(context, &config.cpus, array, elements_per_thread),
        ),
        _ => placed.inspect(context.placement_threshold),
    };
    // Before the first touch: pages the kernel moves before the check are
    // in the check; those it moves after are noted against it.
    let watch = MoveWatch::start();
    run_pinned(&config.cpus, |worker| {
        let offset = worker.index * elements_per_thread;
        let share = |array: usize| -> &mut [f64] {
            // SAFETY: shares of different workers are disjoint ranges of the same live buffer, and
            // each array index maps to a distinct buffer; the buffers outlive run_pinned.
            unsafe {
                std::slice::from_raw_parts_mut(
                    (bases[array] as *mut f64).add(offset),
                    elements_per_thread,
                )
            }
        };
        // First touch by the owning, pinned thread (places pages for first-touch; the policy
        // decides for bind/interleave). Values make triad's result checkable.
        for array in 0..arrays {
            share(array)
                .iter_mut()
                .for_each(|value| *value = 1.0 + array as f64);
        }
        // Verify where the pages went right after placement, before the timed runs (automatic
        // NUMA balancing may move or unmap pages later).
        if worker.barrier.wait().is_err() {
            return;
        }
        if worker.index == 0 {
            let found: Result<Vec<PlacementCheck>, BenchError> = buffers
                .iter()
                .enumerate()
                .map(|(array, placed)| inspect_array(array, placed))
                .collect();
            *placement_checks.lock().expect("no worker panicked") = Some(found);
        }
        let (a, b, c) = match arrays {
            1 => (share(0), &[][..], &[][..]),
            2 => (share(0), &*share(1), &[][..]),
            _ => (share(0), &*share(1), &*share(2)),
        };
        let mut checksum = 0.0;
        let simd = match (&known, &calibration) {
            (Some(choice), _) => {
                if worker.barrier.wait().is_err() {
                    return;
                }
                checksum += run_kernel(kernel, choice.level(), a, b, c, 3.0); // warm-up
                choice.level()
            }
            (None, Some(calibration)) => {
                let calibrated = calibration.run(worker, calibration_trials, |level| {
                    for _ in 0..calibration_passes {
                        checksum += run_kernel(kernel, level, a, b, c, 3.0);
                    }
                });
                // A failed wait: a peer left (worker 0 stopping on Ctrl-C, or an error).
                match calibrated {
                    Ok(level) => level,
                    Err(_) => return,
                }
            }
            (None, None) => unreachable!("a calibration is made when no level is known"),
        };
        for repetition in 0..repeat {
            // A failed wait: a peer left (worker 0 stopping on Ctrl-C, or an error).
            if worker.barrier.wait().is_err() {
                break;
            }
            let all = Stopwatch::start();
            let mine = Stopwatch::start();
            for _ in 0..passes {
                checksum += run_kernel(kernel, simd, a, b, c, 3.0);
            }
            let seconds = mine.seconds();
            if worker.barrier.wait().is_err() {
                break;
            }
            timings.lock().expect("no worker panicked")[repetition][worker.index] = seconds;
            // Worker 0 decides for everyone whether to stop (the median's
            // interval converged, the maximum, Ctrl-C); the others leave at
            // the next wait.
            if worker.index == 0 {
                let seconds = all.seconds();
                wall.lock().expect("no worker panicked").push(seconds);
                let mut repetitions = repetitions.lock().expect("no worker panicked");
                repetitions.push(seconds);
                if interrupted() && repetition > 0 {
                    repetitions.interrupt();
                }
                if repetitions.done() {
                    if repetition + 1 < repeat {
                        worker.barrier.abort();
                    }
                    break;
                }
            }
        }
        std::hint::black_box(checksum);
    })?;
    let mut checks = placement_checks
        .into_inner()
        .expect("no worker panicked")
        .expect("worker 0 verified the placement")?;
    for (array, (placed, check)) in buffers.iter().zip(checks.iter_mut()).enumerate() {
        note_moved(&watch, check, || inspect_array(array, placed))?;
    }
    let check = PlacementCheck::all_of(&checks);
    let simd = match (known, calibration) {
        (Some(choice), _) => choice,
        (None, calibration) => {
            let bytes = (bytes_per_pass * calibration_passes) as f64;
            let choice = calibration
                .expect("made when no level is known")
                .choice(bytes);
            context.remember_calibration(kernel.name, &config.cpus, config.size, choice.clone());
            choice
        }
    };
    let wall = wall.into_inner().expect("no worker panicked");
    if wall.is_empty() {
        return Err(BenchError::Invalid(
            "interrupted before any repetition finished".into(),
        ));
    }
    // A repetition the clock saw take no time cannot give a rate: a virtual
    // machine's clock can stand still while its CPUs' counters disagree.
    let timed: Vec<(usize, f64)> = wall
        .iter()
        .copied()
        .enumerate()
        .filter(|(_, seconds)| *seconds > 0.0)
        .collect();
    let total_bytes = (bytes_per_pass * passes) as f64;
    let rates = Sample::new(timed.iter().map(|(_, seconds)| total_bytes / seconds / 1e9))
        .map_err(|_| {
            BenchError::Invalid(format!(
                "the clock did not advance during any of the {} repetition(s): no rate can be computed",
                wall.len()
            ))
        })?;
    let best = timed
        .iter()
        .min_by(|x, y| x.1.total_cmp(&y.1))
        .map_or(0, |(index, _)| *index);
    let per_thread_bytes =
        (kernel.bytes_per_element() * elements_per_thread as u64 * passes) as f64;
    let per_thread = timings.into_inner().expect("no worker panicked")[best]
        .iter()
        .map(|seconds| per_thread_bytes / seconds / 1e9)
        .collect();
    Ok(BandwidthResult {
        gigabytes_per_second: rates,
        per_thread,
        check,
        simd,
        convergence: repetitions
            .into_inner()
            .expect("no worker panicked")
            .convergence(),
    })
}

/// The share of array `array` each thread touches first, with its node.
fn owned_shares(
    context: &Context,
    cpus: &[u32],
    array: usize,
    elements_per_thread: usize,
) -> Vec<OwnedRange> {
    cpus.iter()
        .enumerate()
        .filter_map(|(thread, &cpu)| {
            Some(OwnedRange {
                offset: array * ARRAY_STAGGER_BYTES + thread * elements_per_thread * 8,
                bytes: elements_per_thread * 8,
                node: context.topology.node_of_cpu(cpu)?,
            })
        })
        .collect()
}

/// Measures and emits one `bandwidth` record (GB/s, headline the best
/// repetition).
pub fn run_bandwidth(
    context: &Context,
    config: &BandwidthConfig,
    pipeline: &mut Pipeline,
) -> Result<BandwidthResult, BenchError> {
    let result = measure_bandwidth(context, config)?;
    let summary = result.gigabytes_per_second.summary();
    let params = BandwidthParams {
        kernel: Some(config.kernel.name.to_string()),
        threads: Some(config.cpus.len() as u64),
        working_set: working_set_params(
            &context.topology,
            config.size,
            &config.cpus,
            &config.memory.expected_nodes(),
        ),
        simd: result.simd.params(),
        hugepages: Some(context.hugepages),
        bytes_per_element: Some(config.kernel.bytes_per_element()),
        per_thread_gbs: Some(result.per_thread.clone()),
        measured_over_declared: measured_over_declared(
            &config.labels,
            summary.max,
            Unit::GigabytesPerSecond,
        ),
        convergence: Some(result.convergence),
    };
    let metric = format!("{}_bandwidth", config.kernel.name);
    pipeline.emit(&bandwidth_record(
        config.benchmark,
        &metric,
        config,
        &result,
        to_labelled_params(&config.labels, &params),
    ))?;
    Ok(result)
}

/// The record of one bandwidth measurement: headline the best repetition in
/// GB/s, placement as requested and as verified, `params` as given.
pub fn bandwidth_record(
    benchmark: &str,
    metric: &str,
    config: &BandwidthConfig,
    result: &BandwidthResult,
    params: Map<String, serde_json::Value>,
) -> Record {
    let requested = to_params(
        &config
            .memory
            .requested_on(RequestedPlacement::on_cpus(&config.cpus)),
    );
    let summary = result.gigabytes_per_second.summary();
    Record {
        benchmark: benchmark.into(),
        metric: metric.into(),
        value: summary.max,
        unit: Unit::GigabytesPerSecond,
        params,
        placement: Placement {
            requested,
            verified: Some(result.check.clone()),
        },
        stats: summary,
    }
}
