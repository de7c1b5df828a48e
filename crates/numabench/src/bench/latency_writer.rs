//! `latency --writer-cpu C`: the remote-cache chase. A thread pinned to C
//! writes the pointer chain, then the chasing thread follows it without any
//! flush, so its loads find the lines in Modified state in C's caches
//! (while the buffer fits there) and otherwise in memory, where C's
//! write-backs put them. Before every later pass C writes every line again,
//! so each pass reads lines C has just modified, not copies the chaser kept
//! from the pass before.

use super::context::Context;
use super::error::BenchError;
use super::latency::{LatencyConfig, LatencyMeasurement};
use super::placed::PlacedBuffer;
use crate::clock::Stopwatch;
use crate::interrupt::interrupted;
use crate::kernels::{build_chase, chase, core_clock_ghz, ChaseBlock};
use crate::memory::PAGE_SIZE;
use crate::threads::{current_cpu, run_pinned};
use numabench_schema::params::WriterParams;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// Each sample chases at least this many loads (several passes over a
/// small chain, each after C rewrote it): enough for the clock.
const MIN_LOADS_PER_SAMPLE: u64 = 1 << 14;

/// What the writer side of a remote-cache chase recorded.
#[derive(Debug, Clone, PartialEq)]
pub struct WriterPasses {
    /// The CPU that wrote the chain.
    pub writer_cpu: u32,
    /// ns per load of the very first pass, right after C built the chain.
    pub first_pass_ns: f64,
    /// Passes over the whole chain in each sample (C rewrites it before each).
    pub passes_per_sample: u64,
    /// The CPU the writer thread ran on while writing (sched_getcpu).
    pub writer_cpu_seen: u32,
    /// The CPU the chasing thread ran on while chasing (sched_getcpu).
    pub cpu_seen: u32,
}

/// Passes over a chain of `lines` lines that make one sample.
fn passes_per_sample(lines: u64) -> u64 {
    MIN_LOADS_PER_SAMPLE.div_ceil(lines.max(1)).max(1)
}

/// What a sample of the remote-cache chase measures (`params.samples_measure`).
fn samples_measure(same_cpu: bool) -> &'static str {
    if same_cpu {
        "the writer CPU is the chasing CPU: each pass reads, without flushing, lines this CPU just wrote, from its own caches (then memory), not another core's cache"
    } else {
        "each pass: the writer CPU writes every line (Modified in its caches), then the chasing CPU follows the chain once, without flushing; lines come from the writer's caches while the buffer fits there, else from memory; only the chase is timed"
    }
}

/// Writes every line again (same value), so each becomes Modified in the
/// calling CPU's cache and is invalidated everywhere else.
fn rewrite_lines(words: &mut [u64], words_per_line: usize) {
    for line in words.chunks_mut(words_per_line.max(1)) {
        // black_box hides the value, so the store cannot be dropped as a no-op.
        line[0] = std::hint::black_box(line[0]);
    }
}

