//! One measurement of a victim: its idle-load latency (a dependent chase)
//! and its read bandwidth (one thread streaming its buffer), alone or
//! while the aggressor's threads load the aggressor node with traffic.

use super::config::{Aggressor, Victim};
use crate::bench::context::Context;
use crate::bench::error::BenchError;
use crate::bench::latency::chase_page_bytes;
use crate::bench::moved::{note_moved, MoveWatch};
use crate::bench::placed::PlacedBuffer;
use crate::clock::Stopwatch;
use crate::kernels::traffic::{generate, wait_for_generators, TrafficMix};
use crate::kernels::{build_chase, chase, kernel_by_name, run_kernel, ChaseOrder, SimdLevel};
use crate::memory::MemoryPlacement;
use crate::output::PlacementCheck;
use crate::threads::run_pinned;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

/// Dependent loads timed per latency sample.
pub const LOADS_PER_SAMPLE: u64 = 1 << 16;

/// What one measurement of a victim found.
#[derive(Debug, Clone, PartialEq)]
pub struct VictimFound {
    /// ns per dependent load, one per repetition.
    pub latency_ns: Vec<f64>,
    /// GB/s of one thread reading the victim's buffer, one per repetition.
    pub bandwidth_gbs: Vec<f64>,
    /// The aggressors' traffic while the victim was timed, GB/s (0 alone).
    pub traffic_gbs: f64,
    /// Where the victim's pages are.
    pub check: PlacementCheck,
}

/// Measures `victim`, alone (`load` `None`) or while every aggressor
/// thread streams its own buffer on the aggressor node in `mix`.
pub fn measure_victim(
    context: &Context,
    victim: &Victim,
    load: Option<(&Aggressor, TrafficMix)>,
    (size, aggressor_size): (u64, u64),
) -> Result<VictimFound, BenchError> {
    let stop = AtomicBool::new(false);
    let bytes = AtomicU64::new(0);
    let started = AtomicUsize::new(0);
    let mut cpus = vec![victim.cpu];
    if let Some((aggressor, _)) = load {
        cpus.extend_from_slice(&aggressor.cpus);
    }
    let aggressors = cpus.len() - 1;
    let repeat = context.repeat.max(1);
    let results = run_pinned(&cpus, |worker| -> Result<Option<VictimFound>, BenchError> {
        let (node, bytes_here) = match (worker.index, load) {
            (0, _) | (_, None) => (victim.node, size),
            (_, Some((aggressor, _))) => (aggressor.node, aggressor_size),
        };
        let mut placed = PlacedBuffer::allocate(
            &context.topology,
            bytes_here as usize,
            MemoryPlacement::bind(node),
            context.hugepages,
        )?;
        if worker.index != 0 {
            placed.buffer.touch_pages();
            // The victim left with an error: nothing to load.
            if worker.barrier.wait().is_err() {
                return Ok(None);
            }
            let mix = load.map_or(TrafficMix::AllReads, |(_, mix)| mix);
            generate(placed.buffer.words_mut(), 0, mix, &stop, &bytes, &started);
            return Ok(None);
        }
        let block = ChaseOrder::default().block(size, chase_page_bytes(context));
        let start = build_chase(placed.buffer.words_mut(), 64, block.bytes as usize, 0x1f7e);
        let mut check = placed.verify(context.placement_threshold)?;
        let watch = MoveWatch::start();
        // Every worker has allocated and touched its buffer; a failed wait
        // means an aggressor could not (its error is in its own result).
        if worker.barrier.wait().is_err() {
            stop.store(true, Ordering::Relaxed);
            return Ok(None);
        }
        wait_for_generators(&started, aggressors);
        let stopwatch = Stopwatch::start();
        let bytes_before = bytes.load(Ordering::Relaxed);
        let words = placed.buffer.words();
        // SAFETY: `start` indexes the chain just built in `words`, which lives to the end.
        let mut pointer = unsafe { words.as_ptr().add(start) };
        // SAFETY: following the live chain (a warm-up pass of the TLB and the caches).
        pointer = unsafe { chase(pointer, (size / 64).min(LOADS_PER_SAMPLE)) };
        let mut latency_ns = Vec::with_capacity(repeat);
        for _ in 0..repeat {
            let sample = Stopwatch::start();
            // SAFETY: as above.
            pointer = unsafe { chase(pointer, LOADS_PER_SAMPLE) };
            latency_ns.push(sample.seconds() * 1e9 / LOADS_PER_SAMPLE as f64);
        }
        std::hint::black_box(pointer);
        let read = kernel_by_name("read").expect("the read kernel is registered");
        let level = SimdLevel::detect();
        let floats = placed.buffer.f64s_mut();
        let mut bandwidth_gbs = Vec::with_capacity(repeat);
        for _ in 0..repeat {
            let sample = Stopwatch::start();
            let sum = run_kernel(read, level, floats, &[], &[], 0.0);
            std::hint::black_box(sum);
            bandwidth_gbs.push(size as f64 / sample.seconds() / 1e9);
        }
        let traffic_gbs = match aggressors {
            0 => 0.0,
            _ => (bytes.load(Ordering::Relaxed) - bytes_before) as f64 / stopwatch.seconds() / 1e9,
        };
        stop.store(true, Ordering::Relaxed);
        note_moved(&watch, &mut check, || {
            placed.inspect(context.placement_threshold)
        })?;
        Ok(Some(VictimFound {
            latency_ns,
            bandwidth_gbs,
            traffic_gbs,
            check,
        }))
    })?;
    let mut found = None;
    for result in results {
        if let Some(value) = result? {
            found = Some(value);
        }
    }
    found.ok_or_else(|| BenchError::Invalid("the victim's worker stopped before measuring".into()))
}