/// Measures one size of the remote-cache chase: the buffer's pages are
/// placed by the writer's first touch (or the bind asked for), the
/// thread on `writer_cpu` builds the chain, the chasing thread follows it;
/// then `repeat` samples of [`passes_per_sample`] passes, each pass after
/// the writer rewrote every line.
pub(super) fn measure_written(
    context: &Context,
    config: &LatencyConfig,
    writer_cpu: u32,
    size: u64,
    line_bytes: u64,
    block: &ChaseBlock,
) -> Result<LatencyMeasurement, BenchError> {
    let repeat = context.repeat.max(1);
    // Mapped here, touched only by the pinned threads below.
    let placed = PlacedBuffer::allocate(
        &context.topology,
        size as usize,
        config.memory.clone(),
        context.hugepages,
    )?;
    let placed = Mutex::new(placed);
    let words_per_line = (line_bytes / 8).max(1) as usize;
    let lines = (size / line_bytes).max(2);
    let passes = passes_per_sample(lines);
    let rounds = 1 + repeat as u64 * passes;
    let start = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let seed = 0x5eed ^ size;
    let results = run_pinned(&[config.cpu, writer_cpu], |worker| {
        let chaser = worker.index == 0;
        let mut seen = u32::MAX;
        let mut pass_seconds = Vec::new();
        if !chaser {
            // First touch: every page from the writer, which builds the chain in its own
            // memory (or where the bind asked for): after its caches, the chaser reads
            // the writer's memory.
            let mut buffer = placed.lock().expect("not poisoned");
            for page in buffer.buffer.words_mut().chunks_mut(PAGE_SIZE / 8) {
                page[0] = 0;
            }
        }
        if worker.barrier.wait().is_err() {
            return (seen, pass_seconds, f64::NAN);
        }
        for round in 0..rounds {
            if !chaser {
                let mut buffer = placed.lock().expect("not poisoned");
                let words = buffer.buffer.words_mut();
                if round == 0 {
                    let first = build_chase(words, line_bytes as usize, block.bytes as usize, seed);
                    start.store(first, Ordering::SeqCst);
                } else {
                    rewrite_lines(words, words_per_line);
                }
                seen = current_cpu();
            }
            if worker.barrier.wait().is_err() {
                break;
            }
            if chaser {
                let buffer = placed.lock().expect("not poisoned");
                let words = buffer.buffer.words();
                // SAFETY: `start` indexes the chain the writer built in `words`; the lock is
                // held while chasing, so the chain is alive and unchanged.
                let pointer = unsafe { words.as_ptr().add(start.load(Ordering::SeqCst)) };
                let stopwatch = Stopwatch::start();
                // SAFETY: as above; a pass of `lines` loads goes once round the cycle.
                std::hint::black_box(unsafe { chase(pointer, lines) });
                pass_seconds.push(stopwatch.seconds());
                seen = current_cpu();
                if interrupted() && round > 0 && (round - 1) % passes == passes - 1 {
                    stop.store(true, Ordering::SeqCst);
                }
            }
            if worker.barrier.wait().is_err() || stop.load(Ordering::SeqCst) {
                break;
            }
        }
        // The chaser's core clock, measured on its CPU right after its passes.
        let ghz = if chaser { core_clock_ghz() } else { f64::NAN };
        (seen, pass_seconds, ghz)
    })?;
    let (cpu_seen, pass_seconds, ghz) = results[0].clone();
    let writer_cpu_seen = results[1].0;
    let mut placed = placed.into_inner().expect("not poisoned");
    let check = placed.verify(context.placement_threshold)?;
    let first_pass_ns = pass_seconds
        .first()
        .map_or(f64::NAN, |seconds| seconds * 1e9 / lines as f64);
    let nanoseconds_per_load = pass_seconds
        .get(1..)
        .unwrap_or_default()
        .chunks_exact(passes as usize)
        .map(|sample| sample.iter().sum::<f64>() * 1e9 / (passes * lines) as f64)
        .collect::<Vec<f64>>();
    let core_ghz = vec![ghz; nanoseconds_per_load.len()];
    Ok(LatencyMeasurement {
        nanoseconds_per_load,
        core_ghz,
        loads_per_sample: passes * lines,
        check,
        block: block.clone(),
        writer: Some(WriterPasses {
            writer_cpu,
            first_pass_ns,
            passes_per_sample: passes,
            writer_cpu_seen,
            cpu_seen,
        }),
        convergence: None,
        tail: None,
    })
}

/// The remote-cache chase's params: `writer_cpu`, `writer_node`,
/// `writer_same_cpu`, `first_pass_ns` (when finite), `passes_per_sample`,
/// `writer_cpu_seen`, `cpu_seen` and `samples_measure`.
pub(super) fn writer_params(
    writer: &WriterPasses,
    writer_node: Option<u32>,
    cpu: u32,
) -> WriterParams {
    let same_cpu = writer.writer_cpu == cpu;
    WriterParams {
        writer_cpu: writer.writer_cpu,
        writer_node,
        writer_same_cpu: Some(same_cpu),
        first_pass_ns: Some(writer.first_pass_ns).filter(|ns| ns.is_finite()),
        passes_per_sample: Some(writer.passes_per_sample),
        writer_cpu_seen: Some(writer.writer_cpu_seen),
        cpu_seen: Some(writer.cpu_seen),
        samples_measure: Some(samples_measure(same_cpu).to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_chains_take_several_passes_per_sample_large_ones_one() {
        assert_eq!(passes_per_sample(1024), 16);
        assert_eq!(passes_per_sample(1000), 17);
        assert_eq!(passes_per_sample(1 << 24), 1);
        assert_eq!(passes_per_sample(0), MIN_LOADS_PER_SAMPLE);
    }

    #[test]
    fn rewriting_keeps_the_chain() {
        let mut words: Vec<u64> = (0..64).collect();
        let before = words.clone();
        rewrite_lines(&mut words, 8);
        assert_eq!(words, before);
    }

    #[test]
    fn the_same_cpu_is_noted_in_the_params() {
        let writer = WriterPasses {
            writer_cpu: 1,
            first_pass_ns: 3.0,
            passes_per_sample: 16,
            writer_cpu_seen: 1,
            cpu_seen: 1,
        };
        let params = writer_params(&writer, Some(0), 1);
        assert_eq!(params.writer_same_cpu, Some(true));
        assert!(params
            .samples_measure
            .is_some_and(|text| text.contains("not another core's cache")));
        let other = writer_params(&writer, Some(0), 0);
        assert_eq!(other.writer_same_cpu, Some(false));
        assert_eq!(other.first_pass_ns, Some(3.0));
        let no_pass = WriterPasses {
            first_pass_ns: f64::NAN,
            ..writer
        };
        let interrupted = writer_params(&no_pass, None, 0);
        assert_eq!(interrupted.first_pass_ns, None);
    }
}
